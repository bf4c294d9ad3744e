"""The desk: a web app where organisers send files and the rating officer decides.

``ratings serve`` runs :func:`desk` (its deployment is ``desk`` in ``prefect.yaml``);
``ratings account add|reset|disable`` runs :func:`account`. Their tasks are in
:mod:`tasks.desk`; the app itself is the ``desk`` package, which imports no flow or task:
:func:`desk_pipeline` hands it the pipeline's code its pages run.
"""

from __future__ import annotations

import contextvars
from typing import Any

from flows.check import check
from flows.config import federation_config
from tasks.check import report_record
from tasks.desk import AccountChange, DeskPipeline, manage_account, serve_desk
from tasks.lookup import read_reports, render_reports
from tasks.runtime import flow

__all__ = ["AccountChange", "account", "desk", "desk_pipeline"]


def desk_pipeline() -> DeskPipeline:
    """The pipeline's code the desk's pages run: the pre-check (the ``check`` flow, as
    ``ratings check``), a competition's report from the warehouse, the federations' config."""
    return DeskPipeline(precheck=_precheck, report_page=_report_page, federation_config=federation_config)


def _precheck(paths: list[str], federation: str, warehouse_url: str | None) -> list[dict[str, Any]]:
    """The pre-check of ``paths`` (the report the next night would give), outside any Prefect
    run (the desk's own flow run must not gather every check's tasks)."""
    reports = contextvars.Context().run(check.fn, paths=paths, federation=federation, warehouse_url=warehouse_url)
    pages = render_reports.fn(reports, "html")
    records = []
    for report, page in zip(reports, pages, strict=True):
        record = report_record(report)
        record["name"] = report.name
        record["html"] = page
        records.append(record)
    return records


def _report_page(warehouse_url: str | None, competition_id: str, federation: str) -> str | None:
    """The HTML of the first report of ``competition_id`` in the warehouse, ``None``: none."""
    reports = read_reports.fn(warehouse_url, competition_id, federation)
    if not reports:
        return None
    return render_reports.fn(reports[:1], "html")[0]


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
    serve_desk(host, port, inbox, warehouse_url, desk_pipeline())


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
