"""Benchmark harness: the rows of full editions, formatted one by one in Python or by polars.

A night of a 1M-game archive renders its 11 most recent editions in full (44,000 lines
each). This times ``website.fragments.list_rows`` (a dict and an f-string per line, as the
site made them until 404bb68) against ``list_rows_by_edition`` (polars) on a synthetic
frame of that shape, and checks that both give the same HTML.

    python benchmarks/bench_list_rows.py                       # 11 editions of 44,000 lines
    python benchmarks/bench_list_rows.py --editions 2 --lines 50000

Not a test: figures go in the README, never in assertions.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from website.fragments import Names, list_rows, list_rows_by_edition

COLUMNS = ("player_id", "rank", "rating", "change", "new", "category", "status", "games")


def frame_of(editions: int, lines: int, players: int, seed: int) -> pl.DataFrame:
    """``editions`` full editions of ``lines`` lines: ratings, a fifth of them changed, 1 % new."""
    rng = np.random.default_rng(seed)
    n = editions * lines
    return pl.DataFrame({
        "ed": np.repeat(np.arange(editions), lines),
        "player_id": [str(100_000 + i % players) for i in range(n)],
        "rank": np.tile(np.arange(1, lines + 1), editions),
        "rating": rng.normal(1500, 200, n),
        "change": np.where(rng.random(n) < 0.2, rng.normal(0, 10, n), 0.0),
        "new": rng.random(n) < 0.01,
        "category": rng.choice(["", "U18", "S65", "F"], n),
        "status": rng.choice(["active", "inactive", "provisional"], n),
        "games": rng.integers(0, 300, n),
    })


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--editions", type=int, default=11)
    parser.add_argument("--lines", type=int, default=44_000)
    parser.add_argument("--players", type=int, default=50_000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    frame = frame_of(args.editions, args.lines, args.players, args.seed)
    names = {str(100_000 + i): f"Player {i}" for i in range(args.players)}

    started = time.perf_counter()
    columns = [frame.get_column(c).to_list() for c in COLUMNS]
    by_python: dict[int, str] = {}
    linked = Names(names, "../players/")   # one per federation in the site: its links made once
    for ed in range(args.editions):
        start, end = ed * args.lines, (ed + 1) * args.lines
        rows: list[dict[str, Any]] = [dict(zip(COLUMNS, row, strict=True))
                                      for row in zip(*(c[start:end] for c in columns), strict=True)]
        by_python[ed] = str(list_rows(rows, linked))
    python_s = time.perf_counter() - started

    started = time.perf_counter()
    formatted = list_rows_by_edition(frame, Names(names, "../players/"))
    assert formatted is not None
    by_polars = {ed: str(formatted[ed]) for ed in range(args.editions)}
    polars_s = time.perf_counter() - started

    if by_python != by_polars:
        print("the two ways differ", file=sys.stderr)
        return 1
    n = frame.height
    print(f"{args.editions} editions x {args.lines:,} lines ({n:,} rows): list_rows {python_s:.2f} s "
          f"({python_s / n * 1e6:.1f} µs a row), list_rows_by_edition {polars_s:.2f} s "
          f"({polars_s / n * 1e6:.1f} µs a row), {python_s / polars_s:.1f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
