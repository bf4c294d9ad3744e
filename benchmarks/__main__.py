"""The benchmark harness: ``python -m benchmarks``.

On one generated history per system and size (seeded: ``benchmarks/generate.py``, or with
``--shape fide`` the monthly FIDE-shaped archive of ``benchmarks/generate_fide.py``), it
prints, in one run on the same data:

- ``engine``: ``engine.rate_history`` games per second, beside the tests' plain scalar
  Python reference (``tests/engine/reference.py``) timed in the same run on the first
  ``--reference-games`` games;
- ``io floor``: reading the results CSV with polars and inserting the game rows into
  the database (SQLite ``executemany``, PostgreSQL ``COPY``), the least any load can cost;
- ``run``: ``ratings run`` on an inbox holding that history (after ``ratings seed``),
  on each database, and its marginal time over the I/O floor;
- ``incremental``: a night of 50 new competitions on top of the history;
- ``backfill``: ``ratings backfill`` from the first day (the whole history again);
- ``whatif``: ``ratings whatif --set-rating`` on a seeded player (when the command exists);
- ``fixed``: ``ratings run`` on an empty inbox (imports, Prefect, migrations);
- the peak memory (max RSS) of each row, every row being its own process.

    python -m benchmarks                                   # 100k, 1M and 5M games, all systems, SQLite
    python -m benchmarks --sizes 1M --databases sqlite,postgresql
    python -m benchmarks --sizes 2k --systems ajusc --engine-only   # the CI smoke size
    python -m benchmarks --sizes 1M --systems fide --shape fide --databases sqlite

Figures go in docs/benchmarks.md and the closing notes; no test asserts a time.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path

from benchmarks._child import child
from benchmarks._measure import RowTimeout, loaded, measured, stages
from benchmarks._summary import HEADER, Row, summary

REPO = Path(__file__).resolve().parents[1]
os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
os.environ.setdefault("GX_ANALYTICS_ENABLED", "false")
os.environ.setdefault("DO_NOT_TRACK", "1")
# A loaded machine starts the temporary Prefect server slowly; the default 20 s is too short.
os.environ.setdefault("PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS", "120")


def parse_size(text: str) -> int:
    """``100k`` -> 100000, ``1M`` -> 1000000, ``2500`` -> 2500."""
    text = text.strip()
    mult = {"k": 1_000, "K": 1_000, "m": 1_000_000, "M": 1_000_000}.get(text[-1:], 1)
    return int(float(text[:-1] if mult > 1 else text) * mult)


def ratings_cmd(*args: str) -> list[str]:
    return [sys.executable, "-m", "flows.cli", *args]


@contextmanager
def database(kind: str, folder: Path) -> Iterator[str]:
    if kind == "sqlite":
        yield f"sqlite:///{folder / 'bench.db'}"
        return
    sys.path.insert(0, str(REPO))
    from warehouse.testing import postgres_server_url, temporary_postgres_database

    with temporary_postgres_database(postgres_server_url(), prefix="ratings_bench_") as url:
        yield url


def _timed_child(history: Path, kind: str, *extra: str) -> tuple[dict[str, float], float]:
    """A ``--child`` row of the harness on ``history``: what it printed (JSON) and its peak memory."""
    _seconds, peak, out = measured([sys.executable, "-m", "benchmarks", "--child", kind, str(history), *extra],
                                   cwd=REPO)
    return json.loads(out.strip().splitlines()[-1]), peak


def _engine_rows(system: str, n: int, history: Path, args: argparse.Namespace) -> list[Row]:
    """The ``engine`` row, and the ``reference`` row beside it unless ``--reference-games 0``."""
    rows: list[Row] = []
    out, peak = _timed_child(history, "engine")
    rows.append(Row(system, n, "engine", "-", out["seconds"], peak,
                    f"+ {int(out['explanations']):,} explanation rows on first read: "
                    f"{out.get('explain_seconds', 0.0):.2f} s"))
    print(rows[-1].line(), flush=True)
    if args.reference_games:
        out, peak = _timed_child(history, "reference", str(args.reference_games))
        ref_rate = out["games"] / out["seconds"]
        eng_rate = n / rows[-1].seconds
        rows.append(Row(system, int(out["games"]), "reference", "-", out["seconds"], peak,
                        f"engine / reference = {eng_rate / ref_rate:.1f}x"))
        print(rows[-1].line(), flush=True)
    return rows


@dataclass(frozen=True)
class History:
    """A generated history written in ``folder`` (``--shape``): what the rows need of it."""

    folder: Path
    games: int
    competitions: int
    players: int
    rated: int                  #: players on the starting list
    first_day: date
    last_day: date
    ratings: Path               #: the starting list
    players_files: list[Path]
    seeded: str                 #: a player of the starting list (the what-if row's)
    night: Callable[[Path], tuple[Path, int, date]]   #: writes the night in a folder: file, games, last day
    #: --shape fide: writes the whole month after the night in a folder: files, games, last day
    month: Callable[[Path, date], tuple[list[Path], int, date]] | None = None


def random_history(system: str, games: int, folder: Path, args: argparse.Namespace) -> History:
    """``benchmarks/generate.py``'s history of ``system``; its night: 50 competitions of its players."""
    from benchmarks.generate import generate, write_interchange

    fed = generate(system, games, players=args.players or None, seed=args.seed)
    paths = write_interchange(fed, folder)

    def night(where: Path) -> tuple[Path, int, date]:
        night = generate(system, 10_000_000, players=fed.players.height, seed=args.seed + 1,
                         competitions_after=fed.last_day + timedelta(days=1), max_competitions=50,
                         competition_prefix="N")
        return write_interchange(night, where, stem="night")["results"], night.games, night.last_day

    return History(folder, fed.games, fed.competitions, fed.players.height, fed.seed.height, fed.first_day,
                   fed.last_day, paths["ratings"], [paths["players"]], fed.seed.get_column("player_id")[0], night)


def fide_history(games: int, folder: Path, args: argparse.Namespace) -> History:
    """``benchmarks/generate_fide.py``'s archive, written month by month; its night: 50 competitions
    of the month after."""
    from benchmarks.generate_fide import FIRST_ID, write_archive, write_month, write_night

    archive = write_archive(folder, games, players=args.players or None, seed=args.seed)
    assert archive.ratings is not None

    def night(where: Path) -> tuple[Path, int, date]:
        night = write_night(where, games, after=archive.last_day, players=args.players or None, seed=args.seed,
                            night_seed=args.seed + 1)
        return night.results[0], night.games, night.last_day

    def month(where: Path, after: date) -> tuple[list[Path], int, date]:
        whole = write_month(where, games, after=after, players=args.players or None, seed=args.seed,
                            night_seed=args.seed + 2)
        return list(whole.results), whole.games, whole.last_day

    return History(folder, archive.games, archive.competitions, archive.players, archive.rated, archive.first_day,
                   archive.last_day, archive.ratings, list(archive.players_files), str(FIRST_ID), night, month)


def _database_rows(rows: list[Row], system: str, hist: History, db: str, for_db: Path, floor: float,
                   args: argparse.Namespace) -> None:
    """The rows on one database (fixed, run, incremental, month, backfill, whatif, site), appended to ``rows``
    as each is measured: a row stopped by ``--row-timeout`` leaves the ones before it."""
    n = hist.games
    with database(db, for_db) as url:
        base = ["--warehouse", url]
        empty = for_db / "empty-inbox"
        empty.mkdir(exist_ok=True)
        seconds, peak, _ = measured(ratings_cmd("run", "--inbox", str(empty), *base,
                                                "--reports", str(for_db / "reports")), cwd=for_db, timeout=args.row_timeout)
        rows.append(Row(system, 0, "fixed", db, seconds, peak, "ratings run on an empty inbox"))
        print(rows[-1].line(), flush=True)
        measured(ratings_cmd("seed", "--federation", system, str(hist.ratings), *base), cwd=for_db, timeout=args.row_timeout)
        inbox = for_db / "inbox"
        inbox.mkdir(exist_ok=True)
        for part in [*sorted(hist.folder.glob("*.results.csv")), *hist.players_files]:
            shutil.copy(part, inbox)
        tree: list[float] = []
        seconds, peak, output = measured(ratings_cmd("run", "--inbox", str(inbox), *base, "--federation", system,
                                                "--reports", str(for_db / "reports"),
                                                "--as-of", str(hist.last_day)), cwd=for_db, timeout=args.row_timeout,
                                         tree=tree)
        loaded(output, n)
        full = seconds
        rows.append(Row(system, n, "run", db, seconds, peak,
                        f"marginal / floor = {(seconds - rows[-1].seconds) / floor:.1f}x; {together(tree)}"
                        f"{stages(output)}"))
        print(rows[-1].line(), flush=True)
        night_results, night_games, night_last_day = hist.night(for_db / "night")
        tonight = for_db / "inbox-night"
        tonight.mkdir(exist_ok=True)
        shutil.copy(night_results, tonight)
        seconds, peak, output = measured(ratings_cmd("run", "--inbox", str(tonight), *base, "--federation", system,
                                                "--reports", str(for_db / "reports"),
                                                "--as-of", str(night_last_day)), cwd=for_db, timeout=args.row_timeout,
                                         tree=tree)
        loaded(output, night_games)
        rows.append(Row(system, night_games, "incremental", db, seconds, peak,
                        f"50 competitions on top; {seconds / full:.0%} of the full run; {together(tree)}"
                        f"{stages(output)}"))
        print(rows[-1].line(), flush=True)
        if hist.month is not None:
            files, month_games, month_last_day = hist.month(for_db / "month", night_last_day)
            this_month = for_db / "inbox-month"
            this_month.mkdir(exist_ok=True)
            for part in files:
                shutil.copy(part, this_month)
            seconds, peak, output = measured(ratings_cmd("run", "--inbox", str(this_month), *base, "--federation",
                                                         system, "--reports", str(for_db / "reports"),
                                                         "--as-of", str(month_last_day)),
                                             cwd=for_db, timeout=args.row_timeout, tree=tree)
            loaded(output, month_games)
            rows.append(Row(system, month_games, "month", db, seconds, peak,
                            f"the whole month after the night; {together(tree)}{stages(output)}"))
            print(rows[-1].line(), flush=True)
        # Up to the last day loaded, as a backfill the day after the last night: without it the
        # backfill publishes the monthly editions up to today, past the archive (the site renders
        # every card again for them).
        last_day = month_last_day if hist.month is not None else night_last_day
        seconds, peak, output = measured(ratings_cmd("backfill", "--federation", system, "--from", str(hist.first_day),
                                                     "--to", str(last_day), *base), cwd=for_db, timeout=args.row_timeout,
                                         tree=tree)
        rows.append(Row(system, n + night_games, "backfill", db, seconds, peak,
                        f"from the first day to {last_day}; {together(tree)}{stages(output)}"))
        print(rows[-1].line(), flush=True)
        has_whatif = subprocess.run(ratings_cmd("whatif", "--help"), capture_output=True, cwd=for_db,
                                    check=False).returncode == 0
        if has_whatif:
            player = hist.seeded
            seconds, peak, _ = measured(ratings_cmd("whatif", "--federation", system, "--set-rating",
                                                    f"{player}=1500", *base, "--format", "csv"), cwd=for_db,
                                        timeout=args.row_timeout, tree=tree)
            rows.append(Row(system, n + night_games, "whatif", db, seconds, peak,
                            f"--set-rating {player}=1500; {together(tree)}".rstrip("; ")))
        else:
            rows.append(Row(system, 0, "whatif", db, 0.0, 0.0, "no `ratings whatif` in this version"))
        print(rows[-1].line(), flush=True)
        # Not the runs' folder (./site): its manifest would skip every unchanged page.
        whole = for_db / "site-whole"
        shutil.rmtree(whole, ignore_errors=True)
        seconds, peak, _ = measured(ratings_cmd("site", "--federation", system, "--out", str(whole), *base),
                                    cwd=for_db, timeout=args.row_timeout, tree=tree)
        pages = sum(1 for p in whole.rglob("*.html"))
        rows.append(Row(system, n + night_games, "site", db, seconds, peak,
                        f"ratings site into an empty folder: {pages:,} pages; {together(tree)}".rstrip("; ")))
        print(rows[-1].line(), flush=True)


def together(tree: list[float]) -> str:
    """The last row's processes together (:func:`benchmarks._measure.tree_pss_mb`), for its note.

    >>> together([412.4])
    'processes together 412 MB (PSS); '
    """
    return f"processes together {tree[-1]:,.0f} MB (PSS); " if tree and tree[-1] > 0 else ""


def bench_system(system: str, games: int, databases: list[str], args: argparse.Namespace, work: Path) -> list[Row]:
    sys.path.insert(0, str(REPO))
    history = work / f"{system}-{games}" / "history"
    start = time.perf_counter()
    hist = (fide_history(games, history, args) if args.shape == "fide"
           else random_history(system, games, history, args))
    n = hist.games
    print(f"# {system}: {n:,} games, {hist.competitions:,} competitions, {hist.players:,} players, "
          f"{hist.rated:,} on the starting list ({hist.first_day} .. {hist.last_day}); "
          f"--shape {args.shape}, written in {time.perf_counter() - start:.1f} s", flush=True)
    rows = _engine_rows(system, n, history, args)
    if args.quick_engine_only:
        return rows
    for db in databases:
        for_db = work / f"{system}-{games}" / db
        for_db.mkdir(parents=True, exist_ok=True)
        with database(db, for_db) as url:
            out, peak = _timed_child(history, "floor", url)
            floor = out["seconds"]
            rows.append(Row(system, n, "io floor", db, floor, peak, "polars read_csv + insert game rows"))
            print(rows[-1].line(), flush=True)
        try:
            _database_rows(rows, system, hist, db, for_db, floor, args)
        except RowTimeout as stopped:
            # The rows after a stopped one need its warehouse: they are not measured.
            rows.append(Row(system, n, "stopped", db, stopped.seconds, stopped.peak_mb,
                            f"`{stopped.command}` did not finish within --row-timeout; stages done: "
                            f"{stages(stopped.output) or 'none'}"))
            print(rows[-1].line(), flush=True)
    return rows


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--child"]:
        child(argv[1:])
        return 0
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="100k,1M,5M", help="comma-separated game counts (100k, 1M, 2500)")
    parser.add_argument("--systems", default="ajusc,fide,egf")
    parser.add_argument("--databases", default="sqlite", help="sqlite and/or postgresql")
    parser.add_argument("--players", type=int, default=0,
                        help="population (default: games / 20, at most 50,000; --shape fide: games / 50, at least 3,000)")
    parser.add_argument("--shape", choices=("random", "fide"), default="random",
                        help="random: benchmarks/generate.py (small competitions, random pairings, in memory); "
                             "fide: benchmarks/generate_fide.py (monthly FIDE-shaped archive, written as it goes)")
    parser.add_argument("--reference-games", type=int, default=200_000,
                        help="games the scalar reference rates (0: skip it)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--engine-only", dest="quick_engine_only", action="store_true",
                        help="only the engine and reference rows")
    parser.add_argument("--work", type=Path, default=None, help="keep the generated files here")
    parser.add_argument("--row-timeout", type=float, default=None,
                        help="stop a ratings command after this many seconds (its row says so; the "
                             "rows after it on that database are not measured)")
    args = parser.parse_args(argv)
    sizes = [parse_size(s) for s in args.sizes.split(",") if s.strip()]
    systems = [s.strip() for s in args.systems.split(",") if s.strip()]
    databases = [d.strip() for d in args.databases.split(",") if d.strip()]
    if args.shape == "fide" and systems != ["fide"]:
        parser.error(f"--shape fide generates the fide system only (--systems fide), not {args.systems}")
    keep = args.work is not None
    work = args.work or Path(tempfile.mkdtemp(prefix="ratings-bench-"))
    print(f"python -m benchmarks --sizes {args.sizes} --systems {args.systems} --databases {args.databases}"
          f" ({os.cpu_count()} cores)", flush=True)
    rows: list[Row] = []
    groups: list[tuple[str, int, list[Row]]] = []
    try:
        for size in sizes:
            for system in systems:
                groups.append((system, size, bench_system(system, size, databases, args, work)))
                rows += groups[-1][2]
    finally:
        if not keep:
            shutil.rmtree(work, ignore_errors=True)
    print()
    print(HEADER)
    for row in rows:
        print(row.line())
    print()
    print(summary(groups))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
