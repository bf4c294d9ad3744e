"""How a flow runs: under the Prefect engine, or in-process without a Prefect server.

Prefect orchestrates the deployments (``prefect.yaml``: schedules, workers, retries,
artifacts, the UI). A one-shot ``ratings run`` on a machine where no Prefect API is
configured used to start a temporary Prefect server for every call: about 10 s before
the first file was read. Without an API the CLI now runs the same flow body in-process
(:func:`run_flow`): the flow's ``.fn``, each task through :func:`call` (its ``.fn``,
with the task's retries), logs on plain loggers (``tasks.runtime``), no artifacts.

Which way (:func:`use_prefect_engine`): ``RATINGS_ORCHESTRATOR=prefect`` or ``local``
forces one; otherwise the Prefect engine when an API URL is configured (the
environment, the Prefect profile, the test harness), in-process when none is.

Inside a Prefect run :func:`call` is a plain task call, so the flows read the same
either way.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable
from typing import Any, TypeVar

from tasks.runtime import FLOW_LOGGER, TASK_LOGGER, current_task, get_run_logger, in_prefect_run

__all__ = ["ORCHESTRATOR_ENV", "call", "get_run_logger", "run_flow", "use_prefect_engine"]

#: ``prefect``: always the Prefect engine; ``local``: never; unset or ``auto``: by the API URL.
ORCHESTRATOR_ENV = "RATINGS_ORCHESTRATOR"

R = TypeVar("R")


def use_prefect_engine() -> bool:
    """Run flows under the Prefect engine? (See the module's docstring.)"""
    chosen = os.environ.get(ORCHESTRATOR_ENV, "auto").strip().lower()
    if chosen == "prefect":
        return True
    if chosen == "local":
        return False
    if chosen not in ("", "auto"):
        raise ValueError(f"{ORCHESTRATOR_ENV} must be prefect, local or auto, not {chosen!r}")
    if os.environ.get("PREFECT_API_URL"):
        return True
    # The Prefect profile and temporary settings (the test harness) may name an API too.
    from prefect.settings import get_current_settings

    return bool(get_current_settings().api.url)


def run_flow(flow: Any, **parameters: Any) -> Any:
    """Call ``flow`` with ``parameters``: through the Prefect engine, or its body in-process."""
    if use_prefect_engine():
        return flow(**parameters)
    logging.getLogger(FLOW_LOGGER).debug("flow %s runs in-process (no Prefect API configured)", flow.name)
    return flow.fn(**parameters)


def _delay(task: Any, attempt: int) -> float:
    delays = task.retry_delay_seconds
    if delays is None:
        return 0.0
    if isinstance(delays, (int, float)):
        return float(delays)
    listed = list(delays)
    return float(listed[min(attempt, len(listed) - 1)]) if listed else 0.0


def call(task: Callable[..., R], *args: Any, **kwargs: Any) -> R:
    """Run one task: a Prefect task run inside a Prefect run, else its function in-process.

    In-process, the task keeps its retries (``retries``, ``retry_delay_seconds``) and
    logs as a Prefect task run would (the CLI's progress follows ``Finished in state``).
    """
    if in_prefect_run():
        return task(*args, **kwargs)
    prefect_task: Any = task
    name = str(getattr(prefect_task, "name", None) or getattr(task, "__name__", "task"))
    function = getattr(prefect_task, "fn", task)
    retries = int(getattr(prefect_task, "retries", 0) or 0)
    log = logging.LoggerAdapter(logging.getLogger(TASK_LOGGER), {"task_name": name})
    token = current_task.set(name)
    try:
        for attempt in range(retries + 1):
            try:
                result: R = function(*args, **kwargs)
            except Exception as error:
                if attempt >= retries:
                    log.error("Finished in state Failed(%s: %s)", type(error).__name__,
                              (str(error).splitlines() or [""])[0])
                    raise
                pause = _delay(prefect_task, attempt)
                log.warning("Task run failed (%s); retry %d of %d in %.0f s", type(error).__name__,
                            attempt + 1, retries, pause)
                time.sleep(pause)
            else:
                log.info("Finished in state Completed()")
                return result
        raise AssertionError("unreachable")   # pragma: no cover
    finally:
        current_task.reset(token)
