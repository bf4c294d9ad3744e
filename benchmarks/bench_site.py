"""Benchmark harness: generating the publication site for 50,000 player cards.

Builds a synthetic AJUSC-like warehouse in a temporary SQLite file: P seeded
players, C competitions of 48 players over 6 random rounds, rated for real by
the BARRUF engine (so every card has game-by-game explanations), and E editions
published at evenly spaced dates (each the list in force then). Then times
``website.build_site`` into an empty folder (every page written) and again
into the same folder (nothing changed: nothing written).

    python benchmarks/bench_site.py                          # 50,000 players, 2,000 competitions, 20 editions
    python benchmarks/bench_site.py --players 5000 --competitions 200
    python benchmarks/bench_site.py --keep /tmp/site-bench   # keep the warehouse and the site there
    python benchmarks/bench_site.py --full-lines 200000      # large-archive mode past 200,000 lines of full lists

Not a test: figures go in the README, never in assertions.
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import os
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import polars as pl

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import engine
import warehouse
import website
import website.build
from formats.schema import (
    BYES_SCHEMA,
    COMPETITIONS_SCHEMA,
    FINDINGS_SCHEMA,
    GAMES_SCHEMA,
    PLAYERS_SCHEMA,
    RATINGS_SCHEMA,
    conform,
    empty,
)

FED = "ajusc"
FIELD = 48
ROUNDS = 6


def synthetic(players: int, competitions: int, seed: int = 12) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    """Seed list, players, competitions and games (random pairings, results by rating)."""
    rng = np.random.default_rng(seed)
    ids = [str(100_000 + i) for i in range(players)]
    strength = rng.normal(1000, 150, players).round()
    start = dt.date(2025, 9, 6)
    seed_list = conform(pl.DataFrame({
        "federation": FED, "player_id": ids, "name": [f"Player {i} Surname-{i % 977}" for i in range(players)],
        "rating": strength, "games": rng.integers(0, 400, players), "as_of": dt.date(2025, 9, 1),
        "status": "act", "last_played": "2024-25",
    }), RATINGS_SCHEMA)
    people = conform(pl.DataFrame({
        "federation": FED, "player_id": ids, "name": seed_list.get_column("name"),
        "club": [f"Club {i % 300}" for i in range(players)],
    }), PLAYERS_SCHEMA)
    comp_rows: list[dict[str, object]] = []
    game_cols: dict[str, list[object]] = {
        k: [] for k in ("competition_id", "round", "player_a", "player_b", "score_a", "source_line")}
    for c in range(competitions):
        cid = f"B-{c:05d}"
        day = start + dt.timedelta(days=int(c * 360 / competitions))
        comp_rows.append({"federation": FED, "competition_id": cid, "name": f"Open {c}", "start_date": day,
                          "end_date": day, "rounds": ROUNDS, "modality": "classic", "results_public": True,
                          "source": f"{cid}.results.csv", "source_sha256": hashlib.sha256(cid.encode()).hexdigest()})
        field = rng.choice(players, FIELD, replace=False)
        line = 2
        for r in range(1, ROUNDS + 1):
            order = rng.permutation(field)
            a, b = order[0::2], order[1::2]
            p = 1 / (1 + 10 ** ((strength[b] - strength[a]) / 400))
            draw = rng.random(len(a))
            scores = np.where(draw < p, 1.0, 0.0)
            for x, y, s in zip(a, b, scores, strict=True):
                game_cols["competition_id"].append(cid)
                game_cols["round"].append(r)
                game_cols["player_a"].append(ids[x])
                game_cols["player_b"].append(ids[y])
                game_cols["score_a"].append(float(s))
                game_cols["source_line"].append(line)
                line += 1
    comps = conform(pl.DataFrame(comp_rows), COMPETITIONS_SCHEMA).with_columns(pl.lit("accepted").alias("status"))
    games = conform(pl.DataFrame(game_cols).with_columns(pl.lit(FED).alias("federation"),
                                                         pl.lit("played").alias("status")), GAMES_SCHEMA)
    return seed_list, people, comps, games


def populate(url: str, players: int, competitions: int, editions: int) -> dict[str, float]:
    """Load the synthetic history and publish ``editions`` lists; return the phase timings."""
    timings: dict[str, float] = {}
    t0 = time.perf_counter()
    seed_list, people, comps, games = synthetic(players, competitions)
    timings["synthesise"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    run = engine.rate_history(FED, comps, games, seed_list, players=people)
    timings["rate"] = time.perf_counter() - t0
    db = warehouse.get_engine(url)
    t0 = time.perf_counter()
    warehouse.load_seed(db, FED, seed_list, source="bench.ratings.csv", source_sha256="0" * 64)
    files = comps.select("source", "source_sha256", pl.lit("interchange-results").alias("format"),
                         pl.lit(0, pl.Int64).alias("n_findings"))
    warehouse.load_batch(db, warehouse.LoadBatch(
        FED, files, comps, people, games, empty(BYES_SCHEMA), empty(FINDINGS_SCHEMA),
        changes=run.changes, explanations=run.explanations, ratings=run.ratings))
    timings["load"] = time.perf_counter() - t0
    # Each edition: the state after the competitions that ended by its date.
    t0 = time.perf_counter()
    dated = run.changes.join(comps.select("competition_id", "end_date"), on="competition_id")
    cutoffs = [comps.get_column("end_date").sort()[int((e + 1) * comps.height / editions) - 1] for e in range(editions)]
    base = seed_list.select("player_id", "name", "rating", "games", "status", "last_played")
    for cutoff in cutoffs:
        upto = dated.filter(pl.col("end_date") <= cutoff)
        last = upto.group_by("player_id").agg(
            pl.col("rating_after").last().alias("_r"), pl.col("games").sum().alias("_g"))
        state = (base.join(last, on="player_id", how="left")
                 .with_columns(pl.coalesce("_r", "rating").alias("rating"),
                               (pl.col("games") + pl.col("_g").fill_null(0)).alias("games"),
                               pl.when(pl.col("_r").is_not_null()).then(pl.lit("2025-26"))
                               .otherwise(pl.col("last_played")).alias("last_played"))
                 .drop("_r", "_g"))
        warehouse.publish_list(db, FED, engine.rating_list(FED, state, as_of=cutoff), as_of=cutoff)
    timings["publish"] = time.perf_counter() - t0
    db.dispose()
    return timings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--players", type=int, default=50_000)
    parser.add_argument("--competitions", type=int, default=2_000)
    parser.add_argument("--editions", type=int, default=20)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="processes rendering the cards")
    parser.add_argument("--full-lines", type=int, default=website.build.FULL_LINES,
                        help="lines of full lists before large-archive mode (website.build.FULL_LINES)")
    parser.add_argument("--keep", type=Path, help="folder for the warehouse and the site (kept; reused if there)")
    args = parser.parse_args()
    folder = args.keep or Path(tempfile.mkdtemp(prefix="bench-site-"))
    folder.mkdir(parents=True, exist_ok=True)
    db_path = folder / "bench.db"
    url = f"sqlite:///{db_path}"
    if not db_path.exists():
        timings = populate(url, args.players, args.competitions, args.editions)
        print("warehouse: " + ", ".join(f"{k} {v:.1f} s" for k, v in timings.items()))
    out = folder / "site"
    shutil.rmtree(out, ignore_errors=True)
    db = warehouse.get_engine(url)
    workers = args.workers
    website.build.FULL_LINES = args.full_lines

    def cpu_now() -> float:
        own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
        return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime

    cpu = cpu_now()
    cold = website.build_site(db, out, workers=workers)
    cold_cpu = cpu_now() - cpu
    cpu = cpu_now()
    warm = website.build_site(db, out, workers=workers)
    warm_cpu = cpu_now() - cpu
    size = sum(p.stat().st_size for p in out.rglob("*") if p.is_file())
    cards = cold.players[FED]
    print(f"{cards:,} player cards, {cold.competitions[FED]:,} competition pages, {cold.editions[FED]} editions: "
          f"{cold.pages:,} pages, {size / 2**20:.0f} MiB")
    print(f"first generation (every page written): {cold.seconds:.1f} s wall, {cold_cpu:.1f} s CPU "
          f"({cold.seconds / cold.pages * 1000:.2f} ms a page)")
    print("  CPU of the main process by phase: " + ", ".join(f"{k} {v:.1f} s" for k, v in cold.phases.items()))
    # The main process reads and prepares, then waits while the workers render every page: on an
    # idle machine with a CPU per worker the wall time is about its CPU plus the workers' share.
    main = sum(cold.phases.values())
    print(f"  longest path (main process + one worker's share of the rest): {main + (cold_cpu - main) / workers:.1f} s "
          f"of CPU: the wall time on an idle machine with {workers} free CPU(s)")
    print(f"second generation (nothing changed, {warm.written} written): {warm.seconds:.1f} s wall, {warm_cpu:.1f} s CPU")
    print(f"load average now: {' '.join(f'{x:.1f}' for x in os.getloadavg())} (other work on the machine inflates wall time)")
    print(f"machine: {os.cpu_count()} CPU(s); {workers} card worker(s); CPU time includes the workers'")
    if not args.keep:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
