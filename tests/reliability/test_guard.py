"""One writing run at a time per warehouse: the run guard across processes."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import require_postgres
from warehouse.db import get_engine
from warehouse.guard import WarehouseBusyError, hold
from warehouse.testing import table_rows

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "examples" / "inbox"


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'w.db'}"
        return
    from warehouse.testing import (
        postgres_server_url,
        temporary_postgres_database,
    )

    require_postgres()
    with temporary_postgres_database(postgres_server_url(), prefix="ratings_guard_") as pg:
        yield pg


def _holder(url: str, log: Path, times: int, *extra: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "tests.reliability.guard_holder", url, str(log), str(times), *extra],
        cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, text=True,
    )


def test_processes_take_turns(url: str, tmp_path: Path) -> None:
    get_engine(url).dispose()   # migrate once, before the children race
    log = tmp_path / "turns.log"
    children = [_holder(url, log, 5) for _ in range(3)]
    assert [c.wait(timeout=120) for c in children] == [0, 0, 0]
    events = log.read_text(encoding="utf-8").split("\n")[:-1]
    assert len(events) == 30
    for i in range(0, 30, 2):   # every entry is followed by the same process leaving
        enter, leave = events[i].split(), events[i + 1].split()
        assert (enter[0], leave[0], enter[1]) == ("enter", "leave", leave[1]), events


def test_a_killed_holder_leaves_no_stale_lock(url: str, tmp_path: Path) -> None:
    engine = get_engine(url)
    log = tmp_path / "killed.log"
    child = _holder(url, log, 1, "die")
    assert child.wait(timeout=120) == -signal.SIGKILL
    assert log.read_text(encoding="utf-8").startswith("enter")
    with hold(engine, wait_s=30):
        pass


def test_a_run_that_cannot_wait_is_told_the_warehouse_is_busy(url: str, tmp_path: Path) -> None:
    engine = get_engine(url)
    log = tmp_path / "busy.log"
    with hold(engine):
        with hold(engine):   # re-entrant in one process
            pass
        child = subprocess.run(
            [sys.executable, "-c",
             ("import sys; from warehouse.db import get_engine; from warehouse.guard import hold\n"
              "try:\n    with hold(get_engine(sys.argv[1]), wait_s=0.5): print('got it')\n"
              "except ValueError as e: print(type(e).__name__, e)"), url],
            check=False, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True, timeout=120,
        )
    assert child.stdout.startswith("WarehouseBusyError another run holds the warehouse lock"), child.stderr
    assert "got it" not in child.stdout
    assert WarehouseBusyError.__mro__[1].__name__ == "WarehouseError"
    assert not log.exists()


@pytest.mark.slow
def test_two_nightlies_at_once_equal_one_after_the_other(tmp_path: Path) -> None:
    """Two `ratings run` started together on one warehouse end as if run one after the other."""
    from tests.reliability.cli import RATINGS, ratings_env

    shutil.copytree(SAMPLE, tmp_path / "inbox")
    args = ["run", "--inbox", "inbox", "--as-of", "2026-02-01"]
    both_url = f"sqlite:///{tmp_path / 'both.db'}"
    get_engine(both_url).dispose()
    procs = [
        subprocess.Popen([str(RATINGS), *args, "--warehouse", both_url, "--reports", f"reports-{i}"],
                         cwd=tmp_path, env=ratings_env(tmp_path / f"p{i}"), text=True,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        for i in (1, 2)
    ]
    outs = [p.communicate(timeout=500) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], [o[1][-2000:] for o in outs]
    serial_url = f"sqlite:///{tmp_path / 'serial.db'}"
    from tests.reliability.cli import ratings

    for _ in range(2):
        done = ratings(tmp_path, *args, "--warehouse", serial_url, "--reports", "reports-serial")
        assert done.returncode == 0, done.stderr[-2000:]
    assert table_rows(get_engine(both_url)) == table_rows(get_engine(serial_url))
