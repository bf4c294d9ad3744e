"""The ``ratings`` command line (DESIGN.md, "CLI").

``run`` and ``backfill`` run the Prefect flows (a temporary local Prefect server is
started when no ``PREFECT_API_URL`` is configured); ``seed``, ``list`` and
``report`` talk to the warehouse directly. A user's mistake (an unknown federation,
a missing file, an unreachable database) ends with a one-line reason and a
non-zero exit code, never a traceback.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import sys
from datetime import date
from enum import Enum
from pathlib import Path
from collections.abc import Callable, Iterator
from typing import Annotated, Optional, ParamSpec

import typer

os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
os.environ.setdefault("GX_ANALYTICS_ENABLED", "false")
os.environ.setdefault("DO_NOT_TRACK", "1")

app = typer.Typer(
    name="ratings",
    help="Federation Ratings: result files in, official rating lists out.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

WarehouseOpt = Annotated[
    Optional[str],
    typer.Option("--warehouse", help="Warehouse URL (default: $RATINGS_WAREHOUSE_URL or sqlite:///ratings.db)."),
]
FederationOpt = Annotated[Optional[str], typer.Option("--federation", help="Federation id: ajusc, fide, egf.")]


class ListFormat(str, Enum):
    table = "table"
    csv = "csv"
    json = "json"


P = ParamSpec("P")

LIST_COLUMNS = ["federation", "player_id", "name", "rating", "games", "status", "category", "rank"]


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
            if command.__name__ in _FLOW_COMMANDS:
                errors.quiet_console_tracebacks()   # Prefect logs a failed flow's traceback
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


#: Commands that run Prefect flows (whose console logging must not print tracebacks).
_FLOW_COMMANDS = frozenset({"run", "backfill", "whatif", "site"})


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
        _fail(f"{option} expects an ISO date (YYYY-MM-DD), not {value!r}")
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


def _engine(url: str | None):  # type: ignore[no-untyped-def]
    import warehouse

    return warehouse.get_engine(url)


@app.command()
@_friendly
def run(
    inbox: Annotated[Path, typer.Option(help="Folder of result files to process.")] = Path("inbox"),
    warehouse_url: WarehouseOpt = None,
    federation: FederationOpt = None,
    as_of: Annotated[Optional[str], typer.Option("--as-of", help="Date of the published lists (YYYY-MM-DD).")] = None,
    reports: Annotated[Path, typer.Option(help="Folder for the organisers' reports.")] = Path("reports"),
    gx_root: Annotated[Optional[Path], typer.Option("--gx-root", help="Great Expectations project folder (Data Docs).")] = None,
) -> None:
    """The nightly job, one shot: ingest, validate, rate, load, publish."""
    from flows.config import federation_config

    day = _parse_date(as_of, "--as-of")
    if federation is not None:
        federation_config(federation)
    if not inbox.is_dir():
        _fail(f"inbox folder {str(inbox)!r} does not exist")
    _engine(warehouse_url)  # migrate (or refuse) before the flow starts
    from flows.nightly import nightly

    with _url_in_environment(warehouse_url):   # never a flow parameter: Prefect stores those
        summary = nightly(
            inbox=str(inbox), warehouse_url=None, federation=federation, as_of=day,
            reports_dir=str(reports), gx_root=str(gx_root) if gx_root else None,
        )
    _print_summary(summary)


def _print_summary(summary) -> None:  # type: ignore[no-untyped-def]
    from rich.console import Console
    from rich.table import Table

    console = Console()
    console.print(
        f"[bold]nightly as of {summary.as_of}[/bold]: {summary.files_seen} file(s) in the inbox, "
        f"{len(summary.files_skipped)} already loaded"
    )
    table = Table("federation", "competition", "status")
    for fed, comps in sorted(summary.competitions.items()):
        for cid, status in comps.items():
            table.add_row(fed, cid, status)
    if table.row_count:
        console.print(table)
    for fed, pub in sorted(summary.published.items()):
        edition = f"edition {pub.edition}" if pub.edition is not None else "list unchanged"
        console.print(f"{fed}: {pub.players_listed} player(s) listed, {pub.players_changed} changed, {edition}")
    if summary.report_paths:
        folders = sorted({str(Path(p).parent) for p in summary.report_paths})
        console.print(f"reports written to {', '.join(folders)}")


@app.command()
@_friendly
def seed(
    file: Annotated[Path, typer.Argument(help="A starting rating list (*.ratings.csv).")],
    federation: Annotated[str, typer.Option("--federation", help="Federation id: ajusc, fide, egf.")],
    warehouse_url: WarehouseOpt = None,
) -> None:
    """Import a federation's starting rating list (the list it brings to the pipeline)."""
    import hashlib

    import formats
    import warehouse
    from flows.config import federation_config

    federation_config(federation)
    if not file.is_file():
        _fail(f"no such file: {file}")
    ratings = formats.read_ratings(file, federation=federation)
    count = warehouse.load_seed(
        _engine(warehouse_url), federation, ratings, source=file.name,
        source_sha256=hashlib.sha256(file.read_bytes()).hexdigest(),
    )
    typer.echo(f"{federation}: {count} player(s) seeded from {file.name}")
    as_of = ratings.get_column("as_of").drop_nulls().min() if "as_of" in ratings.columns else None
    typer.echo(
        "competitions already rated are not re-rated by a seed: run "
        f"`ratings backfill --federation {federation} --from {as_of or 'DATE'}` to re-rate them from this list"
    )


@app.command()
@_friendly
def backfill(
    federation: Annotated[str, typer.Option("--federation", help="Federation id: ajusc, fide, egf.")],
    from_: Annotated[str, typer.Option("--from", help="Re-rate from this date (YYYY-MM-DD).")],
    to: Annotated[Optional[str], typer.Option("--to", help="Report changes up to this date.")] = None,
    warehouse_url: WarehouseOpt = None,
) -> None:
    """Re-rate history from a date and republish the list."""
    from flows.config import federation_config

    federation_config(federation)
    start = _parse_date(from_, "--from")
    end = _parse_date(to, "--to")
    _engine(warehouse_url)
    from flows.backfill import backfill as backfill_flow

    with _url_in_environment(warehouse_url):   # never a flow parameter: Prefect stores those
        result = backfill_flow(federation=federation, from_date=start, to_date=end, warehouse_url=None)
    typer.echo(
        f"{federation}: {result.competitions_rerated} competition(s) re-rated from {start}, "
        f"{result.changes_differing} rating change(s) differ, "
        + (f"edition {result.edition}" if result.edition is not None else "list unchanged")
    )


@app.command("list")
@_friendly
def list_(
    federation: Annotated[str, typer.Option("--federation", help="Federation id: ajusc, fide, egf.")],
    as_of: Annotated[Optional[str], typer.Option("--as-of", help="The list in force on this date.")] = None,
    format: Annotated[ListFormat, typer.Option("--format", help="table, csv or json.")] = ListFormat.table,
    warehouse_url: WarehouseOpt = None,
) -> None:
    """Print a federation's published rating list."""
    import warehouse
    from flows.config import federation_config

    federation_config(federation)
    frame = warehouse.rating_list(_engine(warehouse_url), federation, as_of=_parse_date(as_of, "--as-of"))
    frame = frame.select([c for c in LIST_COLUMNS if c in frame.columns])
    if frame.height == 0:
        _fail(f"no list published for {federation}" + (f" on or before {as_of}" if as_of else "") + ": run `ratings run` first")
    if format is ListFormat.csv:
        sys.stdout.write(frame.write_csv())
    elif format is ListFormat.json:
        sys.stdout.write(json.dumps(frame.to_dicts(), ensure_ascii=False, indent=1) + "\n")
    else:
        from rich.console import Console
        from rich.table import Table

        table = Table(*[c for c in frame.columns if c != "federation"], title=f"{federation} rating list")
        for row in frame.drop("federation").iter_rows():
            table.add_row(*["" if v is None else (f"{v:.0f}" if isinstance(v, float) else str(v)) for v in row])
        Console().print(table)


@app.command()
@_friendly
def report(
    competition_id: Annotated[str, typer.Argument(help="The competition's id (or the file name of an unreadable file).")],
    federation: FederationOpt = None,
    format: Annotated[str, typer.Option("--format", help="markdown or html.")] = "markdown",
    warehouse_url: WarehouseOpt = None,
) -> None:
    """Print the organiser's report for one competition."""
    import validations
    from tasks.publish import report_from_warehouse

    if format not in ("markdown", "html"):
        _fail(f"--format expects markdown or html, not {format!r}")
    rep = report_from_warehouse(_engine(warehouse_url), competition_id, federation)
    if rep is None:
        _fail(f"no competition {competition_id!r}" + (f" for {federation}" if federation else "") + " in the warehouse")
    sys.stdout.write(validations.render_report(rep, fmt=format))


def main() -> None:
    """Console-script entry point: never a traceback (exit codes in ``flows.errors``)."""
    from flows import errors

    try:
        app()
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


if __name__ == "__main__":
    main()
