"""A large inbox taken in blocks of months (``tasks/_inbox_blocks.py``, the nightly's ``block_games``).

The outcome of a run in blocks is checked against the one batch's on the real AJUSC season and the
mixed night (``test_official_season.py``, ``test_canonical_dump.py``). Here: the plan's invariants
(hypothesis), and a federation stopped by an internal error in its first block, whose later blocks
wait for the next run instead of being rated over a gap.

Source: ``../shared/data/ajusc/barruf_2025_26/results`` (SOURCES.tsv).
"""

from __future__ import annotations

import itertools
import shutil
from datetime import date, timedelta
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from sqlalchemy import text

import warehouse
from flows import errors
from tasks._inbox_blocks import UnitSpan, blocks_of
from tests.reliability.cli import ratings

START = date(2024, 1, 1)


@st.composite
def spans(draw: st.DrawFn) -> list[UnitSpan]:
    """Files of 0-50 games over two years, some spanning months, some without a date."""
    out = []
    for i in range(draw(st.integers(0, 25))):
        games = draw(st.integers(0, 50))
        if draw(st.integers(0, 9)) == 0:
            out.append(UnitSpan(f"u{i}", games))
            continue
        first = START + timedelta(days=draw(st.integers(0, 730)))
        out.append(UnitSpan(f"u{i}", games, first, first + timedelta(days=draw(st.integers(0, 45)))))
    return out


def _month(day: date | None) -> tuple[int, int]:
    assert day is not None
    return day.year, day.month


@given(spans(), st.integers(0, 120))
def test_blocks_are_whole_months_in_date_order(units: list[UnitSpan], budget: int) -> None:
    blocks = blocks_of(units, budget)
    by_key = {u.key: u for u in units}
    # Every unit in exactly one block.
    assert sorted(k for block in blocks for k in block) == sorted(by_key)
    assert all(blocks) or blocks == [[]]
    # A later block's files all start in a later month than every earlier file ends.
    for i in range(1, len(blocks)):
        before = [by_key[k] for block in blocks[:i] for k in block if by_key[k].last is not None]
        after = [by_key[k] for block in blocks[i:] for k in block]
        assert all(u.first is not None for u in after), "a file without a date goes with the first block"
        assert max(_month(u.last) for u in before) < min(_month(u.first) for u in after)
    # Cut as soon as the budget is reached: a block and the next one's first file exceed it.
    for block, following in itertools.pairwise(blocks):
        assert sum(by_key[k].games for k in block) + by_key[following[0]].games > budget
    # One block when everything fits, or when no budget is set.
    if budget <= 0 or sum(u.games for u in units) <= budget:
        assert len(blocks) == 1


def test_no_block_ends_with_the_month_of_the_2022_adjustment() -> None:
    """FIDE raised rapid and blitz ratings on 1 October 2022 (RULES.md): a block ending in October
    2022 would leave a checkpoint the next block cannot continue from (``rating.continued``), and
    the next block would re-rate from the seed (measured: 6 GB at 5M games). October goes with
    November."""
    sep, oct_, nov = (UnitSpan(f"2022-{m}", 10, date(2022, m, 3), date(2022, m, 20)) for m in (9, 10, 11))
    dec = UnitSpan("2022-12", 10, date(2022, 12, 3), date(2022, 12, 20))
    assert blocks_of([sep, oct_, nov, dec], 10) == [["2022-9"], ["2022-10", "2022-11"], ["2022-12"]]


def test_one_competition_in_two_files_or_an_aliases_file_keeps_one_block() -> None:
    jan = UnitSpan("jan", 10, date(2025, 1, 4), date(2025, 1, 5), frozenset({("ajusc", "C1")}))
    mar = UnitSpan("mar", 10, date(2025, 3, 4), date(2025, 3, 5), frozenset({("ajusc", "C2")}))
    assert blocks_of([jan, mar], 5) == [["jan"], ["mar"]]
    fixed = UnitSpan("fixed", 10, date(2025, 3, 4), date(2025, 3, 5), frozenset({("ajusc", "C1")}))
    assert blocks_of([jan, mar, fixed], 5) == [["jan", "mar", "fixed"]]
    aliases = UnitSpan("who-is-who", 0, whole_night=True)
    assert blocks_of([jan, mar, aliases], 5) == [["jan", "mar", "who-is-who"]]


@pytest.mark.slow
def test_a_federation_stopped_in_its_first_block_waits_for_the_next_run(shared_data: Path, tmp_path: Path) -> None:
    """Its later blocks are not rated over the gap the stopped one left: every file of it says it is
    not finished, nothing of it is loaded, and the next run takes the whole season, in blocks."""
    season = shared_data / "ajusc" / "barruf_2025_26"
    results = season / "results"
    shutil.copytree(results, tmp_path / "inbox")
    url = f"sqlite:///{tmp_path / 'w.db'}"
    seeded = ratings(tmp_path, "seed", "--federation", "ajusc", str(season / "season.ratings.csv"), "--warehouse", url)
    assert seeded.returncode == errors.EXIT_OK, seeded.stderr[-3000:]
    args = ("run", "--inbox", "inbox", "--warehouse", url, "--as-of", "2026-08-31", "--no-site",
            "--no-deliver", "--block-games", "1")
    failed = ratings(tmp_path, *args, RATINGS_FAULT_AT="rate:1", RATINGS_ORCHESTRATOR="local")

    assert failed.returncode == errors.EXIT_INTERNAL, failed.stderr[-3000:]
    assert "Traceback" not in failed.stdout + failed.stderr
    for name in sorted(p.name for p in results.iterdir()):
        assert name in failed.stdout, failed.stdout
    assert failed.stdout.count("not finished: internal error") == len(list(results.iterdir())), failed.stdout
    db = warehouse.get_engine(url)
    assert warehouse.history(db, "ajusc").competitions.height == 0
    assert warehouse.editions(db, "ajusc").height == 0   # the seed's edition 190 only

    again = ratings(tmp_path, *args, RATINGS_ORCHESTRATOR="local")
    assert again.returncode == errors.EXIT_OK, again.stderr[-3000:]
    assert warehouse.history(db, "ajusc").competitions.height == 20
    assert warehouse.editions(db, "ajusc").get_column("edition").to_list() == list(range(191, 211))
    with db.connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM loads WHERE federation = 'ajusc'")).scalar_one() > 1
