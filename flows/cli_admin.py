"""The commands of the desk and of delivery: ``account add|reset|disable``, ``organiser
add|list|remove``, ``serve`` and ``deliveries``."""

from __future__ import annotations

import sys
from enum import Enum
from pathlib import Path
from typing import Annotated

import typer

from flows.cli_app import (
    FederationOpt,
    WarehouseOpt,
    _Commands,
    _engine,
    _read_engine,
    app,
)
from flows.exits import fail, friendly
from flows.present import plain, shown
from flows.progress import quiet_flow

account_app = typer.Typer(cls=_Commands, help="The desk's accounts: organisers and rating officers.", no_args_is_help=True)
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
    cls=_Commands,
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
