"""The compiled FIDE kernel: a whole history, period by period, in one pass.

Rated players' changes per rating period and the initial ratings of unrated players.
``change = K x sum(score - PD(D))`` over the rating period, PD from the banded table
(B02 8.1.2), ``D`` between the ratings of the list in force when each tournament
started, capped at 400 per the version's rule, rounded once per period, half away
from zero. All arithmetic is done on integers (scores and PD in hundredths), so a
change of exactly ``x.5`` rounds correctly. The rules themselves (PD, K, the initial
rating) are those of :mod:`engine.fide_tables`, inlined; a competition's rule set is
one record of :data:`engine.fide_tables.RULE_DTYPE`, read by field name.
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np

from engine.fide_tables import CAP_EVERY, CAP_ONCE, initial_from_sums, k_rule, pd100


# Inlined: a call passing arrays costs reference counting on every game.
@numba.njit(cache=True, nogil=True, inline="always")
def _lookup(ev_last: Any, ev_prev: Any, ev_day: Any, ev_rating: Any, p: int, day: int) -> float:  # pragma: no cover
    e = ev_last[p]
    while e >= 0 and ev_day[e] > day:
        e = ev_prev[e]
    return ev_rating[e] if e >= 0 else np.nan


# Inlined: a call passing arrays costs reference counting on every game.
@numba.njit(cache=True, nogil=True, inline="always")
def _k_of(p: int, rs: Any, rating: float, games: Any, seed_k: Any, engine_rated: Any, rated_max: Any,
          birth_year: Any, year: int, n_period: int) -> int:  # pragma: no cover - compiled
    """The seeded list's K until the engine rated the player once, then the rules' K."""
    if seed_k[p] > 0 and not engine_rated[p]:
        k = seed_k[p]
        if rs.k_cap > 0 and k * n_period > rs.k_cap:
            k = np.floor(rs.k_cap / n_period)
        return int(k)
    return k_rule(rs, rating, rated_max[p], games[p], year - birth_year[p], birth_year[p] > 0,
                  n_period)


# Inlined: a call passing arrays costs reference counting on every game.
@numba.njit(cache=True, nogil=True, inline="always")
def _push_event(p: int, day: int, rating: float, prev: int, ev_day: Any, ev_rating: Any, ev_prev: Any,
                ev_last: Any, n_ev: int) -> int:  # pragma: no cover - compiled
    """Player ``p``'s rating from list day ``day`` on (after event ``prev``, -1: none); the events' new count."""
    ev_day[n_ev] = day
    ev_rating[n_ev] = rating
    ev_prev[n_ev] = prev
    ev_last[p] = n_ev
    return n_ev + 1


# Inlined: a call passing arrays costs reference counting on every game.
@numba.njit(cache=True, nogil=True, inline="always")
def _join_pool(g: int, side: int, p: int, rs_i: int, q: int, pool_head: Any, pool_next: Any, pool_len: Any,
               last_rs: Any, pool_mark: Any) -> None:  # pragma: no cover - compiled
    """Side ``side`` of game ``g`` joins the pool of unrated player ``p`` (period ``q``, rule set ``rs_i``)."""
    slot = 2 * g + side
    pool_next[slot] = pool_head[p]
    pool_head[p] = slot
    pool_len[p] += 1
    last_rs[p] = rs_i
    pool_mark[p] = q


# Inlined: a call passing arrays costs reference counting on every game.
@numba.njit(cache=True, nogil=True, inline="always")
def _mark_capped(g0: int, g1: int, c: int, ra: Any, rb: Any, a_idx: Any, b_idx: Any, cmark: Any, maxd: Any,
                 maxg: Any) -> None:  # pragma: no cover - compiled
    """2022 rule: each player's one capped game of tournament ``c`` (the largest difference over 400)."""
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


# Inlined: called for every game of a pool.
@numba.njit(cache=True, nogil=True, inline="always")
def _comp_of(comp_offsets: Any, g: int) -> int:  # pragma: no cover - compiled
    """The competition holding game ``g``: binary search on ``comp_offsets``."""
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
    return c


# Inlined: runs per pool and period, and a call passing arrays costs reference counting.
@numba.njit(cache=True, nogil=True, inline="always")
def _pooled_initial(head: int, m: int, rs: Any, cut: int, pool_next: Any, comp_offsets: Any, comp_end: Any,
                    score2: Any, ra: Any, rb: Any) -> tuple[float, int]:  # pragma: no cover - compiled
    """The initial rating a pool of ``m`` game sides earns (NaN: none yet), and its games.

    Only tournaments ending from ``cut`` count, oldest first; one with too few rated
    opponents is skipped, and so is the first while it scores too little.
    """
    e_comp = np.empty(m, dtype=np.int64)
    e_n = np.zeros(m, dtype=np.int64)
    e_w2 = np.zeros(m, dtype=np.int64)
    e_sum = np.zeros(m)
    n_e = 0
    s = head
    while s >= 0:
        g = s // 2
        side = s % 2
        c = _comp_of(comp_offsets, g)
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
        if e_n[j] < rs.init_min_rated:
            continue
        if first and e_w2[j] < rs.init_min_first2:
            continue
        first = False
        n_tot += e_n[j]
        w2 += e_w2[j]
        tot += e_sum[j]
    return initial_from_sums(rs, n_tot, w2, tot), n_tot


# One compiled loop over the rating periods, kept whole past 80 lines: its passes share
# some thirty per-player and per-game arrays; the self-contained steps are the helpers above.
@numba.njit(cache=True, nogil=True)
def rate_kernel(
    period_offsets: Any, period_day: Any, period_year: Any, cutoff: Any,
    comp_offsets: Any, comp_start: Any, comp_end: Any, comp_rs: Any,
    a_idx: Any, b_idx: Any, score2: Any,
    seed_rating: Any, games: Any, seed_k: Any, rated_max: Any, birth_year: Any,
    rs_table: Any,
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
            n_ev = _push_event(p, -(10**9), seed_rating[p], -1, ev_day, ev_rating, ev_prev, ev_last, n_ev)
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
            if rs.cap_mode == CAP_ONCE:
                _mark_capped(g0, g1, c, ra, rb, a_idx, b_idx, cmark, maxd, maxg)
            # pass 3: PD, K and contributions (integers: hundredths)
            for g in range(g0, g1):
                pa = a_idx[g]
                pb = b_idx[g]
                if np.isnan(ra[g]) or np.isnan(rb[g]):
                    # an unrated player's game against a rated opponent joins his pool
                    if np.isnan(ra[g]) and not np.isnan(rb[g]):
                        _join_pool(g, 0, pa, comp_rs[c], q, pool_head, pool_next, pool_len, last_rs, pool_mark)
                        cnta[g] = 2
                    elif np.isnan(rb[g]) and not np.isnan(ra[g]):
                        _join_pool(g, 1, pb, comp_rs[c], q, pool_head, pool_next, pool_len, last_rs, pool_mark)
                        cntb[g] = 2
                    continue
                d = ra[g] - rb[g]
                if rs.cap_mode == CAP_EVERY:
                    cap_a = ra[g] < rs.cap_exempt
                    cap_b = rb[g] < rs.cap_exempt
                else:
                    cap_a = cmark[pa] == c and maxg[pa] == g
                    cap_b = cmark[pb] == c and maxg[pb] == g
                pa100 = pd100(d, d >= 0, cap_a)
                pb100 = pd100(d, d <= 0, cap_b)
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
            n_ev = _push_event(p, period_day[q], new, ev_last[p], ev_day, ev_rating, ev_prev, ev_last, n_ev)
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
            ru, n_tot = _pooled_initial(pool_head[p], pool_len[p], rs_table[last_rs[p]], cutoff[q, last_rs[p]],
                                        pool_next, comp_offsets, comp_end, score2, ra, rb)
            if np.isnan(ru):
                continue
            n_ev = _push_event(p, period_day[q], ru, -1, ev_day, ev_rating, ev_prev, ev_last, n_ev)
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
