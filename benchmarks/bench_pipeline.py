"""Benchmark harness: the nightly pipeline stage by stage on a synthetic inbox.

Writes an AJUSC-like season in the interchange CSV (N championships of classic
Scrabble between P players), then times each stage's pure work (the task bodies,
without Prefect) and one full flow run under a temporary Prefect server.

    python benchmarks/bench_pipeline.py --competitions 200 --players 2000 --rounds 7
    python benchmarks/bench_pipeline.py --warehouse postgresql+psycopg://postgres@127.0.0.1/bench
    python benchmarks/bench_pipeline.py --competitions 1000 --reports-only   # organiser reports, ms each

Not a test: figures go in the closing notes, never in assertions.
"""

from __future__ import annotations

import argparse
import csv
import os
import random
import sys
import tempfile
import time
from datetime import date, timedelta
from pathlib import Path

os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
os.environ.setdefault("GX_ANALYTICS_ENABLED", "false")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

HEADER = ["federation", "competition_id", "competition_name", "start_date", "end_date", "round",
          "player_a", "player_b", "score_a", "status", "handicap", "results_public", "modality", "event_class"]


def write_inbox(folder: Path, competitions: int, players: int, rounds: int, per_event: int, seed: int = 7) -> int:
    """Write ``competitions`` championships; returns the number of games written."""
    rng = random.Random(seed)
    folder.mkdir(parents=True, exist_ok=True)
    day = date(2025, 9, 6)
    games = 0
    for c in range(competitions):
        cid = f"BENCH-{c:05d}"
        entrants = rng.sample(range(1, players + 1), per_event)
        with (folder / f"{cid}.results.csv").open("w", newline="", encoding="utf-8") as handle:
            writer = csv.writer(handle, lineterminator="\n")
            writer.writerow(HEADER)
            for rnd in range(1, rounds + 1):
                rng.shuffle(entrants)
                for a, b in zip(entrants[0::2], entrants[1::2]):
                    writer.writerow(["ajusc", cid, f"Bench {c}", day, day, rnd, a, b,
                                     rng.choice((1, 0, 1, 0, 0.5)), "played", "", "true", "classic", ""])
                    games += 1
        day += timedelta(days=2)
    return games


def timed(label: str, fn, *args, **kwargs):  # type: ignore[no-untyped-def]
    start = time.perf_counter()
    result = fn(*args, **kwargs)
    elapsed = time.perf_counter() - start
    print(f"{label:<28} {elapsed:8.3f} s")
    return result, elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--competitions", type=int, default=200)
    parser.add_argument("--players", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--per-event", type=int, default=40)
    parser.add_argument("--warehouse", default=None, help="warehouse URL (default: a temporary SQLite file)")
    parser.add_argument("--skip-flow", action="store_true", help="only time the stages, not the Prefect flow")
    parser.add_argument("--reports-only", action="store_true",
                        help="after the load, time the organiser reports one by one against in bulk")
    args = parser.parse_args()

    from prefect.logging import disable_run_logger

    import warehouse
    from flows.config import federation_config
    from rating import rate
    from tasks.ingest import read_inbox
    from tasks.load import load_federation
    from tasks.publish import publish_federation
    from tasks.validate import validate_batch

    tmp = Path(tempfile.mkdtemp(prefix="ratings-bench-"))
    inbox = tmp / "inbox"
    games = write_inbox(inbox, args.competitions, args.players, args.rounds, args.per_event)
    url = args.warehouse or f"sqlite:///{tmp / 'bench.db'}"
    print(f"{args.competitions} competitions, {games} games, warehouse {warehouse.redact(url)}")
    config = federation_config("ajusc")
    db = warehouse.get_engine(url)
    total = 0.0
    with disable_run_logger():
        ingested, t = timed("ingest (read CSV)", read_inbox, inbox, warehouse.seen_checksums(db))
        total += t
        batch = ingested.batches["ajusc"]
        batch, t = timed("validate (rules + GX)", validate_batch.fn, batch, config, None, url)
        total += t
        history = warehouse.history(db, "ajusc")
        rated, t = timed("rate (whole history)", rate, history, batch, config)
        run = rated.run
        total += t
        _, t = timed("load (one transaction)", load_federation.fn, batch, run, url)
        total += t
        if args.reports_only:
            ids = batch.competitions.get_column("competition_id").to_list()
            bench_reports(url, "ajusc", ids, tmp)
            return
        _, t = timed("publish (list + reports)", publish_federation.fn, batch, run, url, config,
                     date(2026, 8, 31), str(tmp / "reports"))
        total += t
    print(f"{'stages total':<28} {total:8.3f} s  ({games / total:,.0f} games/s end to end)")

    if not args.skip_flow:
        from prefect.testing.utilities import prefect_test_harness

        from flows.nightly import nightly

        fresh = f"sqlite:///{tmp / 'flow.db'}" if args.warehouse is None else url
        with prefect_test_harness(server_startup_timeout=90):
            timed("nightly flow (fresh run)", nightly, inbox=str(inbox), warehouse_url=fresh,
                  as_of=date(2026, 8, 31), reports_dir=str(tmp / "flow-reports"))
            timed("nightly flow (nothing new)", nightly, inbox=str(inbox), warehouse_url=fresh,
                  as_of=date(2026, 8, 31), reports_dir=str(tmp / "flow-reports"))


def bench_reports(url: str, federation: str, ids: list[str], tmp: Path) -> None:
    """Organiser reports of ``ids``: one by one with an artifact each (the old way)
    against the bulk read, one compiled template and one artifact for the night."""
    from prefect.artifacts import create_markdown_artifact
    from prefect.testing.utilities import prefect_test_harness

    import validations
    import warehouse
    from publication import report_from_warehouse, reports_from_warehouse
    from tasks.publish import artifact_key, reports_index

    db = warehouse.get_engine(url)
    first = report_from_warehouse(db, ids[0], federation)
    assert first is not None
    validations.render_report(first, fmt="html")  # compile the template once, outside the timings
    with prefect_test_harness(server_startup_timeout=90):
        def one_by_one() -> None:
            for cid in ids:
                report = report_from_warehouse(db, cid, federation)
                assert report is not None
                md, _ = validations.write_report(report, tmp / "reports-before")
                create_markdown_artifact(key=artifact_key(federation, cid, "report"),
                                         markdown=md.read_text(encoding="utf-8"))

        def in_bulk() -> None:
            reports = reports_from_warehouse(db, federation, ids)
            paths = [str(p) for r in reports for p in validations.write_report(r, tmp / "reports-after", sync=False)]
            validations.report.sync_reports()   # as a bulk night does: one sync, not an fsync per file
            create_markdown_artifact(key=artifact_key(federation, "reports"),
                                     markdown=reports_index(federation, reports, paths))

        for label, fn in (("reports one by one", one_by_one), ("reports in bulk", in_bulk)):
            _, t = timed(label, fn)
            print(f"{'':<28} {1000 * t / len(ids):8.2f} ms per competition ({len(ids)} competitions)")
        parts: dict[str, float] = {}
        start = time.perf_counter()
        reports = reports_from_warehouse(db, federation, ids)
        parts["read (bulk)"] = time.perf_counter() - start
        for fmt in ("markdown", "html"):
            start = time.perf_counter()
            for r in reports:
                validations.render_report(r, fmt=fmt)
            parts[f"render {fmt}"] = time.perf_counter() - start
        start = time.perf_counter()
        for r in reports:
            validations.write_report(r, tmp / "reports-again", sync=False)
        validations.report.sync_reports()
        parts["render + write both"] = time.perf_counter() - start
        for label, t in parts.items():
            print(f"  {label:<26} {1000 * t / len(ids):8.2f} ms per competition")
    same = all((tmp / "reports-before" / p.relative_to(tmp / "reports-after")).read_bytes() == p.read_bytes()
               for p in (tmp / "reports-after").rglob("*.*"))
    print(f"report files identical both ways: {same}")


if __name__ == "__main__":
    main()
