"""Engine factory, migrations and URL redaction.

``get_engine`` is the one wiring point between the embedded warehouse (SQLite,
WAL mode) and the production one (PostgreSQL through psycopg 3). It brings the
schema to this program's Alembic head before returning, so upgrading the
program never needs hand work; a database it cannot migrate is refused with a
one-line :class:`~warehouse.errors.MigrationError`.
"""

from __future__ import annotations

import os
import re
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy.engine import URL, Connection, Engine, make_url
from sqlalchemy.pool import NullPool, StaticPool

from warehouse.errors import MigrationError, WarehouseUnavailableError

__all__ = [
    "DEFAULT_URL",
    "MIGRATIONS",
    "alembic_config",
    "current_revision",
    "get_engine",
    "head_revision",
    "migrate",
    "redact",
    "resolve_url",
    "secret_passwords",
    "write_transaction",
]

#: The embedded default warehouse (a file in the working directory).
DEFAULT_URL = "sqlite:///ratings.db"

#: The Alembic environment, shipped inside the package.
MIGRATIONS = Path(__file__).resolve().parent / "migrations"

# Arbitrary constant: the advisory lock that serialises concurrent migrations on PostgreSQL.
_MIGRATION_LOCK = 0x52A71465
# and the one that serialises loads and publications (see ``write_transaction``).
_WRITE_LOCK = 0x52A71466

_PASSWORD_IN_URL = re.compile(r"(?P<head>[a-zA-Z][a-zA-Z0-9+.\-]*://[^:/@\s]*:)(?P<pw>[^@\s]*)(?P<at>@)")


def redact(url: str | URL) -> str:
    """The URL with its password replaced by ``***``: safe for logs and messages.

    Works on strings SQLAlchemy cannot parse too (a regex fallback).

    Parameters
    ----------
    url
        A database URL, possibly with a password.

    Returns
    -------
    str
        The same URL, password masked.

    Examples
    --------
    >>> redact("postgresql+psycopg://ratings:s3cret@db.example:5432/ratings")
    'postgresql+psycopg://ratings:***@db.example:5432/ratings'
    >>> redact("sqlite:///ratings.db")
    'sqlite:///ratings.db'
    >>> redact("not a url with user:pw@ inside")
    'not a url with user:pw@ inside'
    """
    if isinstance(url, URL):
        return url.render_as_string(hide_password=True)
    try:
        parsed = make_url(url)
    except Exception:  # noqa: BLE001 - unparseable: mask by pattern instead
        return _PASSWORD_IN_URL.sub(lambda m: f"{m['head']}***{m['at']}", url)
    if parsed.password is None:
        return _PASSWORD_IN_URL.sub(lambda m: f"{m['head']}***{m['at']}", url)
    return parsed.render_as_string(hide_password=True)


def _scrub(message: str, url: URL) -> str:
    """First line of a driver message, with the URL's password removed if echoed."""
    line = (message.strip().splitlines() or [""])[0]
    if url.password:
        line = line.replace(str(url.password), "***")
    return line


def _normalise(url: str) -> URL:
    parsed = make_url(url)
    # The project ships psycopg 3 only; plain "postgresql://" would ask for psycopg2.
    if parsed.drivername in ("postgresql", "postgres"):
        parsed = parsed.set(drivername="postgresql+psycopg")
    return parsed


def in_memory(url: str | URL) -> bool:
    """Is ``url`` an SQLite database in memory (one process's alone: no file, no other process)?

    >>> in_memory("sqlite://"), in_memory("sqlite:///:memory:"), in_memory("sqlite:///w.db")
    (True, True, False)
    >>> in_memory("postgresql+psycopg://u@h/db")
    False
    """
    parsed = make_url(url)
    return parsed.get_backend_name() == "sqlite" and parsed.database in (None, "", ":memory:")


def _sqlite_setup(engine: Engine) -> None:
    """WAL, foreign keys, a busy timeout, and real BEGIN statements on SQLite.

    pysqlite's own transaction handling defers BEGIN and never emits
    ``BEGIN IMMEDIATE``; taking the write lock at the start of a load is what
    serialises loaders (the SQLAlchemy recipe for pysqlite transactions).
    """

    @event.listens_for(engine, "connect")
    def _connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        # The timeout first: switching a new file to WAL needs a lock that another
        # process opening the same warehouse at the same moment may hold.
        cursor.execute("PRAGMA busy_timeout=30000")
        _switch_to_wal(cursor)
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.execute("PRAGMA cache_size=-262144")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _begin(conn: Connection) -> None:
        mode = conn.get_execution_options().get("sqlite_begin", "")
        conn.exec_driver_sql(f"BEGIN {mode}".strip())


#: How long a connection waits for the switch of a new file to WAL (the busy timeout's length).
_WAL_SWITCH_S = 30.0


def _switch_to_wal(cursor: Any) -> None:
    """``PRAGMA journal_mode=WAL``, retried while another connection is switching the same file.

    Two connections that switch a new file at the same moment deadlock on its lock
    (each holds a shared lock and wants the exclusive one), and SQLite answers one of
    them "database is locked" at once, without waiting for the busy timeout. The
    other finishes the switch in milliseconds, so waiting and asking again succeeds.
    """
    import sqlite3
    import time

    deadline = time.monotonic() + _WAL_SWITCH_S
    pause = 0.01
    while True:
        try:
            cursor.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
        time.sleep(pause)
        pause = min(pause * 2, 0.25)


def alembic_config(connection: Connection | None = None) -> Any:
    """An Alembic ``Config`` for the packaged migrations (no ini file needed).

    Examples
    --------
    >>> alembic_config().get_main_option("script_location").endswith("migrations")
    True
    """
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    if connection is not None:
        cfg.attributes["connection"] = connection
    return cfg


def head_revision() -> str:
    """The Alembic head this program's models correspond to."""
    from alembic.script import ScriptDirectory

    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    assert head is not None
    return head


def current_revision(connection: Connection) -> str | None:
    """The revision recorded in the database (None: never migrated)."""
    from alembic.runtime.migration import MigrationContext

    return MigrationContext.configure(connection).get_current_revision()


def migrate(engine: Engine) -> str | None:
    """Bring the database to the head revision; return the revision it was at.

    Raises
    ------
    MigrationError
        The database is at a revision this program does not know (a newer
        program migrated it), or it holds warehouse tables without Alembic's
        version table (made by hand): both need a person, not a guess.
    """
    from alembic import command
    from alembic.script import ScriptDirectory

    cfg = alembic_config()
    script = ScriptDirectory.from_config(cfg)
    head = script.get_current_head()
    where = redact(engine.url)
    with _locked(engine, _MIGRATION_LOCK) as conn:
        # Two processes starting at once must not both create the tables: the
        # revision is read under the lock.
        before = current_revision(conn)
        if before == head:
            return before
        if before is not None:
            try:
                script.get_revision(before)
            except Exception as exc:
                raise MigrationError(
                    f"warehouse {where} is at schema revision {before!r}, unknown to this program "
                    f"(head {head!r}): upgrade the program, or point it at another warehouse"
                ) from exc
        else:
            from warehouse.models import metadata

            existing = set(sa.inspect(conn).get_table_names()) & set(metadata.tables)
            if existing:
                raise MigrationError(
                    f"warehouse {where} has tables {sorted(existing)} but no migration record "
                    "(alembic_version): refusing to migrate a schema made by hand"
                )
        cfg.attributes["connection"] = conn
        try:
            command.upgrade(cfg, "head")
        except sa.exc.DBAPIError as exc:
            # The transaction rolls back whole (DDL is transactional on both databases).
            raise MigrationError(
                f"migrating warehouse {where} from {before!r} to {head!r} failed: "
                f"{_scrub(str(exc.orig), engine.url)}"
            ) from None
    return before


#: Environment variable naming a Prefect Secret block that holds the warehouse URL.
SECRET_ENV = "RATINGS_WAREHOUSE_SECRET"

_secret_urls: dict[str, str] = {}   # block name -> URL, loaded once per process


def resolve_url(url: str | None = None) -> str:
    """The warehouse URL: the one wiring point between the configuration and the engine.

    In order: ``url`` (``--warehouse``); ``$RATINGS_WAREHOUSE_URL``; the Prefect
    Secret block named by ``$RATINGS_WAREHOUSE_SECRET`` (its value is the URL, read
    once per process from the configured Prefect API); else ``sqlite:///ratings.db``.

    Raises
    ------
    WarehouseUnavailableError
        The Secret block cannot be read or does not hold a URL (the message names the
        block, never its value).

    Examples
    --------
    >>> resolve_url("sqlite://")
    'sqlite://'
    """
    if url:
        return url
    if os.environ.get("RATINGS_WAREHOUSE_URL"):
        return os.environ["RATINGS_WAREHOUSE_URL"]
    name = os.environ.get(SECRET_ENV, "").strip()
    if not name:
        return DEFAULT_URL
    if name not in _secret_urls:
        try:
            from prefect.blocks.system import Secret

            value = Secret.load(name).get()  # type: ignore[union-attr]
        except Exception as exc:  # noqa: BLE001 - missing block, no API: one line, no value
            raise WarehouseUnavailableError(
                f"cannot read the warehouse URL from the Prefect Secret block {name!r} (${SECRET_ENV}): "
                f"{type(exc).__name__}"
            ) from None
        if not isinstance(value, str) or "://" not in value:
            raise WarehouseUnavailableError(
                f"the Prefect Secret block {name!r} (${SECRET_ENV}) does not hold a database URL"
            )
        _secret_urls[name] = value
    return _secret_urls[name]


def secret_passwords() -> list[str]:
    """Passwords of the URLs read from Secret blocks in this process (for masking messages)."""
    found = [match["pw"] for value in _secret_urls.values() if (match := _PASSWORD_IN_URL.search(value))]
    return [password for password in found if password]


def get_engine(url: str | None = None, *, migrate_schema: bool = True) -> Engine:
    """Open the warehouse and bring its schema to this program's version.

    Parameters
    ----------
    url
        A SQLAlchemy URL; default: :func:`resolve_url` (``$RATINGS_WAREHOUSE_URL``,
        the Secret block of ``$RATINGS_WAREHOUSE_SECRET``, else ``sqlite:///ratings.db``).
        ``postgresql://`` means psycopg 3.
    migrate_schema
        False: do not migrate; refuse with :class:`MigrationError` when the
        schema is not at head (for read-only tools).

    Returns
    -------
    sqlalchemy.Engine
        SQLite engines have WAL mode and foreign keys on.

    Raises
    ------
    WarehouseUnavailableError
        The URL cannot be opened; the message names the URL without its password.
    MigrationError
        The schema cannot be brought to head.

    Examples
    --------
    >>> engine = get_engine("sqlite://")
    >>> sorted(sa.inspect(engine).get_table_names())[:3]
    ['alembic_version', 'byes', 'competitions']
    """
    raw = resolve_url(url)
    try:
        parsed = _normalise(raw)
    except Exception:  # noqa: BLE001 - ArgumentError and friends
        raise WarehouseUnavailableError(f"not a database URL: {redact(raw)}") from None
    # A pooled connection the server dropped (a restart, an idle timeout) is replaced when it is
    # checked out, instead of failing the next statement of a process that outlived it.
    kwargs: dict[str, Any] = {"pool_pre_ping": True}
    if parsed.get_backend_name() == "sqlite":
        # A file's connection is closed when it is given back: each holds a page cache of up to
        # 256 MiB (``_sqlite_setup``), and a night opens the warehouse once per task, so pooled
        # idle connections would hold that much each until the collector found their engines.
        kwargs = {"poolclass": NullPool}
    if in_memory(parsed):
        # One shared connection, or every checkout would see a fresh empty database.
        kwargs = {"poolclass": StaticPool, "connect_args": {"check_same_thread": False}}
    try:
        engine = sa.create_engine(parsed, **kwargs)
    except Exception as exc:  # noqa: BLE001 - missing driver, bad options
        raise WarehouseUnavailableError(
            f"cannot open warehouse {redact(parsed)}: {_scrub(str(exc), parsed)}"
        ) from None
    # An engine the caller drops without dispose() would leave its pooled connections to
    # the garbage collector, which psycopg reports as a ResourceWarning ("deleted while
    # still open"): when the engine goes, its pool closes them.
    weakref.finalize(engine, engine.pool.dispose)
    if engine.dialect.name == "sqlite":
        _sqlite_setup(engine)
    try:
        with engine.connect() as conn:
            at = current_revision(conn)
    except sa.exc.DBAPIError as exc:
        engine.dispose()
        raise WarehouseUnavailableError(
            f"cannot connect to warehouse {redact(parsed)}: {_scrub(str(exc.orig), parsed)}"
        ) from None
    if migrate_schema:
        migrate(engine)
    elif at != head_revision():
        engine.dispose()
        raise MigrationError(
            f"warehouse {redact(parsed)} is at schema revision {at!r}, this program needs "
            f"{head_revision()!r}: run `ratings` once with migrations allowed"
        )
    return engine


@contextmanager
def _locked(engine: Engine, key: int) -> Iterator[Connection]:
    """A transaction that holds the writers' lock from its first statement."""
    with engine.connect() as conn:
        if conn.dialect.name == "sqlite":
            conn = conn.execution_options(sqlite_begin="IMMEDIATE")
        with conn.begin():
            if conn.dialect.name == "postgresql":
                conn.execute(sa.text("SELECT pg_advisory_xact_lock(:key)"), {"key": key})
            yield conn


@contextmanager
def write_transaction(engine: Engine) -> Iterator[Connection]:
    """One serialised write transaction: commit on success, roll back on any error.

    Loads and publications allocate keys as ``max(id) + 1``, so writers must not
    interleave: SQLite takes its write lock at BEGIN (``BEGIN IMMEDIATE``);
    PostgreSQL takes a transaction-scoped advisory lock. Readers are never blocked.
    """
    with _locked(engine, _WRITE_LOCK) as conn:
        yield conn
