"""The run lock belongs to the database, not to the spelling of its URL: a symlinked SQLite path,
a relative one and the absolute one are one lock; on PostgreSQL two spellings of one database
are one lock and two databases are two. A bad ``RATINGS_LOCK_WAIT_S`` is a usage error, and a
run that waits says so."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import require_postgres
from tests.reliability.cli import ratings
from warehouse.db import get_engine
from warehouse.guard import WarehouseBusyError, hold

ROOT = Path(__file__).resolve().parents[2]

#: A child that takes the lock of URL (waiting up to WAIT s), says "held" and keeps it until
#: its stdin closes.
HOLDER = (
    "import sys\n"
    "from warehouse.db import get_engine\n"
    "from warehouse.guard import hold\n"
    "with hold(get_engine(sys.argv[1]), wait_s=float(sys.argv[2])):\n"
    "    print('held', flush=True)\n"
    "    sys.stdin.read()\n"
)


def _holder(url: str, cwd: Path, wait_s: float = 0.0) -> subprocess.Popen[str]:
    child = subprocess.Popen(
        [sys.executable, "-c", HOLDER, url, str(wait_s)], cwd=cwd, text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )
    return child


def _wait_held(child: subprocess.Popen[str]) -> None:
    assert child.stdout is not None
    line = child.stdout.readline()
    assert line == "held\n", child.stderr.read() if child.stderr else line


def _release(child: subprocess.Popen[str]) -> str:
    _, err = child.communicate("", timeout=60)
    assert child.returncode == 0, err
    return err


def _busy(url: str) -> bool:
    try:
        with hold(get_engine(url), wait_s=0.3):
            return False
    except WarehouseBusyError:
        return True


def test_a_symlinked_or_relative_sqlite_path_is_the_same_lock(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    real = tmp_path / "real" / "w.db"
    get_engine(f"sqlite:///{real}").dispose()   # the database exists before the children race
    (tmp_path / "link.db").symlink_to(real)
    child = _holder("sqlite:///link.db", cwd=tmp_path)   # relative and through the symlink
    try:
        _wait_held(child)
        assert _busy(f"sqlite:///{real}")
        assert _busy(f"sqlite:///{tmp_path / 'real' / '..' / 'real' / 'w.db'}")
    finally:
        _release(child)
    assert not _busy(f"sqlite:///{real}")
    # In one process, two spellings are one re-entrant lock (a nested hold never waits on itself).
    with hold(get_engine(f"sqlite:///{real}")), hold(get_engine(f"sqlite:///{tmp_path / 'link.db'}"), wait_s=0):
        pass


def test_a_waiting_run_says_so_in_one_line(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'w.db'}"
    get_engine(url).dispose()
    with hold(get_engine(url)):
        waiter = _holder(url, cwd=tmp_path, wait_s=60)
        assert waiter.stderr is not None
        said = [waiter.stderr.readline() for _ in range(1)]   # it finds the lock taken and says so
        time.sleep(1)   # it keeps waiting, silently
    _wait_held(waiter)
    err = "".join(said) + _release(waiter)
    lines = [line for line in err.splitlines() if "waiting" in line]
    assert len(lines) == 1, err
    assert lines[0].startswith("ratings: another run holds the warehouse lock 'run' of ")
    assert str(tmp_path / "w.db") in lines[0]


@pytest.fixture
def pg_database() -> Iterator[str]:
    from warehouse.testing import postgres_server_url, temporary_postgres_database

    require_postgres()
    with temporary_postgres_database(postgres_server_url(), prefix="ratings_lockid_") as url:
        yield url


@pytest.mark.postgres
def test_two_spellings_of_one_postgres_database_are_one_lock(pg_database: str, tmp_path: Path) -> None:
    from sqlalchemy.engine import make_url

    url = make_url(pg_database)
    other_host = "localhost" if url.host in ("127.0.0.1", None) else "127.0.0.1"
    respelled = url.set(host=other_host, query={"application_name": "ratings-lock-test"})
    get_engine(pg_database).dispose()
    child = _holder(pg_database, cwd=tmp_path)
    try:
        _wait_held(child)
        assert _busy(respelled.render_as_string(hide_password=False))
    finally:
        _release(child)
    assert not _busy(respelled.render_as_string(hide_password=False))
    # One process, two spellings: the same re-entrant lock.
    with hold(get_engine(pg_database)), hold(get_engine(respelled.render_as_string(hide_password=False)), wait_s=0):
        pass


@pytest.mark.postgres
def test_two_postgres_databases_are_two_locks(pg_database: str, tmp_path: Path) -> None:
    from warehouse.testing import postgres_server_url, temporary_postgres_database

    with temporary_postgres_database(postgres_server_url(), prefix="ratings_lockid_") as second:
        get_engine(second).dispose()
        child = _holder(pg_database, cwd=tmp_path)
        try:
            _wait_held(child)
            assert not _busy(second)
            assert _busy(pg_database)
        finally:
            _release(child)


@pytest.mark.parametrize("value", ["nan", "-5", "soon", "inf"])
def test_a_lock_wait_that_is_not_a_number_of_seconds_is_a_usage_error(tmp_path: Path, value: str) -> None:
    (tmp_path / "inbox").mkdir()
    done = ratings(tmp_path, "run", "--inbox", "inbox", RATINGS_LOCK_WAIT_S=value)
    assert done.returncode == 64, done.stderr
    lines = done.stderr.strip().splitlines()
    assert lines == [f"ratings: RATINGS_LOCK_WAIT_S expects a number of seconds (0 or more), not {value!r}"]
    assert not (tmp_path / "ratings.db").exists()
