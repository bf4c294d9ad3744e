"""The desk's tasks: serve the web app, and keep its accounts.

:func:`serve_desk` runs the desk (``desk.server``) under uvicorn until it is stopped;
:func:`manage_account` creates, resets or disables an account in the warehouse
(``warehouse.accounts``). A password never reaches a task or a flow: the command line
hashes it first (:func:`password_hash`), so Prefect, which stores a flow run's
parameters, only ever sees the argon2id hash.
"""

from __future__ import annotations

from dataclasses import dataclass

import warehouse
from desk.pipeline import Pipeline as DeskPipeline
from tasks.runtime import get_run_logger, task
from warehouse.accounts import AccountError, hash_password

__all__ = ["AccountChange", "AccountError", "DeskPipeline", "manage_account", "password_hash", "serve_desk"]


def password_hash(password: str) -> str:
    """The argon2id hash the warehouse stores for ``password`` (not a task: it is never logged).

    Raises
    ------
    warehouse.accounts.AccountError
        A password too short or too long.
    """
    return hash_password(password)


@dataclass(frozen=True)
class AccountChange:
    """What ``ratings account`` did (printed by the CLI)."""

    username: str
    action: str                 #: add | reset | disable
    role: str | None            #: the account's role
    federation: str | None      #: an organiser's federation


@task(name="manage_account")
def manage_account(
    action: str, username: str, warehouse_url: str | None, role: str | None = None,
    federation: str | None = None, hashed: str | None = None,
) -> AccountChange:
    """``add`` an account (``role``, ``federation``, ``hashed``), ``reset`` its password
    (``hashed``) or ``disable`` it; recorded in the desk's audit with who ran the command.

    Raises
    ------
    warehouse.accounts.AccountError
        An unknown action, a taken or unknown user name, a bad role.
    """
    db = warehouse.get_engine(warehouse_url)
    accounts = warehouse.accounts
    who = f"cli:{warehouse.decisions.officer()}"
    if action == "add":
        if hashed is None or role is None:
            raise AccountError("account add needs a role and a password")
        accounts.add_account(db, username, hashed, role, federation)
    elif action == "reset":
        if hashed is None:
            raise AccountError("account reset needs a password")
        accounts.set_password(db, username, hashed)
    elif action == "disable":
        accounts.set_disabled(db, username, True)
    else:
        raise AccountError(f"an account action is add, reset or disable, not {action!r}")
    accounts.audit(db, who, f"account.{action}", username, role)
    found = accounts.account(db, username)
    get_run_logger().info("account %s: %s", username, action)
    return AccountChange(username=username, action=action, role=found.role if found else role,
                         federation=found.federation if found else federation)


@task(name="serve_desk")
def serve_desk(host: str, port: int, inbox: str, warehouse_url: str | None, pipeline: DeskPipeline) -> None:
    """Serve the desk on ``host:port`` until the process is stopped (SIGINT or SIGTERM); its
    pages run ``pipeline`` (``flows.desk.desk_pipeline``)."""
    from desk.server import serve

    db = warehouse.get_engine(warehouse_url)   # migrate (or refuse) before the first request
    get_run_logger().info("the desk serves http://%s:%d/ (inbox %s, warehouse %s)", host, port, inbox,
                          warehouse.redact(db.url.render_as_string(hide_password=True)))
    serve(host=host, port=port, inbox=inbox, warehouse_url=warehouse_url, pipeline=pipeline)
