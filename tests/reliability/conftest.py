"""Reliability tests: error logs of the CLI go to a temporary folder, not the working directory."""

from __future__ import annotations

import os
import tempfile

os.environ.setdefault("RATINGS_LOG_DIR", tempfile.mkdtemp(prefix="ratings-test-logs-"))

import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Protocol

import pytest


@pytest.fixture(scope="session")
def prefect_harness() -> Iterator[None]:
    """One Prefect test harness for the tests that run flows in this process."""
    from prefect.testing.utilities import prefect_test_harness

    with prefect_test_harness(server_startup_timeout=90):
        yield


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="session")
def prefect_api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """One Prefect server for every child `ratings` of the session (a temporary one per run costs 20 s)."""
    home = tmp_path_factory.mktemp("prefect-server")
    port = _free_port()
    env = {**os.environ, "PREFECT_HOME": str(home), "PREFECT_SERVER_ANALYTICS_ENABLED": "false"}
    env.pop("PREFECT_API_URL", None)
    server = subprocess.Popen(
        [str(Path(sys.executable).with_name("prefect")), "server", "start", "--host", "127.0.0.1",
         "--port", str(port)],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}/api"
    try:
        deadline = time.monotonic() + 180
        while True:
            try:
                with urllib.request.urlopen(f"{url}/health", timeout=2):
                    break
            except OSError:
                if time.monotonic() > deadline or server.poll() is not None:
                    pytest.fail("the Prefect server for the crash harness did not start")
                time.sleep(1)
        yield url
    finally:
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()


class FreshUrl(Protocol):
    """What the ``fresh_url`` fixture gives: ``make()`` or ``make(copy_of=url)`` -> a new URL."""

    def __call__(self, copy_of: str | None = None) -> str: ...


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def fresh_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[FreshUrl]:
    """A factory of fresh warehouses of one kind (SQLite files, or PostgreSQL databases dropped
    afterwards; under ``RATINGS_REQUIRE_POSTGRES=1`` a missing server fails): ``make()`` is an
    empty one, ``make(copy_of=url)`` a copy of one it made, which no process may hold open
    (a setup shared by several runs costs one run of the CLI, not one per copy)."""
    import sqlite3
    from contextlib import ExitStack, closing

    from tests.conftest import postgres_database

    with ExitStack() as stack:
        count = iter(range(10_000))

        def make(copy_of: str | None = None) -> str:
            if request.param == "sqlite":
                path = tmp_path / f"w{next(count)}.db"
                if copy_of is not None:
                    with closing(sqlite3.connect(copy_of.removeprefix("sqlite:///"))) as source, \
                            closing(sqlite3.connect(path)) as copy:
                        source.backup(copy)
                return f"sqlite:///{path}"
            return stack.enter_context(postgres_database(template=copy_of))

        yield make
