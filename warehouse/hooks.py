"""Checkpoints: named points of a run where a crash must lose nothing, and who watches them.

The flows and tasks call :func:`checkpoint` at their stage boundaries (``ingest``,
``validate``, ``rate``, ``load``, ``publish``) and at finer points inside them (``report``,
``deliver``, ``delivered``). Nothing in the shipped packages watches them: with no callback
registered a checkpoint returns at once. The test suite's fault injector (``tests/faults.py``)
registers a callback that kills the process, raises or restarts the database at a chosen pass
of a stage, to prove that a run stopped there loses nothing.

A watcher may also ask for a checkpoint before every SQL statement of every engine (the stage
:data:`SQL_STAGE`) with :func:`watch_statements`; shipped code never does.

Examples
--------
>>> seen = []
>>> def watch(stage: str, **_: object) -> None:
...     seen.append(stage)
>>> register(watch)
>>> checkpoint("load")
>>> unregister(watch)
>>> checkpoint("publish")   # no one watches: nothing happens
>>> seen
['load']
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

__all__ = ["SQL_STAGE", "Callback", "checkpoint", "register", "unregister", "watch_statements"]

#: A checkpoint's watcher: called with the stage's name and the checkpoint's keywords.
Callback = Callable[..., None]
#: The stage of the checkpoint before each SQL statement (see :func:`watch_statements`).
SQL_STAGE = "sql"

_callbacks: tuple[Callback, ...] = ()   # replaced whole, never mutated: a checkpoint reads it unlocked
_lock = threading.Lock()


def checkpoint(stage: str, **details: Any) -> None:
    """A point of a run named ``stage``: every registered callback is called with it, in order.

    None registered (any production run): it returns at once.
    """
    callbacks = _callbacks
    if not callbacks:
        return
    for callback in callbacks:
        callback(stage, **details)


def register(callback: Callback) -> None:
    """Call ``callback(stage, **details)`` at every checkpoint from now on."""
    global _callbacks
    with _lock:
        _callbacks = (*_callbacks, callback)


def unregister(callback: Callback) -> None:
    """Stop calling ``callback`` (one registration of it; none left: nothing happens)."""
    global _callbacks
    with _lock:
        if callback in _callbacks:
            index = _callbacks.index(callback)
            _callbacks = _callbacks[:index] + _callbacks[index + 1:]


def watch_statements() -> Callable[[], None]:
    """Make a :data:`SQL_STAGE` checkpoint before every SQL statement of every engine.

    For a registered watcher that wants to stop a run at any of its statements (reads of the
    ledger and the history, every write of a load or a publication), not only between stages.
    Returns the function that removes the statement checkpoints again.
    """
    from sqlalchemy import event
    from sqlalchemy.engine import Engine

    def before(*_: Any) -> None:
        checkpoint(SQL_STAGE)

    event.listen(Engine, "before_cursor_execute", before)
    return lambda: event.remove(Engine, "before_cursor_execute", before)
