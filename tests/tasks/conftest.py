"""Fixtures shared with the site's tests, and a warehouse on each database for the property tests."""

from collections.abc import Iterator

import pytest
from sqlalchemy.engine import Engine

import warehouse
from tests.conftest import postgres_database
from tests.website.conftest import small_season  # noqa: F401 - a fixture


@pytest.fixture(scope="module")
def sqlite_db(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    """A SQLite warehouse for a test module (each test uses federations of its own in it)."""
    db = warehouse.get_engine(f"sqlite:///{tmp_path_factory.mktemp('incremental') / 'w.db'}")
    yield db
    db.dispose()


@pytest.fixture(scope="module")
def pg_db() -> Iterator[Engine]:
    """A PostgreSQL warehouse for a test module (a database of its own on the test server)."""
    with postgres_database() as url:
        db = warehouse.get_engine(url)
        yield db
        db.dispose()


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def db(request: pytest.FixtureRequest) -> Engine:
    """Each database in turn."""
    return request.getfixturevalue("sqlite_db" if request.param == "sqlite" else "pg_db")  # type: ignore[no-any-return]
