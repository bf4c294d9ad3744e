"""Lookups: a published edition of a rating list, an organiser's report (read-only).

``ratings list`` runs :func:`rating_list` and ``ratings report`` runs
:func:`organiser_report`; their tasks (``tasks/lookup.py``) read the warehouse and
shape what the command line prints. They write nothing, so they take no run lock: a
list can be read while a nightly runs (it shows the editions published so far).
"""

from __future__ import annotations

from dataclasses import replace
from datetime import date

from flows.config import federation_config
from tasks.lookup import (
    LIST_COLUMNS,
    Edition,
    export_entries,
    find_edition,
    list_file,
    read_edition_entries,
    read_reports,
    render_reports,
)
from tasks.runtime import flow

__all__ = ["LIST_COLUMNS", "Edition", "organiser_report", "rating_list", "rating_list_file"]


@flow(name="rating-list", description="Read a published edition of a federation's rating list.")
def rating_list(
    federation: str,
    list_name: str | None = None,
    edition: int | None = None,
    as_of: date | None = None,
    export: bool = False,
    warehouse_url: str | None = None,
) -> Edition | None:
    """The edition asked for, with its rows; ``None`` when none is published.

    Parameters
    ----------
    federation
        The federation (``ajusc``, ``fide``, ``egf``).
    list_name
        One of the federation's lists (FIDE: ``standard``, ``rapid``, ``blitz``); ``None``:
        its first.
    edition
        This edition (its number); else
    as_of
        the edition in force on this day; neither: the latest.
    export
        Rows ready for a CSV/JSON export: whole ratings where the federation publishes
        them, the edition's number and date on every row.
    warehouse_url
        ``None`` (always, from the CLI): ``$RATINGS_WAREHOUSE_URL`` or the default warehouse.
    """
    return _read_edition(federation, list_name, edition, as_of, export, warehouse_url)


def _read_edition(federation: str, list_name: str | None, edition: int | None, as_of: date | None, export: bool,
                  warehouse_url: str | None) -> Edition | None:
    """The steps of :func:`rating_list`, shared with :func:`rating_list_file` (a flow never calls a flow)."""
    config = federation_config(federation)
    lists = [str(x) for x in config.get("lists") or []]
    found = find_edition(warehouse_url, federation, list_name, lists[0] if lists else None, edition, as_of)
    if found is None:
        return None
    entries = read_edition_entries(warehouse_url, found.list_id)
    if export:
        entries = export_entries(entries, found, config)
    return replace(found, entries=entries)


@flow(name="rating-list-file", description="A published edition in one of the federations' own list formats.")
def rating_list_file(
    federation: str,
    file_format: str,
    list_name: str | None = None,
    edition: int | None = None,
    as_of: date | None = None,
    warehouse_url: str | None = None,
) -> tuple[Edition, str, bytes] | None:
    """The edition asked for (as :func:`rating_list`) as a file in ``file_format`` (``fide-txt``,
    ``fide-xml``, ``egd``, ``xlsx``): ``(edition, file name, bytes)``; ``None`` when none is published."""
    found = _read_edition(federation, list_name, edition, as_of, True, warehouse_url)
    if found is None or found.entries is None:
        return None
    name, data = list_file(found.entries, found, file_format)
    return replace(found, entries=None), name, data


@flow(name="organiser-report", description="Render the organiser's report of a competition or a file.")
def organiser_report(
    competition_id: str, federation: str | None = None, fmt: str = "markdown", warehouse_url: str | None = None,
) -> list[str] | None:
    """The organiser's report(s) of ``competition_id`` (or of a file of that name), rendered.

    Parameters
    ----------
    competition_id
        A competition's id, or a file's name: every competition it holds, or the
        unreadable file's own report.
    federation
        Only this federation's competition (``None``: any).
    fmt
        ``markdown`` or ``html``.
    warehouse_url
        ``None`` (always, from the CLI): ``$RATINGS_WAREHOUSE_URL`` or the default warehouse.

    Returns
    -------
    list of str or None
        One rendered report per competition; ``None``: no competition nor file of that name.
    """
    if fmt not in ("markdown", "html"):
        raise ValueError(f"fmt expects markdown or html, not {fmt!r}")
    reports = read_reports(warehouse_url, competition_id, federation)
    if reports is None:
        return None
    return render_reports(reports, "html" if fmt == "html" else "markdown")

