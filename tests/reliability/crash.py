"""The crash harness of whole runs: `ratings run` / `ratings backfill` killed with SIGKILL.

Each kill point is a checkpoint of :mod:`warehouse.guard`: a stage boundary
(``ingest``, ``validate``, ``rate``, ``load``, ``publish``), a report being written
(``report``) or any SQL statement of the run (``sql:<n>``, drawn at random over the
statements a clean run makes: reads of the ledger and the history, every write of
the load and the publication). After the kill the same command runs again, and the
warehouse (every table, row for row), the reports folder and the publication site
(every file, byte for byte) must equal a clean run's. A kill after the load commits
and before the publication ends leaves the load's ``pending_publications`` row: the
rerun finishes that publication first (``tasks/recover.py``).

Budget: ``RATINGS_CRASH_POINTS`` kill points per database and command (default 3 in
CI, each costs two runs of the CLI; the warehouse a backfill starts from is made once and
copied); ``RATINGS_CRASH_POINTS=24`` for the full harness.
One Prefect server serves every child run (a temporary one per run costs 20 s).

The tests are `test_crash_run.py` and `test_crash_backfill.py`: one file per command, so that
pytest-xdist (`--dist loadfile`) puts them on two workers.
"""

from __future__ import annotations

import os
import random
import shutil
import signal
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.reliability.cli import ratings
from tests.reliability.dump import Dump, canonical_dump

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "examples" / "inbox"
AS_OF = "2026-02-01"
POINTS = int(os.environ.get("RATINGS_CRASH_POINTS", "3"))
STAGES = ["ingest:1", "validate:1", "rate:1", "load:1", "report:1", "report:3", "publish:1"]


def _command(kind: str, inbox: Path, url: str, out: Path) -> list[str]:
    """The command; its reports go to ``out/reports`` and its site to ``out/site``."""
    site = ["--site", str(out / "site")]
    if kind == "run":
        return ["run", "--inbox", str(inbox), "--warehouse", url, "--as-of", AS_OF, "--reports",
                str(out / "reports"), *site]
    return ["backfill", "--federation", "ajusc", "--from", "2025-01-01", "--to", AS_OF, "--warehouse", url, *site]


def _starts(tmp: Path, api: str, make: Any, kind: str, inbox: Path) -> Callable[[Path], str]:
    """A factory of the warehouse each run of ``kind`` starts from, with its outputs put in a folder.

    ``run`` starts from an empty warehouse. ``backfill`` starts from what one ``ratings run`` of the
    inbox left: that run is made once, then its warehouse and its reports and site are copied for
    the clean run and for each kill point (one run of the CLI, not one per point)."""
    if kind == "run":
        return lambda out: str(make())
    base_out, base = tmp / "out-base", make()
    done = ratings(tmp, *_command("run", inbox, base, base_out), PREFECT_API_URL=api)
    assert done.returncode == 0, done.stderr[-3000:]

    def copied(out: Path) -> str:
        shutil.copytree(base_out, out)
        return str(make(copy_of=base))

    return copied


def _points(tmp: Path, api: str, start: Callable[[Path], str], kind: str, inbox: Path) -> tuple[list[str], Dump]:
    """The clean run's dump, and the kill points to try (stages first, then drawn SQL statements)."""
    reports = tmp / "out-clean"
    url, counter = start(reports), tmp / "sql-count"
    done = ratings(tmp, *_command(kind, inbox, url, reports), PREFECT_API_URL=api,
                   RATINGS_SQL_COUNT_FILE=str(counter))
    assert done.returncode == 0, done.stderr[-3000:]
    statements = int(counter.read_text())
    rng = random.Random(f"{kind}-{statements}")
    stages = [s for s in STAGES if kind == "run" or not s.startswith(("ingest", "validate", "report"))]
    chosen = rng.sample(stages, min(len(stages), max(1, POINTS // 2)))
    drawn = [f"sql:{n}" for n in sorted(rng.sample(range(1, statements + 1), min(POINTS - len(chosen), statements)))]
    return chosen + drawn, canonical_dump(url, reports)


def killed_anywhere_then_rerun_equals_a_clean_run(kind: str, tmp_path: Path, prefect_api: str, fresh_url: object) -> None:
    """Kill ``ratings KIND`` at each drawn point, run it again, and compare with a clean run."""
    inbox = tmp_path / "inbox"
    shutil.copytree(SAMPLE, inbox)
    start = _starts(tmp_path, prefect_api, fresh_url, kind, inbox)
    points, clean = _points(tmp_path, prefect_api, start, kind, inbox)
    killed, differing = 0, []
    for point in points:
        reports = tmp_path / f"out-{point.replace(':', '-')}"
        url = start(reports)
        crashed = ratings(tmp_path, *_command(kind, inbox, url, reports), PREFECT_API_URL=prefect_api,
                          RATINGS_CRASH_AT=point)
        assert crashed.returncode in (-signal.SIGKILL, 0), (point, crashed.stderr[-3000:])
        killed += crashed.returncode == -signal.SIGKILL
        again = ratings(tmp_path, *_command(kind, inbox, url, reports), PREFECT_API_URL=prefect_api)
        assert again.returncode == 0, (point, again.stderr[-3000:])
        rows, files = canonical_dump(url, reports)
        outcome = "equal" if (rows, files) == clean else "DIFFERS"
        print(f"crash {kind} {point}: {'killed' if crashed.returncode else 'not reached'}, rerun {outcome}")
        if outcome != "equal":
            tables = sorted(t for t in rows if rows[t] != clean[0][t])
            files_differing = sorted(f for f in set(files) | set(clean[1]) if files.get(f) != clean[1].get(f))
            differing.append(f"{point} (tables {tables}, files {files_differing[:10]})")
    print(f"crash {kind}: {len(points) - len(differing)} of {len(points)} kill points equal a clean run "
          f"({killed} reached)")
    assert killed >= len(points) // 2, f"only {killed} of {len(points)} points were reached"
    assert not differing, f"{len(differing)} of {len(points)} kill points differ from a clean run: " + "; ".join(differing)


def crash_test(kind: str) -> Callable[[Path, str, object], None]:
    """The test of ``ratings KIND``, for a test file to collect under its own name."""

    def test(tmp_path: Path, prefect_api: str, fresh_url: object) -> None:
        killed_anywhere_then_rerun_equals_a_clean_run(kind, tmp_path, prefect_api, fresh_url)

    test.__doc__ = f"`ratings {kind}` killed at each drawn point, then run again, equals a clean run."
    return test
