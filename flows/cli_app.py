"""The ``ratings`` application: the Typer app every command module registers on, the
options they share, and the helpers they call before a flow starts (the config, dates, the
warehouse). The commands are in ``flows/cli_runs.py``, ``flows/cli_lists.py`` and
``flows/cli_admin.py``; ``flows/cli.py`` gathers them and is the entry point.
"""

from __future__ import annotations

import os
from datetime import date
from enum import Enum
from pathlib import Path
from typing import Annotated

import typer
from typer.core import TyperGroup

from flows.exits import fail

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


def _flags_take_no_value(command: typer.core.TyperCommand | TyperGroup, ctx: typer.Context) -> None:
    """Typer's help shows a flag's type (``--help <bool>``) as if the flag took a value: a flag,
    ``--help`` among them, shows none."""
    for param in [*command.params, command.get_help_option(ctx)]:
        if getattr(param, "is_flag", False) and param is not None and param.metavar is None:
            param.metavar = ""


class _Commands(TyperGroup):
    """Every command, whoever adds it, takes ``--config FILE`` before or after its name
    (DESIGN.md, CLI): ``ratings --config F run`` and ``ratings run --config F`` alike."""

    def format_help(self, ctx, formatter):  # type: ignore[no-untyped-def]
        _flags_take_no_value(self, ctx)
        super().format_help(ctx, formatter)

    def resolve_command(self, ctx, args):  # type: ignore[no-untyped-def]
        name, command, rest = super().resolve_command(ctx, args)
        if isinstance(command, (typer.core.TyperCommand, TyperGroup)):
            _flags_take_no_value(command, ctx)
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
        bool, typer.Option("--version", help="Print the version and exit.", callback=_version_callback, is_eager=True)
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

