"""BARRUF (AJUSC): worked example, K table, rounding, lists; a hand-derived season."""

from __future__ import annotations

import math
from datetime import date
from typing import Any

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

import engine
from engine import barruf
from engine.errors import InvalidConfigError, InvalidHistoryError
from engine.rounding import round_half_away, round_half_away_array
from tests.engine.conftest import DATA, read_csv, shared_path


def test_barruf_defaults_are_pinned() -> None:
    p = barruf.BarrufParameters()
    assert p.sigma == 283.84
    assert p.newcomer_rating == 950.0
    assert p.games_threshold == 50
    assert [(b.below, b.k_new, b.k_experienced) for b in p.k_bands] == [
        (1500.0, 30.0, 20.0), (2000.0, 24.0, 16.0), (math.inf, 24.0, 16.0)
    ]
    assert p.season_start == (9, 1)


def test_worked_example_1100_to_1116() -> None:
    """Federation text: 1100 vs 1200..950, 4 wins, 51 games in total -> K 20 -> 1116."""
    ex = read_csv(DATA / "barruf_worked_example.csv")
    n = ex.height
    comps = pl.DataFrame({"competition_id": ["EX"], "start_date": [date(2025, 10, 4)], "end_date": [date(2025, 10, 4)]})
    ids = [f"o{i}" for i in range(n)]
    games = pl.DataFrame({
        "competition_id": ["EX"] * n, "round": ex["round"], "player_a": ["p"] * n, "player_b": ids,
        "score_a": ex["score"].cast(pl.Float64), "status": ["played"] * n,
    })
    start = pl.DataFrame({
        "player_id": ["p", *ids], "rating": [1100.0, *ex["opponent_rating"].cast(pl.Float64)],
        "games": [51 - n] + [100] * n,
    })
    run = engine.rate_history("ajusc", comps, games, start)
    row = run.changes.filter(pl.col("player_id") == "p").row(0, named=True)
    assert row["expected"] == pytest.approx(3.2153, abs=5e-5)
    assert row["k"] == 20.0
    assert row["score"] == 4.0
    assert row["rating_after"] == 1116.0
    ours = run.explanations.filter(pl.col("player_id") == "p")
    assert ours.height == n
    assert ours["contribution"].sum() == pytest.approx(row["change"], abs=1e-12)


def test_expected_score_matches_the_published_table_to_5_percent() -> None:
    """The federation's table (0->50 %, ..., 465->95 %) is the normal curve rounded to 5 %."""
    table = pl.read_csv(shared_path("rules", "barruf_seed_table_vs_normal.csv"))
    for diff, pct, phi in table.select("diff", "seed_pct", "normal_cdf_sigma283.84").iter_rows():
        e = barruf.expected_score(float(diff), 0.0)
        assert e == pytest.approx(phi, abs=5e-5)
        assert round(e * 20) * 5 == pct


def test_expected_score_is_symmetric() -> None:
    for d in (0.0, 13.0, 250.0, 1000.0):
        assert barruf.expected_score(1000 + d, 1000) + barruf.expected_score(1000, 1000 + d) == pytest.approx(1.0, abs=1e-15)


@pytest.mark.parametrize(
    ("rating", "games", "k"),
    [
        (1100, 50, 30.0),  # exactly 50 keeps 30
        (1100, 51, 20.0),
        (1499, 10, 30.0),
        (1500, 10, 24.0),
        (1100, 63, 20.0),  # RULES.md: 37 games before a 26-game event -> K 20 for the whole event
        (1999, 63, 16.0),
        (2400, 10, 24.0),  # nothing published above 2000: the 1500-1999 band continues
    ],
)
def test_k_factor_bands(rating: float, games: int, k: float) -> None:
    assert barruf.k_factor(rating, games) == k


def test_k_above_2000_is_configurable() -> None:
    p = barruf.BarrufParameters.from_config({"k_above_2000": [20, 12]})
    assert barruf.k_factor(2100, 10, p) == 20.0
    assert barruf.k_factor(1900, 10, p) == 24.0


@pytest.mark.parametrize(
    "config",
    [{"k_bands": [[2000, 30, 20], [1500, 24, 16]]}, {"season_start": "13-01"}, {"newcomer_rating": "x"}],
)
def test_bad_config_is_a_domain_error(config: dict[str, object]) -> None:
    with pytest.raises(InvalidConfigError):
        barruf.BarrufParameters.from_config(config)


@pytest.mark.parametrize(
    ("x", "expected"),
    [(0.5, 1.0), (-0.5, -1.0), (2.5, 3.0), (-2.5, -3.0), (2.4999999, 2.0), (0.49999999999999994, 1.0),
     (12.5 - 1e-12, 13.0), (7.0, 7.0), (-0.2, 0.0)],
)
def test_round_half_away_from_zero(x: float, expected: float) -> None:
    assert round_half_away(x) == expected
    assert round_half_away_array(np.array([x]))[0] == expected


def test_rating_change_at_the_half_rounds_away() -> None:
    # 1000 v 1000, K 30, a draw... E 0.5 so change 0; a win: 30 x 0.5 = 15 exactly.
    # Use K 30 and W - E = 0.35 / 0.65 ... instead force a .5 change through K 25:
    p = barruf.BarrufParameters.from_config({"k_bands": [[None, 25, 25]]})
    r = barruf.rate_arrays(np.array([0, 1]), np.array([0]), np.array([1]), np.array([1.0]),
                           np.array([1000.0, 1000.0]), np.array([0, 0]), p)
    # 25 x (1 - 0.5) = 12.5 -> 13; the loser: -12.5 -> -13.
    assert r.rating.tolist() == [1013.0, 987.0]


def test_small_season_hand_derived() -> None:
    games = read_csv(DATA / "ajusc_small_season.games.csv", competition_id=pl.Utf8(), player_a=pl.Utf8(),
                     player_b=pl.Utf8(), score_a=pl.Float64())
    seed = read_csv(DATA / "ajusc_small_season.seed.csv", player_id=pl.Utf8())
    expected = read_csv(DATA / "ajusc_small_season.expected.csv", player_id=pl.Utf8())
    comps = games.group_by("competition_id").agg(pl.col("start_date").first(), pl.col("end_date").first())
    run = engine.rate_history("ajusc", comps, games, seed, config={"newcomer_rating": 950})
    result = run.changes.select(expected.columns).with_columns(pl.col("games").cast(pl.Int64))
    exp = expected.with_columns(pl.col(c).cast(pl.Float64) for c in expected.columns[2:] if c != "games")
    assert_frame_equal(result, exp, check_dtypes=False, abs_tol=5e-7)
    assert set(run.changes["rule_set"]) == {"barruf"}
    # The forfeit (4 v 9) is not a game: 9 is never rated, 4 only in B.
    assert run.changes.filter(pl.col("player_id") == "9").height == 0
    final = {r["player_id"]: r for r in run.ratings.iter_rows(named=True)}
    assert final["1"]["rating"] == 1284.0 and final["1"]["games"] == 54
    assert final["5"]["rating"] == 986.0 and final["5"]["games"] == 6 and final["5"]["status"] == "exp"
    assert final["6"]["rating"] == 1200.0 and final["6"]["status"] == "inact" and final["6"]["last_played"] == "2022-23"
    assert final["4"]["last_played"] == "2025-26"
    assert "9" not in final  # a player seen only in a forfeit has no state
    assert run.ratings["as_of"].unique().to_list() == [date(2026, 1, 10)]


def test_order_of_competitions_comes_from_dates_not_rows() -> None:
    games = read_csv(DATA / "ajusc_small_season.games.csv", competition_id=pl.Utf8(), player_a=pl.Utf8(),
                     player_b=pl.Utf8(), score_a=pl.Float64())
    seed = read_csv(DATA / "ajusc_small_season.seed.csv", player_id=pl.Utf8())
    comps = games.group_by("competition_id").agg(pl.col("start_date").first(), pl.col("end_date").first())
    a = engine.rate_history("ajusc", comps.sort("competition_id"), games, seed)
    b = engine.rate_history("ajusc", comps.sort("competition_id", descending=True), games.reverse(), seed)
    assert_frame_equal(a.changes, b.changes)
    assert_frame_equal(a.ratings.sort("player_id"), b.ratings.sort("player_id"))


def test_seeded_rating_wins_over_declared() -> None:
    comps = pl.DataFrame({"competition_id": ["C"], "start_date": [date(2025, 10, 1)], "end_date": [date(2025, 10, 1)]})
    games = pl.DataFrame({"competition_id": ["C"], "player_a": ["1"], "player_b": ["2"], "score_a": [0.5]})
    start = pl.DataFrame({"player_id": ["1"], "rating": [1200.0], "games": [100]})
    players = pl.DataFrame({"player_id": ["1", "2"], "declared_rating": [1500.0, 1000.0]})
    run = engine.rate_history("ajusc", comps, games, start, players=players)
    assert run.changes.sort("player_id")["rating_before"].to_list() == [1200.0, 1000.0]


def test_bad_scores_and_self_play_are_named() -> None:
    comps = pl.DataFrame({"competition_id": ["C"], "start_date": [date(2025, 10, 1)], "end_date": [date(2025, 10, 1)]})
    games = pl.DataFrame({"competition_id": ["C"], "player_a": ["1"], "player_b": ["2"], "score_a": [2.0],
                          "source_line": [7]})
    with pytest.raises(InvalidHistoryError, match="line 7"):
        engine.rate_history("ajusc", comps, games, pl.DataFrame())
    with pytest.raises(InvalidHistoryError, match="themself"):
        engine.rate_history("ajusc", comps, games.with_columns(player_b=pl.lit("1"), score_a=pl.lit(1.0)),
                            pl.DataFrame())
    with pytest.raises(InvalidHistoryError, match="lacks column"):
        engine.rate_history("ajusc", comps, games.drop("score_a"), pl.DataFrame())


def test_empty_history_returns_the_seed() -> None:
    seed = read_csv(DATA / "ajusc_small_season.seed.csv", player_id=pl.Utf8())
    comps = pl.DataFrame(schema={"competition_id": pl.Utf8, "start_date": pl.Date, "end_date": pl.Date})
    games = pl.DataFrame(schema={"competition_id": pl.Utf8, "player_a": pl.Utf8, "player_b": pl.Utf8,
                                 "score_a": pl.Float64})
    run = engine.rate_history("ajusc", comps, games, seed)
    assert run.changes.height == 0 and run.explanations.height == 0
    assert run.ratings["rating"].to_list() == seed["rating"].cast(pl.Float64).to_list()
    assert run.ratings["status"].to_list() == seed["status"].to_list()


def test_rating_list_ranks_ties_categories_and_order() -> None:
    ratings = pl.DataFrame({
        "player_id": [str(i) for i in range(1, 10)],
        "name": list("ABCDEFGHI"),
        "rating": [1450.0, 1400.0, 1300.0, 1250.0, 1250.0, 1100.0, 1500.0, 999.0, None],
        "games": [100, 100, 100, 100, 100, 100, 8, 100, 0],
        "last_played": ["2025-26", "2024-25", "2023-24", "2025-26", "2025-26", "2025-26", "2025-26", "2025-26", None],
        "status": ["act"] * 8 + [None],
    })
    listed = engine.rating_list("ajusc", ratings, as_of=date(2026, 3, 1))
    assert listed.columns == list(engine.RATING_LIST_SCHEMA)
    got = listed.select("player_id", "status", "category", "rank").rows()
    assert got == [
        ("1", "active", "Gran Gran Mestre", 1),
        ("2", "active", "Gran Gran Mestre", 2),
        ("3", "active", "Gran Mestre", 3),
        ("4", "active", "Mestre", 4),
        ("5", "active", "Mestre", 4),
        ("6", "active", "Expert", 6),
        ("8", "active", None, 7),
        ("7", "provisional", "Gran Gran Mestre", None),
        ("9", "unrated", None, None),
    ]


def test_inactivity_applies_at_the_season_change_and_is_versioned() -> None:
    ratings = pl.DataFrame({"player_id": ["1"], "rating": [1200.0], "games": [100], "last_played": ["2023-24"]})

    def status(d: date, cfg: dict[str, Any] | None = None) -> str:
        return str(engine.rating_list("ajusc", ratings, as_of=d, config=cfg)["status"][0])

    assert status(date(2026, 8, 31)) == "active"    # 2025-26: 2023-24 is two seasons back
    assert status(date(2026, 9, 1)) == "inactive"   # 2026-27 starts
    ratings = ratings.with_columns(last_played=pl.lit("2024-25"))
    assert status(date(2026, 9, 1)) == "inactive"   # 2026 wording: current + previous only
    assert status(date(2026, 9, 1), {"inactive_after_seasons": 2}) == "active"  # pinned by the config


def test_unknown_federation_is_a_domain_error() -> None:
    with pytest.raises(engine.UnknownFederationError):
        engine.rate_history("xyz", pl.DataFrame(), pl.DataFrame(), pl.DataFrame())


def test_a_rule_set_of_another_system_cannot_be_pinned() -> None:
    comps = pl.DataFrame({"competition_id": ["C"], "start_date": [date(2025, 10, 1)], "end_date": [date(2025, 10, 1)]})
    games = pl.DataFrame({"competition_id": ["C"], "player_a": ["1"], "player_b": ["2"], "score_a": [1.0]})
    with pytest.raises(InvalidConfigError, match="belongs to"):
        engine.rate_history("ajusc", comps, games, pl.DataFrame(), config={"rule_set": "fide-2024"})
    with pytest.raises(engine.UnknownRuleSetError):
        engine.rate_history("ajusc", comps, games, pl.DataFrame(), config={"rule_set": "nope"})


def test_integer_ids_are_read_as_strings() -> None:
    comps = pl.DataFrame({"competition_id": [191], "start_date": [date(2025, 10, 1)], "end_date": [date(2025, 10, 1)]})
    games = pl.DataFrame({"competition_id": [191], "player_a": [1], "player_b": [2], "score_a": [1.0]})
    start = pl.DataFrame({"player_id": [1, 2], "rating": [1000, 1000], "games": [60, 60]})
    run = engine.rate_history("ajusc", comps, games, start)
    assert run.changes.select("competition_id", "player_id", "rating_after").rows() == [
        ("191", "1", 1010.0), ("191", "2", 990.0)]


def test_list_status_without_a_season_follows_the_code() -> None:
    ratings = pl.DataFrame({"player_id": ["1", "2"], "rating": [1200.0, 1200.0], "games": [100, 100],
                            "status": ["inact", "inactive"], "last_played": [None, None]},
                           schema_overrides={"last_played": pl.Utf8})
    listed = engine.rating_list("ajusc", ratings, as_of=date(2026, 1, 1))
    assert listed["status"].to_list() == ["inactive", "inactive"]
