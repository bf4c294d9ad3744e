"""The run guard: one writing run at a time per warehouse, and the crash checkpoints.

Two runs on one warehouse (two nightlies, a nightly and a backfill) each read the
history, rate it and write the result: interleaved, the second would rate from a
history the first is rewriting. Prefect's concurrency limit does not help the CLI,
which runs without a Prefect server, so the warehouse itself holds the lock:

* PostgreSQL: a session-level advisory lock (``pg_try_advisory_lock``) on a
  connection kept open for the run. The server releases it when that connection
  ends, so a run killed with SIGKILL never leaves a stale lock.
* SQLite: an exclusive ``flock`` on ``<database file>.run-lock`` beside the
  database. The kernel releases it when the process dies, for the same reason (a
  lock *row* would outlive a killed run and need a heartbeat to expire).
* an in-memory SQLite database is private to its process: nothing to guard.

The lock is the database's, not its URL's: the SQLite lock file lies beside the
resolved database file (a symlinked path, ``./x.db`` and the absolute path are one
lock), and the PostgreSQL key is taken inside the database it guards (advisory locks
belong to one database), so any spelling of the URL meets the same lock.

A run that finds the lock taken says so on stderr (one line) and waits
(``RATINGS_LOCK_WAIT_S``, default one hour) and then proceeds, so two runs started at
once end as if run one after the other; past the wait it stops with
:class:`WarehouseBusyError` (``ratings`` exit code 3). The lock is re-entrant within a
process (the CLI and the flow it calls may both take it).

:func:`checkpoint` (:mod:`warehouse.hooks`, re-exported here for the flows, which import
only this module of the warehouse) marks the points of a run where a crash must lose nothing;
only the test suite watches them.
"""

from __future__ import annotations

import math
import os
import sys
import threading
import time
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from warehouse.db import in_memory
from warehouse.errors import WarehouseError
from warehouse.hooks import checkpoint

__all__ = ["LockWaitError", "WarehouseBusyError", "checkpoint", "hold", "lock_key", "lock_wait_s"]

#: Seconds a run waits for another run's lock before giving up (``RATINGS_LOCK_WAIT_S``).
DEFAULT_WAIT_S = 3600.0
#: Seconds between two attempts to take a lock that is held.
POLL_S = 0.2


class WarehouseBusyError(WarehouseError):
    """Another run holds the warehouse's run lock longer than this run may wait."""


class LockWaitError(WarehouseError):
    """``RATINGS_LOCK_WAIT_S`` is not a number of seconds (nan, negative, text)."""


def lock_key(name: str) -> int:
    """The advisory-lock key of a named lock (a stable signed 63-bit number).

    Examples
    --------
    >>> lock_key("run") == lock_key("run"), lock_key("run") != lock_key("other")
    (True, True)
    """
    return 0x52A7_0000_0000 + zlib.crc32(name.encode("utf-8"))


_held: dict[tuple[str, str], int] = {}   # (warehouse, lock name) -> depth, this process
_held_lock = threading.Lock()


def lock_wait_s() -> float:
    """Seconds a run waits for another run's lock: ``$RATINGS_LOCK_WAIT_S``, default one hour.

    Raises
    ------
    LockWaitError
        The variable is not a finite number of seconds >= 0 (``nan`` would wait forever).

    Examples
    --------
    >>> import os
    >>> os.environ["RATINGS_LOCK_WAIT_S"] = "2.5"; lock_wait_s()
    2.5
    >>> os.environ["RATINGS_LOCK_WAIT_S"] = "nan"; lock_wait_s()
    Traceback (most recent call last):
    ...
    warehouse.guard.LockWaitError: RATINGS_LOCK_WAIT_S expects a number of seconds (0 or more), not 'nan'
    >>> del os.environ["RATINGS_LOCK_WAIT_S"]
    """
    raw = os.environ.get("RATINGS_LOCK_WAIT_S")
    if raw is None:
        return DEFAULT_WAIT_S
    try:
        seconds = float(raw)
    except ValueError:
        seconds = float("nan")
    if not math.isfinite(seconds) or seconds < 0:
        raise LockWaitError(f"RATINGS_LOCK_WAIT_S expects a number of seconds (0 or more), not {raw!r}")
    return seconds


def _identity(engine: Engine) -> str:
    """What makes two engines the same database, whatever their URLs' spelling."""
    url = engine.url
    if engine.dialect.name == "sqlite" and not in_memory(url):
        return f"sqlite:{Path(str(url.database)).resolve()}"
    if engine.dialect.name == "postgresql":
        try:
            with engine.connect() as conn:
                cluster, database = conn.execute(sa.text(
                    "SELECT (SELECT system_identifier FROM pg_control_system()), "
                    "(SELECT oid FROM pg_database WHERE datname = current_database())"
                )).one()
            return f"postgresql:{cluster}:{database}"
        except sa.exc.DBAPIError:   # a role that may not read the cluster's id: the URL's parts
            return f"postgresql:{url.host}:{url.port or 5432}/{url.database}"
    return url.render_as_string(hide_password=True)


def _waiting(name: str, where: str, limit: float) -> None:
    """The one line a run prints when it starts waiting for another run's lock."""
    sys.stderr.write(f"ratings: another run holds the warehouse lock {name!r} of {where}: waiting for it "
                     f"(up to {limit:.0f} s, RATINGS_LOCK_WAIT_S)\n")
    sys.stderr.flush()


@contextmanager
def hold(engine: Engine, name: str = "run", *, wait_s: float | None = None) -> Iterator[None]:
    """Hold the warehouse's run lock ``name`` for the body (re-entrant in one process).

    Parameters
    ----------
    engine
        The warehouse.
    name
        Which lock: every writing run (nightly, backfill, seed) takes ``"run"``.
    wait_s
        Seconds to wait for another run's lock (default ``$RATINGS_LOCK_WAIT_S`` or one hour).

    Raises
    ------
    WarehouseBusyError
        Another run held the lock for longer than ``wait_s``.

    Examples
    --------
    >>> import warehouse
    >>> with hold(warehouse.get_engine("sqlite://")):
    ...     pass
    """
    ident = (_identity(engine), name)
    with _held_lock:
        depth = _held.get(ident, 0)
        _held[ident] = depth + 1
    try:
        if depth:
            yield
            return
        limit = lock_wait_s() if wait_s is None else wait_s
        with _acquire(engine, name, limit):
            yield
    finally:
        with _held_lock:
            _held[ident] -= 1
            if not _held[ident]:
                del _held[ident]


@contextmanager
def _acquire(engine: Engine, name: str, limit: float) -> Iterator[None]:
    backend = engine.dialect.name
    if backend == "postgresql":
        with _pg_lock(engine, name, limit):
            yield
    elif backend == "sqlite" and not in_memory(engine.url):
        with _file_lock(Path(str(engine.url.database)).resolve(), name, limit):
            yield
    else:
        yield


def _busy(name: str, limit: float, where: str) -> WarehouseBusyError:
    return WarehouseBusyError(
        f"another run holds the warehouse lock {name!r} of {where} (waited {limit:.0f} s): "
        "let it finish, then run again"
    )


@contextmanager
def _pg_lock(engine: Engine, name: str, limit: float) -> Iterator[None]:
    key = lock_key(name)
    conn = engine.connect()
    waited = False
    try:
        deadline = time.monotonic() + limit
        while True:
            got = conn.execute(sa.text("SELECT pg_try_advisory_lock(:k)"), {"k": key}).scalar()
            conn.commit()
            if got:
                break
            where = engine.url.render_as_string(hide_password=True)
            if time.monotonic() >= deadline:
                raise _busy(name, limit, where)
            if not waited:
                _waiting(name, where, limit)
                waited = True
            time.sleep(POLL_S)
        try:
            yield
        finally:
            try:
                conn.execute(sa.text("SELECT pg_advisory_unlock(:k)"), {"k": key})
                conn.commit()
            except sa.exc.DBAPIError:
                pass   # the connection is gone (a server restart): the lock went with it
    finally:
        try:
            conn.close()
        except sa.exc.DBAPIError:
            pass


@contextmanager
def _file_lock(database: Path, name: str, limit: float) -> Iterator[None]:
    import fcntl

    path = database.with_name(f"{database.name}.{name}-lock")
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    waited = False
    try:
        deadline = time.monotonic() + limit
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise _busy(name, limit, str(database)) from None
                if not waited:
                    _waiting(name, str(database), limit)
                    waited = True
                time.sleep(POLL_S)
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())   # who holds it, for a human looking
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def exclusive(run: Any) -> Any:
    """Decorate a flow function so that it runs holding the warehouse's run lock.

    The function's ``warehouse_url`` argument names the warehouse (``None``: the
    default one). The wrapper keeps the signature, so Prefect validates parameters
    as before.
    """
    import functools
    import inspect
    import typing

    # Resolve the annotations in the flow's own module: Prefect builds its parameter
    # model from the wrapper, whose module does not know the flow's names (``date``).
    hints = typing.get_type_hints(run)
    signature = inspect.signature(run)
    signature = signature.replace(
        parameters=[p.replace(annotation=hints.get(p.name, p.annotation))
                    for p in signature.parameters.values()],
        return_annotation=hints.get("return", signature.return_annotation),
    )

    @functools.wraps(run)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        from warehouse.db import get_engine

        bound = signature.bind_partial(*args, **kwargs)
        with hold(get_engine(bound.arguments.get("warehouse_url"))):
            return run(*args, **kwargs)

    wrapper.__annotations__ = hints
    wrapper.__signature__ = signature  # type: ignore[attr-defined]
    return wrapper
