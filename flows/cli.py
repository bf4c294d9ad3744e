"""The ``ratings`` command line (DESIGN.md, "CLI").

``run``, ``backfill`` and ``whatif`` run the flows, showing their stages as they go:
under the Prefect engine when a Prefect API is configured (``PREFECT_API_URL``, the
profile), else in-process, without starting a Prefect server
(``flows/orchestration.py``; ``RATINGS_ORCHESTRATOR=prefect|local`` forces one way).
The other commands (``seed``, ``list``, ``report``, ``approve``, ``decline``, ``site``)
run their own flows the same way: the flows orchestrate tasks, the tasks touch the
stages, and the commands keep the presentation. A user's mistake (an unknown federation,
a missing file, an unreachable database) ends with a one-line reason and a
non-zero exit code, never a traceback.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import os
import sys
import time
from collections.abc import Callable, Iterator
from datetime import date
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn, ParamSpec

import typer
from typer.core import TyperGroup

if TYPE_CHECKING:
    from flows.decide import Decision

os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
os.environ.setdefault("GX_ANALYTICS_ENABLED", "false")
os.environ.setdefault("DO_NOT_TRACK", "1")
# Forced onto the Prefect engine without PREFECT_API_URL (RATINGS_ORCHESTRATOR=prefect), a flow
# call starts a temporary server; on a busy machine it took more than Prefect's default 20 s
# to answer and `ratings run` died with a timeout.
os.environ.setdefault("PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS", "90")


def _use_config(ctx: typer.Context, param: typer.CallbackParam, value: str | None) -> None:
    """Validate the installation's config before anything runs (``--config`` / ``$RATINGS_CONFIG``)."""
    from flows.config import ConfigError, use_config

    try:
        use_config(value)
    except ConfigError as error:
        _fail(str(error))


class _Commands(TyperGroup):
    """Every command, whoever adds it, takes ``--config FILE`` before or after its name
    (DESIGN.md, CLI): ``ratings --config F run`` and ``ratings run --config F`` alike."""

    def resolve_command(self, ctx, args):  # type: ignore[no-untyped-def]
        name, command, rest = super().resolve_command(ctx, args)
        kept: list[str] = []
        chosen: str | None = None
        items = iter(rest)
        for arg in items:
            if arg == "--":
                kept += [arg, *items]
                break
            if arg == "--config":
                chosen = next(items, None)
                if chosen is None:
                    _fail("--config expects a file name", code=64)
            elif arg.startswith("--config="):
                chosen = arg.split("=", 1)[1]
            else:
                kept.append(arg)
        if chosen is not None and not any(a in ("--help", "-h") for a in kept):
            _use_config(ctx, None, chosen)   # type: ignore[arg-type]
        return name, command, kept


app = typer.Typer(
    cls=_Commands,
    name="ratings",
    help="Federation Ratings: result files in, official rating lists out.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

def _version_callback(value: bool) -> None:
    if value:
        from importlib.metadata import PackageNotFoundError, version

        try:
            typer.echo(f"ratings {version('federation-ratings')}")
        except PackageNotFoundError:
            typer.echo("ratings (version unknown: not installed)")
        raise typer.Exit()


WarehouseOpt = Annotated[
    str | None,
    typer.Option("--warehouse", help="Warehouse URL (default: $RATINGS_WAREHOUSE_URL or sqlite:///ratings.db)."),
]
FederationOpt = Annotated[str | None, typer.Option("--federation", help="Federation id: ajusc, fide, egf.")]
SiteOpt = Annotated[Path, typer.Option("--site", help="Folder of the static publication site, regenerated after the run.")]
NoSiteOpt = Annotated[bool, typer.Option("--no-site", help="Do not regenerate the publication site.")]


class ListFormat(str, Enum):
    table = "table"
    csv = "csv"
    json = "json"
    html = "html"
    fide_txt = "fide-txt"
    fide_xml = "fide-xml"
    egd = "egd"
    xlsx = "xlsx"


@app.callback()
def _root(
    config: Annotated[
        str | None,
        typer.Option("--config", envvar="RATINGS_CONFIG", metavar="FILE", is_eager=True, callback=_use_config,
                     help="The installation's federations.toml: its tables override the packaged ones key by key."),
    ] = None,
    show_version: Annotated[
        bool, typer.Option("--version", metavar="", help="Print the version and exit.", callback=_version_callback, is_eager=True)
    ] = False,
) -> None:
    """Federation Ratings: result files in, official rating lists out.

    Every command takes --config FILE (before or after its name) or $RATINGS_CONFIG.
    """
    if "RATINGS_LOCK_WAIT_S" in os.environ:   # nan would wait forever: a usage error, before anything runs
        from warehouse.guard import lock_wait_s

        try:
            lock_wait_s()
        except ValueError as error:
            _fail(str(error), code=64)


P = ParamSpec("P")


def _friendly(command: Callable[P, None]) -> Callable[P, None]:
    """Turn a user's mistake raised deep inside (a domain ``ValueError``, a missing file, an
    unreachable database) into one line on stderr and exit code 1, another run holding the
    warehouse into exit code 3, and anything unexpected into one line, the path of a log
    file with the details, and exit code 2 (``flows.errors``): never a traceback."""

    @functools.wraps(command)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> None:
        from sqlalchemy.exc import SQLAlchemyError

        from flows import errors

        try:
            if _engine_mode():   # every command runs a flow
                from flows.orchestration import temporary_server_output_to_log

                errors.quiet_console_tracebacks()   # Prefect logs a failed flow's traceback
                temporary_server_output_to_log()
            command(*args, **kwargs)
        except (typer.Exit, typer.Abort, KeyboardInterrupt, SystemExit):
            raise
        except errors_busy() as error:
            _fail(str(error), code=errors.EXIT_BUSY)
        except (ValueError, OSError) as error:
            _fail(errors.mask_secrets(str(error)))
        except SQLAlchemyError as error:
            from warehouse import redact

            _fail(f"warehouse error: {redact(str(getattr(error, 'orig', None) or error)).splitlines()[0]}")
        except Exception as error:  # noqa: BLE001 - the last line of defence: no traceback
            _unexpected(error, command.__name__)

    return wrapper


def _engine_mode() -> bool:
    """Do the flows run under the Prefect engine (``flows.orchestration``)?"""
    from flows.orchestration import use_prefect_engine

    return use_prefect_engine()


def errors_busy() -> type[Exception]:
    """The exception another run's warehouse lock raises (``warehouse.guard``)."""
    try:
        from warehouse.guard import WarehouseBusyError
    except ImportError:  # pragma: no cover - the guard ships with the warehouse
        return _NeverRaised
    return WarehouseBusyError


class _NeverRaised(Exception):
    """Placeholder for an exception class that does not exist."""


def _unexpected(error: BaseException, command: str) -> None:
    from flows import errors

    try:
        where = f"details in {errors.write_error_log(error, command)}"
    except OSError as log_error:
        where = f"and the log could not be written: {log_error}"
    typer.echo(f"ratings: internal error ({errors.one_line(error)}); {where}", err=True)
    raise typer.Exit(code=errors.EXIT_INTERNAL)


def _fail(message: str, code: int = 1) -> None:
    first = message.strip().splitlines()
    typer.echo(f"ratings: {first[0] if first else message}"
               + (f" (and {len(first) - 1} more line(s))" if len(first) > 1 else ""), err=True)
    raise typer.Exit(code=code)


def _parse_date(value: str | None, option: str) -> date | None:
    if value is None:
        return None
    try:
        return date.fromisoformat(value)
    except ValueError:
        _fail(f"{option} expects an ISO date (YYYY-MM-DD), not {value!r}", code=64)
    return None


@contextlib.contextmanager
def _url_in_environment(url: str | None) -> Iterator[None]:
    """``RATINGS_WAREHOUSE_URL=url`` for the body (restored after).

    The flows get the warehouse from the environment, never as a parameter: Prefect
    stores a flow run's parameters (its database, the UI), and a URL may hold a
    password (issue 9).
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
def _quiet_flow_logs() -> Iterator[None]:
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


def _quiet_flow(flow: Any, warehouse_url: str | None, **parameters: Any) -> Any:
    """Run a command's flow (``run_flow``): the warehouse URL reaches it through the
    environment, never as a flow parameter, and its log lines stay off the console."""
    from flows.orchestration import run_flow

    with _url_in_environment(warehouse_url), _quiet_flow_logs():
        return run_flow(flow, warehouse_url=None, **parameters)


def _engine(url: str | None):  # type: ignore[no-untyped-def]
    import warehouse

    return warehouse.get_engine(url)


def _read_engine(url: str | None):  # type: ignore[no-untyped-def]
    """The engine of a read-only command: an SQLite warehouse that is not there is an error,
    never a new empty database (``warehouse.existing``)."""
    from warehouse.existing import require_existing

    require_existing(url)
    return _engine(url)


#: The stages a user sees, by the Prefect task that does each (flows/nightly.py, backfill.py, whatif.py).
STAGES = {
    "ingest_inbox": "ingest", "validate_batch": "validate", "rate_federation": "rate",
    "load_federation": "load", "publish_federation": "publish", "stored_changes": "read",
    "read_state": "read", "read_added": "read files", "rate_whatif": "rate", "publish_site": "site",
}

#: Above this many competitions a night's summary gives counts and only the refused ones.
SUMMARY_ROWS = 20


class _StageProgress(logging.Handler):
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


class _FlowLines(logging.Handler):
    """A flow's own log lines when it runs in-process, printed beside the progress bars."""

    def __init__(self, progress: _StageProgress, level: int) -> None:
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
def _progress(tasks: list[str]) -> Iterator[None]:
    """Show the flow's stages while it runs: bars on a terminal, plain log lines when stdout
    is not one (a log file, a pipe, a scheduler)."""
    from tasks.runtime import FLOW_LOGGER, TASK_LOGGER

    live = sys.stdout.isatty()
    handler = _StageProgress(tasks, live)
    # Prefect's task-run logger under the engine; the plain one when the flow runs in-process.
    loggers = [logging.getLogger("prefect.task_runs"), logging.getLogger(TASK_LOGGER)]
    # In-process, the flow's own lines (an error in one federation) have no Prefect console:
    # warnings and errors always print, the rest when there are no bars.
    flow_lines = _FlowLines(handler, logging.WARNING if live else logging.INFO)
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


@app.command()
@_friendly
def run(
    inbox: Annotated[Path, typer.Option(help="Folder of result files to process.")] = Path("inbox"),
    warehouse_url: WarehouseOpt = None,
    federation: FederationOpt = None,
    as_of: Annotated[str | None, typer.Option("--as-of", help="Date of the published lists (YYYY-MM-DD).")] = None,
    reports: Annotated[Path, typer.Option(help="Folder for the organisers' reports.")] = Path("reports"),
    gx_root: Annotated[Path | None, typer.Option("--gx-root", help="Great Expectations project folder (Data Docs).")] = None,
    site: SiteOpt = Path("site"),
    no_site: NoSiteOpt = False,
    dask_workers: Annotated[int, typer.Option(
        "--dask-workers", min=0, envvar="RATINGS_DASK_WORKERS",
        help="Validate the federations in parallel on a local Dask cluster of N processes "
             "(under the Prefect engine; in-process it is ignored). 0: no Dask.")] = 0,
    no_deliver: Annotated[bool, typer.Option(
        "--no-deliver", help="E-mail nothing tonight (the reports are still written; the next run "
                             "sends what is new then).")] = False,
) -> None:
    """The nightly job, one shot: ingest, validate, rate, load, publish, e-mail the reports."""
    from flows.config import federation_config

    day = _parse_date(as_of, "--as-of")
    if federation is not None:
        federation_config(federation)
    if not inbox.is_dir():
        _fail(f"inbox folder {str(inbox)!r} does not exist")
    _engine(warehouse_url)  # migrate (or refuse) before the flow starts
    from flows.nightly import nightly
    from flows.orchestration import run_flow

    with _url_in_environment(warehouse_url), _progress(   # the URL is never a flow parameter: Prefect stores those
        ["ingest_inbox", "validate_batch", "rate_federation", "load_federation", "publish_federation", "publish_site"]
    ):
        summary = run_flow(
            nightly, dask_workers=dask_workers, inbox=str(inbox), warehouse_url=None, federation=federation, as_of=day,
            reports_dir=str(reports), gx_root=str(gx_root) if gx_root else None,
            site_dir=None if no_site else str(site), deliver=not no_deliver,
        )
    _print_summary(summary)
    failed = getattr(summary, "internal_errors", {})
    if failed:
        # The other federations ran to the end; the exit code says one did not (README, exit codes).
        first, *others = sorted(failed.items())
        more = f" (and in {', '.join(fed for fed, _ in others)}: see the file outcomes)" if others else ""
        head, _, where = first[1].rpartition("; ")
        from flows import errors

        typer.echo(f"ratings: {head}{more}; {where}", err=True)
        raise typer.Exit(code=errors.EXIT_INTERNAL)


def _shown(text: object) -> str:
    """Text from a file as the terminal shows it: control characters escaped, no rich markup."""
    from rich.markup import escape

    from tasks.check import terminal_text

    return escape(terminal_text(text, keep=""))


def _console() -> Any:
    """A rich console for a command's output: the terminal's width on a terminal; piped or
    redirected, as wide as the content, so that no name is wrapped in the middle."""
    from rich.console import Console

    return Console() if sys.stdout.isatty() else Console(width=100_000)


def _print_summary(summary) -> None:  # type: ignore[no-untyped-def]
    from rich.table import Table

    console = _console()
    console.print(
        f"[bold]nightly as of {summary.as_of}[/bold]: {summary.files_seen} file(s) in the inbox, "
        f"{len(summary.files_skipped)} already loaded"
    )
    rows = [(fed, cid, status) for fed, comps in sorted(summary.competitions.items()) for cid, status in comps.items()]
    if len(rows) > SUMMARY_ROWS:
        # A thousand competitions: the counts, then only what the officer must look at.
        counts: dict[tuple[str, str], int] = {}
        for fed, _, status in rows:
            counts[fed, status] = counts.get((fed, status), 0) + 1
        console.print(", ".join(f"{fed}: {n} {status}" for (fed, status), n in sorted(counts.items())))
        rows = [row for row in rows if row[2] != "accepted"]
    table = Table("federation", "competition", "status")
    for row in rows:
        table.add_row(*map(_shown, row))
    if table.row_count:
        console.print(table)
    outcomes = getattr(summary, "file_outcomes", {})
    if len(outcomes) > SUMMARY_ROWS:
        # As for competitions: only the files the officer must look at.
        outcomes = {name: text for name, text in outcomes.items()
                    if not text.startswith(("accepted", "loaded", "already loaded", "ignored"))}
    if outcomes:
        files = Table("file", "outcome")
        files.columns[1].overflow = "fold"   # a log file's path is broken over lines, never cut with "..."
        for name, text in sorted(outcomes.items()):
            files.add_row(_shown(name), _shown(text))
        console.print(files)
    for fed, pub in sorted(summary.published.items()):
        if fed == "unknown":   # the files of no federation: reported above, no list of theirs
            continue
        if pub.edition is None:   # the list in force still stands, with its own size
            console.print(f"{fed}: list unchanged (no new edition tonight)"
                          + (f", {pub.players_listed} player(s) listed" if pub.players_listed else ""))
            continue
        edition = f"edition {pub.edition}" if pub.edition is not None else "list unchanged"
        added = getattr(pub, "players_new", 0)
        console.print(
            f"{fed}: {pub.players_listed} player(s) listed, {pub.players_changed} rating(s) changed"
            + (f", {added} new player(s)" if added else "") + f", {edition}"
        )
    if summary.report_paths:
        folders = sorted({str(Path(p).parent) for p in summary.report_paths})
        console.print(f"reports written to {', '.join(folders)}", markup=False)
    delivered = getattr(summary, "delivered", None)
    if delivered is not None:
        for line in delivered.lines():
            console.print(_plain(line), markup=False, highlight=False)


def _plain(text: object) -> str:
    """Text from a file on a plain line (no rich markup): control characters escaped."""
    from tasks.check import terminal_text

    return terminal_text(text, keep="")


@app.command()
@_friendly
def seed(
    file: Annotated[Path, typer.Argument(help="A starting rating list (*.ratings.csv).")],
    federation: Annotated[str, typer.Option("--federation", help="Federation id: ajusc, fide, egf.")],
    warehouse_url: WarehouseOpt = None,
) -> None:
    """Import a federation's starting rating list (the list it brings to the pipeline)."""
    from flows.config import federation_config

    federation_config(federation)
    if not file.is_file():
        _fail(f"no such file: {file}")
    _engine(warehouse_url)  # migrate (or refuse) before the flow starts
    from flows.seed import seed as seed_flow

    loaded = _quiet_flow(seed_flow, warehouse_url, file=str(file), federation=federation)
    edition = loaded.edition
    typer.echo(f"{federation}: {loaded.players} player(s) seeded from {loaded.source}"
               + (f" (edition {edition}: the next editions are {edition + 1}, {edition + 2}, ...)"
                  if edition is not None else ""))
    if loaded.competitions == 0:
        typer.echo(f"no competition of {federation} is in the warehouse yet: `ratings run` rates the next ones from this list")
        return
    typer.echo(
        "competitions already rated are not re-rated by a seed: run "
        f"`ratings backfill --federation {federation} --from {loaded.as_of or 'DATE'!s}` to re-rate them from this list"
    )


@app.command()
@_friendly
def backfill(
    federation: Annotated[str, typer.Option("--federation", help="Federation id: ajusc, fide, egf.")],
    from_: Annotated[str, typer.Option("--from", help="Re-rate from this date (YYYY-MM-DD).")],
    to: Annotated[str | None, typer.Option("--to", help="Report changes up to this date.")] = None,
    warehouse_url: WarehouseOpt = None,
    site: SiteOpt = Path("site"),
    no_site: NoSiteOpt = False,
) -> None:
    """Re-rate history from a date and republish the list."""
    from flows.config import federation_config

    federation_config(federation)
    start = _parse_date(from_, "--from")
    end = _parse_date(to, "--to")
    if start is not None and end is not None and end < start:
        _fail(f"--to {end} is before --from {start}: give a --to on or after --from", code=64)
    _engine(warehouse_url)
    from flows.backfill import backfill as backfill_flow
    from flows.orchestration import run_flow

    with _url_in_environment(warehouse_url), _progress(   # the URL is never a flow parameter: Prefect stores those
        ["stored_changes", "rate_federation", "load_federation", "publish_federation", "publish_site"]
    ):
        result = run_flow(backfill_flow, federation=federation, from_date=start, to_date=end, warehouse_url=None,
                               site_dir=None if no_site else str(site))
    typer.echo(
        f"{federation}: {result.competitions_rerated} competition(s) re-rated from {start}, "
        f"{result.changes_differing} rating change(s) differ, "
        + (f"edition {result.edition}" if result.edition is not None else "list unchanged")
    )


class WhatIfFormat(str, Enum):
    table = "table"
    csv = "csv"
    json = "json"


@app.command()
@_friendly
def whatif(
    federation: Annotated[str, typer.Option("--federation", help="Federation id: ajusc, fide, egf.")],
    set_rating: Annotated[list[str] | None, typer.Option("--set-rating", metavar="PLAYER=RATING",
                          help="A player's entry rating (repeatable).")] = None,
    set_rank: Annotated[list[str] | None, typer.Option("--set-rank", metavar="PLAYER=RANK",
                        help="An EGF newcomer's declared grade, e.g. 3k or 1d (repeatable).")] = None,
    exclude: Annotated[list[str] | None, typer.Option("--exclude", metavar="COMPETITION_ID",
                       help="Leave a competition out (repeatable).")] = None,
    add: Annotated[list[Path] | None, typer.Option("--add", metavar="FILE",
                   help="Add a result file, or replace its competition (repeatable).")] = None,
    format: Annotated[WhatIfFormat, typer.Option("--format", help="table, csv or json.")] = WhatIfFormat.table,
    warehouse_url: WarehouseOpt = None,
) -> None:
    """What if: re-rate in memory with a change and print every player whose rating would move. Writes nothing."""
    from flows.config import federation_config
    from flows.whatif import WhatIfError, check_whatif, parse_assignment

    federation_config(federation)
    ratings: dict[str, float] = {}
    for text in set_rating or []:
        player, value = parse_assignment(text, "--set-rating", "RATING")
        try:
            ratings[player] = float(value)
        except ValueError:
            raise WhatIfError(f"--set-rating {text}: {value!r} is not a rating") from None
    ranks = dict(parse_assignment(text, "--set-rank", "RANK") for text in set_rank or [])
    excluded = list(exclude or [])
    added = [str(p) for p in add or []]
    if not (ratings or ranks or excluded or added):
        _fail("whatif needs a change: --set-rating, --set-rank, --exclude or --add", code=64)
    _read_engine(warehouse_url)
    # Refuse an unknown player, competition or file here, in one line, before the flow starts.
    check_whatif(warehouse_url, federation, set_rating=ratings, set_rank=ranks, exclude=excluded, add=added)
    from flows.orchestration import run_flow
    from flows.whatif import whatif as whatif_flow

    with _url_in_environment(warehouse_url), _progress(["read_state", "read_added", "validate_batch", "rate_whatif"]):
        result = run_flow(whatif_flow, federation=federation, set_rating=ratings, set_rank=ranks, exclude=excluded,
                             add=added, warehouse_url=None)   # the URL is never a flow parameter
    frame = result.ripple
    if format is WhatIfFormat.csv:
        sys.stdout.write(frame.write_csv())
        return
    if format is WhatIfFormat.json:
        from tasks.check import json_text
        sys.stdout.write(json_text(frame.to_dicts(), indent=1) + "\n")
        return
    from rich.console import Console
    from rich.table import Table

    console = Console()
    for competition, status in sorted(result.added.items()):
        console.print(f"added {competition}: {status}")
    table = Table(*frame.columns, title=f"{federation}: {frame.height} player(s) would change")
    for row in (frame if result.shown is None else result.shown).iter_rows(named=True):   # whole as on the lists
        table.add_row(*[_whatif_cell(row, k) for k in frame.columns])
    console.print(table)


def _whatif_cell(row: dict[str, Any], key: str) -> str:
    """One cell of the what-if table, ratings whole as ``ratings list`` prints them; the change
    is the difference of the two whole figures, so that the columns add up as read."""
    value = row[key]
    if value is None:
        return ""
    if key == "delta" and row.get("rating_now") is not None and row.get("rating_whatif") is not None:
        now, then = (float(f"{row[k]:.0f}") for k in ("rating_now", "rating_whatif"))
        return f"{then - now:+.0f}"
    return f"{value:.0f}" if isinstance(value, float) else str(value)


@app.command("list")
@_friendly
def list_(
    federation: Annotated[str, typer.Option("--federation", help="Federation id: ajusc, fide, egf.")],
    as_of: Annotated[str | None, typer.Option("--as-of", help="The edition in force on this date.")] = None,
    edition: Annotated[int | None, typer.Option("--edition", help="This edition (its number).")] = None,
    list_name: Annotated[str | None, typer.Option("--list", help="Which of the federation's lists (default: its first).")] = None,
    format: Annotated[ListFormat, typer.Option(
        "--format", help="table, csv, json, html, or a federation's own list file: fide-txt, fide-xml, egd, xlsx.",
    )] = ListFormat.table,
    out: Annotated[Path | None, typer.Option("--out", help="Write the list to this file instead of printing it.")] = None,
    warehouse_url: WarehouseOpt = None,
) -> None:
    """Print a published edition of a federation's rating list (default: the latest)."""
    from flows.config import federation_config

    config = federation_config(federation)
    if edition is not None and as_of is not None:
        _fail("give --edition or --as-of, not both", code=64)
    lists = [str(x) for x in config.get("lists") or []]
    if list_name is not None and lists and list_name not in lists:
        _fail(f"--list: {federation} publishes {', '.join(lists)}, not {list_name!r}")
    if list_name is None and len(lists) > 1:
        list_name = lists[0]   # a federation with several lists: its first by default
    day = _parse_date(as_of, "--as-of")
    if format is ListFormat.xlsx and out is None and sys.stdout.isatty():
        _fail("--format xlsx writes a spreadsheet: give --out FILE (or redirect the output to a file)", code=64)
    _read_engine(warehouse_url)  # migrate (or refuse) before the flow starts
    if format.value in _LIST_FILE_FORMATS:
        _list_file(federation, format.value, list_name, edition, day, out, warehouse_url)
        return
    from flows.lookup import rating_list

    found = _quiet_flow(rating_list, warehouse_url, federation=federation, list_name=list_name, edition=edition,
                        as_of=day, export=format in (ListFormat.csv, ListFormat.json))
    if found is None:
        what = f" edition {edition}" if edition is not None else (f" on or before {as_of}" if as_of else "")
        _fail(f"no list published for {federation}{what}: run `ratings run` first")
    frame = found.entries
    title = (f"{federation} rating list, edition {found.edition} ({found.kind}), in force from {found.as_of}"
             + (f", list {list_name}" if list_name else ""))
    if format is ListFormat.csv:
        sys.stdout.write(frame.write_csv())
    elif format is ListFormat.json:
        from tasks.check import json_text
        sys.stdout.write(json_text(frame.to_dicts(), indent=1, default=str) + "\n")
    elif format is ListFormat.html:
        sys.stdout.write(list_html(frame, title))
    else:
        from rich.table import Table

        table = Table(*[c for c in frame.columns if c != "federation"], title=title)
        for row in frame.drop("federation").iter_rows():
            table.add_row(*["" if v is None else (f"{v:.0f}" if isinstance(v, float) else str(v)) for v in row])
        _console().print(table)


#: The federations' own list formats (``tasks.lookup.LIST_FILE_FORMATS``), written as files.
_LIST_FILE_FORMATS = ("fide-txt", "fide-xml", "egd", "xlsx")


def _list_file(federation: str, file_format: str, list_name: str | None, edition: int | None, day: date | None,
               out: Path | None, warehouse_url: str | None) -> None:
    """``ratings list --format fide-txt|fide-xml|egd|xlsx``: the file to ``out``, else to stdout."""
    from flows.lookup import rating_list_file

    found = _quiet_flow(rating_list_file, warehouse_url, federation=federation, file_format=file_format,
                        list_name=list_name, edition=edition, as_of=day)
    if found is None:
        what = f" edition {edition}" if edition is not None else (f" on or before {day}" if day else "")
        _fail(f"no list published for {federation}{what}: run `ratings run` first")
    header, name, data = found
    if out is None:
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
        return
    out.write_bytes(data)
    typer.echo(f"{federation} edition {header.edition} ({header.as_of}) written to {out} as {file_format}"
               f" (the federation's download name: {name})", err=True)


@app.command()
@_friendly
def approve(
    competition_id: Annotated[str, typer.Argument(help="The held competition's id.")],
    federation: Annotated[str, typer.Option("--federation", help="Federation id: ajusc, fide, egf.")],
    note: Annotated[str | None, typer.Option("--note", help="Why (shown in the organiser's report).")] = None,
    warehouse_url: WarehouseOpt = None,
) -> None:
    """The rating officer approves a held competition: the next run rates it."""
    _decide(competition_id, federation, "approve", note, warehouse_url)


@app.command()
@_friendly
def decline(
    competition_id: Annotated[str, typer.Argument(help="The held competition's id.")],
    federation: Annotated[str, typer.Option("--federation", help="Federation id: ajusc, fide, egf.")],
    reason: Annotated[str, typer.Option("--reason", help="Why it is not rated (shown in the organiser's report).")],
    warehouse_url: WarehouseOpt = None,
) -> None:
    """The rating officer declines a held competition: it is not rated."""
    _decide(competition_id, federation, "decline", reason, warehouse_url)


@app.command()
@_friendly
def reprocess(
    file: Annotated[Path, typer.Argument(help="The kept file: its path, or its name anywhere in the inbox.")],
    inbox: Annotated[Path, typer.Option("--inbox", help="The nightly run's inbox.")] = Path("inbox"),
    note: Annotated[str | None, typer.Option("--note", help="Why it is read again (kept with the request).")] = None,
    warehouse_url: WarehouseOpt = None,
) -> None:
    """The rating officer has a kept file read again: the next run processes it as a new version."""
    from flows.reprocess import reprocess as reprocess_flow

    _engine(warehouse_url)  # migrate (or refuse) before the flow starts
    asked = _quiet_flow(reprocess_flow, warehouse_url, file=str(file), inbox=str(inbox), note=note)
    name = _plain(asked.source)
    if not asked.federation:
        typer.echo(f"{name} is not loaded yet: the next `ratings run` reads it")
    elif asked.new:
        typer.echo(f"{asked.federation}: {name} will be read again by the next `ratings run` "
                   f"(request {asked.request}, by {_plain(asked.officer)})")
    else:
        typer.echo(f"{asked.federation}: {name} is already waiting to be read again (request {asked.request})")


def _decide(competition_id: str, federation: str, decision: str, note: str | None, warehouse_url: str | None) -> None:
    """Run the ``decide`` flow; one line: who decided what, and what happens to the competition now."""
    from flows.config import federation_config
    from flows.decide import decide

    federation_config(federation)
    _engine(warehouse_url)  # migrate (or refuse) before the flow starts
    decided: Decision = _quiet_flow(decide, warehouse_url, federation=federation, competition_id=competition_id,
                                    decision=decision, note=note)
    verb = "approved" if decided.decision == "approve" else "declined"
    typer.echo(
        f"{decided.federation}: {decided.competition_id} {verb} by {decided.officer}; now {decided.status}"
        + (": the next `ratings run` rates it" if decided.status == "accepted" else "")
    )


def list_html(frame, title: str) -> str:  # type: ignore[no-untyped-def]
    """One self-contained HTML page (inline style, no scripts), every value escaped.

    Examples
    --------
    >>> import polars as pl
    >>> page = list_html(pl.DataFrame({"player_id": ["1"], "name": ["<b>Anna</b>"], "rating": [1100.0]}), "a & b")
    >>> "&lt;b&gt;Anna&lt;/b&gt;" in page and "a &amp; b" in page and "<script" not in page
    True
    """
    from html import escape

    def cell(v: object) -> str:
        return "" if v is None else escape(f"{v:.0f}" if isinstance(v, float) else str(v))

    head = "".join(f"<th>{escape(c)}</th>" for c in frame.columns)
    body = "\n".join(
        "<tr>" + "".join(f"<td>{cell(v)}</td>" for v in row) + "</tr>" for row in frame.iter_rows()
    )
    return (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        f"<title>{escape(title)}</title>"
        "<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}"
        "th,td{border:1px solid #ccc;padding:.2em .6em;text-align:left}</style></head>\n"
        f"<body><h1>{escape(title)}</h1>\n<table><thead><tr>{head}</tr></thead><tbody>\n{body}\n"
        "</tbody></table></body></html>\n"
    )


@app.command()
@_friendly
def site(
    out: Annotated[Path, typer.Option("--out", help="Folder of the site (created if missing).")],
    federation: FederationOpt = None,
    warehouse_url: WarehouseOpt = None,
    workers: Annotated[int | None, typer.Option("--workers", min=1, help="Processes rendering the player cards (default: one per CPU).")] = None,
) -> None:
    """Generate the static publication site (lists, editions, players, competitions) from the warehouse."""
    from flows.config import federation_config

    if federation is not None:
        federation_config(federation)
    _read_engine(warehouse_url)  # migrate (or refuse) before the flow starts
    from flows.site import site as site_flow

    result = _quiet_flow(site_flow, warehouse_url, out=str(out), federation=federation,
                         workers=workers or os.cpu_count() or 1)
    counts = ", ".join(
        f"{fed}: {result.editions[fed]} edition(s), {result.players[fed]} player card(s), "
        f"{result.competitions[fed]} competition page(s)" for fed in result.federations
    ) or "no federation has a published list yet"
    typer.echo(f"site {out}: {counts}; {result.pages} page(s), {result.written} written, "
               f"{result.removed} removed in {result.seconds:.1f} s")
    typer.echo(f"open {(result.out / 'index.html').resolve().as_uri()}")


class CheckFormat(str, Enum):
    text = "text"
    json = "json"


@app.command()
@_friendly
def check(
    files: Annotated[list[Path], typer.Argument(metavar="FILE...", help="Result files to check.")],
    federation: Annotated[str | None, typer.Option("--federation", help="Federation id: ajusc, fide, egf.")] = None,
    format: Annotated[CheckFormat, typer.Option("--format", help="text or json.")] = CheckFormat.text,
    warehouse_url: WarehouseOpt = None,
) -> None:
    """Print the organiser's report for each file as the next night would judge it. Writes nothing."""
    from flows.check import check as check_flow
    from flows.check import check_readable, print_reports
    from flows.config import federation_config
    from flows.orchestration import run_flow

    if federation is not None:
        federation_config(federation)
    check_readable([str(f) for f in files])
    with _url_in_environment(warehouse_url):   # the URL is never a flow parameter
        reports = run_flow(check_flow, paths=[str(f) for f in files], federation=federation, warehouse_url=None)
    print_reports(reports, format.value)


@app.command()
@_friendly
def report(
    competition_id: Annotated[str, typer.Argument(help="The competition's id, or a file's name (every competition it holds, or the unreadable file's report).")],
    federation: FederationOpt = None,
    format: Annotated[str, typer.Option("--format", help="markdown or html.")] = "markdown",
    warehouse_url: WarehouseOpt = None,
) -> None:
    """Print the organiser's report for one competition."""
    if format not in ("markdown", "html"):
        _fail(f"--format expects markdown or html, not {format!r}")
    _read_engine(warehouse_url)  # migrate (or refuse) before the flow starts
    from flows.lookup import organiser_report

    rendered = _quiet_flow(organiser_report, warehouse_url, competition_id=competition_id, federation=federation,
                           fmt=format)
    if rendered is None:
        _fail(f"no competition {competition_id!r}" + (f" for {federation}" if federation else "")
              + " in the warehouse, nor a file of that name")
    from tasks.check import terminal_text

    for text in rendered:
        sys.stdout.write(terminal_text(text))


account_app = typer.Typer(help="The desk's accounts: organisers and rating officers.", no_args_is_help=True)
app.add_typer(account_app, name="account")


class Role(str, Enum):
    organiser = "organiser"
    officer = "officer"


def _password_from_stdin() -> str:
    """The first line of stdin (``--password-stdin``): never an argument, which ``ps`` would show."""
    line = sys.stdin.readline()
    password = line.removesuffix("\n")
    if not password:
        _fail("--password-stdin: no password on standard input (echo it in, or type it and press Enter)")
    return password


def _account(action: str, username: str, warehouse_url: str | None, role: str | None = None,
             federation: str | None = None, hashed: str | None = None) -> None:
    """Run the ``account`` flow; one line: what was done to which account."""
    from flows.desk import account

    _engine(warehouse_url)  # migrate (or refuse) before the flow starts
    done = _quiet_flow(account, warehouse_url, action=action, username=username, role=role,
                       federation=federation, hashed=hashed)
    what = {"add": "created", "reset": "password reset (its sessions ended)",
            "disable": "disabled (its sessions ended)"}[action]
    typer.echo(f"account {done.username} ({done.role}" + (f", {done.federation}" if done.federation else "")
               + f"): {what}")


@account_app.command("add")
@_friendly
def account_add(
    username: Annotated[str, typer.Argument(help="The user name to sign in with.")],
    role: Annotated[Role, typer.Option("--role", help="organiser (sends files) or officer (decides, manages accounts).")],
    password_stdin: Annotated[bool, typer.Option("--password-stdin", help="Read the password from standard input.")] = False,
    federation: FederationOpt = None,
    warehouse_url: WarehouseOpt = None,
) -> None:
    """Create a desk account (the first officer's, then any)."""
    from tasks.desk import password_hash

    if not password_stdin:
        _fail("give --password-stdin and the password on standard input (never on the command line)", code=64)
    _account("add", username, warehouse_url, role.value, federation, password_hash(_password_from_stdin()))


@account_app.command("reset")
@_friendly
def account_reset(
    username: Annotated[str, typer.Argument(help="The account's user name.")],
    warehouse_url: WarehouseOpt = None,
) -> None:
    """Set a new password (read from standard input) and enable the account again."""
    from tasks.desk import password_hash

    _account("reset", username, warehouse_url, hashed=password_hash(_password_from_stdin()))


@account_app.command("disable")
@_friendly
def account_disable(
    username: Annotated[str, typer.Argument(help="The account's user name.")],
    warehouse_url: WarehouseOpt = None,
) -> None:
    """Disable an account: it can no longer sign in, and its sessions end."""
    _account("disable", username, warehouse_url)


organiser_app = typer.Typer(
    help="The organisers' addresses: who receives each report (DESIGN.md, \"Delivery and the desk\").",
    no_args_is_help=True)
app.add_typer(organiser_app, name="organiser")


@organiser_app.command("add")
@_friendly
def organiser_add(
    federation: Annotated[str, typer.Option("--federation", help="Federation id: ajusc, fide, egf.")],
    email: Annotated[str, typer.Option("--email", help="The organiser's e-mail address.")],
    name: Annotated[str | None, typer.Option("--name", help="The organiser's name.")] = None,
    competitions: Annotated[str | None, typer.Option(
        "--competitions", help="Only competitions whose id matches this pattern (CAT-2026-*).")] = None,
    folder: Annotated[str | None, typer.Option(
        "--folder", help="Only files dropped in inbox/<federation>/<folder>/.")] = None,
    warehouse_url: WarehouseOpt = None,
) -> None:
    """Register an organiser's address: their reports are e-mailed to it."""
    from flows.delivery import organiser

    if competitions and folder:
        _fail("give --competitions or --folder, not both", code=64)
    _engine(warehouse_url)  # migrate (or refuse) before the flow starts
    entry = _quiet_flow(organiser, warehouse_url, action="add", federation=federation, email=email, name=name,
                        competitions=competitions, folder=folder)
    which = (f"competitions {competitions}" if competitions else f"files in inbox/{federation}/{folder}/"
             if folder else "every competition without another organiser")
    typer.echo(_plain(f"organiser entry {entry}: {federation} reports of {which} go to {email.strip()}"))


@organiser_app.command("list")
@_friendly
def organiser_list(federation: FederationOpt = None, warehouse_url: WarehouseOpt = None) -> None:
    """The organiser registry."""
    from flows.delivery import organiser

    _read_engine(warehouse_url)
    frame = _quiet_flow(organiser, warehouse_url, action="list", federation=federation)
    if not frame.height:
        typer.echo("no organiser registered (ratings organiser add --federation F --email ADDRESS)")
        return
    from rich.console import Console
    from rich.table import Table

    table = Table("entry", "federation", "email", "name", "receives")
    for row in frame.iter_rows(named=True):
        receives = (f"competitions {row['competitions']}" if row["competitions"] else
                    f"inbox/{row['federation']}/{row['folder']}/" if row["folder"] else "the rest")
        table.add_row(*(_shown(v) for v in (row["id"], row["federation"], row["email"], row["name"] or "", receives)))
    Console().print(table)


@organiser_app.command("remove")
@_friendly
def organiser_remove(
    entry: Annotated[int, typer.Argument(help="The entry's number (ratings organiser list).")],
    warehouse_url: WarehouseOpt = None,
) -> None:
    """Remove an organiser's entry from the registry."""
    from flows.delivery import organiser

    _read_engine(warehouse_url)
    removed = _quiet_flow(organiser, warehouse_url, action="remove", entry=entry)
    typer.echo(_plain(f"removed organiser entry {entry} ({removed['federation']}: {removed['email']})"))


class DeliveriesFormat(str, Enum):
    """``ratings deliveries --format``."""

    text = "text"
    json = "json"


@app.command()
@_friendly
def serve(
    host: Annotated[str, typer.Option("--host", help="Address to listen on (default: this machine only).")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", min=1, max=65535, help="Port to listen on.")] = 8470,
    inbox: Annotated[Path, typer.Option("--inbox", help="The nightly run's inbox (confirmed files go there).")] = Path("inbox"),
    warehouse_url: WarehouseOpt = None,
) -> None:
    """Serve the desk: organisers upload and check files, the rating officer decides (Ctrl-C stops it)."""
    from flows.desk import desk

    inbox.mkdir(parents=True, exist_ok=True)
    _engine(warehouse_url)  # migrate (or refuse) before the flow starts
    typer.echo(f"the desk: http://{host}:{port}/ (Ctrl-C stops it)", err=True)
    _quiet_flow(desk, warehouse_url, host=host, port=port, inbox=str(inbox.resolve()))


@app.command()
@_friendly
def deliveries(
    failed: Annotated[bool, typer.Option("--failed", help="Only what is not delivered yet.")] = False,
    federation: FederationOpt = None,
    format: Annotated[DeliveriesFormat, typer.Option("--format", help="text or json.")] = DeliveriesFormat.text,
    warehouse_url: WarehouseOpt = None,
) -> None:
    """The delivery record: each report version e-mailed, to whom, and how it went."""
    from flows.delivery import deliveries as record

    _read_engine(warehouse_url)
    frame = _quiet_flow(record, warehouse_url, failed=failed, federation=federation)
    if format is DeliveriesFormat.json:
        from tasks.check import json_text
        sys.stdout.write(json_text(frame.drop("version").to_dicts(), default=str, indent=1) + "\n")
        return
    if not frame.height:
        typer.echo("nothing undelivered" if failed else "nothing e-mailed yet")
        return
    from rich.console import Console
    from rich.table import Table

    table = Table("id", "queued", "federation", "report", "to", "status", "tries", "detail")
    for row in frame.iter_rows(named=True):
        detail = (f"sent {row['sent_at']:%Y-%m-%d %H:%M}" if row["status"] == "sent" and row["sent_at"] else
                  row["last_error"] or "")
        if row["status"] == "failed" and row["next_attempt_at"] is not None:
            detail += f"; next try after {row['next_attempt_at']:%Y-%m-%d %H:%M} UTC"
        what = "digest " + row["competition_id"] if row["kind"] == "digest" else row["competition_id"]
        table.add_row(*(_shown(v) for v in (row["id"], f"{row['queued_at']:%Y-%m-%d %H:%M}", row["federation"] or "all",
                                            what, row["recipient"], row["status"], row["attempts"], detail)))
    Console().print(table)


def main() -> None:
    """Console-script entry point: never a traceback (exit codes in ``flows.errors``); ends
    without tearing the interpreter down (:func:`_leave`)."""
    try:
        _main()
    except SystemExit as done:
        _leave(done.code)
    _leave(0)


def _leave(code: int | str | None) -> NoReturn:
    """End the process as ``sys.exit(code)`` would, less the interpreter's teardown.

    Freeing every module and object of a run that imported Great Expectations, polars and numba
    took 1.2-1.9 s of a 1M-game night (22 s) and about 1 s of every other command, for nothing:
    the system frees a process's memory at once. What the teardown does that matters is done
    here first, in its order: wait for the threads that are not daemons, run the ``atexit``
    functions (the warehouse engines' finalisers, which close their pools and so check a
    SQLite WAL back into its file; logging's shutdown, which closes its files; Prefect's
    flushes; the guard's statement count), flush stdout and stderr. No final pass of the
    cyclic garbage collector (0.4 s after a 1M night's site): what the run writes goes
    through ``with`` blocks and those finalisers, never through a collected cycle.
    """
    import atexit
    import threading

    for thread in threading.enumerate():
        if thread is not threading.current_thread() and not thread.daemon:
            thread.join()
    atexit._run_exitfuncs()
    if code is None:
        status = 0
    elif isinstance(code, int):
        status = code
    else:   # sys.exit("message"): the message on stderr, status 1
        print(code, file=sys.stderr)
        status = 1
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):   # a closed pipe (``ratings ... | head``): as Python's own exit
            status = status or 120
    os._exit(status)


def _main() -> None:
    from typer._click import exceptions as click

    from flows import errors

    try:
        code = app(standalone_mode=False)
    except click.UsageError as error:   # a missing or unknown option, a bad value: one line, 64
        where = error.ctx.command_path if error.ctx is not None else "ratings"
        typer.echo(f"{where}: {error.format_message()} (see '{where} --help')", err=True)
        sys.exit(errors.EXIT_USAGE)
    except click.ClickException as error:
        error.show()
        sys.exit(error.exit_code)
    except typer.Abort:
        typer.echo("ratings: aborted", err=True)
        sys.exit(errors.EXIT_USER)
    except ValueError as error:   # the project's domain errors subclass ValueError
        typer.echo(f"ratings: {errors.mask_secrets(str(error)).splitlines()[0]}", err=True)
        sys.exit(errors.EXIT_USER)
    except OSError as error:
        typer.echo(f"ratings: {errors.mask_secrets(str(error))}", err=True)
        sys.exit(errors.EXIT_USER)
    except Exception as error:  # noqa: BLE001 - raised outside a command (option parsing, import)
        try:
            where = f"details in {errors.write_error_log(error, ' '.join(sys.argv[1:2]))}"
        except OSError as log_error:
            where = f"and the log could not be written: {log_error}"
        typer.echo(f"ratings: internal error ({errors.one_line(error)}); {where}", err=True)
        sys.exit(errors.EXIT_INTERNAL)
    sys.exit(code if isinstance(code, int) else errors.EXIT_OK)


if __name__ == "__main__":
    main()
