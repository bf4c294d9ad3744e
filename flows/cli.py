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

import os
import sys
from datetime import date
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from typer.core import TyperGroup

from flows.exits import fail, friendly, leave
from flows.present import console, plain, print_summary, shown, whatif_cell
from flows.progress import progress, quiet_flow, url_in_environment

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
        fail(str(error))


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
                    fail("--config expects a file name", code=64)
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
            fail(str(error), code=64)


def _parse_date(value: str | None, option: str) -> date | None:
    if value is None:
        return None
    try:
        return date.fromisoformat(value)
    except ValueError:
        fail(f"{option} expects an ISO date (YYYY-MM-DD), not {value!r}", code=64)
    return None


def _engine(url: str | None):  # type: ignore[no-untyped-def]
    import warehouse

    return warehouse.get_engine(url)


def _read_engine(url: str | None):  # type: ignore[no-untyped-def]
    """The engine of a read-only command: an SQLite warehouse that is not there is an error,
    never a new empty database (``warehouse.existing``)."""
    from warehouse.existing import require_existing

    require_existing(url)
    return _engine(url)


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
) -> None:
    """Re-rate history from a date and republish the list."""
    from flows.config import federation_config

    federation_config(federation)
    start = _parse_date(from_, "--from")
    end = _parse_date(to, "--to")
    if start is not None and end is not None and end < start:
        fail(f"--to {end} is before --from {start}: give a --to on or after --from", code=64)
    _engine(warehouse_url)
    from flows.backfill import backfill as backfill_flow
    from flows.orchestration import run_flow

    with url_in_environment(warehouse_url), progress(   # the URL is never a flow parameter: Prefect stores those
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
        table.add_row(*[whatif_cell(row, k) for k in frame.columns])
    console.print(table)


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
        fail("--password-stdin: no password on standard input (echo it in, or type it and press Enter)")
    return password


def _account(action: str, username: str, warehouse_url: str | None, role: str | None = None,
             federation: str | None = None, hashed: str | None = None) -> None:
    """Run the ``account`` flow; one line: what was done to which account."""
    from flows.desk import account

    _engine(warehouse_url)  # migrate (or refuse) before the flow starts
    done = quiet_flow(account, warehouse_url, action=action, username=username, role=role,
                       federation=federation, hashed=hashed)
    what = {"add": "created", "reset": "password reset (its sessions ended)",
            "disable": "disabled (its sessions ended)"}[action]
    typer.echo(f"account {done.username} ({done.role}" + (f", {done.federation}" if done.federation else "")
               + f"): {what}")


@account_app.command("add")
@friendly
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
        fail("give --password-stdin and the password on standard input (never on the command line)", code=64)
    _account("add", username, warehouse_url, role.value, federation, password_hash(_password_from_stdin()))


@account_app.command("reset")
@friendly
def account_reset(
    username: Annotated[str, typer.Argument(help="The account's user name.")],
    warehouse_url: WarehouseOpt = None,
) -> None:
    """Set a new password (read from standard input) and enable the account again."""
    from tasks.desk import password_hash

    _account("reset", username, warehouse_url, hashed=password_hash(_password_from_stdin()))


@account_app.command("disable")
@friendly
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
@friendly
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
        fail("give --competitions or --folder, not both", code=64)
    _engine(warehouse_url)  # migrate (or refuse) before the flow starts
    entry = quiet_flow(organiser, warehouse_url, action="add", federation=federation, email=email, name=name,
                        competitions=competitions, folder=folder)
    which = (f"competitions {competitions}" if competitions else f"files in inbox/{federation}/{folder}/"
             if folder else "every competition without another organiser")
    typer.echo(plain(f"organiser entry {entry}: {federation} reports of {which} go to {email.strip()}"))


@organiser_app.command("list")
@friendly
def organiser_list(federation: FederationOpt = None, warehouse_url: WarehouseOpt = None) -> None:
    """The organiser registry."""
    from flows.delivery import organiser

    _read_engine(warehouse_url)
    frame = quiet_flow(organiser, warehouse_url, action="list", federation=federation)
    if not frame.height:
        typer.echo("no organiser registered (ratings organiser add --federation F --email ADDRESS)")
        return
    from rich.console import Console
    from rich.table import Table

    table = Table("entry", "federation", "email", "name", "receives")
    for row in frame.iter_rows(named=True):
        receives = (f"competitions {row['competitions']}" if row["competitions"] else
                    f"inbox/{row['federation']}/{row['folder']}/" if row["folder"] else "the rest")
        table.add_row(*(shown(v) for v in (row["id"], row["federation"], row["email"], row["name"] or "", receives)))
    Console().print(table)


@organiser_app.command("remove")
@friendly
def organiser_remove(
    entry: Annotated[int, typer.Argument(help="The entry's number (ratings organiser list).")],
    warehouse_url: WarehouseOpt = None,
) -> None:
    """Remove an organiser's entry from the registry."""
    from flows.delivery import organiser

    _read_engine(warehouse_url)
    removed = quiet_flow(organiser, warehouse_url, action="remove", entry=entry)
    typer.echo(plain(f"removed organiser entry {entry} ({removed['federation']}: {removed['email']})"))


class DeliveriesFormat(str, Enum):
    """``ratings deliveries --format``."""

    text = "text"
    json = "json"


@app.command()
@friendly
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
    quiet_flow(desk, warehouse_url, host=host, port=port, inbox=str(inbox.resolve()))


@app.command()
@friendly
def deliveries(
    failed: Annotated[bool, typer.Option("--failed", help="Only what is not delivered yet.")] = False,
    federation: FederationOpt = None,
    format: Annotated[DeliveriesFormat, typer.Option("--format", help="text or json.")] = DeliveriesFormat.text,
    warehouse_url: WarehouseOpt = None,
) -> None:
    """The delivery record: each report version e-mailed, to whom, and how it went."""
    from flows.delivery import deliveries as record

    _read_engine(warehouse_url)
    frame = quiet_flow(record, warehouse_url, failed=failed, federation=federation)
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
        table.add_row(*(shown(v) for v in (row["id"], f"{row['queued_at']:%Y-%m-%d %H:%M}", row["federation"] or "all",
                                            what, row["recipient"], row["status"], row["attempts"], detail)))
    Console().print(table)


def main() -> None:
    """Console-script entry point: never a traceback (exit codes in ``flows.errors``); ends
    without tearing the interpreter down (:func:`leave`)."""
    try:
        _main()
    except SystemExit as done:
        leave(done.code)
    leave(0)


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
