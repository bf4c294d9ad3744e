"""Fault injection for the crash-safety and error-path tests: the only code that stops a run on purpose.

The shipped packages mark the points of a run where a crash must lose nothing
(:func:`warehouse.hooks.checkpoint`: stages ``ingest``, ``validate``, ``rate``, ``load``,
``report``, ``publish``, ``deliver``, ``delivered``, and ``sql`` before any SQL statement), and
nothing there watches them. This module registers the watcher that acts at the n-th pass of a
stage (``<stage>:<n>``, ``n`` 1 when left out):

``RATINGS_CRASH_AT=<stage>:<n>``
    SIGKILL this process there (the crash harness, ``tests/reliability/crash.py``).
``RATINGS_FAULT_AT=<stage>:<n>``
    raise ``RuntimeError("fault injected ...")`` there (an unexpected error: the CLI's exit
    codes, a federation's failure isolated from the others, a night finished by the next run).
``RATINGS_HOOK_AT=<stage>:<n>`` with ``RATINGS_HOOK_CMD``
    run that command there (the transient-fault test restarts PostgreSQL mid-run).
``RATINGS_SQL_COUNT_FILE=<path>``
    write the number of SQL statements the run made to that file (at exit, or when disarmed),
    so that the harness knows the range of ``sql:<n>`` kill points.

In this process: ``with faults.armed(fault="rate:1"): ...``. In a child: ``python -P -m
tests.faults ARGS...`` arms from those variables, then runs the ``ratings`` command with ``ARGS``
(:func:`tests.reliability.cli.ratings` starts it so when it is given one of them; the child
finds this checkout's packages and ``tests`` through ``PYTHONPATH``, and ``-P`` keeps its
working folder off ``sys.path``).
"""

from __future__ import annotations

import os
import shlex
import signal
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from warehouse import hooks

__all__ = ["VARIABLES", "Faults", "arm", "arm_from_environment", "armed"]

#: The variables :func:`arm_from_environment` reads (a test's child gets them; nothing else reads them).
VARIABLES = ("RATINGS_CRASH_AT", "RATINGS_FAULT_AT", "RATINGS_HOOK_AT", "RATINGS_HOOK_CMD", "RATINGS_SQL_COUNT_FILE")


def _target(spec: str | None) -> tuple[str, int] | None:
    """``"<stage>:<n>"`` as ``(stage, n)``; None for no (or an unreadable) spec.

    Examples
    --------
    >>> _target("load:2"), _target("rate"), _target(None), _target("sql:x")
    (('load', 2), ('rate', 1), None, None)
    """
    if not spec:
        return None
    stage, _, nth = spec.partition(":")
    try:
        return stage, max(1, int(nth or "1"))
    except ValueError:
        return None


class Faults:
    """The checkpoint watcher: counts each stage's passes and acts at the targeted ones."""

    def __init__(self, crash: str | None = None, fault: str | None = None, hook: str | None = None,
                 hook_cmd: str = "true") -> None:
        self.crash, self.fault, self.hook = _target(crash), _target(fault), _target(hook)
        self.hook_cmd = hook_cmd
        self.passes: dict[str, int] = {}
        self._lock = threading.Lock()

    def wants_statements(self) -> bool:
        """Whether one of the targets is an SQL statement (``sql:<n>``)."""
        return any(t is not None and t[0] == hooks.SQL_STAGE for t in (self.crash, self.fault, self.hook))

    def __call__(self, stage: str, **_: Any) -> None:
        with self._lock:
            seen = self.passes[stage] = self.passes.get(stage, 0) + 1
        if self.hook == (stage, seen):
            subprocess.run(shlex.split(self.hook_cmd), check=False, timeout=120)
        if self.crash == (stage, seen):
            os.kill(os.getpid(), signal.SIGKILL)
        if self.fault == (stage, seen):
            raise RuntimeError(f"fault injected at checkpoint {stage}:{seen} (RATINGS_FAULT_AT)")


def arm(faults: Faults, count_file: str | None = None) -> Callable[[], None]:
    """Register ``faults`` at every checkpoint (and before every SQL statement when a target or
    ``count_file`` needs it); returns the function that disarms it and writes ``count_file``."""
    hooks.register(faults)
    unwatch = hooks.watch_statements() if faults.wants_statements() or count_file else None
    done = False

    def disarm() -> None:
        nonlocal done
        if done:
            return
        done = True
        hooks.unregister(faults)
        if unwatch is not None:
            unwatch()
        if count_file:
            Path(count_file).write_text(str(faults.passes.get(hooks.SQL_STAGE, 0)), encoding="utf-8")

    return disarm


@contextmanager
def armed(crash: str | None = None, fault: str | None = None, hook: str | None = None, hook_cmd: str = "true",
          count_file: str | None = None) -> Iterator[Faults]:
    """The body runs with the faults armed in this process (see the module's docstring)."""
    faults = Faults(crash, fault, hook, hook_cmd)
    disarm = arm(faults, count_file)
    try:
        yield faults
    finally:
        disarm()


def arm_from_environment() -> Faults | None:
    """Arm from :data:`VARIABLES` until the process ends; None when none of them is set."""
    import atexit

    env = os.environ
    if not any(env.get(name) for name in VARIABLES):
        return None
    faults = Faults(env.get("RATINGS_CRASH_AT"), env.get("RATINGS_FAULT_AT"), env.get("RATINGS_HOOK_AT"),
                    env.get("RATINGS_HOOK_CMD", "true"))
    atexit.register(arm(faults, env.get("RATINGS_SQL_COUNT_FILE")))
    return faults


def main(args: list[str]) -> None:
    """``ratings ARGS`` with the faults of the environment armed."""
    arm_from_environment()
    from flows.cli import main as ratings

    sys.argv = ["ratings", *args]
    ratings()


if __name__ == "__main__":
    main(sys.argv[1:])
