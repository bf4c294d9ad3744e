"""Benchmark harness: the game-by-game explanations, kept in the warehouse or derived on read.

Every rating change is explained game by game (``explanations``: opponent, ratings used,
expected score, K, contribution). Those rows are a pure function of stored rows (the
history's games and the seed list), so they could be derived when a page or a report
reads them instead of being written on every run. On a warehouse that ``ratings run``
filled (the harness's ``python -m benchmarks`` leaves them under ``--work``), this times
both ways for one federation:

- **kept** (what the pipeline does): building the rows in the engine, writing them into a
  fresh ``explanations`` table with the loader's bulk insert and its block checksums, then
  reading them back: all of them (a first site generation) and those of the players a
  night changed (the cards it renders);
- **derived on read**: what any read would cost before its first row, the history's games
  read back and the whole history re-rated from the seed: a player's explanation needs the
  ratings every opponent had then, which only a run through the history gives.

    python benchmarks/bench_explanations.py --warehouse sqlite:////tmp/bw/ajusc-1000000/sqlite/w.db \
        --federation ajusc

Not a test: figures go in the README, never in assertions.
"""

from __future__ import annotations

import argparse
import resource
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import polars as pl
import sqlalchemy as sa

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import engine
import warehouse
from flows.config import federation_config
from warehouse._load_derived import _block_digests
from warehouse.bulk import insert_frame
from warehouse.load import DERIVED_BLOCK
from warehouse.models import Explanation
from warehouse.site import site_explained_from, site_explanations

T = TypeVar("T")


def _timed(what: str, rows: list[tuple[str, float, str]], call: Callable[[], T]) -> T:
    started = time.perf_counter()
    out = call()
    rows.append((what, time.perf_counter() - started, ""))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--warehouse", required=True, help="URL of a warehouse `ratings run` filled")
    parser.add_argument("--federation", required=True)
    parser.add_argument("--night", type=int, default=50,
                        help="the cards a night of the last N competitions renders (default 50, the harness's night)")
    args = parser.parse_args(argv)
    db = warehouse.get_engine(args.warehouse)
    fed, config = args.federation, federation_config(args.federation)
    rows: list[tuple[str, float, str]] = []

    history = _timed("read the history (games, competitions, players, seed)", rows,
                     lambda: warehouse.history(db, fed))
    accepted, games, players = history.laid_over(history.competitions.clear(), history.games.clear(),
                                                 history.players.clear())
    run = _timed("re-rate the whole history from the seed", rows, lambda: engine.rate_history(
        fed, accepted, games, history.seed, config=config, players=engine.own_declared_ratings(players, fed)))
    explained = _timed("build the explanation rows", rows, lambda: run.explanations)
    rows[-1] = (rows[-1][0], rows[-1][1], f"{explained.height:,} rows")

    with tempfile.TemporaryDirectory() as scratch:
        target = sa.create_engine(f"sqlite:///{scratch}/x.db")
        table = Explanation.__table__  # type: ignore[attr-defined]
        table.metadata.create_all(target, tables=[table])
        frame = explained.with_columns(pl.lit(fed).alias("federation"),
                                       pl.int_range(pl.len(), dtype=pl.Int64).alias("seq"))
        frame = frame.select([c.name for c in table.columns if c.name in frame.columns])

        def write() -> None:
            with target.begin() as conn:
                insert_frame(conn, table, frame)

        _timed("write them (bulk insert, fresh SQLite table)", rows, write)
        _timed("their block checksums (derived_state)", rows, lambda: _block_digests(frame, DERIVED_BLOCK))
        target.dispose()

    stored = _timed("read every stored explanation (a first site generation)", rows,
                    lambda: site_explanations(db, fed))
    rows[-1] = (rows[-1][0], rows[-1][1], f"{stored.height:,} rows")
    tonight = stored.get_column("competition_id").unique(maintain_order=True).tail(args.night)
    seqs = stored.filter(pl.col("competition_id").is_in(tonight.to_list())).get_column("seq").to_list()
    cards = site_explained_from(db, fed, seqs[0] if seqs else 0)
    some = _timed("read those of a night's cards", rows, lambda: site_explanations(db, fed, cards))
    rows[-1] = (rows[-1][0], rows[-1][1], f"{len(cards):,} players, {some.height:,} rows")

    print(f"# {fed}: {history.games.height:,} games, {accepted.height:,} competitions ({args.warehouse})")
    print("| step | seconds | |\n|---|---:|---|")
    for what, seconds, note in rows:
        print(f"| {what} | {seconds:.2f} | {note} |")
    kept_run = rows[2][1] + rows[3][1] + rows[4][1]
    derived = rows[0][1] + rows[1][1] + rows[2][1]
    if explained.height != stored.height:
        print(f"\nnote: the re-rate built {explained.height:,} rows, the warehouse holds {stored.height:,}")
    print(f"\nkept: {kept_run:.2f} s a full run to build, write and checksum them; a read costs "
          f"{rows[5][1]:.2f} s (all) or {rows[6][1]:.2f} s (a night's cards)")
    print(f"derived on read: {derived:.2f} s before any read's first row, on every read")
    print(f"peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
