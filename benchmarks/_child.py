"""The rows ``python -m benchmarks`` measures in a child process of their own (``--child KIND``):
``engine``, ``reference`` and ``floor``, each printing one JSON line."""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def child(argv: list[str]) -> None:
    """Rows measured inside a child process (``python -m benchmarks --child KIND ...``)."""
    sys.path.insert(0, str(REPO))
    kind, folder = argv[0], Path(argv[1])
    import polars as pl

    parts = sorted(folder.glob("*.results.csv"))
    if kind == "engine" or kind == "reference":
        import engine
        import formats

        reads = [formats.read(part) for part in parts]
        # The federation's own list is read at the list's limits (a FIDE-shaped one holds more than
        # 50,000 players); the players may come in several files.
        seed = formats.read_list(next(folder.glob("*.ratings.csv"))).ratings
        players = pl.concat([formats.read(p).players for p in sorted(folder.glob("*.players.csv"))],
                            how="vertical_relaxed")
        comps = pl.concat([r.competitions for r in reads], how="vertical_relaxed")
        games = pl.concat([r.games for r in reads], how="vertical_relaxed")
        fed = comps.get_column("federation")[0]
        if kind == "engine":
            warm = comps.head(3)
            engine.rate_history(fed, warm, games.filter(pl.col("competition_id").is_in(warm["competition_id"].to_list())),
                                seed, players=players)
            t = time.perf_counter()
            run = engine.rate_history(fed, comps, games, seed, players=players)
            seconds = time.perf_counter() - t
            t = time.perf_counter()
            explained = run.explanations.height  # built on first read
            print(json.dumps({"seconds": seconds, "games": games.height, "explanations": explained,
                              "explain_seconds": time.perf_counter() - t}))
        else:
            from tests.engine import reference

            limit = int(argv[2])
            order = comps.sort("end_date", "start_date", "competition_id")
            counts = games.group_by("competition_id").len()
            order = order.join(counts, on="competition_id").with_columns(pl.col("len").cum_sum().alias("upto"))
            keep = order.filter(pl.col("upto") - pl.col("len") < limit)
            part = games.filter(pl.col("competition_id").is_in(keep["competition_id"].to_list()))
            references: dict[str, Callable[..., object]] = {
                "ajusc": reference.barruf, "fide": reference.fide, "egf": reference.egf}
            fn = references[fed]
            t = time.perf_counter()
            # The same players file as the engine: newcomers start from their declared grade or rating.
            fn(keep.drop("len", "upto"), part, seed, players=players)
            print(json.dumps({"seconds": time.perf_counter() - t, "games": part.height}))
    elif kind == "floor":
        url = argv[2]
        t = time.perf_counter()
        # Only the columns the floor inserts, with their types given: parsing dates nobody reads
        # cost 0.43 s a file (46 of the 48 s of a 160-file FIDE-shaped 1M archive).
        columns = ["competition_id", "round", "player_a", "player_b", "score_a", "status"]
        types = {"competition_id": pl.Utf8, "round": pl.Int64, "player_a": pl.Utf8, "player_b": pl.Utf8,
                 "score_a": pl.Float64, "status": pl.Utf8}
        frame = pl.concat([pl.read_csv(part, columns=columns, schema_overrides=types) for part in parts],
                          how="vertical_relaxed")
        rows = frame.select(columns).rows()
        if url.startswith("sqlite"):
            import sqlite3

            con = sqlite3.connect(url.removeprefix("sqlite:///"))
            con.execute("CREATE TABLE floor_games (competition_id TEXT, round INTEGER, player_a TEXT, "
                        "player_b TEXT, score_a REAL, status TEXT)")
            con.executemany("INSERT INTO floor_games VALUES (?, ?, ?, ?, ?, ?)", rows)
            con.commit()
            con.close()
        else:
            import psycopg

            with psycopg.connect(url.replace("postgresql+psycopg://", "postgresql://")) as pg:
                pg.execute("CREATE TABLE floor_games (competition_id TEXT, round INTEGER, player_a TEXT, "
                           "player_b TEXT, score_a REAL, status TEXT)")
                with pg.cursor().copy("COPY floor_games FROM STDIN") as copy:
                    for row in rows:
                        copy.write_row(row)
        print(json.dumps({"seconds": time.perf_counter() - t, "games": frame.height}))
