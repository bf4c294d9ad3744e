"""The EGF GoR's scalar formulas, classic and 2021 (see :mod:`engine.egf_gor`, which re-exports them)."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping

import numpy as np

from engine.errors import InvalidHistoryError

#: Ratings of the classic con/a table (``../shared/rules/egf_old_con_a_table.csv``).
CON_GOR: tuple[float, ...] = tuple(float(r) for r in range(100, 2800, 100))
#: con at those ratings (classic system), linearly interpolated in between.
CON_VALUES: tuple[float, ...] = (
    116, 110, 105, 100, 95, 90, 85, 80, 75, 70, 65, 60, 55, 51, 47, 43, 39, 35, 31, 27, 24, 21, 18, 15, 13, 11, 10,
)
#: Deflation correction of the classic system.
EPSILON = 0.016
#: beta(r) = -7 ln(3300 - r) is undefined from 3300: a rating made that high by a
#: large handicap (a 2600 receiving 9 stones) is held just below it.
BETA_CEILING = 3299.0
#: Tournament class weights of the 2021 system.
CLASS_WEIGHTS: Mapping[str, float] = {"A": 1.0, "B": 0.75, "C": 0.5, "D": 0.25}


def grade_rating(grade: str) -> float:
    """Starting rating of a declared grade: 20k = 100 ... 1k = 2000, 1d = 2100 ... 7d = 2700.

    Raises
    ------
    InvalidHistoryError
        Not a kyu/dan grade.

    Examples
    --------
    >>> grade_rating("20k"), grade_rating("1K"), grade_rating("1d"), grade_rating("7D"), grade_rating("30k")
    (100.0, 2000.0, 2100.0, 2700.0, -900.0)
    """
    m = re.fullmatch(r"\s*(\d{1,2})\s*([kKdDpP])\s*", grade or "")
    if not m:
        raise InvalidHistoryError(f"declared grade {grade!r} is not a kyu/dan grade such as '3k' or '1d'")
    n, kind = int(m.group(1)), m.group(2).lower()
    if kind == "k":
        return 2100.0 - 100.0 * n
    if kind == "d":
        return 2000.0 + 100.0 * n
    # Professional grades sit just above 7d (the EGD counts 1p as 2730, 30 per grade).
    return 2700.0 + 30.0 * n


def con_classic(rating: float) -> float:
    """``con`` of the classic system, linearly interpolated in the table.

    Examples
    --------
    >>> con_classic(100), con_classic(1675), con_classic(1721), con_classic(3000)
    (116.0, 40.0, 38.16, 10.0)
    """
    return float(np.interp(rating, CON_GOR, CON_VALUES))


def a_classic(rating: float) -> float:
    """``a = 200 - (R - 100) / 20`` of the lower-rated player (70 from 2700; 200 up to 100).

    Examples
    --------
    >>> a_classic(1675), a_classic(2800), a_classic(-50)
    (121.25, 70.0, 200.0)
    """
    r = min(max(rating, 100.0), 2700.0)
    return 200.0 - (r - 100.0) / 20.0


def handicap_bonus(handicap: int) -> float:
    """Rating-point worth of ``handicap`` stones: ``100 x (h - 0.5)`` (0 for an even game).

    Examples
    --------
    >>> handicap_bonus(0), handicap_bonus(1), handicap_bonus(3)
    (0.0, 50.0, 250.0)
    """
    return 100.0 * (abs(handicap) - 0.5) if handicap else 0.0


def expected_classic(
    rating: float, opponent: float, *, handicap: int = 0, epsilon: float = EPSILON, mode: str = "stronger"
) -> float:
    """``Se`` of the player in the classic system.

    ``handicap``: stones given by the player (negative: received).

    Examples
    --------
    >>> round(expected_classic(1721, 1724), 4), round(expected_classic(1721, 1617), 4)
    (0.4937, 0.682)
    """
    eff_own = rating + (handicap_bonus(handicap) if handicap < 0 else 0.0)
    eff_opp = opponent + (handicap_bonus(handicap) if handicap > 0 else 0.0)
    a = a_classic(min(rating, opponent))
    if eff_own <= eff_opp:
        se = 1.0 / (math.exp((eff_opp - eff_own) / a) + 1.0)
        return se - (epsilon / 2 if mode == "split" else 0.0)
    se_low = 1.0 / (math.exp((eff_own - eff_opp) / a) + 1.0)
    return 1.0 - se_low - (epsilon / 2 if mode == "split" else epsilon)


def beta(rating: float) -> float:
    """``beta(r) = -7 ln(3300 - r)`` of the 2021 system.

    Examples
    --------
    >>> round(beta(2100), 6)
    -49.630538
    """
    return -7.0 * math.log(3300.0 - min(rating, BETA_CEILING))


def expected_2021(rating: float, opponent: float, *, handicap: int = 0) -> float:
    """``Se = 1 / (1 + e^(beta(r2) - beta(r1)))`` (2021), handicap inside ``beta``.

    Examples
    --------
    >>> round(expected_2021(1000, 1300), 8)
    0.27322256
    """
    eff_own = rating + (handicap_bonus(handicap) if handicap < 0 else 0.0)
    eff_opp = opponent + (handicap_bonus(handicap) if handicap > 0 else 0.0)
    return 1.0 / (1.0 + math.exp(beta(eff_opp) - beta(eff_own)))


def con_2021(rating: float) -> float:
    """``con = ((3300 - r) / 200)^1.6`` (2021).

    Examples
    --------
    >>> round(con_2021(2100), 4)
    17.5809
    """
    return float(((3300.0 - min(rating, BETA_CEILING)) / 200.0) ** 1.6)


def bonus_2021(rating: float) -> float:
    """``bonus = ln(1 + e^((2300 - r) / 80)) / 5`` (2021), per game.

    Examples
    --------
    >>> round(bonus_2021(2100), 4), round(bonus_2021(-900), 4)
    (0.5158, 8.0)
    """
    return math.log1p(math.exp((2300.0 - rating) / 80.0)) / 5.0
