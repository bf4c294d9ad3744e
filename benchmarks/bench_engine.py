"""Benchmark of the rating engine on a synthetic 1M-game history.

Run ``python benchmarks/bench_engine.py [--games N] [--players P]`` from the
repository root. For each system it prints games per second for the whole
``engine.rate_history`` call (frames in, frames out: sorting, lookups, change rows
and ratings), for building the explanation rows on their first read, and for the
compiled kernel alone. The first call of each system compiles
(or loads from the numba cache) its kernel and is not timed.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import engine
from engine import barruf, egf_gor, fide_elo


def synthetic_history(n_games: int, n_players: int, *, games_per_comp: int = 100, seed: int = 7,
                      first: date = date(2015, 1, 1)) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    """Competitions of ``games_per_comp`` games between random distinct players, one a day."""
    rng = np.random.default_rng(seed)
    n_comps = max(1, n_games // games_per_comp)
    a = rng.integers(0, n_players, n_games)
    b = (a + rng.integers(1, n_players, n_games)) % n_players
    comp = np.minimum(np.arange(n_games) // games_per_comp, n_comps - 1)
    ids = np.array([f"p{i}" for i in range(n_players)])
    cids = np.array([f"c{i:07d}" for i in range(n_comps)])
    days = [first + timedelta(days=int(d)) for d in rng.integers(0, 3000, n_comps)]
    comps = pl.DataFrame({"competition_id": cids, "start_date": days, "end_date": days,
                          "event_class": ["A"] * n_comps})
    games = pl.DataFrame({
        "competition_id": cids[comp], "round": (np.arange(n_games) % games_per_comp).astype(np.int32) + 1,
        "player_a": ids[a], "player_b": ids[b],
        "score_a": rng.choice([0.0, 0.5, 1.0], n_games), "status": ["played"] * n_games,
        "handicap": np.zeros(n_games, dtype=np.int32),
    })
    start = pl.DataFrame({"player_id": ids, "rating": rng.integers(1000, 2400, n_players).astype(float),
                          "games": rng.integers(0, 200, n_players), "k": [20.0] * n_players})
    return comps, games, start


def _timed(module: Any) -> tuple[list[float], Callable[[], None]]:
    spent: list[float] = []
    original = module._rate_kernel

    def wrapper(*args: Any) -> Any:
        t = time.perf_counter()
        out = original(*args)
        spent.append(time.perf_counter() - t)
        return out

    module._rate_kernel = wrapper

    def restore() -> None:
        module._rate_kernel = original

    return spent, restore


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=1_000_000)
    parser.add_argument("--players", type=int, default=50_000)
    args = parser.parse_args()
    comps, games, start = synthetic_history(args.games, args.players)
    small = synthetic_history(1000, 100)
    print(f"synthetic history: {games.height:,} games, {comps.height:,} competitions, {args.players:,} players")
    for federation, module in (("ajusc", barruf), ("fide", fide_elo), ("egf", egf_gor)):
        engine.rate_history(federation, *small)  # compile / load the cached kernel
        spent, restore = _timed(module)
        try:
            t = time.perf_counter()
            run = engine.rate_history(federation, comps, games, start)
            total = time.perf_counter() - t
            t = time.perf_counter()
            explained = run.explanations.height  # built on first read
            explain = time.perf_counter() - t
        finally:
            restore()
        kernel = sum(spent)
        print(f"{federation:6s} {module.__name__:16s} rate_history {games.height / total / 1e6:6.2f} M games/s "
              f"({total:.2f} s); + {explained:,} explanation rows {explain:.2f} s "
              f"({games.height / (total + explain) / 1e6:.2f} M games/s with them); "
              f"kernel {games.height / kernel / 1e6:7.1f} M games/s ({kernel * 1000:.0f} ms)")


if __name__ == "__main__":
    main()
