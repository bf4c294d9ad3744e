"""Benchmark harness: rows per second loading a 1M-game batch into SQLite and PostgreSQL.

Builds one synthetic batch in memory (C competitions of G games between P
players, with findings, and a rating run's derived tables: one explanation per
player and game, one change per player and competition, current ratings), then
times ``load_batch`` into a fresh SQLite file and a fresh PostgreSQL database,
and ``history`` reading it back.

    python benchmarks/bench_warehouse.py                       # 1M games, both databases
    python benchmarks/bench_warehouse.py --games 200000 --no-postgres
    python benchmarks/bench_warehouse.py --no-derived           # results only: games, findings, players
    RATINGS_TEST_POSTGRES_URL=postgresql+psycopg://... python benchmarks/bench_warehouse.py

Not a test: figures go in the closing notes, never in assertions.
"""

from __future__ import annotations

import argparse
import datetime as dt
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import polars as pl

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from formats.schema import (
    BYES_SCHEMA,
    EXPLANATIONS_SCHEMA,
    FINDINGS_SCHEMA,
    RATING_CHANGES_SCHEMA,
    RATINGS_SCHEMA,
    conform,
    empty,
)
from warehouse import LoadBatch, get_engine, history, load_batch, redact
from warehouse.testing import (
    postgres_server_url,
    postgres_unavailable_reason,
    temporary_postgres_database,
)


def synthetic_batch(games: int, per_competition: int, players: int, seed: int = 7) -> LoadBatch:
    """One federation's batch with ``games`` games and full derived tables."""
    rng = np.random.default_rng(seed)
    n_comp = max(1, games // per_competition)
    comp_idx = np.arange(games) // per_competition % n_comp
    cids = np.array([f"BENCH-{i:06d}" for i in range(n_comp)])
    shas = np.array([f"{i:064x}" for i in range(n_comp)])
    start = dt.date(2020, 1, 4)
    starts = [start + dt.timedelta(days=int(i) // 5) for i in range(n_comp)]
    competitions = pl.DataFrame({
        "federation": "ajusc", "competition_id": cids, "name": [f"Bench open {i}" for i in range(n_comp)],
        "start_date": starts, "end_date": [d + dt.timedelta(days=1) for d in starts],
        "rounds": pl.Series([7] * n_comp, dtype=pl.Int32), "modality": "classic", "results_public": True,
        "source": [f"{c}.results.csv" for c in cids], "source_sha256": shas, "status": "accepted",
    })
    a = rng.integers(0, players, games)
    b = (a + rng.integers(1, players, games)) % players
    score = rng.choice(np.array([0.0, 0.5, 1.0]), games)
    pid = np.array([f"{i:06d}" for i in range(players)])
    games_df = pl.DataFrame({
        "federation": "ajusc", "competition_id": cids[comp_idx],
        "round": pl.Series((np.arange(games) % per_competition) // 8 + 1, dtype=pl.Int32),
        "player_a": pid[a], "player_b": pid[b], "score_a": score,
        "status": "played", "source_line": pl.Series(np.arange(games) % per_competition + 2, dtype=pl.Int32),
        "rated": True,
    })
    findings = conform(pl.DataFrame({
        "federation": "ajusc", "competition_id": cids, "rule": "ajusc.warn_sample", "severity": "warn",
        "message": "benchmark finding", "source": [f"{c}.results.csv" for c in cids], "line": 2, "field": "round",
    }), FINDINGS_SCHEMA)
    players_df = pl.DataFrame({"federation": "ajusc", "player_id": pid, "name": [f"Player {p}" for p in pid]})
    both = pl.concat([
        games_df.select("competition_id", "round", pl.col("player_a").alias("player_id"),
                        pl.col("player_b").alias("opponent_id"), pl.col("score_a").alias("score"), "source_line"),
        games_df.select("competition_id", "round", pl.col("player_b").alias("player_id"),
                        pl.col("player_a").alias("opponent_id"), (1 - pl.col("score_a")).alias("score"), "source_line"),
    ]).with_columns(
        federation=pl.lit("ajusc"), rating=pl.lit(1500.0), opponent_rating=pl.lit(1480.0),
        expected=pl.lit(0.528), k=pl.lit(20.0), contribution=(pl.col("score") - 0.528) * 20, rule_set=pl.lit("barruf"),
    )
    explanations = conform(both, EXPLANATIONS_SCHEMA)
    changes = conform(
        both.group_by("competition_id", "player_id", maintain_order=True).agg(
            pl.len().cast(pl.Int64).alias("games"), pl.col("score").sum(), pl.col("contribution").sum().alias("change"),
        ).with_columns(federation=pl.lit("ajusc"), rating_before=pl.lit(1500.0), k=pl.lit(20.0),
                       rule_set=pl.lit("barruf"), rating_after=1500.0 + pl.col("change")),
        RATING_CHANGES_SCHEMA,
    )
    ratings = conform(players_df.with_columns(rating=pl.lit(1500.0), games=pl.lit(10, pl.Int64),
                                              as_of=pl.lit(dt.date(2026, 1, 1))), RATINGS_SCHEMA)
    files = competitions.select("source", "source_sha256", pl.lit("interchange-results").alias("format"),
                                pl.lit(1, pl.Int64).alias("n_findings"))
    return LoadBatch("ajusc", files, competitions.drop("status").with_columns(competitions["status"]),
                     players_df, games_df, empty(BYES_SCHEMA), findings, changes, explanations, ratings)


def next_night(batch: LoadBatch, games: int) -> LoadBatch:
    """The following night: one new competition of ``games`` games appended to the history.

    Its rating run is the previous one plus the new competition's rows, the
    usual case for a nightly load (derived tables change only at their end).
    """
    extra = synthetic_batch(games, games, 1000, seed=11)
    rename = {"BENCH-000000": "NIGHT-000001"}
    sha = "f" * 64
    comps = extra.competitions.with_columns(
        pl.col("competition_id").replace(rename), pl.lit(sha).alias("source_sha256"),
        pl.lit("night.results.csv").alias("source"), pl.lit(dt.date(2030, 1, 5)).alias("end_date"),
    )

    def more(old: pl.DataFrame | None, new: pl.DataFrame | None) -> pl.DataFrame | None:
        if old is None or new is None:
            return None
        return pl.concat([old, new.with_columns(pl.col("competition_id").replace(rename))])

    return LoadBatch(
        "ajusc", comps.select("source", "source_sha256"), comps, extra.players.head(0),
        extra.games.with_columns(pl.col("competition_id").replace(rename)), extra.byes,
        extra.findings.with_columns(pl.col("competition_id").replace(rename), pl.lit("night.results.csv").alias("source")),
        more(batch.changes, extra.changes), more(batch.explanations, extra.explanations), batch.ratings,
    )


def bench(url: str, batch: LoadBatch) -> None:
    engine = get_engine(url)
    rows = sum(f.height for f in (batch.competitions, batch.games, batch.findings, batch.players,
                                  batch.changes, batch.explanations, batch.ratings) if f is not None)
    t0 = time.perf_counter()
    result = load_batch(engine, batch)
    t1 = time.perf_counter()
    again = load_batch(engine, batch)
    t2 = time.perf_counter()
    h = history(engine, "ajusc")
    t3 = time.perf_counter()
    night = load_batch(engine, next_night(batch, 200))
    t4 = time.perf_counter()
    engine.dispose()
    elapsed = t1 - t0
    what = "games" if batch.changes is None else "games + derived"
    print(f"{redact(url).split(':')[0]:>20}: load_batch {result.games_loaded:,} {what} "
          f"({rows:,} rows in all) in {elapsed:.1f} s = {result.games_loaded / elapsed:,.0f} games/s, "
          f"{rows / elapsed:,.0f} rows/s; re-send no-op {t2 - t1:.2f} s (skipped {again.files_skipped:,} files); "
          f"history() read {h.games.height:,} games in {t3 - t2:.1f} s; next night "
          f"(+{night.games_loaded} games, derived appended) {t4 - t3:.1f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1_000_000)
    parser.add_argument("--per-competition", type=int, default=100)
    parser.add_argument("--players", type=int, default=50_000)
    parser.add_argument("--no-postgres", action="store_true")
    parser.add_argument("--no-sqlite", action="store_true")
    parser.add_argument("--no-derived", action="store_true", help="load the results only (no rating run)")
    args = parser.parse_args()
    t = time.perf_counter()
    batch = synthetic_batch(args.games, args.per_competition, args.players)
    if args.no_derived:
        batch = LoadBatch(batch.federation, batch.files, batch.competitions, batch.players, batch.games,
                          batch.byes, batch.findings)
    explained = 0 if batch.explanations is None else batch.explanations.height
    print(f"built batch: {batch.games.height:,} games, {batch.competitions.height:,} competitions, "
          f"{explained:,} explanations in {time.perf_counter() - t:.1f} s")
    if not args.no_sqlite:
        with tempfile.TemporaryDirectory() as tmp:
            bench(f"sqlite:///{Path(tmp) / 'bench.db'}", batch)
    if not args.no_postgres:
        server = postgres_server_url()
        reason = postgres_unavailable_reason(server)
        if reason:
            print(f"PostgreSQL skipped: {reason}")
            return
        with temporary_postgres_database(server, prefix="ratings_bench_") as url:
            bench(url, batch)


if __name__ == "__main__":
    main()
