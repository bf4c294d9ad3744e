"""What a task needs from its orchestrator, with or without a Prefect run around it.

The same task and flow code runs two ways (``flows/orchestration.py``):

* under the Prefect engine (a deployment on a worker, a configured ``PREFECT_API_URL``,
  the test harness): the logger is Prefect's run logger (records go to the API) and
  artifacts are Prefect artifacts;
* in-process, without a Prefect server (``ratings run`` on a machine where none is
  configured): the logger is the plain ``ratings.task_runs`` logger, whose records
  carry the task's name (the CLI's progress bars follow them), and artifacts go
  nowhere: what they show is in the reports, the summary and the logs.

Tasks import :func:`get_run_logger` and the artifact functions from here instead of
from ``prefect``; nothing here starts a server.

Tasks and flows are declared with :func:`task` and :func:`flow` from here, not Prefect's
decorators: importing ``prefect`` costs 1-2 s, and an in-process ``ratings run`` needs
nothing of it (issue 11: fixed cost under 3 s). The decorated object keeps the function as
``.fn`` (the in-process path and the tests call it) and builds the real Prefect task or
flow on first use, when it is called or asked for a Prefect attribute (``submit``,
``with_options``, ...). ``flows.deployments`` hands Prefect the real flows.
"""

from __future__ import annotations

import contextvars
import functools
import logging
import sys
from collections.abc import Callable, Sequence
from typing import Any, Generic, ParamSpec, TypeVar

__all__ = [
    "FLOW_LOGGER",
    "TASK_LOGGER",
    "DeferredFlow",
    "DeferredTask",
    "create_markdown_artifact",
    "create_table_artifact",
    "current_task",
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

#: The task running in-process now (its Prefect name), set by ``flows.orchestration.call``.
current_task: contextvars.ContextVar[str | None] = contextvars.ContextVar("ratings_current_task", default=None)


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
    """A Prefect task declared without importing Prefect (see the module's docstring)."""

    def __init__(self, fn: Callable[P, R], options: dict[str, Any]) -> None:
        super().__init__(fn, options)
        self.retries: int = int(options.get("retries") or 0)
        self.retry_delay_seconds: float | Sequence[float] | None = options.get("retry_delay_seconds")

    def _build(self) -> Any:
        from prefect import task as prefect_task
        from prefect.cache_policies import NO_CACHE

        return prefect_task(cache_policy=NO_CACHE, **self._options)(self.fn)


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
    name = current_task.get()
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
