"""FIDE Elo: tables, K, the 400-point rule by version, periods, rounding, initial ratings."""

from __future__ import annotations

import math
from datetime import date
from typing import Any

import polars as pl
import pytest
from polars.testing import assert_frame_equal

import engine
from engine import fide_elo
from tests.engine.conftest import DATA, competitions_of, read_csv, read_games, shared_path


def test_pd_table_matches_the_regulations_table() -> None:
    table = pl.read_csv(shared_path("rules", "fide_expected_score_table_PD.csv"))
    for lo, hi, high, low in table.iter_rows():
        for d in {lo, hi if hi is not None else lo + 100}:
            assert fide_elo.expected_score(2000 + d, 2000, cap_400=False) == pytest.approx(high, abs=1e-12), d
            assert fide_elo.expected_score(2000, 2000 + d, cap_400=False) == pytest.approx(low, abs=1e-12), d


def test_dp_table_matches_the_regulations_table() -> None:
    table = pl.read_csv(shared_path("rules", "fide_dp_table_p_to_dp.csv"))
    assert [fide_elo.dp(p) for p in table["p"]] == table["dp"].to_list()


@pytest.mark.parametrize("row", read_csv(DATA / "fide_initial_rating_examples.csv").to_dicts(),
                         ids=lambda r: r["example"])
def test_initial_rating_worked_examples(row: dict[str, Any]) -> None:
    opponents = [float(x) for x in row["opponents"].split()]
    scores = [float(x) for x in row["scores"].split()]
    got = fide_elo.initial_rating(opponents, scores, rule_set=row["rule_set"], require_minimum=row["require_minimum"])
    assert got.rating == row["rating"]


def test_initial_rating_floors_and_cap() -> None:
    assert fide_elo.initial_rating([1150.0] * 9, [0.0] * 9 + [], rule_set="fide-2009").rating is None  # below 1200
    assert fide_elo.initial_rating([1300.0] * 5, [0.5] * 5, rule_set="fide-2014").rating == 1300
    assert fide_elo.initial_rating([1300.0] * 4, [0.5] * 4, rule_set="fide-2014").rating is None  # 5 games needed
    assert fide_elo.initial_rating([1200.0] * 5, [0.0] * 5, rule_set="fide-2024").rating is None  # 1062 < 1400
    assert fide_elo.initial_rating([2600.0] * 9, [1.0] * 9, rule_set="fide-2024").rating == 2200  # cap


def _comp(cid: str, start: date, end: date | None = None) -> dict[str, Any]:
    return {"competition_id": cid, "start_date": start, "end_date": end or start}


def _run(comps: list[dict[str, Any]], games: list[tuple[str, str, str, float]], seed: list[dict[str, Any]],
         players: pl.DataFrame | None = None, status: list[str] | None = None) -> engine.RatingRun:
    g = pl.DataFrame(
        [{"competition_id": c, "round": i + 1, "player_a": a, "player_b": b, "score_a": s} for i, (c, a, b, s) in enumerate(games)],
        schema={"competition_id": pl.Utf8, "round": pl.Int32, "player_a": pl.Utf8, "player_b": pl.Utf8, "score_a": pl.Float64},
    )
    if status:
        g = g.with_columns(status=pl.Series(status))
    start = pl.DataFrame(seed, schema={"player_id": pl.Utf8, "rating": pl.Float64, "games": pl.Int64, "k": pl.Float64})
    return engine.rate_history("fide", pl.DataFrame(comps), g, start, players=players)


def _row(run: engine.RatingRun, cid: str, pid: str) -> dict[str, Any]:
    return run.changes.filter((pl.col("competition_id") == cid) & (pl.col("player_id") == pid)).row(0, named=True)


def test_initial_rating_2024_published_example_end_to_end() -> None:
    opps = {"o1": 1902.0, "o2": 1877.0, "o3": 1884.0, "o4": 2012.0, "o5": 1832.0}
    seed = [{"player_id": o, "rating": r, "games": 100, "k": 20.0} for o, r in opps.items()]
    games = [("T", "new", o, s) for o, s in zip(opps, [0.5, 0.5, 1.0, 0.0, 1.0], strict=True)]
    run = _run([_comp("T", date(2024, 5, 4), date(2024, 5, 12))], games, seed)
    row = _row(run, "T", "new")
    assert row["period"] == "2024-06" and row["rule_set"] == "fide-2024"
    assert row["rating_before"] is None and row["games"] == 5 and row["score"] == 3.0
    assert row["rating_after"] == 1922.0
    # The rated opponents' games against an unrated player do not count.
    assert run.changes.filter(pl.col("player_id") == "o1").height == 0
    new = run.ratings.filter(pl.col("player_id") == "new").row(0, named=True)
    assert new["rating"] == 1922.0 and new["games"] == 5 and new["k"] == 40


def test_initial_rating_pooled_blocks_2009_starke() -> None:
    seed = [{"player_id": f"a{i}", "rating": 2162.0, "games": 100, "k": 15.0} for i in range(6)]
    seed += [{"player_id": f"b{i}", "rating": 2070.0, "games": 100, "k": 15.0} for i in range(4)]
    games = [("T1", "bruno", f"a{i}", s) for i, s in enumerate([1, 1, 1, 1, 0, 0])]
    games += [("T2", "bruno", f"b{i}", s) for i, s in enumerate([1, 0, 0, 0])]
    comps = [_comp("T1", date(2010, 3, 6), date(2010, 3, 14)), _comp("T2", date(2010, 9, 4), date(2010, 9, 12))]
    run = _run(comps, [(c, a, b, float(s)) for c, a, b, s in games], seed)
    first, second = _row(run, "T1", "bruno"), _row(run, "T2", "bruno")
    assert first["rating_after"] is None            # 6 games: fewer than 9, nothing published
    assert first["period"] == "2010-05"             # bi-monthly lists before July 2012
    assert second["rating_after"] == 2125.0         # 5/10 v Rc 2125 -> 2125
    assert second["rule_set"] == "fide-2009"


def test_initial_rating_needs_a_point_in_the_first_event_2009() -> None:
    seed = [{"player_id": f"a{i}", "rating": 2000.0, "games": 100, "k": 15.0} for i in range(9)]
    games = [("T1", "x", f"a{i}", 0.0) for i in range(3)] + [("T2", "x", f"a{i}", 0.5) for i in range(3, 9)]
    comps = [_comp("T1", date(2010, 3, 6)), _comp("T2", date(2010, 4, 10))]
    run = _run(comps, games, seed)
    # 0/3 in the first event: that event is disregarded; 6 games remain (< 9): no rating.
    assert _row(run, "T2", "x")["rating_after"] is None


def test_pools_expire_after_the_window() -> None:
    seed = [{"player_id": f"a{i}", "rating": 1800.0, "games": 100, "k": 20.0} for i in range(5)]
    comps = [_comp("T1", date(2015, 1, 10)), _comp("T2", date(2017, 6, 10))]
    games = [("T1", "x", "a0", 1.0), ("T1", "x", "a1", 0.5), ("T1", "x", "a2", 0.5)]
    games += [("T2", "x", "a3", 0.5), ("T2", "x", "a4", 0.5)]
    run = _run(comps, games, seed)
    assert _row(run, "T2", "x")["rating_after"] is None  # T1 is older than 26 months
    run = _run([comps[0], _comp("T2", date(2016, 6, 10))], games, seed)
    assert _row(run, "T2", "x")["rating_after"] == 1800.0 + 20  # 2½+1 = 3/5 v 1800: 20 per half point above 50 %


@pytest.mark.parametrize(
    ("start", "rule_set", "pd_top", "pd_second"),
    [
        (date(2015, 5, 2), "fide-2014", 0.92, 0.92),   # every game capped
        (date(2023, 5, 2), "fide-2022", 0.92, 0.94),   # only the largest difference (500) capped; 450 is not
        (date(2024, 5, 2), "fide-2024", 0.92, 0.92),   # every game again
        (date(2025, 11, 2), "fide-2025", 0.96, 0.94),  # a 2650+ player is exempt
    ],
)
def test_400_point_rule_by_version(start: date, rule_set: str, pd_top: float, pd_second: float) -> None:
    seed = [{"player_id": "top", "rating": 2700.0, "games": 500, "k": 10.0},
            {"player_id": "o1", "rating": 2200.0, "games": 500, "k": 20.0},
            {"player_id": "o2", "rating": 2250.0, "games": 500, "k": 20.0}]
    run = _run([_comp("T", start)], [("T", "top", "o1", 1.0), ("T", "top", "o2", 1.0)], seed)
    ex = run.explanations.filter(pl.col("player_id") == "top").sort("opponent_id")
    assert ex["expected"].to_list() == [pytest.approx(pd_top, abs=1e-12), pytest.approx(pd_second, abs=1e-12)]
    assert set(ex["rule_set"]) == {rule_set}
    # the weaker side keeps the cap in every version (2200 and 2250 are below 2650)
    low = run.explanations.filter(pl.col("player_id") == "o1")["expected"][0]
    assert low == pytest.approx(0.08 if rule_set != "fide-2022" or pd_top == 0.92 else 0.04, abs=1e-12)


@pytest.mark.parametrize(
    ("kwargs", "k"),
    [
        ({"rating": 1800, "games": 10, "rule_set": "fide-2009"}, 30),
        ({"rating": 1800, "games": 40, "rule_set": "fide-2009"}, 15),
        ({"rating": 2390, "games": 40, "rule_set": "fide-2009", "rated_max": 2400}, 10),
        ({"rating": 1800, "games": 10, "rule_set": "fide-2014"}, 40),
        ({"rating": 2250, "games": 100, "rule_set": "fide-2014", "age": 17}, 40),
        ({"rating": 2350, "games": 100, "rule_set": "fide-2014", "age": 17}, 20),
        ({"rating": 1800, "games": 100, "rule_set": "fide-2014", "age": 19}, 20),
        ({"rating": 1800, "games": 10, "rule_set": "fide-2024", "games_in_period": 20}, 35),  # 700 / 20
        ({"rating": 1800, "games": 10, "rule_set": "fide-2009", "games_in_period": 30}, 30),  # no cap before 2014
    ],
)
def test_k_factor_by_version(kwargs: dict[str, Any], k: int) -> None:
    assert fide_elo.k_factor(**kwargs) == k


def test_k_from_birth_year_and_the_700_cap_end_to_end() -> None:
    seed = [{"player_id": "kid", "rating": 1800.0, "games": 100, "k": None}]
    seed += [{"player_id": f"o{i}", "rating": 1800.0, "games": 100, "k": 20.0} for i in range(20)]
    players = pl.DataFrame({"player_id": ["kid"], "birth_year": [2010]})
    run = _run([_comp("T", date(2025, 2, 1))], [("T", "kid", f"o{i}", 0.5) for i in range(20)], seed, players=players)
    assert _row(run, "T", "kid")["k"] == 35.0  # junior 40, but 40 x 20 > 700 -> floor(700 / 20)


def test_one_rounding_per_period_and_the_half() -> None:
    # fide-2009, K 15: a win as the higher-rated (PD .90) is 15 x 0.10 = 1.5 -> +2 (binary: 1.4999999999999996).
    seed = [{"player_id": "p", "rating": 2000.0, "games": 100, "k": None},
            {"player_id": "q", "rating": 1640.0, "games": 100, "k": None}]
    run = _run([_comp("T", date(2010, 2, 1))], [("T", "p", "q", 1.0)], seed)
    row = _row(run, "T", "p")
    assert row["k"] == 15.0 and row["expected"] == pytest.approx(0.90)
    assert row["rating_after"] == 2002.0
    assert _row(run, "T", "q")["rating_after"] == 1638.0
    # Two tournaments in one period: +0.4 and +0.4 round once to +1 (each alone would be 0).
    seed = [{"player_id": "p", "rating": 2000.0, "games": 100, "k": 20.0},
            {"player_id": "q", "rating": 2004.0, "games": 100, "k": 20.0}]
    comps = [_comp("A", date(2025, 3, 1)), _comp("B", date(2025, 3, 15))]
    run = _run(comps, [("A", "p", "q", 0.5), ("B", "p", "q", 0.5)], seed)
    assert _row(run, "A", "p")["change"] == pytest.approx(0.2) and _row(run, "B", "p")["change"] == pytest.approx(0.2)
    assert _row(run, "B", "p")["rating_after"] == 2000.0
    seed[1]["rating"] = 2015.0  # diff 15: PD .48, a draw is 20 x 0.02 = 0.4
    run = _run(comps, [("A", "p", "q", 0.5), ("B", "p", "q", 0.5)], seed)
    assert [_row(run, c, "p")["change"] for c in "AB"] == [pytest.approx(0.4), pytest.approx(0.4)]
    assert _row(run, "B", "p")["rating_after"] == 2001.0


def test_forfeits_are_not_rated_and_unrated_opponents_do_not_count() -> None:
    seed = [{"player_id": "p", "rating": 2000.0, "games": 100, "k": 20.0},
            {"player_id": "q", "rating": 2000.0, "games": 100, "k": 20.0}]
    run = _run([_comp("T", date(2025, 3, 1))], [("T", "p", "q", 1.0), ("T", "p", "u", 1.0)], seed,
               status=["forfeit", "played"])
    assert run.changes.filter(pl.col("player_id") == "p").height == 0
    row = _row(run, "T", "u")  # the unrated player's loss joins his pool
    assert row["games"] == 1 and row["score"] == 0.0 and row["rating_after"] is None


def test_ratings_of_the_list_in_force_at_the_start() -> None:
    # A ends in September (rated in the October list); B started in September, before
    # that list, so it uses p's September rating even though it ends in October.
    seed = [{"player_id": "p", "rating": 2000.0, "games": 100, "k": 20.0},
            {"player_id": "q", "rating": 2000.0, "games": 100, "k": 20.0},
            {"player_id": "r", "rating": 2000.0, "games": 100, "k": 20.0}]
    comps = [_comp("A", date(2025, 9, 5), date(2025, 9, 7)), _comp("B", date(2025, 9, 28), date(2025, 10, 3)),
             _comp("C", date(2025, 10, 10))]
    run = _run(comps, [("A", "p", "q", 1.0), ("B", "p", "r", 1.0), ("C", "p", "r", 1.0)], seed)
    assert _row(run, "A", "p")["period"] == "2025-10" and _row(run, "A", "p")["rating_after"] == 2010.0
    assert _row(run, "B", "p")["period"] == "2025-11" and _row(run, "B", "p")["rating_before"] == 2000.0
    assert _row(run, "C", "p")["rating_before"] == 2010.0


def _published_periods() -> pl.DataFrame:
    return read_csv(DATA / "fide_published_periods.csv", period=pl.Utf8(), total_change_shown=pl.Float64())


def test_published_periods_golden_file_is_consistent() -> None:
    """The transcribed figures agree with themselves (a check on the golden file, not on the engine)."""
    golden = _published_periods()
    assert golden.height == 40 and golden["case"].n_unique() == 40
    assert (golden["player_id"].str.slice(-7) == golden["period"]).all()
    for row in golden.iter_rows(named=True):
        total = row["total_change_shown"]
        once = math.copysign(math.floor(abs(total) + 0.5 + 1e-9), total)  # half away from zero
        assert row["change_rounded_per_period"] == once, row["case"]
        follows_period = row["published_change"] == row["change_rounded_per_period"]
        follows_tournament = row["published_change"] == row["change_rounded_per_tournament"]
        assert row["list_follows"] == {(True, True): "both", (True, False): "period",
                                       (False, True): "tournament", (False, False): "neither"}[
            (follows_period, follows_tournament)], row["case"]


def test_published_periods_reproduce_fide_figures() -> None:
    """FIDE's per-player calculations of 40 periods (../shared/data/fide/published_periods).

    Expected: FIDE's published K, number of rated games, total ``K x sum(score - PD)``
    and that total rounded once per period (``data/fide_published_periods.csv``,
    transcribed from FIDE's calculations; where FIDE's list moved by another
    figure the file says why).
    """
    folder = shared_path("data", "fide", "published_periods")
    games = read_games(sorted((folder / "results").glob("*.results.csv")))
    start = pl.read_csv(folder / "seed.ratings.csv", try_parse_dates=True, schema_overrides={"player_id": pl.Utf8})
    run = engine.rate_history("fide", competitions_of(games), games, start, config={"system": "fide-elo"})
    focal = run.changes.filter(pl.col("player_id").str.starts_with("P"))
    per = focal.group_by("player_id", "period").agg(
        pl.col("k").unique(), pl.col("games").sum(), pl.col("change").sum().alias("total_change"),
        (pl.col("rating_after").first() - pl.col("rating_before").first()).alias("change"),
    )
    assert (per["k"].list.len() == 1).all()  # one K for the whole period
    result = per.with_columns(pl.col("k").list.first()).sort("player_id")
    expected = _published_periods().select(
        "player_id", "period", pl.col("k").cast(pl.Float64), pl.col("games").cast(pl.Int64),
        pl.col("total_change_shown").alias("total_change"),
        pl.col("change_rounded_per_period").cast(pl.Float64).alias("change"),
    ).sort("player_id")
    assert_frame_equal(result.select(expected.columns), expected, check_dtypes=False, rel_tol=0.0, abs_tol=1e-9)


def test_list_k_after_the_history() -> None:
    seed = [{"player_id": "p", "rating": 2000.0, "games": 25, "k": 40.0},
            {"player_id": "q", "rating": 2000.0, "games": 100, "k": 20.0},
            {"player_id": "idle", "rating": 2300.0, "games": 300, "k": 10.0}]
    run = _run([_comp("T", date(2025, 3, 1))], [("T", "p", "q", 0.5)] * 6, seed)
    k = dict(run.ratings.select("player_id", "k").iter_rows())
    assert k == {"p": 20, "q": 20, "idle": 10}  # p reached 31 games; idle keeps the list's K
