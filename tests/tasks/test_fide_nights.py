"""A FIDE night's cost follows the period it changes, not the archive.

What comes before the earliest period a night changes is what the warehouse holds already, so:

- the rows of the three lists are stored period by period (a night's rows are a tail of ``seq``,
  and the load rewrites only that tail);
- a night continues from the checkpoint the night before stored (the start of the last period it
  rated), and leaves the next one; a late file re-rates from the seed; the rows are night by night
  those of the whole history rated at once;
- publication rebuilds and compares the published editions from that period on only, and a
  late file still gets its correcting edition.

Runs the rating and publication steps without Prefect, as ``test_editions.py`` does.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import date
from pathlib import Path
from typing import Any

import polars as pl
import pytest
import sqlalchemy as sa
from polars.testing import assert_frame_equal
from sqlalchemy import Engine

import warehouse
from flows.config import federation_config
from formats.schema import PLAYERS_SCHEMA, conform
from tests.tasks.test_editions import _fed_batch, _fide_event, _rate_and_publish
from tests.warehouse.conftest import batch_from_interchange

PAIRS = [("1", "2", 0.0), ("3", "4", 1.0), ("1", "3", 0.5), ("2", "4", 0.5)]
SEED = pl.DataFrame({"player_id": ["1", "2", "3", "4"], "rating": [2000.0, 1900.0, 1800.0, 1700.0],
                     "games": [100] * 4, "k": [20] * 4, "as_of": date(2025, 9, 1)})
#: (night's date, events: id, day, modality)
NIGHTS = [
    (date(2025, 11, 2), [("S1", "2025-10-04", "standard"), ("R1", "2025-10-11", "rapid")]),
    (date(2025, 12, 2), [("S2", "2025-11-08", "standard"), ("R2", "2025-11-15", "rapid")]),
    (date(2026, 1, 2), [("S3", "2025-12-06", "standard"), ("B3", "2025-12-13", "blitz")]),
    (date(2026, 1, 20), [("S4", "2026-01-10", "standard")]),        # the period in progress
    (date(2026, 1, 21), [("LATE", "2025-11-22", "standard")]),      # a file that arrives late
    (date(2026, 1, 22), [("S3", "2026-01-15", "standard")]),        # S3 corrected: moved into January
    (date(2026, 1, 28), [("S5", "2026-01-25", "standard")]),        # goes on from the corrected state
]


def _batch(folder: Path, events: list[tuple[str, str, str]]) -> Any:
    paths = [_fide_event(folder, cid, day, modality, PAIRS[i % 2:] + PAIRS[:i % 2])
             for i, (cid, day, modality) in enumerate(events)]
    declared = pl.DataFrame({"federation": "fide", "player_id": ["1", "2", "3", "4"],
                             "declared_rating": [1500.0, 1600.0, 1700.0, 1800.0]})
    return replace(_fed_batch(batch_from_interchange(paths, "fide")), players=conform(declared, PLAYERS_SCHEMA))


def _derived(db: Engine) -> dict[str, pl.DataFrame]:
    with db.connect() as conn:
        return {table: pl.DataFrame(conn.execute(sa.text(
            f"SELECT competition_id, period, player_id, rating_after FROM {table} WHERE federation = 'fide'"
            " ORDER BY seq" if table == "rating_changes" else
            f"SELECT player_id, rating, games, status FROM {table} WHERE federation = 'fide' ORDER BY player_id"
        )).all(), orient="row") for table in ("rating_changes", "ratings")}


def test_a_fide_night_rechecks_only_the_editions_from_the_period_it_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = federation_config("fide")
    db = warehouse.get_engine(f"sqlite:///{tmp_path / 'nights.db'}")
    warehouse.load_seed(db, "fide", SEED, source="s.ratings.csv", source_sha256="s")
    read: list[tuple[str | None, list[int]]] = []
    contents = warehouse.edition_contents

    def spy(engine: Engine, federation: str, wanted: list[int], **kw: Any) -> Any:
        read.append((kw.get("list_name"), list(wanted)))
        return contents(engine, federation, wanted, **kw)

    monkeypatch.setattr(warehouse, "edition_contents", spy)
    checked: dict[str, list[int]] = {}
    for n, (day, events) in enumerate(NIGHTS):
        read.clear()
        folder = tmp_path / f"night-{n}"
        folder.mkdir()
        rated, done = _rate_and_publish(db, "fide", _batch(folder, events), config, day)
        checked[events[0][0]] = sorted(e for _, wanted in read for e in wanted)
        # Each night continues from the checkpoint the night before left (the start of the last
        # period it rated), but the first and the late one, which re-rate from the seed.
        assert rated.cut == (None if n in (0, 4, 5) else
                             ["2025-11-01", "2025-12-01", "2026-01-01", None, None, "2026-02-01"][n - 1])
        assert (rated.derived_offset is None) == (n in (0, 4, 5))
        # ... and leaves one at the start of the last period it rated, for each list rated so far.
        assert {c.point for c in rated.checkpoints} == {["2025-11-01", "2025-12-01", "2026-01-01", "2026-02-01",
                                                         "2026-02-01", "2026-02-01", "2026-02-01"][n]}
        assert len(rated.checkpoints) == (2 if n < 2 else 3)
        if events[0][0] == "S4":
            # The period in progress (the list of 2026-02-01): no published edition can have changed.
            assert rated.unchanged_before == "2026-02-01"
            assert checked["S4"] == [] and done.numbers == [] and done.correcting is None
        if events[0][0] == "LATE":
            assert rated.unchanged_before == "2025-12-01"
            assert done.correcting is not None
        # A competition sent again replaces its earlier version (S3's correction moves it).
        so_far = {cid: (cid, d, m) for _, evs in NIGHTS[:n + 1] for cid, d, m in evs}
        _same_as_the_whole_history(tmp_path, db, list(so_far.values()), day, n)

    editions = warehouse.editions(db, "fide", all_lists=True, first_list="standard")
    covers = dict(zip(editions.get_column("edition").to_list(), editions.get_column("covers").to_list(), strict=True))
    # The late file re-checks the editions of its period on (standard, rapid and blitz), and no earlier one.
    assert checked["LATE"] and min(covers[e] for e in checked["LATE"]) == "2025-12-01"
    assert all(covers[e] >= "2025-12-01" for e in checked["LATE"])
    assert {c for c in covers.values() if c is not None} > {covers[e] for e in checked["LATE"]}

    # The stored rows are in rating order period by period, every list's rows of a period together.
    with db.connect() as conn:
        periods = conn.execute(sa.text(
            "SELECT period FROM rating_changes WHERE federation = 'fide' ORDER BY seq")).scalars().all()
        explained = conn.execute(sa.text(
            "SELECT period FROM explanations WHERE federation = 'fide' ORDER BY seq")).scalars().all()
    assert periods == sorted(periods) and explained == sorted(explained)
    assert len(set(periods)) >= 3


def _same_as_the_whole_history(tmp_path: Path, db: Engine, events: list[tuple[str, str, str]], day: date,
                               n: int) -> None:
    """The stored rows are those of the history so far rated at once from the seed, in the same order."""
    whole = warehouse.get_engine(f"sqlite:///{tmp_path / f'whole-{n}.db'}")
    warehouse.load_seed(whole, "fide", SEED, source="s.ratings.csv", source_sha256="s")
    folder = tmp_path / f"whole-{n}"
    folder.mkdir()
    _rate_and_publish(whole, "fide", _batch(folder, events), federation_config("fide"), day, full=True)
    for table, frame in _derived(whole).items():
        assert_frame_equal(_derived(db)[table], frame)
