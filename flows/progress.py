"""What a ``ratings`` command shows while its flow runs: the stages as progress bars on a
terminal, plain lines otherwise; and the quiet way the other commands run their flows.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
import time
from collections.abc import Iterator
from typing import Any


@contextlib.contextmanager
def url_in_environment(url: str | None) -> Iterator[None]:
    """``RATINGS_WAREHOUSE_URL=url`` for the body (restored after).

    The flows get the warehouse from the environment, never as a parameter: Prefect
    stores a flow run's parameters (its database, the UI), and a URL may hold a
    password.
    """
    if url is None:
        yield
        return
    before = os.environ.get("RATINGS_WAREHOUSE_URL")
    os.environ["RATINGS_WAREHOUSE_URL"] = url
    try:
        yield
    finally:
        if before is None:
            os.environ.pop("RATINGS_WAREHOUSE_URL", None)
        else:
            os.environ["RATINGS_WAREHOUSE_URL"] = before


@contextlib.contextmanager
def quiet_flow_logs() -> Iterator[None]:
    """Keep a flow's log lines off the console for the body (restored after).

    The commands without progress bars (``seed``, ``list``, ``report``, ``approve``,
    ``decline``, ``site``) print what their flow did, and a user's mistake as one line
    (README, exit codes), as they did before they ran flows. In-process, a failed task
    logs ``Finished in state Failed(...)`` on ``ratings.task_runs``: those records go
    nowhere. Under the Prefect engine the run's logs still reach the Prefect API (its
    own handler); only Prefect's console lines (``Beginning flow run``, the failed
    task's error) stay off the terminal, below CRITICAL.
    """
    from tasks.runtime import FLOW_LOGGER, TASK_LOGGER

    sink = logging.NullHandler()
    kept = [(logger, logger.propagate) for logger in (logging.getLogger(TASK_LOGGER), logging.getLogger(FLOW_LOGGER))]
    for logger, _ in kept:
        logger.addHandler(sink)   # without a handler, logging's last resort would print warnings
        logger.propagate = False
    consoles = {h for logger in (logging.getLogger(), logging.getLogger("prefect")) for h in logger.handlers
                if type(h).__name__ == "PrefectConsoleHandler"}
    muted = [(h, h.level) for h in consoles]
    for h, _ in muted:
        h.setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        for h, level in muted:
            h.setLevel(level)
        for logger, propagate in kept:
            logger.removeHandler(sink)
            logger.propagate = propagate


def quiet_flow(flow: Any, warehouse_url: str | None, **parameters: Any) -> Any:
    """Run a command's flow (``run_flow``): the warehouse URL reaches it through the
    environment, never as a flow parameter, and its log lines stay off the console."""
    from flows.orchestration import run_flow

    with url_in_environment(warehouse_url), quiet_flow_logs():
        return run_flow(flow, warehouse_url=None, **parameters)


#: The stages a user sees, by the Prefect task that does each (flows/nightly.py, backfill.py, whatif.py).
STAGES = {
    "ingest_inbox": "ingest", "validate_batch": "validate", "rate_federation": "rate",
    "load_federation": "load", "publish_federation": "publish", "stored_changes": "read", "rate_in_blocks": "rate",
    "read_state": "read", "read_added": "read files", "rate_whatif": "rate", "publish_site": "site",
}


class StageProgress(logging.Handler):
    """Follows the flow's task runs through their log records: a rich progress bar per
    stage on a terminal, plain lines otherwise.

    The tasks already log what they did and Prefect logs each task run's final state, so
    the flows need no hook of their own.
    """

    def __init__(self, tasks: list[str], live: bool) -> None:
        super().__init__(level=logging.INFO)
        self.tasks = tasks
        self.live = live
        self.started = time.monotonic()
        self.done: dict[str, int] = {}
        self.bars: Any = None
        self.ids: dict[str, Any] = {}
        if live:
            from rich.console import Console
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                SpinnerColumn,
                TextColumn,
                TimeElapsedColumn,
            )

            # On stderr, so that `--format csv|json` output on stdout stays clean.
            self.bars = Progress(
                SpinnerColumn(), TextColumn("{task.fields[stage]:<10}"), BarColumn(bar_width=24),
                MofNCompleteColumn(), TimeElapsedColumn(), TextColumn("{task.description}"),
                console=Console(stderr=True),
            )
            for name in tasks:
                if STAGES[name] not in self.ids:
                    self.ids[STAGES[name]] = self.bars.add_task("", total=None, stage=STAGES[name])

    def emit(self, record: logging.LogRecord) -> None:
        name = getattr(record, "task_name", None)
        stage = STAGES.get(str(name)) if name in self.tasks else None
        if stage is None:
            return
        message = record.getMessage()
        finished = message.startswith("Finished in state")
        if finished:
            self.done[stage] = self.done.get(stage, 0) + 1
        if self.bars is not None:
            bar = self.ids[stage]
            if finished:
                self.bars.update(bar, total=self.done[stage], completed=self.done[stage])
            else:
                self.bars.update(bar, description=message[:100])
        elif not finished or "Completed" not in message:
            print(f"[{time.monotonic() - self.started:6.1f}s] {stage}: {message}", file=sys.stderr, flush=True)

    def close_bars(self) -> None:
        if self.bars is not None:
            for stage, bar in self.ids.items():
                self.bars.update(bar, total=self.done.get(stage, 0), completed=self.done.get(stage, 0))
            self.bars.stop()
        super().close()


class FlowLines(logging.Handler):
    """A flow's own log lines when it runs in-process, printed beside the progress bars."""

    def __init__(self, progress: StageProgress, level: int) -> None:
        super().__init__(level=level)
        self.progress = progress
        self.flow_level = level

    def emit(self, record: logging.LogRecord) -> None:
        if getattr(record, "summary", False):
            return   # the night's summary line: the command prints the summary itself
        line = f"{record.levelname.lower()}: {record.getMessage()}"
        if self.progress.bars is not None:
            self.progress.bars.console.print(line, markup=False, highlight=False)
        else:
            print(f"[{time.monotonic() - self.progress.started:6.1f}s] {line}", file=sys.stderr, flush=True)


@contextlib.contextmanager
def progress(tasks: list[str]) -> Iterator[None]:
    """Show the flow's stages while it runs: bars on a terminal, plain log lines when stdout
    is not one (a log file, a pipe, a scheduler)."""
    from tasks.runtime import FLOW_LOGGER, TASK_LOGGER

    live = sys.stdout.isatty()
    handler = StageProgress(tasks, live)
    # Prefect's task-run logger under the engine; the plain one when the flow runs in-process.
    loggers = [logging.getLogger("prefect.task_runs"), logging.getLogger(TASK_LOGGER)]
    # In-process, the flow's own lines (an error in one federation) have no Prefect console:
    # warnings and errors always print, the rest when there are no bars.
    flow_lines = FlowLines(handler, logging.WARNING if live else logging.INFO)
    flow_logger = logging.getLogger(FLOW_LOGGER)
    flow_logger.addHandler(flow_lines)
    # Printed here, once: not again by whatever handles the root logger (Prefect's console).
    plain = [(logger, logger.level, logger.propagate) for logger in (logging.getLogger(TASK_LOGGER), flow_logger)]
    for logger, _, _ in plain:
        logger.setLevel(logging.INFO)
        logger.propagate = False
    muted: list[tuple[logging.Handler, int]] = []
    if live:
        # Prefect's own console lines would tear through the bars: only its warnings print meanwhile.
        for h in logging.getLogger().handlers:
            if type(h).__name__ == "PrefectConsoleHandler":
                muted.append((h, h.level))
                h.setLevel(logging.WARNING)
        handler.bars.start()
    for logger in loggers:
        logger.addHandler(handler)
    try:
        yield
    finally:
        for logger in loggers:
            logger.removeHandler(handler)
        flow_logger.removeHandler(flow_lines)
        for logger, level, propagate in plain:
            logger.setLevel(level)
            logger.propagate = propagate
        handler.close_bars()
        for h, level in muted:
            h.setLevel(level)
