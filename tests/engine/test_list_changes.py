"""``engine.list_changes`` finds, in one pass, exactly the lines the lists made one by one change.

AJUSC and EGF publish an edition after every competition; the publish task stores each
as the lines that changed since the edition before. ``list_changes`` finds
them from the history's rating changes without building a list per competition; here
every point's list is built the slow way (``states_at`` + ``rating_list``) and the lines
that differ from the list before must be exactly the ones it found, over histories that
cross seasons (AJUSC's inactivity moves with the season), bring newcomers and players
who never played.
"""

from __future__ import annotations

import random
from datetime import date, timedelta

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine
import warehouse

_FIGURES = list(engine.LINE_FIGURES)


def _history(fed: str, seed: int) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    """Competitions, games, a starting list and the newcomers, over three seasons."""
    rng = random.Random(seed)
    ids = [f"p{i:02d}" for i in range(30)]
    listed = ids[:18]
    start = pl.DataFrame({
        "player_id": listed,
        "name": [f"Player {p}" for p in listed],
        "rating": [float(rng.choice([900, 1000, 1150, 1150, 1400, 1800, 2100])) for _ in listed],
        "games": [rng.choice([None, 3, 9, 40, 200]) for _ in listed],
        "last_played": [rng.choice([None, "2019-20", "2021-22", "2022-23"]) if fed == "ajusc" else None
                        for _ in listed],
        "status": [rng.choice([None, None, "inactive"]) for _ in listed],
    })
    days = sorted(date(2022, 9, 1) + timedelta(days=rng.randrange(0, 1000)) for _ in range(rng.randint(3, 14)))
    comps, games = [], []
    for n, day in enumerate(days):
        cid = f"C{n:02d}"
        comps.append({"competition_id": cid, "start_date": day, "end_date": day + timedelta(days=rng.choice([0, 1])),
                      "event_class": "A"})
        who = rng.sample(ids, rng.randint(2, 7))
        for r in range(1, rng.randint(2, 4)):
            rng.shuffle(who)
            for a, b in zip(who[::2], who[1::2], strict=False):
                games.append({"competition_id": cid, "round": r, "player_a": a, "player_b": b,
                              "score_a": rng.choice([0.0, 1.0, 1.0] if fed == "egf" else [0.0, 0.5, 1.0])})
    newcomers = pl.DataFrame({"player_id": ids[18:], "name": [f"New {p}" for p in ids[18:]],
                              "declared_rank": ["3k"] * (len(ids) - 18)})
    return pl.DataFrame(comps), pl.DataFrame(games), start, newcomers


def _one_by_one(fed: str, start: pl.DataFrame, changes: pl.DataFrame, points: list[str],
                names: pl.DataFrame) -> list[tuple[pl.DataFrame, pl.DataFrame]]:
    """Each point's named state and list, made the slow way."""
    out = []
    for point, state in engine.states_at(fed, start, changes, points):
        named = state.join(names.rename({"name": "_n"}), on="player_id", how="left").with_columns(
            pl.coalesce("name", "_n").alias("name")).drop("_n")
        out.append((named, engine.rating_list(fed, named, as_of=engine.point_date(point))))
    return out


@pytest.mark.parametrize("fed", ["ajusc", "egf"])
@given(seed=st.integers(0, 10_000))
@settings(max_examples=30, deadline=None)
def test_one_pass_finds_the_lines_the_lists_change(fed: str, seed: int) -> None:
    comps, games, start, newcomers = _history(fed, seed)
    run = engine.rate_history(fed, comps, games, start, players=newcomers)
    points = engine.competition_points(comps, "per-competition")
    changes = run.changes.join(points, on="competition_id", how="inner", maintain_order="left")
    order = sorted(set(changes.get_column("point").to_list()))
    if not order:
        return
    names = newcomers.select("player_id", "name")
    slow = _one_by_one(fed, engine.state_from_seed(start), changes, order, names)
    found, sizes = engine.list_changes(fed, slow[0][0], slow[0][1], changes, order, names=names)
    for i, point in enumerate(order[1:], start=1):
        expected = warehouse.list_lines(slow[i - 1][1], slow[i][1]).lines
        assert not expected.get_column("removed").any()  # a list only grows between competitions
        got = found.filter(pl.col("point") == point).select(_FIGURES).sort("player_id")
        assert got.equals(expected.select(_FIGURES).sort("player_id")), point
        assert sizes[point] == slow[i][1].height
    assert found.get_column("point").is_in(order[1:]).all()


def test_a_new_season_changes_the_lines_of_players_who_did_not_play() -> None:
    """AJUSC: from 1 September the window of seasons that keep a player active moves on."""
    start = pl.DataFrame({"player_id": ["idle", "a", "b"], "name": ["Idle", "A", "B"],
                          "rating": [1500.0, 1200.0, 1100.0], "games": [80, 80, 80],
                          "last_played": ["2022-23", "2024-25", "2024-25"]})
    comps = pl.DataFrame({"competition_id": ["X", "Y"], "start_date": [date(2025, 5, 3), date(2025, 9, 6)],
                          "end_date": [date(2025, 5, 3), date(2025, 9, 6)]})
    games = pl.DataFrame({"competition_id": ["X", "Y"], "round": [1, 1], "player_a": ["a", "a"],
                          "player_b": ["b", "b"], "score_a": [1.0, 1.0]})
    run = engine.rate_history("ajusc", comps, games, start)
    points = engine.competition_points(comps, "per-competition")
    changes = run.changes.join(points, on="competition_id", how="inner", maintain_order="left")
    order = sorted(points.get_column("point").to_list())
    slow = _one_by_one("ajusc", engine.state_from_seed(start), changes, order, pl.DataFrame(
        schema={"player_id": pl.Utf8, "name": pl.Utf8}))
    found, _ = engine.list_changes("ajusc", slow[0][0], slow[0][1], changes, order)
    idle = found.filter(pl.col("player_id") == "idle")
    assert slow[0][1].filter(pl.col("player_id") == "idle")["status"].item() == "active"
    assert idle.select("point", "status").rows() == [(order[1], "inactive")]
