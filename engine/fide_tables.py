"""FIDE Elo tables and scalar rules: PD, dp, K and the initial rating, each implemented once.

Sources: FIDE Rating Regulations (handbook B02) effective 1 July 2009, 1 July 2014,
1 January 2022, 1 March 2024 and 1 October 2025, as summarised in
``../shared/rules/RULES.md`` ("FIDE"); the initial-rating worked examples of
"Rating – Parte III" (AI Mauro Amaral and AI Marius Rombout van Riemsdijk), and the
2024 regulations' published example (opponents 1902 ½, 1877 ½, 1884 1, 2012 0,
1832 1 -> 1922).

Every rule is one numba-compiled function (:func:`pd100`, :func:`k_rule`,
:func:`initial_from_sums`) that the history kernel (:mod:`engine.fide_kernel`) and
the public helpers here (:func:`expected_score`, :func:`k_factor`,
:func:`initial_rating`) both call. A rule set's parameters reach them as one record
of :data:`RULE_DTYPE` (named fields, compiled as a struct) built by
:func:`rule_table`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numba
import numpy as np
import numpy.typing as npt

from engine import rulesets

#: Upper bounds of the rating-difference bands of the PD table (B02 8.1.2; table
#: ``../shared/rules/fide_expected_score_table_PD.csv``); above the last: PD 1.00.
PD_UPPER: tuple[int, ...] = (
    3, 10, 17, 25, 32, 39, 46, 53, 61, 68, 76, 83, 91, 98, 106, 113, 121, 129, 137, 145, 153, 162, 170,
    179, 188, 197, 206, 215, 225, 235, 245, 256, 267, 278, 290, 302, 315, 328, 344, 357, 374, 391, 411,
    432, 456, 484, 517, 559, 619, 735,
)
#: PD of the higher-rated player, in hundredths, for each band (and beyond the last).
PD_HIGH: tuple[int, ...] = tuple(range(50, 101))
#: dp (rating difference) for a percentage score p = 0.00 ... 1.00 (B02 8.1.1;
#: ``../shared/rules/fide_dp_table_p_to_dp.csv``).
DP_TABLE: tuple[int, ...] = (
    -800, -677, -589, -538, -501, -470, -444, -422, -401, -383, -366, -351, -336, -322, -309, -296, -284,
    -273, -262, -251, -240, -230, -220, -211, -202, -193, -184, -175, -166, -158, -149, -141, -133, -125,
    -117, -110, -102, -95, -87, -80, -72, -65, -57, -50, -43, -36, -29, -21, -14, -7, 0, 7, 14, 21, 29,
    36, 43, 50, 57, 65, 72, 80, 87, 95, 102, 110, 117, 125, 133, 141, 149, 158, 166, 175, 184, 193, 202,
    211, 220, 230, 240, 251, 262, 273, 284, 296, 309, 322, 336, 351, 366, 383, 401, 422, 444, 470, 501,
    538, 589, 677, 800,
)
#: A player is inactive after this long without a rated game (B02: one year).
INACTIVE_AFTER_DAYS = 365

# The tables as arrays: numba freezes module-level arrays into the compiled code.
_PD_UPPER = np.array(PD_UPPER, dtype=np.int64)
_DP = np.array(DP_TABLE, dtype=np.int64)

#: One rule set's parameters, as the compiled rules read them (all float64).
RULE_DTYPE = np.dtype([
    ("cap_mode", np.float64),          # 400-point rule: 1 every game, 2 once per player and tournament
    ("cap_exempt", np.float64),        # no 400-point rule from this rating on (inf: none)
    ("k_new", np.float64),
    ("k_mid", np.float64),
    ("k_top", np.float64),
    ("k_new_games", np.float64),
    ("k_top_from", np.float64),
    ("k_junior", np.float64),          # 0: no junior K
    ("k_junior_below", np.float64),
    ("k_cap", np.float64),             # K x n <= k_cap (0: no cap)
    ("init_min_games", np.float64),
    ("init_floor", np.float64),
    ("init_per_half", np.float64),
    ("init_method", np.float64),       # 1: Ra + dp with hypothetical games (2024), 0: Rc (2009/2014)
    ("init_min_first2", np.float64),   # minimum points of a first event, in half points
    ("init_min_rated", np.float64),    # minimum rated opponents of an event
    ("init_cap", np.float64),          # inf: none
    ("init_hyp", np.float64),          # rating of the hypothetical opponents
    ("init_hyp_n", np.float64),        # number of hypothetical draws
])
CAP_EVERY = 1.0
CAP_ONCE = 2.0
METHOD_RA_DP = 1.0


def rule_table(names: Sequence[str], *, require_minimum: bool = True) -> npt.NDArray[np.void]:
    """The rule sets ``names`` as records of :data:`RULE_DTYPE`, one per name.

    ``require_minimum=False`` lowers the initial rating's minimum games to one.

    Examples
    --------
    >>> t = rule_table(["fide-2009", "fide-2024"])
    >>> float(t[0]["k_new"]), float(t[1]["init_floor"]), float(t[1]["init_method"])
    (30.0, 1400.0, 1.0)
    """
    table = np.zeros(len(names), dtype=RULE_DTYPE)
    for i, name in enumerate(names):
        p = rulesets.get(name).params
        row = table[i]
        row["cap_mode"] = CAP_EVERY if p["cap_400"] == "every" else CAP_ONCE
        row["cap_exempt"] = np.inf if p["cap_400_exempt_from"] is None else p["cap_400_exempt_from"]
        for field in ("k_new", "k_mid", "k_top", "k_new_games", "k_top_from"):
            row[field] = p[field]
        row["k_junior"] = p["k_junior"] or 0.0
        row["k_junior_below"] = p["k_junior_below"] or 0.0
        row["k_cap"] = p["k_cap"] or 0.0
        row["init_min_games"] = p["initial_min_games"] if require_minimum else 1
        row["init_floor"] = p["initial_floor"]
        row["init_per_half"] = p["initial_per_half_point"]
        row["init_method"] = METHOD_RA_DP if p["initial_method"] == "ra_dp" else 0.0
        row["init_min_first2"] = 2 * p["initial_min_points_first"]
        row["init_min_rated"] = p["initial_min_rated_opponents"]
        row["init_cap"] = np.inf if p["initial_cap"] is None else p["initial_cap"]
        row["init_hyp"] = p.get("initial_hypothetical", 0.0)
        row["init_hyp_n"] = p.get("initial_hypothetical_games", 0)
    return table


# ---------------------------------------------------------------- the rules, compiled once
# Inlined into the kernel: a call passing arrays would cost reference counting on every game.


@numba.njit(cache=True, nogil=True, inline="always")
def pd100(diff: float, higher: bool, cap: bool) -> int:  # pragma: no cover - compiled
    """PD in hundredths for a rating difference ``diff`` (B02 8.1.2), capped at 400 when ``cap``."""
    d = int(np.floor(abs(diff) + 0.5))
    if cap and d > 400:
        d = 400
    lo = 0
    hi = _PD_UPPER.shape[0]
    while lo < hi:
        mid = (lo + hi) // 2
        if _PD_UPPER[mid] < d:
            lo = mid + 1
        else:
            hi = mid
    high = 50 + lo
    return high if higher else 100 - high


@numba.njit(cache=True, nogil=True, inline="always")
def k_rule(rs: Any, rating: float, rated_max: float, games: float, age: int, has_age: bool,
           n_period: int) -> int:  # pragma: no cover - compiled
    """K of a rated player under the rule set ``rs`` (B02 8.3.3), ``n_period`` games in the period."""
    top = max(rating, rated_max)
    if top >= rs.k_top_from:
        k = rs.k_top
    elif games < rs.k_new_games:
        k = rs.k_new
    elif rs.k_junior > 0 and has_age and age <= 18 and rating < rs.k_junior_below:
        k = rs.k_junior
    else:
        k = rs.k_mid
    if rs.k_cap > 0 and k * n_period > rs.k_cap:
        k = np.floor(rs.k_cap / n_period)
    return int(k)


@numba.njit(cache=True, nogil=True, inline="always")
def initial_from_sums(rs: Any, n: int, w2: int, total: float) -> float:  # pragma: no cover - compiled
    """Initial rating from ``n`` games against rated opponents summing ``total``, ``w2`` half points.

    NaN when there are too few games or the result is below the version's floor.
    """
    if n < rs.init_min_games or n == 0:
        return np.nan
    if rs.init_method == METHOD_RA_DP:
        hyp_n = int(rs.init_hyp_n)
        rav = (total + rs.init_hyp * hyp_n) / (n + hyp_n)
        p100 = (2 * ((w2 + hyp_n) * 100) + 2 * (n + hyp_n)) // (4 * (n + hyp_n))
        ru = np.floor(rav + _DP[p100] + 0.5)
        ru = min(ru, rs.init_cap)
    else:
        rc = np.floor(total / n + 0.5)
        if w2 > n:
            ru = np.floor(rc + rs.init_per_half * (w2 - n) + 0.5)
        else:
            p100 = (w2 * 100 + n) // (2 * n)
            ru = rc + _DP[p100]
    if ru < rs.init_floor:
        return np.nan
    return float(ru)


@numba.njit(cache=True, nogil=True)
def _pd100_one(diff: float, higher: bool, cap: bool) -> int:  # pragma: no cover - compiled
    return pd100(diff, higher, cap)


@numba.njit(cache=True, nogil=True)
def k_column(rs: Any, rating: Any, rated_max: Any, games: Any, age: Any, has_age: Any,
             n_period: int) -> Any:  # pragma: no cover - compiled
    """:func:`k_rule` for each player (``rating`` NaN: unrated, K 0)."""
    out = np.zeros(rating.shape[0], dtype=np.int64)
    for i in range(rating.shape[0]):
        if not np.isnan(rating[i]):
            out[i] = k_rule(rs[0], rating[i], rated_max[i], games[i], age[i], has_age[i], n_period)
    return out


@numba.njit(cache=True, nogil=True)
def _initial_one(rs: Any, n: int, w2: int, total: float) -> float:  # pragma: no cover - compiled
    return initial_from_sums(rs[0], n, w2, total)


# ---------------------------------------------------------------- the public scalar helpers


def expected_score(rating: float, opponent_rating: float, *, cap_400: bool = True) -> float:
    """PD, the expected score from the banded table (B02 8.1.2).

    Parameters
    ----------
    rating, opponent_rating : float
        Ratings of the player and of the opponent (list in force).
    cap_400 : bool
        Count a difference above 400 as 400 (the 400-point rule).

    Examples
    --------
    >>> expected_score(2000, 1990), expected_score(1990, 2000)
    (0.51, 0.49)
    >>> expected_score(2600, 2000), expected_score(2600, 2000, cap_400=False)
    (0.92, 0.98)
    """
    diff = float(rating) - float(opponent_rating)
    return int(_pd100_one(abs(diff), diff >= 0, cap_400)) / 100.0


def dp(p: float) -> int:
    """dp for a fractional score ``p`` rounded to a whole percent (B02 8.1.1).

    Examples
    --------
    >>> dp(2.5 / 6), dp(0.5), dp(1.0)
    (-57, 0, 800)
    """
    return DP_TABLE[int(np.floor(p * 100 + 0.5 + 1e-9))]


def k_factor(
    *,
    rating: float,
    games: int,
    rule_set: str = "fide-2024",
    rated_max: float | None = None,
    age: int | None = None,
    games_in_period: int = 1,
) -> int:
    """K of a rated player (B02 8.3.3 of each version).

    Until June 2014: 30 until 30 games, 15 below 2400, 10 once 2400 was reached
    (permanently). From July 2014: 40 until 30 games, 40 for players under 18
    (until the end of the year of their 18th birthday) rated below 2300, 20 below
    2400, 10 once 2400 was reached; if ``K x n > 700`` in a period, ``K = floor(700 / n)``.

    Examples
    --------
    >>> k_factor(rating=1800, games=12, rule_set="fide-2009"), k_factor(rating=1800, games=12)
    (30, 40)
    >>> k_factor(rating=2250, games=100, age=16), k_factor(rating=2350, games=100, rated_max=2410)
    (40, 10)
    >>> k_factor(rating=1800, games=100, games_in_period=40)
    17
    """
    k = k_column(
        rule_table([rule_set]), np.array([rating], dtype=np.float64),
        np.array([-np.inf if rated_max is None else rated_max], dtype=np.float64),
        np.array([games], dtype=np.float64), np.array([0 if age is None else age], dtype=np.int64),
        np.array([age is not None]), int(games_in_period),
    )
    return int(k[0])


@dataclass(frozen=True)
class InitialRating:
    """The initial rating an unrated player earns from pooled games (or why not)."""

    rating: int | None
    """The published rating; ``None`` when not enough games or below the floor."""
    games: int
    """Games against rated opponents that counted."""
    score: float
    """Points scored in those games."""
    average: float
    """``Rc`` (2009/2014: opponents' average, rounded) or ``Ra`` (2024: incl. the two 1800s)."""
    rule_set: str


def initial_rating(
    opponents: Sequence[float], scores: Sequence[float], *, rule_set: str = "fide-2009",
    require_minimum: bool = True,
) -> InitialRating:
    """Initial rating from games against rated opponents, pooled as one tournament.

    2009: ``Rc`` the opponents' average (rounded, .5 up); score above 50 %:
    ``Ru = Rc + 12.5`` per half point above 50 %, else ``Ru = Rc + dp(p)``; at
    least 9 games; below 1200 nothing is published. 2014: 20 per half point, at
    least 5 games, floor 1000. March 2024: two hypothetical draws against 1800
    are added, ``Ru = Ra + dp(p)`` over ``n + 2`` games, at least 1400, at most 2200.

    Parameters
    ----------
    opponents : sequence of float
        Ratings of the rated opponents (list in force at each tournament's start).
    scores : sequence of float
        The player's score against each.
    rule_set : str
        ``fide-2009``, ``fide-2014``, ``fide-2022``, ``fide-2024`` or ``fide-2025``.
    require_minimum : bool
        Apply the version's minimum number of games (``False``: the value of a
        block, as the source article computes for single tournaments).

    Examples
    --------
    >>> initial_rating([1958] * 6, [1, 1, 1, 1, 0.5, 0], require_minimum=False).rating   # 4½/6 v 1958
    1996
    >>> initial_rating([1958] * 6, [1, 1, 1, 1, 0.5, 0]).rating is None   # 2009: 9 games needed
    True
    >>> initial_rating([1902, 1877, 1884, 2012, 1832], [0.5, 0.5, 1, 0, 1], rule_set="fide-2024").rating
    1922
    """
    table = rule_table([rule_set], require_minimum=require_minimum)
    rs = table[0]
    n = len(opponents)
    w2 = round(2 * sum(scores))
    total = float(sum(opponents))
    ru = float(_initial_one(table, n, w2, total))
    if rs["init_method"] == METHOD_RA_DP:
        hyp_n = int(rs["init_hyp_n"])
        average = (total + float(rs["init_hyp"]) * hyp_n) / max(n + hyp_n, 1)
    else:
        average = float(np.floor(total / max(n, 1) + 0.5))
    return InitialRating(
        rating=None if np.isnan(ru) else int(ru), games=n, score=w2 / 2, average=average, rule_set=rule_set
    )
