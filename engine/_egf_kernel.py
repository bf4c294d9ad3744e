"""The EGF GoR's compiled pass over a whole history, tournament by tournament.

Per game the classic or the 2021 formula (:mod:`engine._egf_formulas`, here on arrays),
both with the pre-tournament ratings; a player's changes are summed and applied, with the
rule set's floor, when the tournament ends.
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np


@numba.njit(cache=True, nogil=True)
def _interp(x: float, xs: Any, ys: Any) -> float:  # pragma: no cover - compiled
    if x <= xs[0]:
        return float(ys[0])
    n = xs.shape[0]
    if x >= xs[n - 1]:
        return float(ys[n - 1])
    i = int((x - xs[0]) // (xs[1] - xs[0]))
    t = (x - xs[i]) / (xs[i + 1] - xs[i])
    return float(ys[i] + t * (ys[i + 1] - ys[i]))


# Inlined: a call per game passing arrays costs reference counting.
@numba.njit(cache=True, nogil=True, inline="always")
def _classic_game(
    r1: float, r2: float, e1: float, e2: float, score: float, eps: float, split: bool, con_x: Any, con_y: Any,
) -> tuple[float, float, float, float, float, float]:  # pragma: no cover - compiled
    """``Se``, ``con`` and change of both players of one classic game (``e``: with the handicap)."""
    lo = min(r2, r1)
    lo = min(max(lo, 100.0), 2700.0)
    a = 200.0 - (lo - 100.0) / 20.0
    if e1 <= e2:
        s1 = 1.0 / (np.exp((e2 - e1) / a) + 1.0)
        if split:
            s2 = 1.0 - s1 - eps / 2
            s1 = s1 - eps / 2
        else:
            s2 = 1.0 - s1 - eps
    else:
        s2 = 1.0 / (np.exp((e1 - e2) / a) + 1.0)
        if split:
            s1 = 1.0 - s2 - eps / 2
            s2 = s2 - eps / 2
        else:
            s1 = 1.0 - s2 - eps
    k1 = _interp(r1, con_x, con_y)
    k2 = _interp(r2, con_x, con_y)
    c1 = k1 * (score - s1)
    c2 = k2 * ((1.0 - score) - s2)
    return s1, s2, k1, k2, c1, c2


@numba.njit(cache=True, nogil=True, inline="always")
def _game_2021(
    r1: float, r2: float, e1: float, e2: float, score: float, w: float,
) -> tuple[float, float, float, float, float, float]:  # pragma: no cover - compiled
    """``Se``, ``con`` and weighted change (with the bonus) of both players of one 2021 game."""
    e1 = min(e1, 3299.0)
    e2 = min(e2, 3299.0)
    s1 = 1.0 / (1.0 + np.exp(-7.0 * np.log(3300.0 - e2) + 7.0 * np.log(3300.0 - e1)))
    s2 = 1.0 - s1
    k1 = ((3300.0 - min(r1, 3299.0)) / 200.0) ** 1.6
    k2 = ((3300.0 - min(r2, 3299.0)) / 200.0) ** 1.6
    c1 = w * (k1 * (score - s1) + np.log1p(np.exp((2300.0 - r1) / 80.0)) / 5.0)
    c2 = w * (k2 * ((1.0 - score) - s2) + np.log1p(np.exp((2300.0 - r2) / 80.0)) / 5.0)
    return s1, s2, k1, k2, c1, c2


@numba.njit(cache=True, nogil=True)
def _rate_kernel(
    offsets: Any, comp_mode: Any, comp_weight: Any, comp_eps: Any, comp_split: Any, comp_floor: Any,
    a_idx: Any, b_idx: Any, score_a: Any, handicap: Any, rating: Any, games: Any, con_x: Any, con_y: Any,
) -> Any:  # pragma: no cover - compiled
    n_games = a_idx.shape[0]
    n_players = rating.shape[0]
    ra = np.empty(n_games)
    rb = np.empty(n_games)
    sea = np.empty(n_games)
    seb = np.empty(n_games)
    ka = np.empty(n_games)
    kb = np.empty(n_games)
    cta = np.empty(n_games)
    ctb = np.empty(n_games)
    aa = np.empty(n_games)
    ab = np.empty(n_games)
    mark = np.full(n_players, -1, dtype=np.int64)
    delta = np.zeros(n_players)
    nplayed = np.zeros(n_players, dtype=np.int64)
    touched = np.empty(n_players, dtype=np.int64)
    for c in range(offsets.shape[0] - 1):
        n_t = 0
        mode = comp_mode[c]
        w = comp_weight[c]
        for g in range(offsets[c], offsets[c + 1]):
            pa = a_idx[g]
            pb = b_idx[g]
            for p in (pa, pb):
                if mark[p] != c:
                    mark[p] = c
                    delta[p] = 0.0
                    nplayed[p] = 0
                    touched[n_t] = p
                    n_t += 1
            r1 = rating[pa]
            r2 = rating[pb]
            h = handicap[g]
            adj = 100.0 * (abs(h) - 0.5) if h != 0 else 0.0
            e1 = r1 + (adj if h < 0 else 0.0)
            e2 = r2 + (adj if h > 0 else 0.0)
            if mode == 0:
                s1, s2, k1, k2, c1, c2 = _classic_game(
                    r1, r2, e1, e2, score_a[g], comp_eps[c], comp_split[c], con_x, con_y)
            else:
                s1, s2, k1, k2, c1, c2 = _game_2021(r1, r2, e1, e2, score_a[g], w)
            ra[g] = r1
            rb[g] = r2
            sea[g] = s1
            seb[g] = s2
            ka[g] = k1
            kb[g] = k2
            cta[g] = c1
            ctb[g] = c2
            delta[pa] += c1
            delta[pb] += c2
            nplayed[pa] += 1
            nplayed[pb] += 1
        for i in range(n_t):
            p = touched[i]
            new = rating[p] + delta[p]
            new = max(new, comp_floor[c])
            rating[p] = new
            games[p] += nplayed[p]
        for g in range(offsets[c], offsets[c + 1]):
            aa[g] = rating[a_idx[g]]
            ab[g] = rating[b_idx[g]]
    return ra, rb, sea, seb, ka, kb, cta, ctb, aa, ab
