"""``ratings site --out DIR`` touches only its own files: it removes only pages it wrote, refuses
a non-empty folder it did not make, ``/`` and the home folder, and never follows a symlink out
of DIR."""

from __future__ import annotations

import shutil
from datetime import date
from pathlib import Path

import pytest

import warehouse
import website
from tests.reliability.cli import ratings
from tests.website.conftest import FED, SmallSeason


def _copy(small_site: Path, tmp_path: Path) -> Path:
    site = tmp_path / "site"
    shutil.copytree(small_site, site, symlinks=True)
    return site


def test_a_file_the_site_did_not_write_is_never_removed(small_site: Path, small_season: SmallSeason,
                                                        tmp_path: Path) -> None:
    site = _copy(small_site, tmp_path)
    mine = site / FED / "players" / "my-notes.html"
    mine.write_text("the officer's own page", encoding="utf-8")
    result = website.build_site(warehouse.get_engine(small_season.url), site, generated=date(2026, 1, 1))
    assert result.removed == 0
    assert mine.read_text(encoding="utf-8") == "the officer's own page"


def test_a_non_empty_folder_it_did_not_make_is_refused(small_season: SmallSeason, tmp_path: Path) -> None:
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "index.html").write_text("my own home page", encoding="utf-8")
    with pytest.raises(website.SiteError, match="is not empty and holds no site of ours"):
        website.build_site(warehouse.get_engine(small_season.url), folder)
    assert [p.name for p in folder.iterdir()] == ["index.html"]
    assert (folder / "index.html").read_text(encoding="utf-8") == "my own home page"
    empty = tmp_path / "empty"
    empty.mkdir()
    assert website.build_site(warehouse.get_engine(small_season.url), empty).pages > 0


def test_the_root_and_the_home_folder_are_refused(small_season: SmallSeason, tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    db = warehouse.get_engine(small_season.url)
    with pytest.raises(website.SiteError, match="is the root folder"):
        website.build_site(db, Path("/"))
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    with pytest.raises(website.SiteError, match="is the home folder"):
        website.build_site(db, home)
    assert list(home.iterdir()) == []


def test_a_symlink_planted_in_the_folder_is_not_followed_out_of_it(small_site: Path, small_season: SmallSeason,
                                                                   tmp_path: Path) -> None:
    site = _copy(small_site, tmp_path)
    outside = tmp_path / "outside"
    outside.mkdir()
    shutil.rmtree(site / FED / "players")
    (site / FED / "players").symlink_to(outside)
    (site / ".pages.json").unlink()   # every page is rendered again, so the planted folder is reached
    (site / ".pages.json").write_text('{"files": []}', encoding="utf-8")
    with pytest.raises(website.SiteError, match="leads out of the site folder"):
        website.build_site(warehouse.get_engine(small_season.url), site, generated=date(2026, 1, 1))
    assert list(outside.iterdir()) == []


def test_the_command_says_it_in_one_line(small_season: SmallSeason, tmp_path: Path) -> None:
    shutil.copy(small_season.url.removeprefix("sqlite:///"), tmp_path / "w.db")
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("mine", encoding="utf-8")
    for out, says in (("/", "is the root folder"), ("mine", "is not empty and holds no site of ours")):
        done = ratings(tmp_path, "site", "--out", out, "--warehouse", f"sqlite:///{tmp_path / 'w.db'}")
        assert done.returncode == 1, done.stdout + done.stderr
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and says in lines[0] and lines[0].startswith("ratings: "), done.stderr
    assert [p.name for p in (tmp_path / "mine").iterdir()] == ["notes.txt"]
