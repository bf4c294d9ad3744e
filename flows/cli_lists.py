"""The commands on the published record and the officer's decisions: ``list``, ``approve``,
``decline``, ``reprocess``, ``site``, ``check`` and ``report``."""

from __future__ import annotations

import os
import sys
from datetime import date
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from flows.cli_app import (
    FederationOpt,
    ListFormat,
    WarehouseOpt,
    _engine,
    _parse_date,
    _read_engine,
    app,
)
from flows.exits import fail, friendly
from flows.present import console, plain
from flows.progress import quiet_flow, url_in_environment

if TYPE_CHECKING:
    from flows.decide import Decision


@app.command("list")
@friendly
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
        fail("give --edition or --as-of, not both", code=64)
    lists = [str(x) for x in config.get("lists") or []]
    if list_name is not None and lists and list_name not in lists:
        fail(f"--list: {federation} publishes {', '.join(lists)}, not {list_name!r}")
    if list_name is None and len(lists) > 1:
        list_name = lists[0]   # a federation with several lists: its first by default
    day = _parse_date(as_of, "--as-of")
    if format is ListFormat.xlsx and out is None and sys.stdout.isatty():
        fail("--format xlsx writes a spreadsheet: give --out FILE (or redirect the output to a file)", code=64)
    _read_engine(warehouse_url)  # migrate (or refuse) before the flow starts
    if format.value in _LIST_FILE_FORMATS:
        _list_file(federation, format.value, list_name, edition, day, out, warehouse_url)
        return
    from flows.lookup import rating_list

    found = quiet_flow(rating_list, warehouse_url, federation=federation, list_name=list_name, edition=edition,
                        as_of=day, export=format in (ListFormat.csv, ListFormat.json))
    if found is None:
        what = f" edition {edition}" if edition is not None else (f" on or before {as_of}" if as_of else "")
        fail(f"no list published for {federation}{what}: run `ratings run` first")
    frame = found.entries
    title = (f"{federation} rating list, edition {found.edition} ({found.kind}), in force from {found.as_of}"
             + (f", list {list_name}" if list_name else ""))
    if format is ListFormat.csv:
        sys.stdout.write(frame.write_csv())
    elif format is ListFormat.json:
        from tasks.check import json_text
        sys.stdout.write(json_text(frame.to_dicts(), indent=1, default=str) + "\n")
    elif format is ListFormat.html:
        from website.list_page import list_html

        sys.stdout.write(list_html(frame, title))
    else:
        from rich.table import Table

        table = Table(*[c for c in frame.columns if c != "federation"], title=title)
        for row in frame.drop("federation").iter_rows():
            table.add_row(*["" if v is None else (f"{v:.0f}" if isinstance(v, float) else str(v)) for v in row])
        console().print(table)


#: The federations' own list formats (``tasks.lookup.LIST_FILE_FORMATS``), written as files.
_LIST_FILE_FORMATS = ("fide-txt", "fide-xml", "egd", "xlsx")


def _list_file(federation: str, file_format: str, list_name: str | None, edition: int | None, day: date | None,
               out: Path | None, warehouse_url: str | None) -> None:
    """``ratings list --format fide-txt|fide-xml|egd|xlsx``: the file to ``out``, else to stdout."""
    from flows.lookup import rating_list_file

    found = quiet_flow(rating_list_file, warehouse_url, federation=federation, file_format=file_format,
                        list_name=list_name, edition=edition, as_of=day)
    if found is None:
        what = f" edition {edition}" if edition is not None else (f" on or before {day}" if day else "")
        fail(f"no list published for {federation}{what}: run `ratings run` first")
    header, name, data = found
    if out is None:
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
        return
    out.write_bytes(data)
    typer.echo(f"{federation} edition {header.edition} ({header.as_of}) written to {out} as {file_format}"
               f" (the federation's download name: {name})", err=True)



@app.command()
@friendly
def approve(
    competition_id: Annotated[str, typer.Argument(help="The held competition's id.")],
    federation: Annotated[str, typer.Option("--federation", help="Federation id: ajusc, fide, egf.")],
    note: Annotated[str | None, typer.Option("--note", help="Why (shown in the organiser's report).")] = None,
    warehouse_url: WarehouseOpt = None,
) -> None:
    """The rating officer approves a held competition: the next run rates it."""
    _decide(competition_id, federation, "approve", note, warehouse_url)


@app.command()
@friendly
def decline(
    competition_id: Annotated[str, typer.Argument(help="The held competition's id.")],
    federation: Annotated[str, typer.Option("--federation", help="Federation id: ajusc, fide, egf.")],
    reason: Annotated[str, typer.Option("--reason", help="Why it is not rated (shown in the organiser's report).")],
    warehouse_url: WarehouseOpt = None,
) -> None:
    """The rating officer declines a held competition: it is not rated."""
    _decide(competition_id, federation, "decline", reason, warehouse_url)


@app.command()
@friendly
def reprocess(
    file: Annotated[Path, typer.Argument(help="The kept file: its path, or its name anywhere in the inbox.")],
    inbox: Annotated[Path, typer.Option("--inbox", help="The nightly run's inbox.")] = Path("inbox"),
    note: Annotated[str | None, typer.Option("--note", help="Why it is read again (kept with the request).")] = None,
    warehouse_url: WarehouseOpt = None,
) -> None:
    """The rating officer has a kept file read again: the next run processes it as a new version."""
    from flows.reprocess import reprocess as reprocess_flow

    _engine(warehouse_url)  # migrate (or refuse) before the flow starts
    asked = quiet_flow(reprocess_flow, warehouse_url, file=str(file), inbox=str(inbox), note=note)
    name = plain(asked.source)
    if not asked.federation:
        typer.echo(f"{name} is not loaded yet: the next `ratings run` reads it")
    elif asked.new:
        typer.echo(f"{asked.federation}: {name} will be read again by the next `ratings run` "
                   f"(request {asked.request}, by {plain(asked.officer)})")
    else:
        typer.echo(f"{asked.federation}: {name} is already waiting to be read again (request {asked.request})")


def _decide(competition_id: str, federation: str, decision: str, note: str | None, warehouse_url: str | None) -> None:
    """Run the ``decide`` flow; one line: who decided what, and what happens to the competition now."""
    from flows.config import federation_config
    from flows.decide import decide

    federation_config(federation)
    _engine(warehouse_url)  # migrate (or refuse) before the flow starts
    decided: Decision = quiet_flow(decide, warehouse_url, federation=federation, competition_id=competition_id,
                                    decision=decision, note=note)
    verb = "approved" if decided.decision == "approve" else "declined"
    typer.echo(
        f"{decided.federation}: {decided.competition_id} {verb} by {decided.officer}; now {decided.status}"
        + (": the next `ratings run` rates it" if decided.status == "accepted" else "")
    )



@app.command()
@friendly
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

    result = quiet_flow(site_flow, warehouse_url, out=str(out), federation=federation,
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
@friendly
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
    with url_in_environment(warehouse_url):   # the URL is never a flow parameter
        reports = run_flow(check_flow, paths=[str(f) for f in files], federation=federation, warehouse_url=None)
    print_reports(reports, format.value)


@app.command()
@friendly
def report(
    competition_id: Annotated[str, typer.Argument(help="The competition's id, or a file's name (every competition it holds, or the unreadable file's report).")],
    federation: FederationOpt = None,
    format: Annotated[str, typer.Option("--format", help="markdown or html.")] = "markdown",
    warehouse_url: WarehouseOpt = None,
) -> None:
    """Print the organiser's report for one competition."""
    if format not in ("markdown", "html"):
        fail(f"--format expects markdown or html, not {format!r}")
    _read_engine(warehouse_url)  # migrate (or refuse) before the flow starts
    from flows.lookup import organiser_report

    rendered = quiet_flow(organiser_report, warehouse_url, competition_id=competition_id, federation=federation,
                           fmt=format)
    if rendered is None:
        fail(f"no competition {competition_id!r}" + (f" for {federation}" if federation else "")
              + " in the warehouse, nor a file of that name")
    from tasks.check import terminal_text

    for text in rendered:
        sys.stdout.write(terminal_text(text))

