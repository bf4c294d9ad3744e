"""FIDE Elo: rated players' changes per rating period and initial ratings of unrated players.

Sources: FIDE Rating Regulations (handbook B02) effective 1 July 2009, 1 July 2014,
1 January 2022, 1 March 2024 and 1 October 2025, as summarised in
``../shared/rules/RULES.md`` ("FIDE"); the initial-rating worked examples of
"Rating – Parte III" (AI Mauro Amaral and AI Marius Rombout van Riemsdijk), and the
2024 regulations' published example (opponents 1902 ½, 1877 ½, 1884 1, 2012 0,
1832 1 -> 1922).

Rated player: ``change = K x sum(score - PD(D))`` over the rating period, PD from
the banded table (B02 8.1.2, not a formula), ``D`` between the ratings of the list
in force when each tournament started, capped at 400 per the version's rule,
rounded once per period, half away from zero. All arithmetic is done on integers
(scores and PD in hundredths), so a change of exactly ``x.5`` rounds correctly.

Rating periods: monthly lists since July 2012, every two months (odd months) from
July 2009, quarterly before. A tournament is rated in the first list published
after its end date; the period is named after that list (``"2025-11"``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

import numba
import numpy as np
import numpy.typing as npt
import polars as pl

from engine import rulesets
from engine._frames import (
    EXPLANATIONS_SCHEMA,
    RATING_CHANGES_SCHEMA,
    RATING_LIST_SCHEMA,
    RATINGS_SCHEMA,
    conform,
)
from engine._history import History, explain_and_summarise, player_column, prepare, seed_column

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
_EPOCH = date(1970, 1, 1)
_NEVER = -(10**9)


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
    return _pd100(abs(rating - opponent_rating), rating >= opponent_rating, cap_400) / 100.0


def _pd100(diff: float, higher: bool, cap: bool) -> int:
    d = int(np.floor(abs(diff) + 0.5))
    if cap and d > 400:
        d = 400
    idx = int(np.searchsorted(np.asarray(PD_UPPER), d, side="left"))
    high = PD_HIGH[idx]
    return high if higher else 100 - high


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
    p = rulesets.get(rule_set).params
    top = max(rating, rated_max or rating)
    if top >= p["k_top_from"]:
        k = p["k_top"]
    elif games < p["k_new_games"]:
        k = p["k_new"]
    elif p["k_junior"] and age is not None and age <= 18 and rating < p["k_junior_below"]:
        k = p["k_junior"]
    else:
        k = p["k_mid"]
    if p["k_cap"] and k * games_in_period > p["k_cap"]:
        k = p["k_cap"] // games_in_period
    return int(k)


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
    params = rulesets.get(rule_set).params
    n = len(opponents)
    w2 = int(round(2 * sum(scores)))
    total = float(sum(opponents))
    if not require_minimum:
        params = {**params, "initial_min_games": 1}
    ru = _initial_from_sums(n, w2, total, params)
    average = (total + params.get("initial_hypothetical", 0.0) * params.get("initial_hypothetical_games", 0)) / max(
        n + params.get("initial_hypothetical_games", 0), 1
    ) if params["initial_method"] == "ra_dp" else float(np.floor(total / max(n, 1) + 0.5))
    return InitialRating(
        rating=None if ru is None else int(ru), games=n, score=w2 / 2, average=average, rule_set=rule_set
    )


def _initial_from_sums(n: int, w2: int, total: float, params: Mapping[str, Any]) -> float | None:
    if n < params["initial_min_games"] or n == 0:
        return None
    if params["initial_method"] == "ra_dp":
        hyp_n = int(params["initial_hypothetical_games"])
        ra = (total + params["initial_hypothetical"] * hyp_n) / (n + hyp_n)
        p100 = (2 * ((w2 + hyp_n) * 100) + 2 * (n + hyp_n)) // (4 * (n + hyp_n))
        ru = float(np.floor(ra + DP_TABLE[p100] + 0.5))
        cap = params["initial_cap"]
        if cap is not None and ru > cap:
            ru = float(cap)
    else:
        rc = float(np.floor(total / n + 0.5))
        if w2 > n:
            ru = float(np.floor(rc + params["initial_per_half_point"] * (w2 - n) + 0.5))
        else:
            p100 = (w2 * 100 + n) // (2 * n)
            ru = rc + DP_TABLE[p100]
    if ru < params["initial_floor"]:
        return None
    return ru


# ---------------------------------------------------------------- rating periods


def _is_list_date(d: date) -> bool:
    if d.day != 1:
        return False
    if d >= date(2012, 7, 1):
        return True
    if d >= date(2009, 7, 1):
        return d.month % 2 == 1
    return d.month in (1, 4, 7, 10)


def next_list(day: date) -> date:
    """The first rating list published after ``day``: the period it is rated in.

    Examples
    --------
    >>> next_list(date(2025, 10, 3)), next_list(date(2010, 2, 14)), next_list(date(2005, 5, 1))
    (datetime.date(2025, 11, 1), datetime.date(2010, 3, 1), datetime.date(2005, 7, 1))
    """
    y, m = day.year, day.month
    while True:
        m += 1
        if m > 12:
            y, m = y + 1, 1
        cand = date(y, m, 1)
        if _is_list_date(cand):
            return cand


def period_label(day: date) -> str:
    """Name of the rating period a tournament ending on ``day`` is rated in.

    Examples
    --------
    >>> period_label(date(2025, 10, 31))
    '2025-11'
    """
    d = next_list(day)
    return f"{d.year:04d}-{d.month:02d}"


def _months_before(d: date, months: int) -> date:
    y, m = divmod(d.year * 12 + (d.month - 1) - months, 12)
    return date(y, m + 1, 1)


# ---------------------------------------------------------------- the compiled kernel

_RS_FIELDS = (
    "cap_mode", "cap_exempt", "k_new", "k_mid", "k_top", "k_new_games", "k_top_from", "k_junior",
    "k_junior_below", "k_cap", "init_min_games", "init_floor", "init_per_half", "init_method",
    "init_min_first2", "init_min_rated", "init_cap", "init_hyp", "init_hyp_n",
)


def _rule_set_table(names: Sequence[str]) -> npt.NDArray[np.float64]:
    rows = []
    for name in names:
        p = rulesets.get(name).params
        rows.append([
            1.0 if p["cap_400"] == "every" else 2.0,
            np.inf if p["cap_400_exempt_from"] is None else p["cap_400_exempt_from"],
            p["k_new"], p["k_mid"], p["k_top"], p["k_new_games"], p["k_top_from"], p["k_junior"] or 0.0,
            p["k_junior_below"] or 0.0, p["k_cap"] or 0.0, p["initial_min_games"], p["initial_floor"],
            p["initial_per_half_point"], 1.0 if p["initial_method"] == "ra_dp" else 0.0,
            2 * p["initial_min_points_first"], p["initial_min_rated_opponents"],
            np.inf if p["initial_cap"] is None else p["initial_cap"],
            p.get("initial_hypothetical", 0.0), p.get("initial_hypothetical_games", 0),
        ])
    return np.array(rows, dtype=np.float64).reshape(len(names), len(_RS_FIELDS))


# Inlined: a call passing arrays costs reference counting on every game.
@numba.njit(cache=True, nogil=True, inline="always")  # type: ignore[misc]
def _lookup(ev_last: Any, ev_prev: Any, ev_day: Any, ev_rating: Any, p: int, day: int) -> float:  # pragma: no cover
    e = ev_last[p]
    while e >= 0 and ev_day[e] > day:
        e = ev_prev[e]
    return ev_rating[e] if e >= 0 else np.nan


# Inlined: a call passing arrays costs reference counting on every game.
@numba.njit(cache=True, nogil=True, inline="always")  # type: ignore[misc]
def _pd100_nb(diff: float, higher: bool, cap: bool, upper: Any) -> int:  # pragma: no cover
    d = int(np.floor(abs(diff) + 0.5))
    if cap and d > 400:
        d = 400
    lo = 0
    hi = upper.shape[0]
    while lo < hi:
        mid = (lo + hi) // 2
        if upper[mid] < d:
            lo = mid + 1
        else:
            hi = mid
    high = 50 + lo
    return high if higher else 100 - high


# Inlined: a call passing arrays costs reference counting on every game.
@numba.njit(cache=True, nogil=True, inline="always")  # type: ignore[misc]
def _k_of(p: int, rs: Any, rating: float, games: Any, seed_k: Any, engine_rated: Any, rated_max: Any,
          birth_year: Any, year: int, n_period: int) -> int:  # pragma: no cover
    if seed_k[p] > 0 and not engine_rated[p]:
        k = seed_k[p]
    else:
        top = max(rating, rated_max[p])
        if top >= rs[6]:
            k = rs[4]
        elif games[p] < rs[5]:
            k = rs[2]
        elif rs[7] > 0 and birth_year[p] > 0 and year - birth_year[p] <= 18 and rating < rs[8]:
            k = rs[7]
        else:
            k = rs[3]
    if rs[9] > 0 and k * n_period > rs[9]:
        k = np.floor(rs[9] / n_period)
    return int(k)


@numba.njit(cache=True, nogil=True)  # type: ignore[misc]
def _rate_kernel(
    period_offsets: Any, period_day: Any, period_year: Any, cutoff: Any,
    comp_offsets: Any, comp_start: Any, comp_end: Any, comp_rs: Any,
    a_idx: Any, b_idx: Any, score2: Any,
    seed_rating: Any, games: Any, seed_k: Any, rated_max: Any, birth_year: Any,
    rs_table: Any, upper: Any, dp_table: Any,
) -> Any:  # pragma: no cover - compiled
    n_games = a_idx.shape[0]
    n_players = seed_rating.shape[0]
    # Rating history per player as a linked list of (list date, rating) events.
    cap_ev = n_players + 2 * n_games + 1
    ev_day = np.empty(cap_ev, dtype=np.int64)
    ev_rating = np.empty(cap_ev)
    ev_prev = np.empty(cap_ev, dtype=np.int64)
    ev_last = np.full(n_players, -1, dtype=np.int64)
    n_ev = 0
    for p in range(n_players):
        if not np.isnan(seed_rating[p]):
            ev_day[n_ev] = -(10**9)
            ev_rating[n_ev] = seed_rating[p]
            ev_prev[n_ev] = -1
            ev_last[p] = n_ev
            n_ev += 1
    engine_rated = np.zeros(n_players, dtype=np.bool_)
    # Pools of unrated players: linked lists of game sides (slot = 2 g + side).
    pool_head = np.full(n_players, -1, dtype=np.int64)
    pool_next = np.full(2 * n_games, -1, dtype=np.int64)
    pool_len = np.zeros(n_players, dtype=np.int64)
    ra = np.full(n_games, np.nan)
    rb = np.full(n_games, np.nan)
    pda = np.full(n_games, -1, dtype=np.int64)
    pdb = np.full(n_games, -1, dtype=np.int64)
    ka = np.zeros(n_games, dtype=np.int64)
    kb = np.zeros(n_games, dtype=np.int64)
    cnta = np.zeros(n_games, dtype=np.int8)
    cntb = np.zeros(n_games, dtype=np.int8)
    aft_a = np.full(n_games, np.nan)
    aft_b = np.full(n_games, np.nan)
    n_period = np.zeros(n_players, dtype=np.int64)
    num = np.zeros(n_players, dtype=np.int64)
    mark = np.full(n_players, -1, dtype=np.int64)
    cmark = np.full(n_players, -1, dtype=np.int64)
    maxd = np.zeros(n_players)
    maxg = np.full(n_players, -1, dtype=np.int64)
    touched = np.empty(n_players, dtype=np.int64)
    last_rs = np.zeros(n_players, dtype=np.int64)
    pool_mark = np.full(n_players, -1, dtype=np.int64)
    kmark = np.full(n_players, -1, dtype=np.int64)
    kval = np.zeros(n_players, dtype=np.int64)
    for q in range(period_offsets.shape[0] - 1):
        c0 = period_offsets[q]
        c1 = period_offsets[q + 1]
        n_touched = 0
        # pass 1: ratings of the list in force at each tournament's start; games per player
        for c in range(c0, c1):
            for g in range(comp_offsets[c], comp_offsets[c + 1]):
                pa = a_idx[g]
                pb = b_idx[g]
                for p in (pa, pb):
                    if mark[p] != q:
                        mark[p] = q
                        n_period[p] = 0
                        num[p] = 0
                        touched[n_touched] = p
                        n_touched += 1
                ra[g] = _lookup(ev_last, ev_prev, ev_day, ev_rating, pa, comp_start[c])
                rb[g] = _lookup(ev_last, ev_prev, ev_day, ev_rating, pb, comp_start[c])
                if not np.isnan(ra[g]) and not np.isnan(rb[g]):
                    n_period[pa] += 1
                    n_period[pb] += 1
        for c in range(c0, c1):
            rs = rs_table[comp_rs[c]]
            g0 = comp_offsets[c]
            g1 = comp_offsets[c + 1]
            # pass 2: 2022 rule, one capped game per player and tournament (the largest difference)
            if rs[0] == 2.0:
                for g in range(g0, g1):
                    if np.isnan(ra[g]) or np.isnan(rb[g]):
                        continue
                    d = abs(ra[g] - rb[g])
                    for p in (a_idx[g], b_idx[g]):
                        if cmark[p] != c:
                            cmark[p] = c
                            maxd[p] = 400.0
                            maxg[p] = -1
                        if d > maxd[p]:
                            maxd[p] = d
                            maxg[p] = g
            # pass 3: PD, K and contributions (integers: hundredths)
            for g in range(g0, g1):
                pa = a_idx[g]
                pb = b_idx[g]
                if np.isnan(ra[g]) or np.isnan(rb[g]):
                    # an unrated player's game against a rated opponent joins his pool
                    if np.isnan(ra[g]) and not np.isnan(rb[g]):
                        slot = 2 * g
                        pool_next[slot] = pool_head[pa]
                        pool_head[pa] = slot
                        pool_len[pa] += 1
                        cnta[g] = 2
                        last_rs[pa] = comp_rs[c]
                        pool_mark[pa] = q
                    elif np.isnan(rb[g]) and not np.isnan(ra[g]):
                        slot = 2 * g + 1
                        pool_next[slot] = pool_head[pb]
                        pool_head[pb] = slot
                        pool_len[pb] += 1
                        cntb[g] = 2
                        last_rs[pb] = comp_rs[c]
                        pool_mark[pb] = q
                    continue
                d = ra[g] - rb[g]
                if rs[0] == 1.0:
                    cap_a = ra[g] < rs[1]
                    cap_b = rb[g] < rs[1]
                else:
                    cap_a = cmark[pa] == c and maxg[pa] == g
                    cap_b = cmark[pb] == c and maxg[pb] == g
                pa100 = _pd100_nb(d, d >= 0, cap_a, upper)
                pb100 = _pd100_nb(d, d <= 0, cap_b, upper)
                pda[g] = pa100
                pdb[g] = pb100
                # K is fixed per player and tournament: computed at a player's first game in it
                if kmark[pa] != c:
                    kmark[pa] = c
                    kval[pa] = _k_of(pa, rs, ev_rating[ev_last[pa]], games, seed_k, engine_rated, rated_max,
                                     birth_year, period_year[q], n_period[pa])
                if kmark[pb] != c:
                    kmark[pb] = c
                    kval[pb] = _k_of(pb, rs, ev_rating[ev_last[pb]], games, seed_k, engine_rated, rated_max,
                                     birth_year, period_year[q], n_period[pb])
                ka[g] = kval[pa]
                kb[g] = kval[pb]
                cnta[g] = 1
                cntb[g] = 1
                num[pa] += ka[g] * (50 * score2[g] - pa100)
                num[pb] += kb[g] * (50 * (2 - score2[g]) - pb100)
        # pass 4: one rounding per period (half away from zero, exact on integers)
        for i in range(n_touched):
            p = touched[i]
            if n_period[p] == 0 or ev_last[p] < 0:
                continue
            x = num[p]
            r = (abs(x) + 50) // 100
            delta = r if x >= 0 else -r
            new = ev_rating[ev_last[p]] + delta
            ev_day[n_ev] = period_day[q]
            ev_rating[n_ev] = new
            ev_prev[n_ev] = ev_last[p]
            ev_last[p] = n_ev
            n_ev += 1
            games[p] += n_period[p]
            rated_max[p] = max(rated_max[p], new)
            engine_rated[p] = True
        # pass 5: unrated players who added games this period may now earn an initial rating
        for i in range(n_touched):
            p = touched[i]
            if pool_head[p] < 0 or pool_mark[p] != q:
                continue
            if ev_last[p] >= 0:
                # rated meanwhile (e.g. by an earlier period): the pool is void
                pool_head[p] = -1
                pool_len[p] = 0
                continue
            rs = rs_table[last_rs[p]]
            cut = cutoff[q, last_rs[p]]
            m = pool_len[p]
            e_comp = np.empty(m, dtype=np.int64)
            e_n = np.zeros(m, dtype=np.int64)
            e_w2 = np.zeros(m, dtype=np.int64)
            e_sum = np.zeros(m)
            n_e = 0
            s = pool_head[p]
            while s >= 0:
                g = s // 2
                side = s % 2
                # which competition holds game g: binary search on comp_offsets
                lo = 0
                hi = comp_offsets.shape[0] - 1
                while hi - lo > 1:
                    mid = (lo + hi) // 2
                    if comp_offsets[mid] <= g:
                        lo = mid
                    else:
                        hi = mid
                c = lo
                while comp_offsets[c + 1] <= g:
                    c += 1
                if comp_end[c] >= cut:
                    if n_e == 0 or e_comp[n_e - 1] != c:
                        e_comp[n_e] = c
                        n_e += 1
                    j = n_e - 1
                    e_n[j] += 1
                    e_w2[j] += score2[g] if side == 0 else 2 - score2[g]
                    e_sum[j] += rb[g] if side == 0 else ra[g]
                s = pool_next[s]
            n_tot = 0
            w2 = 0
            tot = 0.0
            first = True
            for j in range(n_e - 1, -1, -1):  # oldest event first
                if e_n[j] < rs[15]:
                    continue
                if first and e_w2[j] < rs[14]:
                    continue
                first = False
                n_tot += e_n[j]
                w2 += e_w2[j]
                tot += e_sum[j]
            if n_tot < rs[10] or n_tot == 0:
                continue
            if rs[13] == 1.0:
                hyp_n = int(rs[18])
                rav = (tot + rs[17] * hyp_n) / (n_tot + hyp_n)
                p100 = (2 * ((w2 + hyp_n) * 100) + 2 * (n_tot + hyp_n)) // (4 * (n_tot + hyp_n))
                ru = np.floor(rav + dp_table[p100] + 0.5)
                ru = min(ru, rs[16])
            else:
                rc = np.floor(tot / n_tot + 0.5)
                if w2 > n_tot:
                    ru = np.floor(rc + rs[12] * (w2 - n_tot) + 0.5)
                else:
                    p100 = (w2 * 100 + n_tot) // (2 * n_tot)
                    ru = rc + dp_table[p100]
            if ru < rs[11]:
                continue
            ev_day[n_ev] = period_day[q]
            ev_rating[n_ev] = ru
            ev_prev[n_ev] = -1
            ev_last[p] = n_ev
            n_ev += 1
            games[p] = n_tot
            rated_max[p] = ru
            engine_rated[p] = True
            pool_head[p] = -1
            pool_len[p] = 0
        # pass 6: rating after the period, for the change rows
        for c in range(c0, c1):
            for g in range(comp_offsets[c], comp_offsets[c + 1]):
                if ev_last[a_idx[g]] >= 0:
                    aft_a[g] = ev_rating[ev_last[a_idx[g]]]
                if ev_last[b_idx[g]] >= 0:
                    aft_b[g] = ev_rating[ev_last[b_idx[g]]]
    final = np.full(n_players, np.nan)
    for p in range(n_players):
        if ev_last[p] >= 0:
            final[p] = ev_rating[ev_last[p]]
    return ra, rb, pda, pdb, ka, kb, cnta, cntb, aft_a, aft_b, final, games, rated_max


# ---------------------------------------------------------------- frames


def _day(d: date) -> int:
    return (d - _EPOCH).days


def _lists_of(comps: pl.DataFrame) -> list[str]:
    """The FIDE list of each competition, by its ``modality`` (standard when absent)."""
    if "modality" not in comps.columns:
        return ["standard"] * comps.height
    return [rulesets.list_of(m) for m in comps["modality"].to_list()]


def _rule_sets_of(comps: pl.DataFrame, config: Mapping[str, Any] | None) -> list[str]:
    # A rapid or blitz competition is rated with its own list's rules of its date.
    return [
        rulesets.rule_set_for("fide-elo", d, config=config, rating_list=lst).name
        for d, lst in zip(comps["start_date"].to_list(), _lists_of(comps), strict=True)
    ]


def rate_history(
    competitions: pl.DataFrame,
    games: pl.DataFrame,
    start: pl.DataFrame,
    *,
    federation: str = "fide",
    config: Mapping[str, Any] | None = None,
    players: pl.DataFrame | None = None,
) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    """Re-rate a FIDE history from its seed (see :func:`engine.rate_history`).

    Tournaments are grouped into rating periods (the first list after their end);
    each uses the ratings of the list in force at its start. Games against unrated
    opponents do not count for rated players; an unrated player's games against
    rated opponents are pooled across tournaments until an initial rating is
    earned. A change row per player, tournament and period; ``change`` is the
    tournament's unrounded ``K x (W - sum PD)``, ``rating_after`` the rating
    after the period (rounded once). For an unrated player ``rating_before``,
    ``expected``, ``k`` and ``change`` are null and ``rating_after`` is the
    initial rating when the period earned it.

    Examples
    --------
    >>> comps = pl.DataFrame({"competition_id": ["T"], "start_date": [date(2025, 10, 1)],
    ...                       "end_date": [date(2025, 10, 3)]})
    >>> games = pl.DataFrame({"competition_id": ["T"], "round": [1], "player_a": ["1"],
    ...                       "player_b": ["2"], "score_a": [1.0]})
    >>> start = pl.DataFrame({"player_id": ["1", "2"], "rating": [1800.0, 1900.0], "games": [100, 100]})
    >>> ch, _, _ = rate_history(comps, games, start)
    >>> ch.select("period", "player_id", "expected", "k", "change", "rating_after").rows()
    [('2025-11', '1', 0.36, 20.0, 12.8, 1813.0), ('2025-11', '2', 0.64, 20.0, -12.8, 1887.0)]
    """
    h = prepare(competitions, games, start)
    ids = h.player_ids
    comps = h.competitions.with_columns(
        pl.col("end_date").map_batches(
            lambda s: pl.Series([next_list(d) for d in s.to_list()], dtype=pl.Date), return_dtype=pl.Date
        ).alias("period_date")
    )
    # Rate period by period: re-sort competitions by (period, end, start, id).
    comps = comps.sort(["period_date", "end_date", "start_date", "competition_id"]).with_row_index("k_idx")
    comps = comps.with_columns(pl.col("k_idx").cast(pl.Int64))
    rs_names = _rule_sets_of(comps, config)
    rs_unique = sorted(set(rs_names)) or ["fide-2024"]
    rs_index = {n: i for i, n in enumerate(rs_unique)}
    g = h.games.join(comps.select("comp_idx", "k_idx"), on="comp_idx").sort(["k_idx", "game_idx"])
    counts = np.bincount(g["k_idx"].to_numpy(), minlength=comps.height) if g.height else np.zeros(comps.height, np.int64)
    comp_offsets = np.zeros(comps.height + 1, dtype=np.int64)
    np.cumsum(counts, out=comp_offsets[1:])
    periods = comps["period_date"].unique(maintain_order=True).to_list()
    pidx = {d: i for i, d in enumerate(periods)}
    comp_period = np.array([pidx[d] for d in comps["period_date"].to_list()], dtype=np.int64)
    period_offsets = np.searchsorted(comp_period, np.arange(len(periods) + 1), side="left").astype(np.int64)
    cutoff = np.array(
        [[_day(_months_before(d, int(rulesets.get(n).params["initial_window_months"]))) for n in rs_unique]
         for d in periods],
        dtype=np.int64,
    ).reshape(len(periods), len(rs_unique))
    seed_rating = seed_column(start, ids, "rating", pl.Float64())
    declared = player_column(players, ids, "declared_rating", pl.Float64())
    # A seeded rating always wins over a declared one (DESIGN.md); a declared 0 is "unrated".
    merged = seed_rating.fill_null(declared)
    initial = (
        pl.select(pl.when(merged > 0).then(merged).otherwise(None)).to_series()
        .fill_null(float("nan")).to_numpy().astype(np.float64)
    )
    seed_games = seed_column(start, ids, "games", pl.Int64()).fill_null(0).to_numpy().astype(np.int64)
    seed_k = seed_column(start, ids, "k", pl.Float64()).fill_null(0.0).to_numpy().astype(np.float64)
    rmax = seed_column(start, ids, "rated_max", pl.Float64()).fill_null(float("-inf")).to_numpy()
    rmax = np.maximum(rmax, np.nan_to_num(initial, nan=-np.inf)).astype(np.float64)
    birth = player_column(players, ids, "birth_year", pl.Int64()).fill_null(-1).to_numpy().astype(np.int64)
    out = _rate_kernel(
        period_offsets, np.array([_day(d) for d in periods], dtype=np.int64),
        np.array([d.year for d in periods], dtype=np.int64), cutoff,
        comp_offsets, np.array([_day(d) for d in comps["start_date"].to_list()], dtype=np.int64),
        np.array([_day(d) for d in comps["end_date"].to_list()], dtype=np.int64),
        np.array([rs_index[n] for n in rs_names], dtype=np.int64),
        g["a_idx"].to_numpy().astype(np.int64), g["b_idx"].to_numpy().astype(np.int64),
        np.rint(g["score_a"].to_numpy() * 2).astype(np.int64),
        initial, seed_games.copy(), seed_k, rmax.copy(), birth,
        _rule_set_table(rs_unique), np.array(PD_UPPER, dtype=np.int64), np.array(DP_TABLE, dtype=np.int64),
    )
    ra, rb, pda, pdb, ka, kb, cnta, cntb, aft_a, aft_b, final, games_out, rmax_out = out
    changes, explanations = _frames(g, comps, rs_names, federation, len(ids), ra, rb, pda, pdb, ka, kb, cnta, cntb, aft_a, aft_b)
    ratings = _ratings_frame(h, g, comps, start, players, federation, final, games_out, rmax_out, config, periods)
    return changes, explanations, ratings


def _frames(
    g: pl.DataFrame, comps: pl.DataFrame, rs_names: list[str], federation: str, n_players: int,
    ra: Any, rb: Any, pda: Any, pdb: Any, ka: Any, kb: Any, cnta: Any, cntb: Any, aft_a: Any, aft_b: Any,
) -> tuple[pl.DataFrame, pl.DataFrame]:
    meta = comps.select(
        "k_idx",
        pl.col("period_date").dt.strftime("%Y-%m").alias("period"),
        pl.Series("rule_set", rs_names, dtype=pl.Utf8),
    )
    base = g.select("competition_id", "k_idx", "game_idx", "round", "handicap", "source_line", "player_a", "player_b",
                    "score_a", "a_rank", "b_rank")

    def side(player: str, opp: str, rank: str, score: pl.Expr, r: Any, ro: Any, pd: Any, k: Any, cnt: Any, aft: Any,
             hsign: int) -> pl.DataFrame:
        pdf = pl.Series(pd, dtype=pl.Float64)
        return base.select(
            "competition_id", "k_idx", "game_idx", "round", "source_line",
            pl.col(player).alias("player_id"), pl.col(rank).alias("prank"), pl.col(opp).alias("opponent_id"),
            (pl.col("handicap") * hsign).alias("handicap"), score.alias("score"),
        ).with_columns(
            rating=pl.Series(r, dtype=pl.Float64).fill_nan(None),
            opponent_rating=pl.Series(ro, dtype=pl.Float64).fill_nan(None),
            expected=pl.when(pdf >= 0).then(pdf / 100.0).otherwise(None),
            k=pl.when(pl.Series(cnt) == 1).then(pl.Series(k, dtype=pl.Float64)).otherwise(None),
            cnt=pl.Series(cnt, dtype=pl.Int8),
            rating_after=pl.Series(aft, dtype=pl.Float64).fill_nan(None),
        )

    rows = pl.concat([
        side("player_a", "player_b", "a_rank", pl.col("score_a"), ra, rb, pda, ka, cnta, aft_a, 1),
        side("player_b", "player_a", "b_rank", 1.0 - pl.col("score_a"), rb, ra, pdb, kb, cntb, aft_b, -1),
    ]).filter(pl.col("cnt") > 0).join(meta, on="k_idx").with_columns(
        pl.lit(federation).alias("federation"),
        (pl.col("k") * (pl.col("score") - pl.col("expected"))).alias("contribution"),
    )
    ordered, summary = explain_and_summarise(
        rows, group="k_idx", n_players=n_players,
        firsts=["competition_id", "period", "player_id", "rule_set", "rating", "k", "rating_after", "cnt"],
        sums=["score", "expected", "contribution"],
    )
    explanations = conform(ordered, EXPLANATIONS_SCHEMA)
    changes = summary.rename({"rating": "rating_before", "contribution": "change"}).with_columns(
        pl.when(pl.col("cnt") == 1).then(pl.col("expected")).otherwise(None).alias("expected"),
        pl.when(pl.col("cnt") == 1).then(pl.col("change")).otherwise(None).alias("change"),
        pl.lit(federation).alias("federation"),
    )
    return conform(changes, RATING_CHANGES_SCHEMA), explanations


def list_k(
    rating: pl.Expr, games: pl.Expr, rated_max: pl.Expr, age: pl.Expr, rule_set: str
) -> pl.Expr:
    """:func:`k_factor` of the list (one game in the period) as a polars expression."""
    p = rulesets.get(rule_set).params
    top = pl.max_horizontal(rating, rated_max.fill_null(rating))
    expr = pl.when(rating.is_null()).then(None).when(top >= p["k_top_from"]).then(p["k_top"])
    expr = expr.when(games < p["k_new_games"]).then(p["k_new"])
    if p["k_junior"]:
        expr = expr.when((age <= 18) & (rating < p["k_junior_below"])).then(p["k_junior"])
    return expr.otherwise(p["k_mid"]).cast(pl.Int32)


def _ratings_frame(
    h: History, g: pl.DataFrame, comps: pl.DataFrame, start: pl.DataFrame, players: pl.DataFrame | None,
    federation: str, final: Any, games_out: Any, rmax: Any, config: Mapping[str, Any] | None, periods: list[date],
) -> pl.DataFrame:
    ids = h.player_ids
    seed_as_of = seed_column(start, ids, "as_of", pl.Date())
    as_of: date | None = periods[-1] if periods else seed_as_of.max()  # type: ignore[assignment]
    last = (
        pl.concat([g.select("k_idx", pid="a_idx"), g.select("k_idx", pid="b_idx")])
        .group_by("pid").agg(pl.col("k_idx").max())
        .join(comps.select("k_idx", "end_date"), on="k_idx")
    )
    last_day = pl.Series("last", [None] * len(ids), dtype=pl.Date).to_frame().with_row_index("pid")
    last_day = last_day.with_columns(pl.col("pid").cast(pl.Int64)).join(
        last.select("pid", "end_date"), on="pid", how="left"
    )
    birth = player_column(players, ids, "birth_year", pl.Int64())
    lists = sorted(set(_lists_of(comps)))
    rule_set = rulesets.rule_set_for(
        "fide-elo", as_of or date.today(), config=config, rating_list=lists[0] if len(lists) == 1 else "standard"
    ).name
    frame = pl.DataFrame({
        "player_id": pl.Series(ids, dtype=pl.Utf8),
        "name": seed_column(start, ids, "name", pl.Utf8()).fill_null(player_column(players, ids, "name", pl.Utf8())),
        "rating": pl.Series(final, dtype=pl.Float64).fill_nan(None),
        "games": pl.Series(games_out, dtype=pl.Int64),
        "rated_max": pl.Series(rmax, dtype=pl.Float64),
        "played": last_day["end_date"],
        "seed_last": seed_column(start, ids, "last_played", pl.Utf8()),
        "age": (as_of.year if as_of else 0) - birth,
        "seed_k": seed_column(start, ids, "k", pl.Int32()),
        "seed_games": seed_column(start, ids, "games", pl.Int64()).fill_null(0),
    }).with_columns(
        pl.when(pl.col("rated_max").is_infinite() | pl.col("rating").is_null()).then(None)
        .otherwise(pl.col("rated_max")).alias("rated_max"),
        pl.coalesce(pl.col("played").dt.strftime("%Y-%m-%d"), pl.col("seed_last")).alias("last_played"),
    )
    frame = frame.with_columns(
        pl.lit(federation).alias("federation"),
        pl.lit(as_of, pl.Date).alias("as_of"),
        # A player the history never rated keeps the K of the seeded list (it may rest on
        # facts the list does not carry, such as a past 2400); others get the rules' K.
        pl.when(pl.col("seed_k").is_not_null() & (pl.col("games") == pl.col("seed_games")))
        .then(pl.col("seed_k"))
        .otherwise(list_k(pl.col("rating"), pl.col("games"), pl.col("rated_max"), pl.col("age"), rule_set))
        .alias("k"),
        _status(pl.col("rating"), pl.col("last_played"), as_of).alias("status"),
    )
    return conform(frame, RATINGS_SCHEMA)


def _status(rating: pl.Expr, last_played: pl.Expr, as_of: date | None) -> pl.Expr:
    last = last_played.str.to_date("%Y-%m-%d", strict=False)
    limit = (as_of or date.today()) - timedelta(days=INACTIVE_AFTER_DAYS)
    return (
        pl.when(rating.is_null()).then(pl.lit("unrated"))
        .when(last.is_not_null() & (last < limit)).then(pl.lit("inactive"))
        .otherwise(pl.lit("active"))
    )


def rating_list(
    ratings: pl.DataFrame, *, as_of: date, federation: str = "fide", config: Mapping[str, Any] | None = None
) -> pl.DataFrame:
    """The FIDE list at ``as_of``: ``active``, ``inactive`` (no rated game for a year) or ``unrated``.

    Categories are not used by FIDE (null); active players are ranked, ties share a rank.

    Examples
    --------
    >>> r = pl.DataFrame({"player_id": ["1", "2", "3"], "rating": [2100.0, None, 2200.0], "games": [50, 3, 90],
    ...                   "last_played": ["2025-10-03", None, "2023-01-10"]})
    >>> rating_list(r, as_of=date(2025, 11, 1)).select("player_id", "status", "rank").rows()
    [('1', 'active', 1), ('3', 'inactive', None), ('2', 'unrated', None)]
    """
    frame = ratings
    for col, dtype in (("last_played", pl.Utf8()), ("games", pl.Int64()), ("name", pl.Utf8())):
        if col not in frame.columns:
            frame = frame.with_columns(pl.lit(None, dtype).alias(col))
    frame = frame.with_columns(
        pl.lit(federation).alias("federation"),
        pl.col("rating").cast(pl.Float64),
        _status(pl.col("rating").cast(pl.Float64), pl.col("last_played"), as_of).alias("status"),
        pl.lit(None, pl.Utf8).alias("category"),
    )
    frame = frame.with_columns(
        pl.when(pl.col("status") == "active")
        .then(pl.col("rating").rank(method="min", descending=True).over(pl.col("status") == "active"))
        .otherwise(None).cast(pl.Int64).alias("rank")
    ).sort(["rank", "rating", "player_id"], descending=[False, True, False], nulls_last=True)
    return conform(frame, RATING_LIST_SCHEMA)


def adjust_to_standard_2022(rapid_or_blitz: pl.DataFrame, standard: pl.DataFrame) -> pl.DataFrame:
    """The one-off adjustment of 1 October 2022 to a rapid or blitz list.

    FIDE Rapid & Blitz rating regulations as amended from 1 October 2022
    (``../shared/rules/RULES.md``, "FIDE rapid and blitz lists"): every rapid or
    blitz rating more than 100 points below the player's standard rating is
    raised to standard - 100. ``rapid_or_blitz`` and ``standard``: ``player_id,
    rating`` (the lists in force on that day); other columns are kept.

    Examples
    --------
    >>> rapid = pl.DataFrame({"player_id": ["a", "b", "c"], "rating": [1700.0, 1950.0, 1500.0]})
    >>> standard = pl.DataFrame({"player_id": ["a", "b"], "rating": [2000.0, 2000.0]})
    >>> adjust_to_standard_2022(rapid, standard).get_column("rating").to_list()
    [1900.0, 1950.0, 1500.0]
    """
    floor = standard.select("player_id", (pl.col("rating").cast(pl.Float64) - 100.0).alias("_floor"))
    return rapid_or_blitz.join(floor, on="player_id", how="left").with_columns(
        pl.when(pl.col("_floor").is_not_null() & (pl.col("rating") < pl.col("_floor")))
        .then(pl.col("_floor")).otherwise(pl.col("rating")).alias("rating")
    ).drop("_floor")
