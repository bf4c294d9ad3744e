"""Benchmark: how long each reader takes per small file (a migration brings thousands).

Reads every results file of ``../shared/data`` (real files, as the inbox groups them) and
a set of generated small interchange files, each ``--repeat`` times after one warm-up
read, and prints the median milliseconds per file for each format.

    python benchmarks/bench_readers.py                 # real files + 200 generated ones
    python benchmarks/bench_readers.py --generated 2000 --repeat 5

Not a test: figures go in the README, never in assertions.
"""

from __future__ import annotations

import argparse
import importlib
import os
import random
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import formats
from formats.api import detect

DATA = Path(os.environ.get("RATINGS_SHARED_DATA", REPO.parent / "shared" / "data"))


def real_units(data: Path) -> list[Path | list[Path]]:
    """The results files (and Swiss Perfect sets) of the shared data, skipping notes and web pages."""
    paths = sorted(p for p in data.rglob("*") if p.is_file() and p.suffix.lower() not in (".md", ".tsv", ".html"))
    return formats.group_inbox(paths)


def generated(folder: Path, n: int, *, seed: int = 11) -> list[Path]:
    """``n`` small interchange results files: 8-24 players, 3-7 rounds each."""
    rng = random.Random(seed)
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for i in range(n):
        players = rng.randint(8, 24)
        lines = ["federation,competition_id,start_date,round,player_a,player_b,score_a"]
        for r in range(1, rng.randint(3, 7) + 1):
            ids = list(range(1, players + 1))
            rng.shuffle(ids)
            for a, b in zip(ids[::2], ids[1::2], strict=False):
                lines.append(f"ajusc,GEN-{i},2025-{1 + i % 12:02d}-{1 + i % 28:02d},{r},{a},{b},"
                             f"{rng.choice(('1', '0', '0.5'))}")
        p = folder / f"GEN-{i}.results.csv"
        p.write_text("\n".join(lines) + "\n")
        out.append(p)
    return out


def samples(folder: Path) -> list[Path]:
    """One small file of every reader: the reliability tests' samples (``tests/reliability/inbox.py``)."""
    inbox = importlib.import_module("tests.reliability.inbox")  # the tests' own samples, not type-checked here
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for file_name, data in inbox.good_files().values():
        p = folder / file_name
        p.write_bytes(data)
        out.append(p)
    return out


def time_units(units: list[Path | list[Path]], repeat: int) -> dict[str, list[tuple[float, float]]]:
    """(median wall seconds, mean CPU seconds) of reading each unit, by detected format.

    CPU time (``time.process_time``, every thread of the process) is the steadier figure on
    a shared machine, where wall time also counts the moments other processes had the CPU.
    """
    by_format: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for unit in units:
        result = formats.read(unit)  # warm-up: imports, first-call caches
        walls, cpus = [], []
        for _ in range(repeat):
            t, c = time.perf_counter(), time.process_time()
            formats.read(unit)
            walls.append(time.perf_counter() - t)
            cpus.append(time.process_time() - c)
        first = unit[0] if isinstance(unit, list) else unit
        fmt = result.format or detect(first.read_bytes(), first.name) or "unknown"
        by_format[fmt].append((statistics.median(walls), statistics.mean(cpus)))
    return by_format


def harness_row(files: int = 200, *, folder: Path | None = None) -> tuple[float, str]:
    """One row for ``python -m benchmarks``: (seconds to read ``files`` generated small results
    files once each, a note with the CPU milliseconds per file)."""
    folder = folder or Path(tempfile.mkdtemp(prefix="bench_readers_"))
    paths = generated(folder, files)
    formats.read(paths[0])  # imports and first-call caches are the fixed cost, not the readers'
    t, c = time.perf_counter(), time.process_time()
    for p in paths:
        formats.read(p)
    wall, cpu = time.perf_counter() - t, time.process_time() - c
    return wall, f"{files} small results files read one by one: {1000 * cpu / files:.2f} ms CPU a file"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--generated", type=int, default=200, help="generated small interchange files")
    parser.add_argument("--repeat", type=int, default=3, help="timed reads of each file")
    parser.add_argument("--tmp", type=Path, default=Path("/tmp/bench_readers"))
    args = parser.parse_args(argv)
    units: list[Path | list[Path]] = real_units(DATA) if DATA.is_dir() else []
    rows = time_units(units, args.repeat)
    gen = time_units(list(generated(args.tmp, args.generated)), args.repeat) if args.generated else {}
    small = time_units(list(samples(args.tmp / "samples")), args.repeat)
    print("| source | format | files | wall ms/file (median) | CPU ms/file (mean) | CPU ms (largest file) |")
    print("|---|---|---:|---:|---:|---:|")
    for label, table in (("shared/data", rows), ("small sample", small), ("generated", gen)):
        for fmt in sorted(table):
            walls, cpus = [w for w, _ in table[fmt]], [c for _, c in table[fmt]]
            print(f"| {label} | {fmt} | {len(walls)} | {1000 * statistics.median(walls):.2f} | "
                  f"{1000 * statistics.mean(cpus):.2f} | {1000 * max(cpus):.2f} |")
    gx = "great_expectations" in sys.modules
    print(f"great_expectations imported: {gx}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
