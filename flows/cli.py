"""The ``ratings`` command line (DESIGN.md, "CLI").

``run`` and ``backfill`` run the Prefect flows (a temporary local Prefect server is
started when no ``PREFECT_API_URL`` is configured); ``seed``, ``list`` and
``report`` talk to the warehouse directly. A user's mistake (an unknown federation,
a missing file, an unreachable database) ends with a one-line reason and a
non-zero exit code, never a traceback.
"""

from __future__ import annotations

import functools
import json
import os
import sys
from datetime import date
from enum import Enum
from pathlib import Path
from collections.abc import Callable
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

def _version_callback(value: bool) -> None:
    if value:
        from importlib.metadata import PackageNotFoundError, version

        try:
            typer.echo(f"ratings {version('federation-ratings')}")
        except PackageNotFoundError:
            typer.echo("ratings (version unknown: not installed)")
        raise typer.Exit()


@app.callback()
def _main(
    show_version: Annotated[
        bool, typer.Option("--version", help="Print the version and exit.", callback=_version_callback, is_eager=True)
    ] = False,
) -> None:
    """Federation Ratings: result files in, official rating lists out."""


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
#: Rating systems whose federations publish whole ratings (list exports print integers).
INTEGER_SYSTEMS = frozenset({"barruf", "fide-elo", "egf-gor"})


def _friendly(command: Callable[P, None]) -> Callable[P, None]:
    """Turn a user's mistake raised deep inside (a domain ``ValueError``, a missing file, an
    unreachable database) into one line on stderr and exit code 1."""

    @functools.wraps(command)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> None:
        from sqlalchemy.exc import SQLAlchemyError

        try:
            command(*args, **kwargs)
        except (ValueError, OSError) as error:
            _fail(str(error))
        except SQLAlchemyError as error:
            from warehouse import redact

            _fail(f"warehouse error: {redact(str(getattr(error, 'orig', None) or error)).splitlines()[0]}")

    return wrapper


def _fail(message: str) -> None:
    typer.echo(f"ratings: {message}", err=True)
    raise typer.Exit(code=1)


def _parse_date(value: str | None, option: str) -> date | None:
    if value is None:
        return None
    try:
        return date.fromisoformat(value)
    except ValueError:
        _fail(f"{option} expects an ISO date (YYYY-MM-DD), not {value!r}")
    return None


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

    summary = nightly(
        inbox=str(inbox), warehouse_url=warehouse_url, federation=federation, as_of=day,
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
    outcomes = getattr(summary, "file_outcomes", {})
    if outcomes:
        files = Table("file", "outcome")
        for name, text in sorted(outcomes.items()):
            files.add_row(name, text)
        console.print(files)
    for fed, pub in sorted(summary.published.items()):
        edition = f"edition {pub.edition}" if pub.edition is not None else "list unchanged"
        added = getattr(pub, "players_new", 0)
        console.print(
            f"{fed}: {pub.players_listed} player(s) listed, {pub.players_changed} rating(s) changed"
            + (f", {added} new player(s)" if added else "") + f", {edition}"
        )
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
    if warehouse.history(_engine(warehouse_url), federation).competitions.height == 0:
        typer.echo(f"no competition of {federation} is in the warehouse yet: `ratings run` rates the next ones from this list")
        return
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

    result = backfill_flow(federation=federation, from_date=start, to_date=end, warehouse_url=warehouse_url)
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
    if format in (ListFormat.csv, ListFormat.json):
        frame = _export_frame(frame, warehouse_url, federation, _parse_date(as_of, "--as-of"))
    if format is ListFormat.csv:
        sys.stdout.write(frame.write_csv())
    elif format is ListFormat.json:
        sys.stdout.write(json.dumps(frame.to_dicts(), ensure_ascii=False, indent=1, default=str) + "\n")
    else:
        from rich.console import Console
        from rich.table import Table

        table = Table(*[c for c in frame.columns if c != "federation"], title=f"{federation} rating list")
        for row in frame.drop("federation").iter_rows():
            table.add_row(*["" if v is None else (f"{v:.0f}" if isinstance(v, float) else str(v)) for v in row])
        Console().print(table)


def _export_frame(frame, warehouse_url: str | None, federation: str, as_of: date | None):  # type: ignore[no-untyped-def]
    """CSV/JSON exports: integer ratings where the federation publishes integers (every
    rating of the list is whole), and the list's ``edition`` and ``as_of`` on every row."""
    import polars as pl

    from warehouse.lookups import edition_in_force

    import numpy as np

    from engine.rounding import round_half_away_array
    from engine.rulesets import system_for
    from flows.config import federation_config

    rating = frame.get_column("rating")
    # BARRUF, FIDE and the EGD publish whole ratings (the EGF keeps GoR exact inside, prints it whole).
    if rating.dtype.is_float() and system_for(federation, federation_config(federation)) in INTEGER_SYSTEMS:
        whole = round_half_away_array(rating.fill_null(np.nan).to_numpy().astype(np.float64))
        frame = frame.with_columns(pl.Series("rating", whole).fill_nan(None).cast(pl.Int64))
    if "edition" not in frame.columns or "as_of" not in frame.columns:
        found = edition_in_force(_engine(warehouse_url), federation, as_of)
        edition, day = found if found is not None else (None, None)
        frame = frame.with_columns(
            pl.lit(edition, pl.Int64).alias("edition"),
            pl.lit(day.isoformat() if day else None, pl.Utf8).alias("as_of"),
        )
    return frame


@app.command()
@_friendly
def approve(
    competition_id: Annotated[str, typer.Argument(help="The held competition's id.")],
    federation: Annotated[str, typer.Option("--federation", help="Federation id: ajusc, fide, egf.")],
    note: Annotated[Optional[str], typer.Option("--note", help="Why (shown in the organiser's report).")] = None,
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


def _decide(competition_id: str, federation: str, decision: str, note: str | None, warehouse_url: str | None) -> None:
    from flows.config import federation_config
    from warehouse.decisions import decide, officer

    federation_config(federation)
    status = decide(_engine(warehouse_url), federation, competition_id, decision, note=note)
    verb = "approved" if decision == "approve" else "declined"
    typer.echo(
        f"{federation}: {competition_id} {verb} by {officer()}; now {status}"
        + (": the next `ratings run` rates it" if status == "accepted" else "")
    )


@app.command()
@_friendly
def report(
    competition_id: Annotated[str, typer.Argument(help="The competition's id, or a file's name (every competition it holds, or the unreadable file's report).")],
    federation: FederationOpt = None,
    format: Annotated[str, typer.Option("--format", help="markdown or html.")] = "markdown",
    warehouse_url: WarehouseOpt = None,
) -> None:
    """Print the organiser's report for one competition."""
    import validations
    from tasks.publish import report_from_warehouse

    if format not in ("markdown", "html"):
        _fail(f"--format expects markdown or html, not {format!r}")
    from warehouse.lookups import competitions_of_file, file_findings

    db = _engine(warehouse_url)
    rep = report_from_warehouse(db, competition_id, federation)
    if rep is not None:
        sys.stdout.write(validations.render_report(rep, fmt=format))
        return
    # A file name: the report of each competition it holds, or the unreadable file's own.
    name = Path(competition_id).name
    held = competitions_of_file(db, name, federation)
    if held:
        for fed, cid in held:
            found = report_from_warehouse(db, cid, fed)
            if found is not None:
                sys.stdout.write(validations.render_report(found, fmt=format))
        return
    findings = file_findings(db, name, federation)
    if findings.height:
        fed = federation or str(findings.get_column("federation").drop_nulls().first() or "")
        sys.stdout.write(validations.render_report(validations.file_report(name, findings, federation=fed), fmt=format))
        return
    _fail(f"no competition {competition_id!r}" + (f" for {federation}" if federation else "")
          + " in the warehouse, nor a file of that name")


def main() -> None:
    """Console-script entry point: domain errors become one line and exit code 1."""
    try:
        app()
    except ValueError as error:   # the project's domain errors subclass ValueError
        typer.echo(f"ratings: {error}", err=True)
        sys.exit(1)
    except OSError as error:
        typer.echo(f"ratings: {error}", err=True)
        sys.exit(1)


if __name__ == "__main__":
    main()
