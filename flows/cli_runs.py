"""The commands that run the pipeline: ``run`` (the nightly job), ``seed``, ``backfill`` and
``whatif``, each showing its flow's stages as they go (``flows.progress``)."""

from __future__ import annotations

import sys
from enum import Enum
from pathlib import Path
from typing import Annotated

import typer

from flows.cli_app import (
    FederationOpt,
    NoSiteOpt,
    SiteOpt,
    WarehouseOpt,
    _engine,
    _parse_date,
    _read_engine,
    app,
)
from flows.exits import fail, friendly
from flows.present import print_summary, whatif_cell
from flows.progress import progress, quiet_flow, url_in_environment


@app.command()
@friendly
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
    block_games: Annotated[int | None, typer.Option(
        "--block-games", min=0, show_default=False,
        help="An inbox of more games (an archive's first run) is rated, loaded and published in blocks "
             "of about as many, by months in date order, to bound memory; the outcome is one batch's. "
             "Default: 250,000; 0: one batch.")] = None,
) -> None:
    """The nightly job, one shot: ingest, validate, rate, load, publish, e-mail the reports."""
    from flows.config import federation_config

    day = _parse_date(as_of, "--as-of")
    if federation is not None:
        federation_config(federation)
    if not inbox.is_dir():
        fail(f"inbox folder {str(inbox)!r} does not exist")
    _engine(warehouse_url)  # migrate (or refuse) before the flow starts
    from flows.nightly import nightly
    from flows.orchestration import run_flow

    with url_in_environment(warehouse_url), progress(   # the URL is never a flow parameter: Prefect stores those
        ["ingest_inbox", "validate_batch", "rate_federation", "load_federation", "publish_federation", "publish_site"]
    ):
        summary = run_flow(
            nightly, dask_workers=dask_workers, inbox=str(inbox), warehouse_url=None, federation=federation, as_of=day,
            reports_dir=str(reports), gx_root=str(gx_root) if gx_root else None,
            site_dir=None if no_site else str(site), deliver=not no_deliver,
            **({} if block_games is None else {"block_games": block_games}),
        )
    print_summary(summary)
    failed = getattr(summary, "internal_errors", {})
    if failed:
        # The other federations ran to the end; the exit code says one did not (README, exit codes).
        first, *others = sorted(failed.items())
        more = f" (and in {', '.join(fed for fed, _ in others)}: see the file outcomes)" if others else ""
        head, _, where = first[1].rpartition("; ")
        from flows import errors

        typer.echo(f"ratings: {head}{more}; {where}", err=True)
        raise typer.Exit(code=errors.EXIT_INTERNAL)


@app.command()
@friendly
def seed(
    file: Annotated[Path, typer.Argument(help="A starting rating list (*.ratings.csv).")],
    federation: Annotated[str, typer.Option("--federation", help="Federation id: ajusc, fide, egf.")],
    warehouse_url: WarehouseOpt = None,
) -> None:
    """Import a federation's starting rating list (the list it brings to the pipeline)."""
    from flows.config import federation_config

    federation_config(federation)
    if not file.is_file():
        fail(f"no such file: {file}")
    _engine(warehouse_url)  # migrate (or refuse) before the flow starts
    from flows.seed import seed as seed_flow

    loaded = quiet_flow(seed_flow, warehouse_url, file=str(file), federation=federation)
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
@friendly
def backfill(
    federation: Annotated[str, typer.Option("--federation", help="Federation id: ajusc, fide, egf.")],
    from_: Annotated[str, typer.Option("--from", help="Re-rate from this date (YYYY-MM-DD).")],
    to: Annotated[str | None, typer.Option("--to", help="Report changes up to this date.")] = None,
    warehouse_url: WarehouseOpt = None,
    site: SiteOpt = Path("site"),
    no_site: NoSiteOpt = False,
    as_of: Annotated[str | None, typer.Option(
        "--as-of", help="Date of the lists it publishes (YYYY-MM-DD; default: --to, else today).")] = None,
    block_games: Annotated[int | None, typer.Option(
        "--block-games", min=0, show_default=False,
        help="A history of more games is re-rated in blocks of about as many, by months in date order, "
             "to bound memory, and loaded as one run. Default: 250,000; 0: one block.")] = None,
) -> None:
    """Re-rate history from a date and republish the list."""
    from flows.config import federation_config

    federation_config(federation)
    start = _parse_date(from_, "--from")
    end = _parse_date(to, "--to")
    day = _parse_date(as_of, "--as-of")
    if start is not None and end is not None and end < start:
        fail(f"--to {end} is before --from {start}: give a --to on or after --from", code=64)
    _engine(warehouse_url)
    from flows.backfill import backfill as backfill_flow
    from flows.orchestration import run_flow

    with url_in_environment(warehouse_url), progress(   # the URL is never a flow parameter: Prefect stores those
        ["stored_changes", "rate_federation", "rate_in_blocks", "load_federation", "publish_federation",
         "publish_site"]
    ):
        result = run_flow(backfill_flow, federation=federation, from_date=start, to_date=end, warehouse_url=None,
                          as_of=day, site_dir=None if no_site else str(site),
                          **({} if block_games is None else {"block_games": block_games}))
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
@friendly
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
    block_games: Annotated[int | None, typer.Option(
        "--block-games", min=0, show_default=False,
        help="The history is re-rated in blocks of about as many games, by months in date order, "
             "to bound memory; the answer is one run's. Default: 250,000; 0: one block.")] = None,
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
        fail("whatif needs a change: --set-rating, --set-rank, --exclude or --add", code=64)
    _read_engine(warehouse_url)
    # Refuse an unknown player, competition or file here, in one line, before the flow starts.
    check_whatif(warehouse_url, federation, set_rating=ratings, set_rank=ranks, exclude=excluded, add=added)
    from flows.orchestration import run_flow
    from flows.whatif import whatif as whatif_flow

    with url_in_environment(warehouse_url), progress(["read_state", "read_added", "validate_batch", "rate_whatif"]):
        result = run_flow(whatif_flow, federation=federation, set_rating=ratings, set_rank=ranks, exclude=excluded,
                          add=added, warehouse_url=None,   # the URL is never a flow parameter
                          **({} if block_games is None else {"block_games": block_games}))
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
        table.add_row(*[whatif_cell(row, k) for k in frame.columns])
    console.print(table)

