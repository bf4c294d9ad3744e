"""The desk: a web app where organisers send files and the rating officer decides.

``ratings serve`` runs :func:`desk` (its deployment is ``desk`` in ``prefect.yaml``);
``ratings account add|reset|disable`` runs :func:`account`. Their tasks are in
:mod:`tasks.desk`; the app itself is the ``desk`` package.
"""

from __future__ import annotations

from flows.config import federation_config
from tasks.desk import AccountChange, manage_account, serve_desk
from tasks.runtime import flow

__all__ = ["AccountChange", "account", "desk"]


@flow(name="desk", description="Serve the desk: organisers upload and check files, the officer decides.")
def desk(host: str = "127.0.0.1", port: int = 8470, inbox: str = "inbox", warehouse_url: str | None = None) -> None:
    """Serve the desk on ``host:port`` until stopped.

    Parameters
    ----------
    host, port
        Where it listens (default ``127.0.0.1:8470``: this machine only; put a TLS proxy in front
        to serve others).
    inbox
        The nightly run's inbox: confirmed files go to ``<inbox>/<federation>/<user>/``.
    warehouse_url
        ``None`` (always, from the CLI): ``$RATINGS_WAREHOUSE_URL`` or the default warehouse.
    """
    if not 0 < port < 65536:
        raise ValueError(f"a port is between 1 and 65535, not {port}")
    serve_desk(host, port, inbox, warehouse_url)


@flow(name="account", description="Create, reset or disable a desk account.")
def account(
    action: str, username: str, role: str | None = None, federation: str | None = None,
    hashed: str | None = None, warehouse_url: str | None = None,
) -> AccountChange:
    """``add``, ``reset`` or ``disable`` the desk account ``username``.

    ``hashed`` is the password's argon2id hash (never the password: a flow's parameters are
    stored by Prefect).

    Raises
    ------
    flows.config.ConfigError
        An unknown federation.
    warehouse.accounts.AccountError
        A taken or unknown user name, a bad role.
    """
    if federation is not None:
        federation_config(federation)
    return manage_account(action, username, warehouse_url, role, federation, hashed)
