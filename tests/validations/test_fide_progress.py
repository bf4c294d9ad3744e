"""FIDE unrated players' progress toward an initial rating (B02 2009 / 2014 / 2024)."""

from __future__ import annotations

from datetime import date
from typing import Any

import polars as pl
import pytest

from validations.fide import (
    INITIAL_RATING_RULES,
    PROGRESS_SCHEMA,
    initial_rating_progress,
    rules_in_force,
)

RATINGS = pl.DataFrame({"player_id": [f"r{i}" for i in range(1, 11)],
                        "rating": [1600.0 + 50 * i for i in range(10)], "games": [50] * 10})


def _event(cid: str, day: date, player: str, results: list[tuple[str, float]]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    comp = {"competition_id": cid, "start_date": day, "end_date": day}
    games = [{"competition_id": cid, "round": i + 1, "player_a": player, "player_b": opp, "score_a": s,
              "status": "played"} for i, (opp, s) in enumerate(results)]
    return comp, games


def _frames(*events: tuple[dict[str, Any], list[dict[str, Any]]]) -> tuple[pl.DataFrame, pl.DataFrame]:
    comps = pl.DataFrame([e[0] for e in events])
    games = pl.DataFrame([g for e in events for g in e[1]])
    return comps, games


def test_pinned_editions() -> None:
    """Pin the regulation constants (2009: 9 games / 24 months / 3 rated opponents)."""
    assert [(e.name, e.min_games, e.window_months, e.min_rated_opponents) for e in INITIAL_RATING_RULES] == [
        ("fide-2009", 9, 24, 3), ("fide-2014", 5, 26, 3), ("fide-2024", 5, 26, 1)]
    assert rules_in_force(date(2014, 6, 30)).name == "fide-2009"
    assert rules_in_force(date(2014, 7, 1)).name == "fide-2014"
    assert rules_in_force(date(2024, 3, 1)).name == "fide-2024"


def test_2009_needs_nine_games_and_three_rated_opponents_per_event() -> None:
    a = _event("A", date(2012, 3, 1), "u", [("r1", 1.0), ("r2", 0.0), ("r3", 0.5), ("r4", 1.0)])
    b = _event("B", date(2012, 9, 1), "u", [("r5", 0.0), ("r6", 1.0)])           # 2 rated: not counted
    c = _event("C", date(2013, 2, 1), "u", [("r7", 0.5), ("r8", 0.0), ("r9", 1.0), ("r10", 0.0), ("r1", 1.0)])
    comps, games = _frames(a, b, c)
    p = initial_rating_progress(games, RATINGS, date(2013, 3, 1), competitions=comps).row(0, named=True)
    assert p["rule_set"] == "fide-2009"
    assert (p["events"], p["events_not_counted"], p["games_vs_rated"], p["games_needed"]) == (2, 1, 9, 9)
    assert p["first_event"] == "A" and p["first_event_points"] == pytest.approx(2.5, abs=1e-12)
    assert p["points_vs_rated"] == pytest.approx(5.0, abs=1e-12)
    assert p["rated_opponents_per_event"] == "A: 4, B: 2, C: 5"
    assert p["eligible"] is True
    assert p["window_start"] == date(2011, 3, 1) and p["window_end"] == date(2013, 3, 1)


def test_zero_first_event_is_disregarded() -> None:
    a = _event("A", date(2025, 1, 5), "u", [("r1", 0.0), ("r2", 0.0), ("r3", 0.0)])
    b = _event("B", date(2025, 2, 5), "u", [("r4", 1.0), ("r5", 0.0), ("r6", 0.5)])
    comps, games = _frames(a, b)
    p = initial_rating_progress(games, RATINGS, date(2025, 3, 1), competitions=comps).row(0, named=True)
    assert p["first_event"] == "B" and p["games_vs_rated"] == 3 and p["events_not_counted"] == 1
    assert p["eligible"] is False and p["status"].startswith("needs 2 more game(s)")


def test_window_drops_old_games_and_rated_players_are_not_listed() -> None:
    old = _event("OLD", date(2020, 1, 5), "u", [("r1", 1.0), ("r2", 1.0), ("r3", 1.0)])
    new = _event("NEW", date(2025, 1, 5), "u", [("r4", 1.0), ("r5", 1.0)])
    comps, games = _frames(old, new)
    p = initial_rating_progress(games, RATINGS, date(2025, 6, 1), competitions=comps)
    assert p.get_column("player_id").to_list() == ["u"]          # r1..r5 are rated
    assert p.item(0, "games_vs_rated") == 2 and p.item(0, "rated_opponents_per_event") == "NEW: 2"


def test_unplayed_and_excluded_games_do_not_count() -> None:
    a = _event("A", date(2025, 1, 5), "u", [("r1", 1.0), ("r2", 1.0), ("r3", 1.0)])
    comps, games = _frames(a)
    games = games.with_columns(pl.Series("status", ["played", "forfeit", "played"]),
                               pl.Series("rated", [True, True, False]))
    p = initial_rating_progress(games, RATINGS, date(2025, 2, 1), competitions=comps)
    assert p.item(0, "games_vs_rated") == 1


def test_no_unrated_players_gives_an_empty_frame() -> None:
    a = _event("A", date(2025, 1, 5), "r1", [("r2", 1.0)])
    comps, games = _frames(a)
    p = initial_rating_progress(games, RATINGS, date(2025, 2, 1), competitions=comps)
    assert p.is_empty() and p.schema == pl.Schema(PROGRESS_SCHEMA)
