"""Pairings and results of generated chess competitions, for :mod:`benchmarks.generate_fide`.

Swiss opens are paired a round at a time for every open of a batch at once (numpy, no loop over
competitions or players): by score group, a bye for the lowest of an odd field who has had none,
a repeated pairing avoided by swapping partners with the next board. Round robins follow the
circle method. Results are drawn from the strength difference (logistic, as
:mod:`benchmarks.generate`).
"""

from __future__ import annotations

import numpy as np

ROUNDS = 9
#: Share of forfeits among the games (the result then is 1 or 0, whatever the strengths).
FORFEITS = 0.01

#: Games of a batch, one array a column: competition, round, the two players, score_a, forfeit.
Games = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]


def play(rng: np.random.Generator, a: np.ndarray, b: np.ndarray, draws: np.ndarray,
         ) -> tuple[np.ndarray, np.ndarray]:
    """``score_a`` and whether each game was a forfeit, from the strengths ``a`` and ``b``
    (Elo's logistic expectation) and each game's draw rate between equal players ``draws``.

    Examples
    --------
    >>> score, forfeit = play(np.random.default_rng(1), np.full(10_000, 2400.0),
    ...                       np.full(10_000, 1600.0), np.full(10_000, 0.3))
    >>> bool(score.mean() > 0.9), bool(0.0 < forfeit.mean() < 0.03)
    (True, True)
    """
    p_a = 1.0 / (1.0 + 10.0 ** (-(a - b) / 400.0))
    u = rng.random(a.size)
    drawn = rng.random(a.size) < draws * (1.0 - np.abs(p_a - 0.5))
    score = np.where(drawn, 0.5, np.where(u < p_a, 1.0, 0.0))
    forfeit = rng.random(a.size) < FORFEITS
    return np.where(forfeit, np.where(u < 0.5, 1.0, 0.0), score), forfeit


def circle(n: int) -> np.ndarray:
    """A round robin of ``n`` (even) players by the circle method: ``(round, board, 2)`` indices.

    Examples
    --------
    >>> circle(4).tolist()
    [[[0, 3], [1, 2]], [[0, 1], [2, 3]], [[0, 2], [3, 1]]]
    """
    others = list(range(1, n))
    rounds = []
    for r in range(n - 1):
        ring = [0, *others[r:], *others[:r]]
        rounds.append([[ring[i], ring[n - 1 - i]] for i in range(n // 2)])
    return np.array(rounds, dtype=np.int64)


def round_robins(rng: np.random.Generator, strength: np.ndarray, players: np.ndarray, size: int,
                 tours: np.ndarray, draws: np.ndarray) -> Games:
    """Round robins of ``size`` players, every pair once, one for each of ``tours``, of the
    ``players`` (``size`` each): those of like strength play together (a closed event).

    ``strength`` is every player's strength (``players`` index it); ``draws``, each competition's
    draw rate (``tours`` index it).

    Examples
    --------
    >>> g = round_robins(np.random.default_rng(1), np.arange(20.0), np.arange(20), 10,
    ...                  np.array([0, 1]), np.array([0.3, 0.3]))
    >>> g[0].size, sorted(set(g[1].tolist())) == list(range(1, 10)), set(g[2][g[0] == 0].tolist()) <= set(range(10, 20))
    (90, True, True)
    """
    table = players[np.argsort(-strength[players], kind="stable")].reshape(-1, size)
    plan = circle(size)                                      # (rounds, boards, 2)
    a, b = table[:, plan[:, :, 0]], table[:, plan[:, :, 1]]  # (competition, round, board)
    tour = np.broadcast_to(tours[:, None, None], a.shape)
    rnd = np.broadcast_to(np.arange(1, size)[None, :, None], a.shape)
    a, b, tour, rnd = a.ravel(), b.ravel(), tour.ravel(), rnd.ravel()
    score, forfeit = play(rng, strength[a], strength[b], draws[tour])
    return tour, rnd, a, b, score, forfeit


def _met(a: np.ndarray, b: np.ndarray, met: np.ndarray, n: int) -> np.ndarray:
    """Whether ``a[i]`` and ``b[i]`` met before: their pair's key is in ``met`` (sorted, unique).

    Examples
    --------
    >>> _met(np.array([1, 2, 0]), np.array([0, 3, 2]), np.array([1, 2 * 10 + 3]), 10).tolist()
    [True, True, False]
    """
    key = np.minimum(a, b) * n + np.maximum(a, b)
    if not met.size:
        return np.zeros(key.size, dtype=bool)
    found: np.ndarray = met[np.minimum(np.searchsorted(met, key), met.size - 1)] == key
    return found


#: Passes of :func:`_other_partners` a round at most: each settles the repeats it can.
PASSES = 8


def _other_partners(a: np.ndarray, b: np.ndarray, tour: np.ndarray, met: np.ndarray, n: int) -> None:
    """Where the two players of a board met before, pair them with the next board's (1-3 and 2-4,
    else 1-4 and 2-3, instead of 1-2 and 3-4; the last board of an open with the one above), in
    place, in up to :data:`PASSES` passes; a repeat left after them is let be."""
    for _ in range(PASSES):
        again = np.flatnonzero(_met(a, b, met, n))
        if not again.size:
            return
        below = np.minimum(again + 1, a.size - 1)
        last = (again + 1 == a.size) | (tour[a[below]] != tour[a[again]])
        top = np.unique(np.where(last, again - 1, again))   # the upper board (an open has 25 at least)
        top = top[np.concatenate(([True], np.diff(top) > 1))]   # a board swaps once a pass
        a1, b1, a2, b2 = a[top], b[top], a[top + 1], b[top + 1]
        cross = _met(a1, a2, met, n) | _met(b1, b2, met, n)      # 1-3 / 2-4 repeats: 1-4 / 2-3
        a[top], b[top] = a1, np.where(cross, b2, a2)
        a[top + 1], b[top + 1] = b1, np.where(cross, a2, b2)


def swiss(rng: np.random.Generator, strength: np.ndarray, players: np.ndarray, sizes: np.ndarray,
          tours: np.ndarray, draws: np.ndarray) -> Games:
    """:data:`ROUNDS` rounds of Swiss opens, every open of the batch at once: the ``players`` of
    each open in turn (``sizes``), ranked each round by score then rating and paired board by
    board (1-2, 3-4, ...), with a pairing-allocated bye (a point, no game) for the lowest of an
    odd field who has had none. ``tours``: each open's competition; ``draws``: each competition's
    draw rate.

    Examples
    --------
    >>> g = swiss(np.random.default_rng(1), np.linspace(1000, 2500, 101), np.arange(101),
    ...           np.array([51, 50]), np.array([0, 1]), np.array([0.3, 0.3]))
    >>> g[0].size, int((g[0] == 0).sum()), sorted(set(g[1].tolist())) == list(range(1, 10))
    (450, 225, True)
    """
    n = players.size
    slot_tour = np.repeat(np.arange(sizes.size), sizes)      # each entrant's open (entrants are slots)
    starts = np.concatenate(([0], np.cumsum(sizes)[:-1])).astype(np.int64)
    odd = sizes % 2 == 1
    rating = strength[players] + rng.normal(0.0, 60.0, n)   # what the pairing program knows
    score = np.zeros(n)
    had_bye = np.zeros(n, dtype=bool)
    met = np.empty(0, dtype=np.int64)
    out: list[Games] = []
    for rnd in range(1, ROUNDS + 1):
        order = np.lexsort((-rating, -score, slot_tour))
        if odd.any():
            last_free = np.maximum.reduceat(np.where(had_bye[order], -1, np.arange(n)), starts)
            bye = last_free[odd]
            had_bye[order[bye]] = True
            score[order[bye]] += 1.0
            order = np.delete(order, bye)
        a, b = order[0::2].copy(), order[1::2].copy()
        _other_partners(a, b, slot_tour, met, n)
        met = np.union1d(met, np.minimum(a, b) * n + np.maximum(a, b))
        tour = tours[slot_tour[a]]
        result, forfeit = play(rng, strength[players[a]], strength[players[b]], draws[tour])
        score[a] += result
        score[b] += 1.0 - result
        out.append((tour, np.full(a.size, rnd), players[a], players[b], result, forfeit))
    return tuple(np.concatenate(column) for column in zip(*out, strict=True))  # type: ignore[return-value]
