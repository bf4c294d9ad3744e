"""Helpers for tests that run against the real PostgreSQL server (and SQLite).

Used by ``tests/warehouse/conftest.py`` and available to the flow tests::

    from warehouse.testing import temporary_postgres_database, postgres_server_url
    with temporary_postgres_database(postgres_server_url()) as url:
        engine = warehouse.get_engine(url)

The server URL comes from ``RATINGS_TEST_POSTGRES_URL`` (default: the local
server with trust authentication). ``RATINGS_REQUIRE_POSTGRES=1`` (set by CI)
turns "server unreachable" from a skip into a failure.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Engine, make_url

from warehouse.db import redact

__all__ = [
    "DEFAULT_POSTGRES_URL",
    "postgres_required",
    "postgres_server_url",
    "postgres_unavailable_reason",
    "table_rows",
    "temporary_postgres_database",
    "truncate_postgres",
    "warehouse_tables",
]

DEFAULT_POSTGRES_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"

#: Columns whose values are wall-clock times of the load, not data.
VOLATILE_COLUMNS = frozenset({("loads", "loaded_at"), ("rating_lists", "published_at")})


def postgres_server_url() -> str:
    """The test server URL (``$RATINGS_TEST_POSTGRES_URL`` or the local default)."""
    return os.environ.get("RATINGS_TEST_POSTGRES_URL") or DEFAULT_POSTGRES_URL


def postgres_required() -> bool:
    """True when ``RATINGS_REQUIRE_POSTGRES=1``: an unreachable server is a failure."""
    return os.environ.get("RATINGS_REQUIRE_POSTGRES", "") not in ("", "0", "false", "no")


def postgres_unavailable_reason(server_url: str) -> str | None:
    """None when the server answers; else a one-line reason (no password in it)."""
    try:
        engine = sa.create_engine(server_url, connect_args={"connect_timeout": 5})
    except Exception as exc:  # noqa: BLE001 - driver missing, bad URL
        return f"PostgreSQL URL {redact(server_url)} unusable: {type(exc).__name__}"
    try:
        with engine.connect() as conn:
            conn.execute(sa.text("SELECT 1"))
    except Exception as exc:  # noqa: BLE001 - any failure means "not available"
        first = (str(getattr(exc, "orig", exc)).strip().splitlines() or [""])[0]
        return f"PostgreSQL server {redact(server_url)} unreachable: {first}"
    finally:
        engine.dispose()
    return None


@contextmanager
def temporary_postgres_database(server_url: str | None = None, *, prefix: str = "ratings_test_",
                                template: str | None = None) -> Iterator[str]:
    """Create a throwaway database on the server; yield its URL; drop it afterwards.

    Parameters
    ----------
    server_url
        A URL of the server (any existing database on it, e.g. ``postgres``).
    prefix
        Name prefix; a random suffix makes concurrent sessions safe.
    template
        The URL of a database on the same server to copy (``CREATE DATABASE ... TEMPLATE``);
        nothing may be connected to it. None: an empty database.

    Yields
    ------
    str
        The URL of the new, empty database (same credentials).
    """
    server_url = server_url or postgres_server_url()
    name = f"{prefix}{secrets.token_hex(6)}"
    # Checked at checkout: the server may have restarted while the database was in use.
    admin = sa.create_engine(server_url, isolation_level="AUTOCOMMIT", pool_pre_ping=True)
    try:
        with admin.connect() as conn:
            copy = "" if template is None else f' TEMPLATE "{make_url(template).database}"'
            conn.exec_driver_sql(f'CREATE DATABASE "{name}"{copy}')
        url = make_url(server_url).set(database=name)
        yield url.render_as_string(hide_password=False)
    finally:
        try:
            with admin.connect() as conn:
                conn.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        finally:
            admin.dispose()


def truncate_postgres(engine: Engine) -> None:
    """Empty every warehouse table of a PostgreSQL warehouse (schema and revision kept).

    For reusing one session database across tests. TRUNCATE does not fire the
    row triggers that keep published lists immutable, so it empties them too.
    """
    if engine.dialect.name != "postgresql":
        raise ValueError(f"truncate_postgres needs a PostgreSQL engine, not {engine.dialect.name}")
    names = ", ".join(t.name for t in warehouse_tables())
    with engine.begin() as conn:
        conn.exec_driver_sql(f"TRUNCATE {names} RESTART IDENTITY CASCADE")


def warehouse_tables() -> list[sa.Table]:
    """The warehouse's tables, parents before children."""
    from warehouse.models import metadata

    return list(metadata.sorted_tables)


def table_rows(engine: Engine, *, include_volatile: bool = False) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every warehouse table (and of the view ``rating_list_entries``), sorted,
    as Python values.

    For comparing two warehouses row for row (SQLite against PostgreSQL, a
    rerun against a clean load). Load timestamps are left out unless
    ``include_volatile``.
    """
    out: dict[str, list[tuple[Any, ...]]] = {}
    with engine.connect() as conn:
        for table in warehouse_tables():
            cols = [c for c in table.columns if include_volatile or (table.name, c.name) not in VOLATILE_COLUMNS]
            pk = list(table.primary_key.columns)
            rows = conn.execute(sa.select(*cols).order_by(*pk)).all()
            out[table.name] = [tuple(r) for r in rows]
        # The view of every edition's lines in full (its ranks and order derived in SQL).
        view = sa.text("SELECT list_id, position, federation, player_id, name, rating, games, status, category, "
                       "rank FROM rating_list_entries ORDER BY list_id, position")
        out["rating_list_entries"] = [tuple(r) for r in conn.execute(view).all()]
    return out
