"""Uploaded files placed into the inbox: all at once, never over another file, never outside it."""

from __future__ import annotations

import datetime as dt
import os
import time
from pathlib import Path

import pytest

from desk.uploads import STALE_HOURS, UploadError, check_name, place_in_inbox, remove_stale, staging


def _staged(inbox: Path, upload_id: str, files: dict[str, bytes]) -> Path:
    folder = staging(inbox, upload_id)
    folder.mkdir(parents=True, exist_ok=True)
    for name, data in files.items():
        (folder / name).write_bytes(data)
    return folder


def test_an_upload_lands_whole_under_its_organiser_and_never_twice(tmp_path: Path) -> None:
    inbox = tmp_path / "inbox"
    files = {"T.ini": b"ini", "T.1.rnd": b"r1", "T.trn": b"trn"}
    staged = _staged(inbox, "abc123", files)
    when = dt.datetime(2026, 12, 3, 12, 0, tzinfo=dt.UTC)
    placed = place_in_inbox(inbox, "ajusc", "anna", "abc123", staged, list(files), now=when)
    assert [Path(p).parts[:2] for p in placed] == [("ajusc", "anna")] * 3
    assert len({Path(p).parent for p in placed}) == 1   # one folder: a Swiss Perfect set stays together
    assert {Path(p).name: (inbox / p).read_bytes() for p in placed} == files
    assert staged.is_dir() and not list(staged.iterdir())   # the copies went, the folder (its report) stays
    again = _staged(inbox, "abc123", files)
    with pytest.raises(UploadError, match="in the inbox already"):
        place_in_inbox(inbox, "ajusc", "anna", "abc123", again, list(files), now=when)
    assert {Path(p).name: (inbox / p).read_bytes() for p in placed} == files


def test_hostile_folder_parts_stay_inside_the_inbox(tmp_path: Path) -> None:
    inbox = tmp_path / "inbox"
    staged = _staged(inbox, "id1", {"a.results.csv": b"x"})
    placed = place_in_inbox(inbox, "../..", "../../etc", "id1", staged, ["a.results.csv"])
    assert (inbox / placed[0]).resolve().is_relative_to(inbox.resolve())
    assert not (tmp_path / "etc").exists()
    for name in ("../x.csv", "a/b.csv", "a\\b.csv", ".x", "..", "", "a\x00b.csv", "a\u202eb.csv"):
        with pytest.raises(UploadError):
            check_name(name)


def test_stale_staged_uploads_are_removed(tmp_path: Path) -> None:
    inbox = tmp_path / "inbox"
    old, new = _staged(inbox, "old", {"a.csv": b"1"}), _staged(inbox, "new", {"b.csv": b"2"})
    past = time.time() - (STALE_HOURS + 1) * 3600
    os.utime(old, (past, past))
    assert remove_stale(inbox) == 1
    assert not old.exists() and new.exists()
