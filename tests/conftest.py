"""Test-wide settings: offline, isolated Prefect home, shared-data location.

``PREFECT_HOME`` must point at a temporary folder *before* prefect is imported
(the test harness does not isolate it; results and transaction records land there).
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Generator, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

_PREFECT_HOME = tempfile.mkdtemp(prefix="ratings-prefect-home-")
os.environ["PREFECT_HOME"] = _PREFECT_HOME
os.environ.pop("PREFECT_API_URL", None)
os.environ["PREFECT_SERVER_ANALYTICS_ENABLED"] = "false"
os.environ["GX_ANALYTICS_ENABLED"] = "false"
os.environ["DO_NOT_TRACK"] = "1"
# The flows end the Great Expectations process after their last validation (tasks.gx); the suite
# runs hundreds of small flows in a process, each of which would start it again (3-5 s: CI took
# 20 minutes instead of 10). tests/flows/test_gx_in_its_own_process.py runs without it.
os.environ["RATINGS_GX_KEEP"] = "1"

import pytest
from hypothesis import HealthCheck, settings

# Hypothesis' speed checks measure the machine, not the code: CI shares two cores between three
# test workers, PostgreSQL and the subprocesses of the crash tests, and one draw of a list of
# four short words once took 2.1 s there (HealthCheck.too_slow failed a green change on
# 2026-12-02). Speed is measured with the benchmark harness (``python -m benchmarks``), never by
# a test. A test's own ``@settings`` still override these.
settings.register_profile("ratings", suppress_health_check=[HealthCheck.too_slow], deadline=None)
settings.load_profile("ratings")

#: ``../shared`` beside the repository: real federation files (``data/``) and the
#: regulation tables (``rules/``); never copied into the project.
SHARED = Path(__file__).resolve().parents[1].parent / "shared"
SHARED_DATA = SHARED / "data"


def shared_data_required() -> bool:
    """``RATINGS_REQUIRE_SHARED_DATA=1`` (set by ``.ci/run``): missing golden data fails."""
    return os.environ.get("RATINGS_REQUIRE_SHARED_DATA", "") not in ("", "0")


def require_browser(available: bool, reason: str) -> None:
    """Skip the test when no browser is installed, or fail under ``RATINGS_REQUIRE_BROWSER=1``
    (set by ``.ci/run``): a browser test never passes as a skip in CI."""
    if available:
        return
    if os.environ.get("RATINGS_REQUIRE_BROWSER", "") not in ("", "0", "false", "no"):
        pytest.fail(f"browser required (RATINGS_REQUIRE_BROWSER=1) but {reason}")
    pytest.skip(reason)


#: Debian's Chromium, which Playwright drives (a browser download by ``playwright install`` cannot work here).
CHROMIUM = Path(os.environ.get("RATINGS_CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--no-first-run", "--disable-sync"]


@contextmanager
def chromium() -> Iterator[Any]:
    """A headless Chromium for the browser tests: skips without one, fails so under
    ``RATINGS_REQUIRE_BROWSER=1`` (CI)."""
    require_browser(CHROMIUM.is_file(), f"no Chromium at {CHROMIUM} (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        launched = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield launched
        finally:
            launched.close()


def shared_path(*parts: str) -> Path:
    """A path under ``../shared`` (``shared_path("data", "fide", ...)``, ``shared_path("rules", ...)``).

    Where it is absent the test is skipped, with the reason, on a developer's machine,
    and fails under ``RATINGS_REQUIRE_SHARED_DATA=1`` (CI), the way
    ``RATINGS_REQUIRE_POSTGRES`` works: golden data that is missing never passes as a skip.
    The one implementation: the package conftests' helpers call it.
    """
    path = SHARED.joinpath(*parts)
    if not path.exists():
        message = f"real data not available: {path} is absent (../shared sits beside the repository)"
        if shared_data_required():
            pytest.fail(f"RATINGS_REQUIRE_SHARED_DATA=1 but {message}")
        pytest.skip(message)
    return path


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The ``../shared/data`` folder (skip on a developer's machine, failure in CI, when absent)."""
    return shared_path("data")


def shared_files(paths: list[Path], what: str) -> list[Any]:
    """A parametrisation over real files: the files; where none is found, one skipped
    placeholder on a developer's machine, and nothing under ``RATINGS_REQUIRE_SHARED_DATA=1``,
    so that ``empty_parameter_set_mark = "fail_at_collect"`` fails the collection in CI."""
    if paths:
        return list(paths)
    if shared_data_required():
        # A collection error that names the missing data (not just "empty parameter set").
        pytest.fail(f"RATINGS_REQUIRE_SHARED_DATA=1 but real data not available: {what} under {SHARED}",
                    pytrace=False)
    return [pytest.param(None, marks=pytest.mark.skip(reason=f"real data not available: {what}"))]


@contextmanager
def postgres_database(template: str | None = None) -> Iterator[str]:
    """A fresh database on the real PostgreSQL server (a copy of ``template``'s URL if given),
    dropped afterwards.

    Without a reachable server the test is skipped with the reason, and fails under
    ``RATINGS_REQUIRE_POSTGRES=1`` (set by ``.ci/run``). The one implementation behind the
    PostgreSQL fixtures of flows, tasks and website tests.
    """
    from warehouse.testing import postgres_server_url, temporary_postgres_database

    require_postgres()
    with temporary_postgres_database(postgres_server_url(), template=template) as url:
        yield url


def require_postgres() -> None:
    """Skip the test when PostgreSQL is unreachable, or fail under ``RATINGS_REQUIRE_POSTGRES=1``
    (set by ``.ci/run``): a PostgreSQL test never passes as a skip in CI."""
    from warehouse.testing import (
        postgres_required,
        postgres_server_url,
        postgres_unavailable_reason,
    )

    reason = postgres_unavailable_reason(postgres_server_url())
    if reason is not None:
        if postgres_required():
            pytest.fail(f"PostgreSQL required (RATINGS_REQUIRE_POSTGRES=1) but {reason}")
        pytest.skip(f"PostgreSQL not reachable: {reason}")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Generator[None, object, object]:
    """Under pytest-xdist, a test that restarts PostgreSQL (``pgrestart``) runs alone.

    The workers share the server: a restart in the middle of another worker's test would
    fail it. Every other test holds a shared lock from the setup of its fixtures (a module's
    database included) to its teardown; a ``pgrestart`` test first closes a turnstile, so that
    no test starts behind it, then waits for the running ones to finish (an exclusive lock).
    Pooled connections a worker keeps across tests survive the restart: the warehouse's
    engines check a PostgreSQL connection at checkout (``pool_pre_ping``).
    """
    if "PYTEST_XDIST_WORKER" not in os.environ:
        return (yield)
    import fcntl

    folder = Path(tempfile.gettempdir()) / f"ratings-xdist-{os.environ.get('PYTEST_XDIST_TESTRUNUID', 'run')}"
    folder.mkdir(exist_ok=True)
    with open(folder / "turnstile", "a") as turnstile, open(folder / "server", "a") as server:
        if item.get_closest_marker("pgrestart") is not None:
            fcntl.flock(turnstile, fcntl.LOCK_EX)
            fcntl.flock(server, fcntl.LOCK_EX)
        else:
            fcntl.flock(turnstile, fcntl.LOCK_EX)   # waits while a restart waits or runs
            fcntl.flock(turnstile, fcntl.LOCK_UN)
            fcntl.flock(server, fcntl.LOCK_SH)
        try:
            return (yield)
        finally:
            fcntl.flock(server, fcntl.LOCK_UN)
            fcntl.flock(turnstile, fcntl.LOCK_UN)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The files of tests of minutes first, then those with slow tests, the PostgreSQL restart last,
    each file's tests together.

    pytest-xdist hands each file to one worker in this order: the longest files start at once
    instead of making the tail of the run (the crash harness and the concurrent runs, 2-5 minutes
    each, were handed out after every other slow file and ran alone at the end), and the restart,
    which runs alone, waits for no long test. The sort is stable and its key is the same for every
    test of a file.
    """
    rank_of: dict[Path, int] = {}
    for item in items:
        own = 0 if item.get_closest_marker("minutes") else 1 if item.get_closest_marker("slow") else 2
        rank_of[item.path] = min(rank_of.get(item.path, 2), own)

    def rank(item: pytest.Item) -> int:
        if item.get_closest_marker("pgrestart") is not None:
            return 3
        return rank_of[item.path]

    items.sort(key=rank)
