"""The fast path's structure: change rows summed without the explanation rows, explanation
rows built on first read (and equal to the eager ones), and an engine free of the clock."""

from __future__ import annotations

import pickle
import re
from pathlib import Path
from types import ModuleType

import polars as pl
import pytest
from polars.testing import assert_frame_equal

import engine
from benchmarks.bench_engine import synthetic_history
from engine import barruf, egf_gor, fide_elo

SYSTEMS = [("ajusc", barruf), ("fide", fide_elo), ("egf", egf_gor)]


History = tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]


@pytest.fixture(scope="module")
def history() -> History:
    """Random pairings over 300 players, with unrated newcomers (seeded at 0 or absent) for FIDE's pools."""
    comps, games, start = synthetic_history(6_000, 300, games_per_comp=60, seed=11)
    start = start.with_columns(
        pl.when(pl.int_range(pl.len()) % 7 == 0).then(0.0).otherwise(pl.col("rating")).alias("rating")
    ).filter(pl.int_range(pl.len()) % 11 != 0)
    return comps, games, start


@pytest.fixture(scope="module")
def players() -> pl.DataFrame:
    """Every player's declared grade (EGF newcomers) and birth year (FIDE junior K)."""
    return pl.DataFrame({"player_id": [f"p{i}" for i in range(300)], "declared_rank": ["5k"] * 300,
                         "birth_year": [2000 + i % 20 for i in range(300)]})


@pytest.mark.parametrize(("federation", "module"), SYSTEMS)
def test_lazy_run_equals_the_eager_frames(
    history: History, players: pl.DataFrame, federation: str, module: ModuleType
) -> None:
    run = engine.rate_history(federation, *history, players=players)
    assert not run.lazy_explanations.ready
    changes, explanations, ratings = module.rate_history(*history, players=players)
    assert_frame_equal(run.changes, changes)
    assert_frame_equal(run.ratings, ratings)
    assert_frame_equal(run.explanations, explanations)
    assert run.lazy_explanations.ready
    assert run.explanations is run.explanations  # built once, kept


@pytest.mark.parametrize("federation", ["ajusc", "fide", "egf"])
def test_change_rows_are_the_explanation_rows_summed(history: History, players: pl.DataFrame, federation: str) -> None:
    run = engine.rate_history(federation, *history, players=players)
    keys = ["competition_id", "period", "player_id"]
    summed = run.explanations.group_by(keys, maintain_order=True).agg(
        pl.len().cast(pl.Int64).alias("games"), pl.col("score").sum(), pl.col("expected").sum(),
        pl.col("contribution").sum(), pl.col("expected").null_count().alias("unrated"),
    )
    # The change rows come in the explanation rows' order: competition, then player.
    assert run.changes.select(keys).rows() == summed.select(keys).rows()
    assert run.changes["games"].to_list() == summed["games"].to_list()
    assert run.changes["score"].to_list() == pytest.approx(summed["score"].to_list(), abs=1e-9)
    rated = summed["unrated"] == 0
    assert run.changes.filter(rated)["expected"].to_list() == pytest.approx(
        summed.filter(rated)["expected"].to_list(), abs=1e-9)
    if federation != "ajusc":  # BARRUF's change is the kernel's; contributions are checked in test_barruf
        assert run.changes.filter(rated)["change"].to_list() == pytest.approx(
            summed.filter(rated)["contribution"].to_list(), abs=1e-9)
    if federation == "fide":
        assert int((~rated).sum()) > 0, "the history should pool unrated players' games"


def test_a_pickled_run_carries_its_explanations(history: History, players: pl.DataFrame) -> None:
    run = engine.rate_history("fide", *history, players=players)
    back = pickle.loads(pickle.dumps(run))
    assert back.lazy_explanations.ready
    assert_frame_equal(back.explanations, run.explanations)
    assert_frame_equal(back.changes, run.changes)
    with pytest.raises(AttributeError):
        run.changes = run.changes


def test_a_run_shares_its_unbuilt_explanations(history: History, players: pl.DataFrame) -> None:
    run = engine.rate_history("egf", *history, players=players)
    other = engine.RatingRun(changes=run.changes, explanations=run.lazy_explanations, ratings=run.ratings.head(3))
    assert not run.lazy_explanations.ready
    assert other.explanations.height == run.explanations.height
    assert run.lazy_explanations.ready  # built once, for both


def test_the_engine_never_reads_the_clock() -> None:
    """The engine is pure: the day comes from the history, the seed or the caller."""
    root = Path(engine.__file__).parent
    clock = re.compile(r"\b(date\.today|datetime\.now|datetime\.utcnow|time\.time)\s*\(")
    found = [f"{p.name}:{i}" for p in sorted(root.glob("*.py"))
             for i, line in enumerate(p.read_text().splitlines(), 1) if clock.search(line)]
    assert found == []


def test_an_undated_fide_history_gets_the_newest_rules_and_no_inactivity() -> None:
    start = pl.DataFrame({"player_id": ["a", "b"], "rating": [2000.0, None], "games": [100, 0],
                          "last_played": ["1990-01-01", None]})
    empty_comps = pl.DataFrame(schema={"competition_id": pl.Utf8, "start_date": pl.Date, "end_date": pl.Date})
    empty_games = pl.DataFrame(schema={"competition_id": pl.Utf8, "player_a": pl.Utf8, "player_b": pl.Utf8,
                                       "score_a": pl.Float64})
    ratings = engine.rate_history("fide", empty_comps, empty_games, start).ratings
    assert dict(ratings.select("player_id", "status").iter_rows()) == {"a": "active", "b": "unrated"}
    assert ratings.filter(pl.col("player_id") == "a")["k"].to_list() == [20]
