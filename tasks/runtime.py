"""The flow/task decorators, and what a task needs from its orchestrator, in-process or under Prefect.

A flow runs one of two ways (``flows.orchestration.run_flow`` chooses, once per flow):

* **under Prefect** (a deployment on a worker, a configured ``PREFECT_API_URL``, the test
  harness): the flow is a Prefect flow run, each task call inside it a Prefect task run,
  so the retries are Prefect's own (``retries=``, ``retry_delay_seconds=``, and a
  ``retry_condition_fn`` that retries a :func:`transient` error only); the logger is
  Prefect's run logger (records go to the API) and artifacts are Prefect artifacts;
* **in-process** (``ratings run`` on a machine where no Prefect API is configured): the
  flow's function runs as a plain call, and so does each task's, with the same retries
  and the same log lines a Prefect task run writes ("Finished in state Completed()",
  "Task run failed (...); retry ...", "Finished in state Failed(...)") on the plain
  ``ratings.task_runs`` logger, each record carrying the task's name (the CLI's progress
  follows them); artifacts go nowhere: what they show is in the reports and the logs.

The task decides: a :class:`DeferredTask` called inside a Prefect run is Prefect's task
call, anywhere else it runs its function in-process. So a flow calls its tasks directly,
and reads the same either way.

:func:`task` and :func:`flow` are used instead of Prefect's decorators because importing
``prefect`` is a fixed cost an in-process run does not need: the decorated object keeps
the function as ``.fn`` (the tests call it) and builds the real Prefect task or flow on
first use under Prefect, or when asked for a Prefect attribute (``submit``,
``with_options``, ...); ``flows.deployments`` hands Prefect the real flows. Nothing
here starts a server.
"""

from __future__ import annotations

import contextvars
import functools
import logging
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any, Generic, ParamSpec, TypeVar

__all__ = [
    "FLOW_LOGGER",
    "TASK_LOGGER",
    "DeferredFlow",
    "DeferredTask",
    "create_markdown_artifact",
    "create_table_artifact",
    "flow",
    "get_run_logger",
    "in_prefect_run",
    "task",
    "transient",
]

P = ParamSpec("P")
R = TypeVar("R")

#: The loggers of a run without the Prefect engine.
TASK_LOGGER = "ratings.task_runs"
FLOW_LOGGER = "ratings.flow_runs"

#: The task running in-process now (its name), for :func:`get_run_logger`.
_current_task: contextvars.ContextVar[str | None] = contextvars.ContextVar("ratings_current_task", default=None)


class _Deferred(Generic[P, R]):
    """A function that becomes a Prefect object (task or flow) on first use."""

    def __init__(self, fn: Callable[P, R], options: dict[str, Any]) -> None:
        self.fn = fn
        self.name: str = str(options.get("name") or fn.__name__)
        self._options = options
        self._prefect: Any = None
        functools.update_wrapper(self, fn)

    def _build(self) -> Any:   # pragma: no cover - overridden
        raise NotImplementedError

    @property
    def prefect(self) -> Any:
        """The Prefect task or flow (built, and ``prefect`` imported, on the first call)."""
        if self._prefect is None:
            self._prefect = self._build()
        return self._prefect

    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> R:
        result: R = self.prefect(*args, **kwargs)
        return result

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self.prefect, name)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"


class DeferredTask(_Deferred[P, R]):
    """A task: a Prefect task run inside a Prefect run, else its function in-process
    (see the module's docstring)."""

    def __init__(self, fn: Callable[P, R], options: dict[str, Any]) -> None:
        super().__init__(fn, options)
        self.retries: int = int(options.get("retries") or 0)
        self.retry_delay_seconds: float | Sequence[float] | None = options.get("retry_delay_seconds")

    def _build(self) -> Any:
        from prefect import task as prefect_task
        from prefect.cache_policies import NO_CACHE

        return prefect_task(cache_policy=NO_CACHE, **self._options)(self.fn)

    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> R:
        if in_prefect_run():
            result: R = self.prefect(*args, **kwargs)
            return result
        log = logging.LoggerAdapter(logging.getLogger(TASK_LOGGER), {"task_name": self.name})
        token = _current_task.set(self.name)
        try:
            for attempt in range(self.retries + 1):
                try:
                    result = self.fn(*args, **kwargs)
                except Exception as error:
                    if attempt >= self.retries or not transient(error):   # a deterministic error fails again
                        log.error("Finished in state Failed(%s: %s)", type(error).__name__,
                                  (str(error).splitlines() or [""])[0])
                        raise
                    pause = self._delay(attempt)
                    log.warning("Task run failed (%s); retry %d of %d in %.0f s", type(error).__name__,
                                attempt + 1, self.retries, pause)
                    time.sleep(pause)
                else:
                    log.info("Finished in state Completed()")
                    return result
            raise AssertionError("unreachable")   # pragma: no cover
        finally:
            _current_task.reset(token)

    def _delay(self, attempt: int) -> float:
        """Seconds before retry ``attempt + 1``, as Prefect reads ``retry_delay_seconds``."""
        delays = self.retry_delay_seconds
        if delays is None:
            return 0.0
        if isinstance(delays, (int, float)):
            return float(delays)
        listed = list(delays)
        return float(listed[min(attempt, len(listed) - 1)]) if listed else 0.0


class DeferredFlow(_Deferred[P, R]):
    """A Prefect flow declared without importing Prefect (see the module's docstring)."""

    def _build(self) -> Any:
        from prefect import flow as prefect_flow

        return prefect_flow(**self._options)(self.fn)


def task(
    *, name: str, retries: int = 0, retry_delay_seconds: float | Sequence[float] | None = None,
) -> Callable[[Callable[P, R]], DeferredTask[P, R]]:
    """Declare a Prefect task (never cached: every task here reads or writes state).

    Examples
    --------
    >>> @task(name="double", retries=1)
    ... def double(x: int) -> int:
    ...     return 2 * x
    >>> double.fn(4), double.name, double.retries
    (8, 'double', 1)
    """
    options: dict[str, Any] = {"name": name}
    if retries:
        options["retries"] = retries
        options["retry_condition_fn"] = _retry_if_transient
    if retry_delay_seconds is not None:
        options["retry_delay_seconds"] = retry_delay_seconds

    def wrap(fn: Callable[P, R]) -> DeferredTask[P, R]:
        return DeferredTask(fn, options)

    return wrap


def transient(error: BaseException) -> bool:
    """Whether ``error`` may go away on a retry: the database or the network was busy or gone
    (a lock, a dropped connection, a timeout). A deterministic error (a bad file, a missing
    folder, a refused value) fails the same way every time: it is not retried.

    Examples
    --------
    >>> import sqlalchemy.exc
    >>> transient(sqlalchemy.exc.OperationalError("SELECT 1", {}, Exception("database is locked")))
    True
    >>> transient(ConnectionResetError()), transient(TimeoutError())
    (True, True)
    >>> transient(FileNotFoundError("inbox")), transient(ValueError("bad date")), transient(KeyError("x"))
    (False, False, False)
    """
    if isinstance(error, (ConnectionError, TimeoutError)):
        return True
    if "sqlalchemy" in sys.modules:
        import sqlalchemy.exc

        if isinstance(error, (sqlalchemy.exc.OperationalError, sqlalchemy.exc.InterfaceError,
                              sqlalchemy.exc.TimeoutError)):
            return True
    if "warehouse.errors" in sys.modules:
        from warehouse.errors import WarehouseUnavailableError

        return isinstance(error, WarehouseUnavailableError)
    return False


def _retry_if_transient(task: Any, task_run: Any, state: Any) -> bool:
    """Prefect's ``retry_condition_fn``: retry a failed task run only for a :func:`transient` error."""
    error = getattr(state, "data", None)
    if not isinstance(error, BaseException):
        try:
            error = state.result(raise_on_failure=False)
        except Exception as raised:   # noqa: BLE001 - a result that cannot be read: its error decides
            error = raised
    return isinstance(error, BaseException) and transient(error)


def flow(*, name: str, description: str | None = None) -> Callable[[Callable[P, R]], DeferredFlow[P, R]]:
    """Declare a Prefect flow; ``.prefect`` is the real one (deployments: ``flows.deployments``)."""
    options: dict[str, Any] = {"name": name}
    if description is not None:
        options["description"] = description

    def wrap(fn: Callable[P, R]) -> DeferredFlow[P, R]:
        return DeferredFlow(fn, options)

    return wrap


def in_prefect_run() -> bool:
    """True inside a Prefect flow or task run (the engine is orchestrating)."""
    if "prefect" not in sys.modules:   # not imported: no Prefect run can be going on
        return False
    from prefect.context import FlowRunContext, TaskRunContext

    return FlowRunContext.get() is not None or TaskRunContext.get() is not None


def get_run_logger() -> logging.Logger | logging.LoggerAdapter[Any]:
    """Prefect's run logger inside a Prefect run; else ``ratings.task_runs`` (or
    ``ratings.flow_runs`` outside a task), with the task's name on each record.

    Examples
    --------
    >>> get_run_logger().name
    'ratings.flow_runs'
    """
    if in_prefect_run():
        from prefect import get_run_logger as prefect_logger

        return prefect_logger()
    name = _current_task.get()
    if name is None:
        return logging.getLogger(FLOW_LOGGER)
    return logging.LoggerAdapter(logging.getLogger(TASK_LOGGER), {"task_name": name})


def create_markdown_artifact(markdown: str, key: str | None = None, description: str | None = None) -> Any:
    """A Prefect Markdown artifact inside a Prefect run; else nothing (returns ``None``)."""
    if not in_prefect_run():
        logging.getLogger(TASK_LOGGER).debug("artifact %s not kept: no Prefect run", key)
        return None
    from prefect.artifacts import create_markdown_artifact as create

    return create(markdown=markdown, key=key, description=description)


def create_table_artifact(table: Any, key: str | None = None, description: str | None = None) -> Any:
    """A Prefect table artifact inside a Prefect run; else nothing (returns ``None``)."""
    if not in_prefect_run():
        logging.getLogger(TASK_LOGGER).debug("artifact %s not kept: no Prefect run", key)
        return None
    from prefect.artifacts import create_table_artifact as create

    return create(table=table, key=key, description=description)
