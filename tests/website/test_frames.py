"""What a site generation keeps of the warehouse for the next one (``website.frames``):
the frames it gives are always the warehouse's, and it reads only what changed."""

from __future__ import annotations

import shutil
from datetime import date
from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal
from sqlalchemy import Engine

import warehouse
import warehouse.load
import website
import website.build
from tests.website.conftest import COMPETITIONS, FED, build_small_season, load_derived_tail
from warehouse import site as queries
from website import frames


class _Reads:
    """The ``lists`` and ``from_seq`` of every site_lines / site_changes call."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.lines: list[tuple[int, int] | None] = []
        self.changes: list[int] = []
        lines, changes = queries.site_lines, queries.site_changes

        def spy_lines(engine: Engine, federation: str, *, lists: tuple[int, int] | None = None) -> pl.DataFrame:
            self.lines.append(lists)
            return lines(engine, federation, lists=lists)

        def spy_changes(engine: Engine, federation: str, *, from_seq: int = 0) -> pl.DataFrame:
            self.changes.append(from_seq)
            return changes(engine, federation, from_seq=from_seq)

        monkeypatch.setattr(queries, "site_lines", spy_lines)
        monkeypatch.setattr(queries, "site_changes", spy_changes)

    def clear(self) -> None:
        self.lines.clear()
        self.changes.clear()


def _assert_true_to(db: Engine, out: Path) -> None:
    """The frames the module gives (and so the ones it keeps) are the warehouse's, row for row."""
    assert_frame_equal(frames.lines(db, FED, out), queries.site_lines(db, FED))
    assert_frame_equal(frames.changes(db, FED, out), queries.site_changes(db, FED))


def test_each_night_reads_only_the_new_editions_and_the_changes_from_the_first_block_moved(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(website.build, "FULL_LINES", 1)         # large-archive mode from the first night
    monkeypatch.setattr(warehouse.load, "DERIVED_BLOCK", 5)     # several blocks of changes
    url = f"sqlite:///{tmp_path / 'ratings.db'}"
    out = tmp_path / "site"
    reads = _Reads(monkeypatch)
    for night in range(1, len(COMPETITIONS) + 1):
        build_small_season(url, night, loaded=night - 1)
        db = warehouse.get_engine(url)
        heads = queries.site_list_heads(db, FED)
        blocks = queries.site_derived_blocks(db, FED, "rating_changes")
        assert blocks is not None and len(blocks) > 1
        reads.clear()
        website.build_site(db, out, generated=date(2026, 1, 1))
        upto = heads.get_column("list_id").max()
        if night == 1:
            assert (reads.lines, reads.changes) == ([(0, upto)], [0])
        else:
            # The night published one edition: only its lines are read.
            assert reads.lines == [(heads.get_column("list_id")[-2], upto)]
            (start,) = reads.changes
            assert start > 0 and start % 5 == 0
        _assert_true_to(db, out)
        reads.clear()
        # Nothing changed since: nothing is read again.
        assert_frame_equal(frames.lines(db, FED, out), queries.site_lines(db, FED))
        assert_frame_equal(frames.changes(db, FED, out), queries.site_changes(db, FED))
        assert reads.lines == [None] and reads.changes == [0]   # the two direct reads above only
        db.dispose()


def test_a_rewritten_tail_of_changes_is_read_from_its_block(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(warehouse.load, "DERIVED_BLOCK", 5)
    url = f"sqlite:///{tmp_path / 'ratings.db'}"
    build_small_season(url)
    db = warehouse.get_engine(url)
    out = tmp_path / "site"
    website.build_site(db, out, generated=date(2026, 1, 1))
    stored = queries.site_changes(db, FED)
    last = stored.height - 1
    tail = stored.slice(last).with_columns(pl.col("rating_after") + 1.0).drop("seq")
    n_explanations = queries.site_explanations(db, FED).height
    load_derived_tail(db, (last, n_explanations), changes=tail)
    reads = _Reads(monkeypatch)
    changed = frames.changes(db, FED, out)
    assert reads.changes == [last - last % 5]
    assert changed.get_column("rating_after")[-1] == stored.get_column("rating_after")[-1] + 1.0
    _assert_true_to(db, out)


def test_frames_kept_for_another_warehouse_or_damaged_are_not_used(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(website.build, "FULL_LINES", 8)
    urls = [f"sqlite:///{tmp_path / name}" for name in ("a.db", "b.db")]
    build_small_season(urls[0])
    build_small_season(urls[1], len(COMPETITIONS) - 1)
    a, b = (warehouse.get_engine(u) for u in urls)
    site_a, site_b = tmp_path / "a", tmp_path / "b"
    website.build_site(a, site_a, generated=date(2026, 1, 1))
    # B's site folder with A's frames: B has fewer editions and other changes.
    shutil.copytree(site_a / frames.FOLDER, site_b / frames.FOLDER)
    _assert_true_to(b, site_b)
    # A damaged file, and a file from another version of the module, are read as absent.
    for damage in (b"not parquet", None):
        for path in (site_a / frames.FOLDER).glob("*.parquet"):
            if damage is None:
                meta = path.with_suffix(".json")
                meta.write_text(meta.read_text(encoding="utf-8").replace('"version": 1', '"version": 0'),
                                encoding="utf-8")
            else:
                path.write_bytes(damage)
        reads = _Reads(monkeypatch)
        _assert_true_to(a, site_a)
        assert reads.lines[0] == (0, queries.site_list_heads(a, FED).get_column("list_id").max())
        assert reads.changes == [0, 0]   # the module's read from the first row, then the direct one
        monkeypatch.undo()
        monkeypatch.setattr(website.build, "FULL_LINES", 8)


def test_a_site_folder_where_frames_cannot_be_kept_still_gets_its_pages(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'ratings.db'}"
    build_small_season(url)
    db = warehouse.get_engine(url)
    out = tmp_path / "site"
    out.mkdir()
    (out / frames.FOLDER).write_text("a file where the folder would be", encoding="utf-8")
    made = website.build_site(db, out, generated=date(2026, 1, 1))
    fresh = website.build_site(db, tmp_path / "fresh", generated=date(2026, 1, 1))
    assert made.pages == fresh.pages > 0
    _assert_true_to(db, out)
    assert (out / frames.FOLDER).read_text(encoding="utf-8") == "a file where the folder would be"
