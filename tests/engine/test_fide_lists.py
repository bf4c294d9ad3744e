"""FIDE rapid and blitz lists: each competition is rated with its own list's dated rules.

Source: ``../shared/rules/RULES.md``, "FIDE rapid and blitz lists" (K = 20 for every
player until 30 September 2022, 700 / n above 35 games; the standard K rules from
1 October 2022, with that day's one-off adjustment to standard - 100).
"""

from __future__ import annotations

from datetime import date

import polars as pl
import pytest

import engine
from engine import fide_elo, rulesets


def _one_game(modality: str | None, day: date) -> pl.DataFrame:
    comps = pl.DataFrame({"competition_id": ["T"], "start_date": [day], "end_date": [day],
                          "modality": [modality]})
    games = pl.DataFrame({"competition_id": ["T"], "round": [1], "player_a": ["1"], "player_b": ["2"],
                          "score_a": [1.0], "status": ["played"]})
    # Player 1 has 12 rated games: K 40 on the standard list (fewer than 30 games), 20 in rapid and blitz before October 2022.
    start = pl.DataFrame({"player_id": ["1", "2"], "rating": [1800.0, 1800.0], "games": [12, 200],
                          "as_of": [date(2012, 1, 1)] * 2})
    return engine.rate_history("fide", comps, games, start).changes.filter(pl.col("player_id") == "1")


@pytest.mark.parametrize(
    ("modality", "day", "rule_set", "k"),
    [
        ("standard", date(2020, 3, 7), "fide-2014", 40.0),
        ("rapid", date(2020, 3, 7), "fide-rapid-2014", 20.0),
        ("blitz", date(2020, 3, 7), "fide-blitz-2014", 20.0),
        ("blitz", date(2013, 3, 7), "fide-blitz-2012", 20.0),
        ("rapid", date(2022, 9, 30), "fide-rapid-2022", 20.0),
        ("rapid", date(2022, 10, 1), "fide-rapid-2022-10", 40.0),   # standard K rules from 1 October 2022
        ("blitz", date(2024, 5, 4), "fide-blitz-2024", 40.0),
        (None, date(2020, 3, 7), "fide-2014", 40.0),                 # no modality: the standard list
    ],
)
def test_rapid_and_blitz_are_rated_with_their_own_rule_sets(
    modality: str | None, day: date, rule_set: str, k: float
) -> None:
    change = _one_game(modality, day)
    assert change.get_column("rule_set").to_list() == [rule_set]
    assert change.get_column("k").to_list() == [k]
    assert change.get_column("change").to_list() == [pytest.approx(k * 0.5)]


def test_k_times_games_capped_at_700_in_rapid_before_2022() -> None:
    params = rulesets.get("fide-rapid-2014").params
    assert fide_elo.k_factor(rating=1800, games=12, rule_set="fide-rapid-2014") == 20
    assert (params["k_cap"], params["k_new"], params["k_mid"], params["k_top"]) == (700.0, 20.0, 20.0, 20.0)


def test_one_off_adjustment_of_october_2022() -> None:
    rapid = pl.DataFrame({"player_id": ["a", "b"], "rating": [1650.0, 1990.0]})
    standard = pl.DataFrame({"player_id": ["a", "b"], "rating": [1800.0, 2050.0]})
    result = fide_elo.adjust_to_standard_2022(rapid, standard)
    expected = pl.DataFrame({"player_id": ["a", "b"], "rating": [1700.0, 1990.0]})
    from polars.testing import assert_frame_equal

    assert_frame_equal(result, expected)
