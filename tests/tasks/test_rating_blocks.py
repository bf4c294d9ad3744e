"""A history re-rated from the seed in blocks of months (``rating.blocks``: the what-if's run, the
backfill's) equals the run from the seed over every game at once: the same ratings, player for
player, and, gathered as a backfill gathers them (``BlockRows``), the same rows and editions.

Hypothesis draws FIDE histories as ``test_incremental_fide.py`` does (a seeded standard list,
newcomers who enter through pooled games, standard, rapid and blitz tournaments, some spanning a
list day), stores them with one night from the seed, and re-rates them in blocks of 1 to 40 games
(each month a block where the months allow it), from both of that file's first days: one far from
1 October 2022, one before it, so that blocks go on across FIDE's one-off adjustment of rapid and
blitz. The AJUSC season in blocks is checked on the real files (``tests/flows/test_official_season.py``).
"""

from __future__ import annotations

import itertools
from datetime import date, timedelta
from pathlib import Path

import polars as pl
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal
from sqlalchemy.engine import Engine

import warehouse
from flows.config import federation_config
from formats.batch import FILES_SCHEMA
from formats.schema import (
    BYES_SCHEMA,
    COMPETITIONS_SCHEMA,
    FINDINGS_SCHEMA,
    GAMES_SCHEMA,
    PLAYERS_SCHEMA,
    empty,
)
from rating.blocks import plan_history, rate_in_blocks
from tasks.ingest import FederationBatch
from tests.tasks.test_incremental_fide import (
    _BLITZ_NOVEMBER,
    _BLITZ_POOLED,
    _NEWCOMER_AUGUST,
    _NEWCOMER_NOVEMBER,
    _NEWCOMER_SEPTEMBER,
    _RAPID_BEFORE,
    _RAPID_JANUARY,
    _RAPID_NOVEMBER,
    _STANDARD_DECEMBER,
    _STANDARD_JUNE,
    _STANDARD_NEWCOMER,
    BEFORE_ADJUSTMENT,
    FIRST,
    Tournament,
    _batch,
    _night,
    _seed,
    histories,
)

_serial = itertools.count()
#: How the drawn histories were rated: a test that never rates in several blocks proves nothing.
SEEN = {"histories": 0, "in several blocks": 0, "going on across the adjustment": 0, "backfills": 0,
        "backfills in several blocks": 0}


def _stored(db: Engine, fed: str, tournaments: list[Tournament], first: date) -> tuple[warehouse.History, date]:
    """The tournaments rated from the seed in one night, and the history read back without its
    games (as the what-if reads it), with the day after the last tournament."""
    warehouse.load_seed(db, fed, _seed(fed, first - timedelta(days=2)), source=f"{fed}.ratings.csv",
                        source_sha256=f"seed-{fed}")
    last = first + timedelta(days=max(t["end"] for t in tournaments) + 1)
    _night(db, fed, _batch(fed, tournaments, first), last, full=True)
    return warehouse.history(db, fed, games_from=date.max), last


@pytest.mark.hypothesis
@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(histories(in_order=True), st.integers(1, 40), st.sampled_from([FIRST, BEFORE_ADJUSTMENT]))
@example(history=([_RAPID_BEFORE, _RAPID_NOVEMBER, _STANDARD_DECEMBER, _RAPID_JANUARY], [[0, 1, 2, 3]]), budget=1,
         first=BEFORE_ADJUSTMENT)
@example(history=([_NEWCOMER_AUGUST, _NEWCOMER_SEPTEMBER, _NEWCOMER_NOVEMBER], [[0, 1, 2]]), budget=1,
         first=BEFORE_ADJUSTMENT)
@example(history=([_BLITZ_POOLED, _STANDARD_NEWCOMER, _STANDARD_JUNE, _BLITZ_NOVEMBER], [[0, 1, 2, 3]]), budget=1,
         first=BEFORE_ADJUSTMENT)
def test_fide_in_blocks_equals_one_run(
    sqlite_db: Engine, history: tuple[list[Tournament], list[list[int]]], budget: int, first: date,
) -> None:
    tournaments, _ = history
    fed = f"fide-blocks-{next(_serial)}"
    meta, last = _stored(sqlite_db, fed, tournaments, first)
    config = federation_config("fide")
    assert meta.games.height == 0
    blocks = plan_history(meta.competitions, warehouse.games_per_competition(sqlite_db, fed), budget)
    everything = [meta.competitions.get_column("competition_id").to_list()]
    nothing = FederationBatch(federation=fed)
    one = rate_in_blocks(sqlite_db, meta, nothing, everything, config, last)
    blocked = rate_in_blocks(sqlite_db, meta, nothing, blocks, config, last)

    assert_frame_equal(blocked.run.ratings, one.run.ratings)
    assert blocked.competitions.height == one.competitions.height
    # The run at once is the one the night stored.
    stored = warehouse.current_ratings(sqlite_db, fed).select("player_id", "rating", "games")
    assert_frame_equal(one.run.ratings.select("player_id", "rating", "games"), stored, check_dtypes=False)

    SEEN["histories"] += 1
    SEEN["in several blocks"] += len(blocks) > 1
    adjustment = date(2022, 10, 1)
    days = [first + timedelta(days=t["end"]) for t in tournaments]
    SEEN["going on across the adjustment"] += len(blocks) > 1 and min(days) < adjustment <= max(days)


#: A rapid game in October 2022, the month of the adjustment (day 280 after BEFORE_ADJUSTMENT).
_RAPID_OCTOBER: Tournament = {"id": "T11", "start": 280, "end": 280, "modality": "rapid",
                              "games": [(1, "1003", "1000", 0.5)]}


def test_a_block_that_cannot_go_on_rates_from_the_seed(sqlite_db: Engine) -> None:
    """Blocks cut where a run cannot go on from the block before still give the run at once: that
    block re-rates from the seed with every game before it. Here a block ends with October 2022
    (``plan_history`` never cuts there): its checkpoint would not hold the adjustment, so it makes
    none (``rating.continued.next_checkpoints``)."""
    fed = "fide-blocks-adjusted"
    tournaments = [_RAPID_BEFORE, _RAPID_OCTOBER, _RAPID_NOVEMBER, _STANDARD_DECEMBER, _RAPID_JANUARY]
    meta, last = _stored(sqlite_db, fed, tournaments, BEFORE_ADJUSTMENT)
    config = federation_config("fide")
    nothing = FederationBatch(federation=fed)
    one = rate_in_blocks(sqlite_db, meta, nothing, [["T00", "T11", "T03", "T01", "T02"]], config, last)
    blocked = rate_in_blocks(sqlite_db, meta, nothing, [["T00"], ["T11"], ["T03", "T01", "T02"]], config, last)
    assert blocked.cut is None, "the block after October went on from a checkpoint"
    assert_frame_equal(blocked.run.ratings, one.run.ratings)
    going_on = rate_in_blocks(sqlite_db, meta, nothing, [["T00"], ["T11", "T03"], ["T01", "T02"]], config, last)
    assert going_on.cut is not None
    assert_frame_equal(going_on.run.ratings, one.run.ratings)


@pytest.mark.hypothesis
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(histories(in_order=True), st.integers(1, 40), st.sampled_from([FIRST, BEFORE_ADJUSTMENT]))
@example(history=([_RAPID_BEFORE, _RAPID_NOVEMBER, _STANDARD_DECEMBER, _RAPID_JANUARY], [[0, 1, 2, 3]]), budget=1,
         first=BEFORE_ADJUSTMENT)
@example(history=([_BLITZ_POOLED, _STANDARD_NEWCOMER, _STANDARD_JUNE, _BLITZ_NOVEMBER], [[0, 1, 2, 3]]), budget=1,
         first=BEFORE_ADJUSTMENT)
def test_a_backfill_in_blocks_leaves_what_one_run_leaves(
    sqlite_db: Engine, tmp_path_factory: pytest.TempPathFactory, history: tuple[list[Tournament], list[list[int]]],
    budget: int, first: date,
) -> None:
    """A new starting list, then the backfill's re-rate from the seed: at once (``rate``, every game)
    in one federation, in blocks (``BlockRows``: the changes gathered, the explanations in files) in
    its twin. Both load and publish as the backfill does; the warehouse holds the same rating
    changes, explanations, ratings and checkpoints, and the same editions, correcting ones included."""
    from publication import apply_editions
    from rating import rate
    from rating.blocks import BlockRows
    from tests.tasks.test_incremental import _rows
    from warehouse.models import Explanation, Rating, RatingChange

    tournaments, _ = history
    n = next(_serial)
    one, blocked = f"fide-one-{n}", f"fide-blocks-{n}"
    config = federation_config("fide")
    ran: dict[str, int] = {}
    for fed in (one, blocked):
        meta, last = _stored(sqlite_db, fed, tournaments, first)
        # The federation's own list arrives late: the first seeded player was 40 points higher.
        seed = _seed(fed, first - timedelta(days=2)).with_columns(
            pl.when(pl.int_range(pl.len()) == 0).then(pl.col("rating") + 40).otherwise(pl.col("rating"))
            .alias("rating"))
        warehouse.load_seed(sqlite_db, fed, seed, source=f"{fed}.new.ratings.csv", source_sha256=f"new-{fed}")
        meta = warehouse.history(sqlite_db, fed, games_from=date.max)
        nothing = FederationBatch(federation=fed)
        files: tuple[Path, ...] = ()
        if fed == one:
            rated = rate(warehouse.history(sqlite_db, fed), nothing, config, last, checkpoints=True)
            explanations: pl.DataFrame | None = rated.run.explanations
        else:
            blocks = plan_history(meta.competitions, warehouse.games_per_competition(sqlite_db, fed), budget)
            ran[fed] = len(blocks)
            rows = BlockRows(["standard", "rapid", "blitz"], tmp_path_factory.mktemp("explanations"))
            rate_in_blocks(sqlite_db, meta, nothing, blocks, config, last, each=rows)
            rated = rows.rated(len(blocks))
            files, explanations = tuple(path for path, _ in rows.files), None
        warehouse.load_batch(sqlite_db, warehouse.LoadBatch(
            federation=fed, files=empty(FILES_SCHEMA), competitions=empty(COMPETITIONS_SCHEMA),
            players=empty(PLAYERS_SCHEMA), games=empty(GAMES_SCHEMA), byes=empty(BYES_SCHEMA),
            findings=empty(FINDINGS_SCHEMA), changes=rated.run.changes, explanations=explanations,
            explanation_files=files, ratings=rated.run.ratings, derived_basis=rated.basis,
            checkpoints=rated.checkpoints,
        ))
        apply_editions(sqlite_db, fed, rated, config, last + timedelta(days=3))

    for model, order in ((RatingChange, "seq"), (Explanation, "seq"), (Rating, "player_id")):
        assert_frame_equal(_rows(sqlite_db, model, blocked, order), _rows(sqlite_db, model, one, order),
                           check_dtypes=False)
    mine, theirs = warehouse.checkpoints(sqlite_db, blocked), warehouse.checkpoints(sqlite_db, one)
    assert mine.keys() == theirs.keys()
    for name, point in theirs.items():
        assert (mine[name].point, mine[name].n_changes, mine[name].n_explanations) == (
            point.point, point.n_changes, point.n_explanations)
        # The same rows: a checkpoint made from an earlier one lists its pooled games after the run's.
        for frame in ("state", "pooled", "start"):
            ours, expected = (getattr(c[name], frame).drop("federation", strict=False) for c in (mine, theirs))
            assert_frame_equal(ours.sort(ours.columns), expected.sort(expected.columns), check_dtypes=False)
    columns = ["list_name", "edition", "kind", "covers", "n_players"]
    editions = [warehouse.editions(sqlite_db, fed, all_lists=True, first_list="standard") for fed in (blocked, one)]
    assert_frame_equal(editions[0].select(columns), editions[1].select(columns))
    for a, b in zip(editions[0].get_column("list_id"), editions[1].get_column("list_id"), strict=True):
        assert_frame_equal(warehouse.edition_entries(sqlite_db, a).drop("federation"),
                           warehouse.edition_entries(sqlite_db, b).drop("federation"))
    fixes = [warehouse.edition_corrections(sqlite_db, fed).drop("reason") for fed in (blocked, one)]
    assert_frame_equal(fixes[0], fixes[1])
    SEEN["backfills"] += 1
    SEEN["backfills in several blocks"] += ran[blocked] > 1


def test_the_histories_drawn_are_rated_in_several_blocks(sqlite_db: Engine,
                                                         tmp_path_factory: pytest.TempPathFactory) -> None:
    """Most histories drawn in this file were rated in several blocks, some going on across the 2022
    adjustment (the examples make sure of one). Runs last (pytest-xdist hands a file to one worker)."""
    if SEEN["histories"] == 0:
        test_fide_in_blocks_equals_one_run(sqlite_db)
    if SEEN["backfills"] == 0:
        test_a_backfill_in_blocks_leaves_what_one_run_leaves(sqlite_db, tmp_path_factory)
    assert SEEN["in several blocks"] >= SEEN["histories"] // 3, SEEN
    assert SEEN["going on across the adjustment"] >= 1, SEEN
    assert SEEN["backfills in several blocks"] >= SEEN["backfills"] // 3, SEEN
