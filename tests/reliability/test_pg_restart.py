"""Transient faults: PostgreSQL restarts in the middle of a run.

The run retries and completes, or fails cleanly and the next run completes; either
way the warehouse ends equal to a clean run's, nothing half-written. The restart
happens at a checkpoint of the run itself (``RATINGS_HOOK_AT``), so it always falls
where it is meant to: after rating (the load's pooled connections are dead) and in
the middle of the load's statements.

The server is shared by every test session on this machine: the outage lasts a
few seconds; deselect with ``-m "not pgrestart"``, and run it last.
"""

from __future__ import annotations

import secrets
import shutil
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import make_url
from sqlalchemy.pool import NullPool

from tests.conftest import require_postgres
from tests.reliability.cli import ratings
from warehouse.db import get_engine
from warehouse.testing import table_rows

SAMPLE = Path(__file__).resolve().parents[2] / "examples" / "inbox"


def _restart_command() -> str | None:
    """The restart of the local cluster (the version .ci/run starts), or None without one."""
    versions = sorted(p.name for p in Path("/etc/postgresql").iterdir()) if Path("/etc/postgresql").is_dir() else []
    if not versions or shutil.which("pg_ctlcluster") is None:
        return None
    return f"pg_ctlcluster --skip-systemctl-redirect {versions[0]} main restart"


pytestmark = [pytest.mark.pgrestart, pytest.mark.postgres, pytest.mark.slow]


@contextmanager
def _database() -> Iterator[str]:
    """A throwaway database; every admin connection is fresh (the restart kills pooled ones)."""
    from warehouse.testing import postgres_server_url

    server = postgres_server_url()
    name = f"ratings_restart_{secrets.token_hex(6)}"

    def admin(sql: str) -> None:
        engine = sa.create_engine(server, isolation_level="AUTOCOMMIT", poolclass=NullPool)
        try:
            with engine.connect() as conn:
                conn.exec_driver_sql(sql)
        finally:
            engine.dispose()

    admin(f'CREATE DATABASE "{name}"')
    try:
        yield make_url(server).set(database=name).render_as_string(hide_password=False)
    finally:
        for _ in range(30):   # the server may still be coming back
            try:
                admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
                break
            except sa.exc.OperationalError:
                time.sleep(1)


@pytest.mark.parametrize("where", ["rate:1", "sql:40"])
def test_a_postgres_restart_mid_run_loses_nothing(tmp_path: Path, where: str) -> None:
    from warehouse.testing import postgres_required

    require_postgres()
    restart = _restart_command()
    if restart is None:
        if postgres_required():
            pytest.fail("PostgreSQL required (RATINGS_REQUIRE_POSTGRES=1) but pg_ctlcluster is not available")
        pytest.skip("needs the local PostgreSQL cluster and pg_ctlcluster")
    shutil.copytree(SAMPLE, tmp_path / "inbox")
    args = ("run", "--inbox", "inbox", "--as-of", "2026-02-01")
    with _database() as faulty, _database() as clean:
        first = ratings(tmp_path, *args, "--warehouse", faulty, "--reports", "r-faulty",
                        RATINGS_HOOK_AT=where, RATINGS_HOOK_CMD=restart)
        assert first.returncode in (0, 1, 2), first.stderr[-3000:]
        assert "Traceback" not in first.stderr
        if first.returncode != 0:
            again = ratings(tmp_path, *args, "--warehouse", faulty, "--reports", "r-faulty")
            assert again.returncode == 0, again.stderr[-3000:]
        done = ratings(tmp_path, *args, "--warehouse", clean, "--reports", "r-clean")
        assert done.returncode == 0, done.stderr[-3000:]
        a, b = get_engine(faulty), get_engine(clean)
        try:
            assert table_rows(a) == table_rows(b)
        finally:
            a.dispose()
            b.dispose()
    subprocess.run(["pg_isready", "-h", "127.0.0.1"], check=False, timeout=60)
