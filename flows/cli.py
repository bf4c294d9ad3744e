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

WarehouseOpt = Annotated[
    Optional[str],
    typer.Option("--warehouse", help="Warehouse URL (default: $RATINGS_WAREHOUSE_URL or sqlite:///ratings.db)."),
]
FederationOpt = Annotated[Optional[str], typer.Option("--federation", help="Federation id: ajusc, fide, egf.")]
SiteOpt = Annotated[Path, typer.Option("--site", help="Folder of the static publication site, regenerated after the run.")]
NoSiteOpt = Annotated[bool, typer.Option("--no-site", help="Do not regenerate the publication site.")]


class ListFormat(str, Enum):
    table = "table"
    csv = "csv"
    json = "json"


P = ParamSpec("P")

LIST_COLUMNS = ["federation", "player_id", "name", "rating", "games", "status", "category", "rank"]


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
    site: SiteOpt = Path("site"),
    no_site: NoSiteOpt = False,
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
        site_dir=None if no_site else str(site),
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
    site: SiteOpt = Path("site"),
    no_site: NoSiteOpt = False,
) -> None:
    """Re-rate history from a date and republish the list."""
    from flows.config import federation_config

    federation_config(federation)
    start = _parse_date(from_, "--from")
    end = _parse_date(to, "--to")
    _engine(warehouse_url)
    from flows.backfill import backfill as backfill_flow

    result = backfill_flow(federation=federation, from_date=start, to_date=end, warehouse_url=warehouse_url,
                           site_dir=None if no_site else str(site))
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
def site(
    out: Annotated[Path, typer.Option("--out", help="Folder of the site (created if missing).")],
    federation: FederationOpt = None,
    warehouse_url: WarehouseOpt = None,
    workers: Annotated[Optional[int], typer.Option("--workers", min=1, help="Processes rendering the player cards (default: one per CPU).")] = None,
) -> None:
    """Generate the static publication site (lists, editions, players, competitions) from the warehouse."""
    from flows.config import federation_config
    from tasks.site import generate_site

    if federation is not None:
        federation_config(federation)
    _engine(warehouse_url)
    result = generate_site(warehouse_url, out, federation, workers=workers or os.cpu_count() or 1)
    counts = ", ".join(
        f"{fed}: {result.editions[fed]} edition(s), {result.players[fed]} player card(s), "
        f"{result.competitions[fed]} competition page(s)" for fed in result.federations
    ) or "no federation has a published list yet"
    typer.echo(f"site {out}: {counts}; {result.pages} page(s), {result.written} written, "
               f"{result.removed} removed in {result.seconds:.1f} s")
    typer.echo(f"open {(result.out / 'index.html').resolve().as_uri()}")


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
