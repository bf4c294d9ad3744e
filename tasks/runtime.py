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
"""

from __future__ import annotations

import contextvars
import logging
from typing import Any

__all__ = [
    "FLOW_LOGGER",
    "TASK_LOGGER",
    "create_markdown_artifact",
    "create_table_artifact",
    "current_task",
    "get_run_logger",
    "in_prefect_run",
]

#: The loggers of a run without the Prefect engine.
TASK_LOGGER = "ratings.task_runs"
FLOW_LOGGER = "ratings.flow_runs"

#: The task running in-process now (its Prefect name), set by ``flows.orchestration.call``.
current_task: contextvars.ContextVar[str | None] = contextvars.ContextVar("ratings_current_task", default=None)


def in_prefect_run() -> bool:
    """True inside a Prefect flow or task run (the engine is orchestrating)."""
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
