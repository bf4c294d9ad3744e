"""How a flow runs: under Prefect, or in-process without a Prefect server.

Prefect orchestrates the deployments (``prefect.yaml``: schedules, workers, retries,
artifacts, the UI). A one-shot ``ratings run`` on a machine where no Prefect API is
configured runs the same flow in-process instead (:func:`run_flow`): the flow's ``.fn``,
whose task calls then run in-process too (``tasks.runtime``: the task decides, with its
retries and its log lines), with no temporary Prefect server and no ``prefect`` import.

Which way (:func:`use_prefect_engine`): ``RATINGS_ORCHESTRATOR=prefect`` or ``local``
forces one; otherwise Prefect when an API URL is configured (the environment, the
Prefect profile, the test harness), in-process when none is.

Scale out: ``run_flow(flow, dask_workers=N)`` runs the flow on a local Dask cluster of
``N`` worker processes (prefect-dask's ``DaskTaskRunner``, no dashboard), under Prefect
only; in-process it logs one line and runs sequentially. A flow maps a task over
independent calls with :func:`map_over`: submitted to Dask when the flow runs on it,
one after the other otherwise. Workers inherit the environment, so they find the
warehouse in ``$RATINGS_WAREHOUSE_URL`` as the flow does.
"""

from __future__ import annotations

import logging
import os
import sys
import time
import tomllib
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

from tasks.runtime import FLOW_LOGGER, get_run_logger, in_prefect_run

__all__ = ["DASK_WORKERS_ENV", "ORCHESTRATOR_ENV", "dask_task_runner", "get_run_logger", "map_over",
           "on_dask", "run_flow", "temporary_server_output_to_log", "use_prefect_engine"]

#: ``prefect``: always the Prefect engine; ``local``: never; unset or ``auto``: by the API URL.
ORCHESTRATOR_ENV = "RATINGS_ORCHESTRATOR"
#: Worker processes of the local Dask cluster for ``ratings run`` (``--dask-workers``); 0: none.
DASK_WORKERS_ENV = "RATINGS_DASK_WORKERS"

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
    if "prefect" not in sys.modules:
        known = api_url_in_profile(Path.cwd(), os.environ)
        if known is not None:
            return known
    # Another settings source, or Prefect already imported (the test harness's temporary
    # settings): Prefect's own answer.
    from prefect.settings import get_current_settings

    return bool(get_current_settings().api.url)


def api_url_in_profile(cwd: Path, environ: Mapping[str, str]) -> bool | None:
    r"""Does the active Prefect profile name an API? Read without importing Prefect (1-2 s).

    None when a settings source other than the environment and the profiles file could
    say otherwise (``.env`` or ``prefect.toml`` in ``cwd``, ``[tool.prefect]`` in its
    ``pyproject.toml``, a ``PREFECT_PROFILE`` choice): then the caller asks Prefect.

    Examples
    --------
    >>> import tempfile
    >>> home = Path(tempfile.mkdtemp())
    >>> api_url_in_profile(home, {"PREFECT_HOME": str(home)})     # no profiles file: ephemeral
    False
    >>> _ = (home / "profiles.toml").write_text(
    ...     'active = "prod"\n[profiles.prod]\nPREFECT_API_URL = "http://10.0.0.5:4200/api"\n')
    >>> api_url_in_profile(home, {"PREFECT_HOME": str(home)})
    True
    >>> api_url_in_profile(home, {"PREFECT_HOME": str(home), "PREFECT_PROFILE": "prod"}) is None
    True
    """
    if environ.get("PREFECT_PROFILE") or (cwd / ".env").exists() or (cwd / "prefect.toml").exists():
        return None
    pyproject = cwd / "pyproject.toml"
    try:
        if pyproject.is_file() and "tool.prefect" in pyproject.read_text(encoding="utf-8", errors="replace"):
            return None
    except OSError:
        return None
    home = Path(environ.get("PREFECT_HOME") or Path.home() / ".prefect").expanduser()
    path = Path(environ.get("PREFECT_PROFILES_PATH") or home / "profiles.toml").expanduser()
    if not path.exists():
        return False   # Prefect's default profile, "ephemeral", names no API
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return None
    active = str(data.get("active", "ephemeral"))
    profile = data.get("profiles", {}).get(active)
    if not isinstance(profile, dict):
        # A profile of Prefect's own defaults ("local" names an API): ask Prefect.
        return False if active == "ephemeral" else None
    return bool(profile.get("PREFECT_API_URL"))


def temporary_server_output_to_log() -> None:
    """Send the temporary Prefect server's own output to a file beside the error logs, not the terminal.

    Forced onto the Prefect engine with no API configured (``RATINGS_ORCHESTRATOR=prefect``),
    Prefect starts a temporary server in a child process that writes to the terminal; stopped
    at exit, its SQLAlchemy pool could print a traceback of a cancelled rollback after the
    command's one line (seen in CI), and the run's last logs, sent after it stopped, printed
    "Error logging to API". The server is Prefect's own, started when and as Prefect
    starts it: only registered in advance, the way ``prefect_test_harness`` registers its
    server, as a subclass whose child process writes ``prefect-server-<time>-<pid>.log`` in
    ``flows.errors.log_dir()`` (removed at exit when empty) and which, at exit, first lets
    Prefect's log worker deliver what it holds. Nothing changes when an API is configured.
    """
    from prefect.server.api.server import SubprocessASGIServer
    from prefect.settings import get_current_settings

    settings = get_current_settings()
    if settings.api.url or not settings.server.ephemeral.enabled or None in SubprocessASGIServer._instances:
        return

    class _LoggedServer(SubprocessASGIServer):
        log: Path | None = None

        def _run_uvicorn_command(self) -> Any:
            from flows.errors import log_dir

            stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime())
            self.log = log_dir() / f"prefect-server-{stamp}-{os.getpid()}.log"
            sys.stdout.flush()
            sys.stderr.flush()
            saved = (os.dup(1), os.dup(2))
            try:
                with self.log.open("ab") as out:   # the child inherits descriptors 1 and 2
                    os.dup2(out.fileno(), 1)
                    os.dup2(out.fileno(), 2)
                    return super()._run_uvicorn_command()
            finally:
                for fd, saved_fd in zip((1, 2), saved, strict=True):
                    os.dup2(saved_fd, fd)
                    os.close(saved_fd)

        def stop(self) -> None:   # at exit, before logging's own shutdown
            from prefect.logging.handlers import APILogWorker

            APILogWorker.drain_all(timeout=5)   # the run's last logs reach the server before it stops
            prefect_logger = logging.getLogger("prefect")
            level = prefect_logger.level
            prefect_logger.setLevel(logging.WARNING)   # no "Stopping temporary server" line
            try:
                super().stop()
            finally:
                prefect_logger.setLevel(level)
            if self.log is not None and self.log.exists() and not self.log.stat().st_size:
                self.log.unlink()

    SubprocessASGIServer._instances[None] = _LoggedServer()


def dask_task_runner(workers: int) -> Any:
    """A ``DaskTaskRunner`` on a local cluster of ``workers`` processes, one thread each, offline."""
    from prefect_dask.task_runners import DaskTaskRunner

    return DaskTaskRunner(cluster_kwargs={
        "n_workers": workers, "processes": True, "threads_per_worker": 1, "dashboard_address": None,
    })


def run_flow(flow: Any, dask_workers: int = 0, **parameters: Any) -> Any:
    """Call ``flow`` with ``parameters``: through the Prefect engine, or its body in-process.

    ``dask_workers`` > 0: under the Prefect engine the flow's task runner is a local Dask
    cluster of that many processes; in-process there is no task runner, one line says so.
    """
    if dask_workers < 0:
        raise ValueError(f"the number of Dask workers must be 0 or more, not {dask_workers}")
    if use_prefect_engine():
        if dask_workers:
            flow = flow.with_options(task_runner=dask_task_runner(dask_workers))
        return flow(**parameters)
    log = logging.getLogger(FLOW_LOGGER)
    if dask_workers:
        log.info("flow %s runs in-process (no Prefect API configured): %d Dask worker(s) ignored, "
                 "its tasks run one after the other", flow.name, dask_workers)
    log.debug("flow %s runs in-process (no Prefect API configured)", flow.name)
    return flow.fn(**parameters)


def on_dask() -> bool:
    """True inside a Prefect flow run whose task runner is prefect-dask's ``DaskTaskRunner``."""
    if not in_prefect_run():
        return False
    from prefect.context import FlowRunContext

    context = FlowRunContext.get()
    runner = getattr(context, "task_runner", None)
    if runner is None:
        return False
    try:
        from prefect_dask.task_runners import DaskTaskRunner
    except ImportError:   # pragma: no cover - prefect-dask is a dependency
        return False
    return isinstance(runner, DaskTaskRunner)


def map_over(task: Callable[..., R], calls: Sequence[tuple[Any, ...]]) -> list[R | Exception]:
    """Call ``task`` once per argument tuple of ``calls``; each call's result or its exception.

    On a Dask task runner (:func:`on_dask`) every call is submitted first, then gathered in
    order; otherwise each is a plain task call, one after the other. An exception is
    returned in its call's place (the caller decides what it stops), never raised.
    """
    if on_dask():
        prefect_task: Any = task
        futures = [prefect_task.submit(*args) for args in calls]
        outcomes: list[R | Exception] = []
        for future in futures:
            try:
                outcomes.append(future.result())
            except Exception as error:   # noqa: BLE001 - returned in its place; the caller decides
                outcomes.append(error)
        return outcomes
    results: list[R | Exception] = []
    for args in calls:
        try:
            results.append(task(*args))
        except Exception as error:   # noqa: BLE001 - returned in its place; the caller decides
            results.append(error)
    return results
