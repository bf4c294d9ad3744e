"""FIDE continued from the state at the start of a period equals the run from the seed, row for row.

Hypothesis draws a seeded list (rated players, some with a printed K, and unrated ones),
newcomers who enter through pooled games, tournaments over a year and a half (some
spanning a list day), and a checkpoint period; the run from the seed is split there:
the periods before it from the seed, the rest from :func:`engine.fide_restart.checkpoint_state`
with the pooled games replayed (:func:`engine.fide_restart.continue_from`).
"""

from __future__ import annotations

from datetime import date, timedelta

import polars as pl
from hypothesis import given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

import engine
from engine.fide_periods import next_list
from engine.fide_restart import (
    can_continue,
    checkpoint_state,
    continue_from,
    window_start,
)

SEEDED = [f"{1000 + i}" for i in range(8)]
NEW = [f"{2000 + i}" for i in range(6)]
FIRST = date(2023, 1, 3)
SEEN = {"replayed": 0, "earned after a replay": 0}


def _seed() -> pl.DataFrame:
    return pl.DataFrame({
        "player_id": SEEDED, "name": [f"P{p}" for p in SEEDED],
        "rating": [2410.0, 2150.0, 1890.0, 1720.0, 1600.0, 1999.0, None, None],
        "games": [200, 40, 12, 5, 0, 60, 0, 0], "k": [10, None, 40, None, None, 20, None, None],
        "as_of": date(2023, 1, 1),
    }, schema_overrides={"k": pl.Int32})


@st.composite
def histories(draw: st.DrawFn) -> tuple[pl.DataFrame, pl.DataFrame]:
    n = draw(st.integers(3, 9))
    comps, games = [], []
    for k in range(n):
        start = FIRST + timedelta(days=draw(st.integers(0, 540)))
        end = start + timedelta(days=draw(st.sampled_from([0, 2, 6, 20])))
        who = draw(st.lists(st.sampled_from(SEEDED + NEW), min_size=2, max_size=8, unique=True))
        cid = f"T{k:02d}"
        comps.append({"competition_id": cid, "start_date": start, "end_date": end, "modality": "standard"})
        for rnd in range(1, draw(st.integers(1, 5)) + 1):
            for a, b in zip(who[0::2], who[1::2], strict=False):
                games.append({"competition_id": cid, "round": rnd, "player_a": a, "player_b": b,
                              "score_a": draw(st.sampled_from([1.0, 0.5, 0.0]))})
            who = who[1:] + who[:1]
    return pl.DataFrame(comps), pl.DataFrame(games, schema={
        "competition_id": pl.Utf8, "round": pl.Int32, "player_a": pl.Utf8, "player_b": pl.Utf8, "score_a": pl.Float64})


@settings(max_examples=300, deadline=None)
@given(histories(), st.integers(0, 20))
def test_a_run_from_a_checkpoint_equals_the_run_from_the_seed(history: tuple[pl.DataFrame, pl.DataFrame],
                                                              at: int) -> None:
    comps, games = history
    seed = _seed()
    players = pl.DataFrame({"player_id": SEEDED + NEW, "birth_year": [1990, 2010, 1980, 2008, 1975, 2000,
                                                                      1999, 2012, 1985, 2011, 1970, 2001, 1995, 1960]})
    periods = sorted({next_list(d) for d in comps.get_column("end_date").to_list()})
    point = periods[min(at, len(periods) - 1)]
    whole = engine.rate_history("fide", comps, games, seed, players=players)

    period = comps.get_column("end_date").map_elements(next_list, return_dtype=pl.Date)
    head, tail = comps.filter(period < point), comps.filter(period >= point)
    earlier = [p for p in periods if p < point]
    if not can_continue(tail, point, earlier[-1] if earlier else None):
        return
    head_games = games.filter(pl.col("competition_id").is_in(head.get_column("competition_id").implode()))
    tail_games = games.filter(pl.col("competition_id").is_in(tail.get_column("competition_id").implode()))
    first = engine.rate_history("fide", head, head_games, seed, players=players)
    state = checkpoint_state(first.ratings, first.changes, seed)
    window = head.filter(pl.col("end_date") >= window_start(point))
    go_on = continue_from(state, first.explanations, window)
    second = engine.rate_history(
        "fide", pl.concat([tail, go_on.competitions], how="diagonal_relaxed"),
        pl.concat([tail_games, go_on.games], how="diagonal_relaxed"), go_on.seed, players=players)
    changes, explanations, ratings = go_on.finish(second.changes, second.explanations, second.ratings, state)
    changes = pl.concat([first.changes, changes])
    explanations = pl.concat([first.explanations, explanations])
    earned = whole.changes.filter(pl.col("rating_before").is_null() & pl.col("rating_after").is_not_null()
                                  & pl.col("competition_id").is_in(tail.get_column("competition_id").implode()))
    SEEN["replayed"] += bool(go_on.games.height)
    SEEN["earned after a replay"] += bool(earned.filter(pl.col("player_id").is_in(go_on.pooled)).height)
    assert_frame_equal(changes, whole.changes)
    assert_frame_equal(explanations, whole.explanations)
    assert_frame_equal(ratings.sort("player_id"), whole.ratings.sort("player_id"))


def test_the_checkpoints_drawn_replay_pooled_games() -> None:
    """The draws above cover the case the checkpoint exists for: a newcomer who pooled games
    before it and earns his initial rating after it."""
    if not SEEN["replayed"]:
        test_a_run_from_a_checkpoint_equals_the_run_from_the_seed()
    assert SEEN["replayed"] > 10 and SEEN["earned after a replay"] > 3, SEEN
