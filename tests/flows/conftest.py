"""Flow tests run the real flows under one session-scoped Prefect test harness.

``tests/conftest.py`` has already pointed ``PREFECT_HOME`` at a temporary folder.
Warehouses: ``warehouse_url`` is a fresh SQLite file per test, and, parametrised,
a fresh database on the real PostgreSQL server (see ``warehouse.testing``).
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import postgres_database

REPO = Path(__file__).resolve().parents[2]
SAMPLE_INBOX = REPO / "examples" / "inbox"


@pytest.fixture(scope="session", autouse=True)
def prefect_harness() -> Iterator[None]:
    from prefect.testing.utilities import prefect_test_harness

    with prefect_test_harness(server_startup_timeout=90):
        yield


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'ratings.db'}"


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def warehouse_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A fresh, empty warehouse on each real database."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'ratings.db'}"
        return
    with postgres_database() as url:
        yield url


@pytest.fixture
def sample_inbox(tmp_path: Path) -> Path:
    """A private copy of the bundled sample inbox (the flow leaves files in place)."""
    inbox = tmp_path / "inbox"
    shutil.copytree(SAMPLE_INBOX, inbox)
    return inbox
