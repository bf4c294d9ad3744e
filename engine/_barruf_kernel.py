"""The BARRUF's compiled pass over a whole history, championship by championship."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numba
import numpy as np
import numpy.typing as npt


# One compiled loop, kept whole (86 lines): its six passes per championship share every
# per-player accumulator, and split into functions each would take a dozen arrays.
@numba.njit(cache=True, nogil=True)
def _rate_kernel(
    offsets: npt.NDArray[np.int64],
    a_idx: npt.NDArray[np.int64],
    b_idx: npt.NDArray[np.int64],
    score_a: npt.NDArray[np.float64],
    rating: npt.NDArray[np.float64],
    games: npt.NDArray[np.int64],
    band_below: npt.NDArray[np.float64],
    band_k_new: npt.NDArray[np.float64],
    band_k_exp: npt.NDArray[np.float64],
    threshold: int,
    sigma: float,
    newcomer: float,
    tolerance: float,
) -> tuple[npt.NDArray[np.float64], ...]:  # pragma: no cover - compiled
    n_games = a_idx.shape[0]
    n_players = rating.shape[0]
    ra = np.empty(n_games)
    rb = np.empty(n_games)
    ea = np.empty(n_games)
    ka = np.empty(n_games)
    kb = np.empty(n_games)
    ca = np.empty(n_games)
    cb = np.empty(n_games)
    aa = np.empty(n_games)
    ab = np.empty(n_games)
    mark = np.full(n_players, -1, dtype=np.int64)
    w = np.zeros(n_players)
    e = np.zeros(n_players)
    n = np.zeros(n_players, dtype=np.int64)
    kk = np.zeros(n_players)
    ch = np.zeros(n_players)
    touched = np.empty(n_players, dtype=np.int64)
    scale = 1.0 / (sigma * math.sqrt(2.0))
    for c in range(offsets.shape[0] - 1):
        n_touched = 0
        for g in range(offsets[c], offsets[c + 1]):
            for p in (a_idx[g], b_idx[g]):
                if mark[p] != c:
                    mark[p] = c
                    w[p] = 0.0
                    e[p] = 0.0
                    n[p] = 0
                    if math.isnan(rating[p]):
                        rating[p] = newcomer
                    touched[n_touched] = p
                    n_touched += 1
        for g in range(offsets[c], offsets[c + 1]):
            pa = a_idx[g]
            pb = b_idx[g]
            x = 0.5 * (1.0 + math.erf((rating[pa] - rating[pb]) * scale))
            ra[g] = rating[pa]
            rb[g] = rating[pb]
            ea[g] = x
            w[pa] += score_a[g]
            w[pb] += 1.0 - score_a[g]
            e[pa] += x
            e[pb] += 1.0 - x
            n[pa] += 1
            n[pb] += 1
        for i in range(n_touched):
            p = touched[i]
            total = games[p] + n[p]
            j = 0
            while rating[p] >= band_below[j]:
                j += 1
            k = band_k_new[j] if total <= threshold else band_k_exp[j]
            kk[p] = k
            ch[p] = k * (w[p] - e[p])
        for g in range(offsets[c], offsets[c + 1]):
            pa = a_idx[g]
            pb = b_idx[g]
            ka[g] = kk[pa]
            kb[g] = kk[pb]
            ca[g] = ch[pa]
            cb[g] = ch[pb]
        for i in range(n_touched):
            p = touched[i]
            x = ch[p]
            r = math.floor(abs(x) + 0.5 + tolerance)
            rating[p] += r if x >= 0 else -r
            games[p] += n[p]
        for g in range(offsets[c], offsets[c + 1]):
            aa[g] = rating[a_idx[g]]
            ab[g] = rating[b_idx[g]]
    return ra, rb, ea, ka, kb, ca, cb, aa, ab


@dataclass(frozen=True)
class BarrufResult:
    """Raw output of :func:`rate_arrays`: per game, both sides, and the final state."""

    rating_a: npt.NDArray[np.float64]
    rating_b: npt.NDArray[np.float64]
    expected_a: npt.NDArray[np.float64]
    k_a: npt.NDArray[np.float64]
    k_b: npt.NDArray[np.float64]
    change_a: npt.NDArray[np.float64]
    change_b: npt.NDArray[np.float64]
    after_a: npt.NDArray[np.float64]
    after_b: npt.NDArray[np.float64]
    rating: npt.NDArray[np.float64]
    """Final rating per player (NaN: never rated)."""
    games: npt.NDArray[np.int64]
    """Final lifetime games per player."""
