"""A nightly and a backfill started at once on one warehouse.

The warehouse's run lock (``warehouse/guard.py``) makes one wait for the other, so
the warehouse ends as if they ran one after the other, in one order or the other,
on SQLite and on PostgreSQL. Both are the installed ``ratings`` command in child
processes, as cron and an engineer on call would start them.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.reliability.cli import RATINGS, ratings, ratings_env
from warehouse.db import get_engine
from warehouse.testing import table_rows

if TYPE_CHECKING:
    from tests.reliability.conftest import FreshUrl

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "examples" / "inbox"
AS_OF = "2026-02-01"

pytestmark = [pytest.mark.slow, pytest.mark.minutes]


def _rows(url: str) -> dict[str, list[tuple[object, ...]]]:
    engine = get_engine(url)
    try:
        return table_rows(engine)
    finally:
        engine.dispose()


def test_a_nightly_and_a_backfill_at_once_equal_one_after_the_other(
    tmp_path: Path, prefect_api: str, fresh_url: FreshUrl,
) -> None:
    early, full = tmp_path / "early", tmp_path / "inbox"
    shutil.copytree(SAMPLE, full)
    early.mkdir()
    for name in ("CAT-2025-01.results.csv", "CAT-2025-02.results.csv", "ajusc_2025_26.players.csv"):
        shutil.copy(SAMPLE / name, early)
    commands = {
        "nightly": lambda url, tag: ["run", "--inbox", str(full), "--warehouse", url, "--as-of", AS_OF,
                                     "--reports", str(tmp_path / tag / "reports"), "--site",
                                     str(tmp_path / tag / "site")],
        "backfill": lambda url, tag: ["backfill", "--federation", "ajusc", "--from", "2025-01-01", "--to", AS_OF,
                                      "--warehouse", url, "--site", str(tmp_path / tag / "site")],
    }

    # A warehouse that already holds the first two championships, made once and copied for each
    # order and for the runs at once, with its reports and site.
    base, base_out = fresh_url(), tmp_path / "base"
    done = ratings(tmp_path, "run", "--inbox", str(early), "--warehouse", base, "--as-of", "2025-12-01",
                   "--reports", str(base_out / "reports"), "--site", str(base_out / "site"),
                   PREFECT_API_URL=prefect_api)
    assert done.returncode == 0, done.stderr[-3000:]

    def seeded(*tags: str) -> str:
        for tag in tags:
            shutil.copytree(base_out, tmp_path / tag)
        url: str = fresh_url(copy_of=base)
        return url

    serial = {}
    for order in (("nightly", "backfill"), ("backfill", "nightly")):
        tag = "-then-".join(order)
        url = seeded(tag)
        for kind in order:
            done = ratings(tmp_path, *commands[kind](url, tag), PREFECT_API_URL=prefect_api)
            assert done.returncode == 0, (kind, done.stderr[-3000:])
        serial[tag] = _rows(url)

    url = seeded("together-nightly", "together-backfill")
    procs = [
        subprocess.Popen([str(RATINGS), *commands[kind](url, f"together-{kind}")], cwd=tmp_path,
                         env=ratings_env(tmp_path / kind, PREFECT_API_URL=prefect_api), text=True,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        for kind in ("nightly", "backfill")
    ]
    outs = [p.communicate(timeout=600) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], [o[1][-3000:] for o in outs]
    together = _rows(url)
    assert together in serial.values(), "the runs interleaved: the warehouse matches neither order"
