"""Read-only lookups for the command line: a published edition, an organiser's report.

``ratings list`` and ``ratings report`` run the ``rating_list`` and ``organiser_report``
flows (``flows/lookup.py``), whose tasks are these: each reads the warehouse, or
turns what was read into what is printed (an export-ready list, a rendered report).
The command line keeps the presentation (tables, CSV, JSON, HTML). Nothing here writes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import polars as pl

import validations
import warehouse
from engine.rounding import INTEGER_SYSTEMS, round_half_away_array
from engine.rulesets import system_for
from formats.list_exports import EXPORT_FORMATS, ListHeader, export_file_name, export_list
from publication import report_from_warehouse
from tasks.runtime import task
from warehouse.lookups import competitions_of_file, file_findings

if TYPE_CHECKING:  # the warehouse's engine type; SQLAlchemy itself stays in warehouse/
    from sqlalchemy.engine import Engine

__all__ = [
    "INTEGER_SYSTEMS", "LIST_COLUMNS", "Edition", "export_entries", "find_edition", "read_edition_entries",
    "read_reports", "render_reports",
]

#: The columns of a printed rating list (``ratings list``, DESIGN.md "CLI").
LIST_COLUMNS = ["federation", "player_id", "name", "rating", "games", "status", "category", "rank"]


@dataclass(frozen=True)
class Edition:
    """One published edition of a federation's list: its header and, once read, its rows."""

    federation: str
    list_id: int
    edition: int
    kind: str                         #: ``ordinary``, ``correcting`` or ``seed`` (the seeded list)
    as_of: date                       #: in force from this day
    list_name: str | None = None      #: which of the federation's lists (None: its only one)
    entries: pl.DataFrame | None = None   #: the rows (:data:`LIST_COLUMNS`), export-ready if asked


@task(name="find_edition")
def find_edition(
    warehouse_url: str | None, federation: str, list_name: str | None = None, first_list: str | None = None,
    edition: int | None = None, as_of: date | None = None,
) -> Edition | None:
    """The edition asked for: number ``edition``, else the one in force on ``as_of`` (the latest
    published on or before it), else the latest; ``None`` when there is none.

    ``list_name`` is one of the federation's lists, ``first_list`` its first (stored unnamed).
    """
    found = warehouse.editions(warehouse.get_engine(warehouse_url), federation, list_name=list_name,
                               first_list=first_list, with_seed=True)
    if edition is not None:
        found = found.filter(pl.col("edition") == edition)
    elif as_of is not None:
        found = found.filter(pl.col("as_of") <= as_of).sort(["as_of", "edition"])
    if found.height == 0:
        return None
    info = found.row(found.height - 1, named=True)
    return Edition(federation=federation, list_id=int(info["list_id"]), edition=int(info["edition"]),
                   kind=str(info["kind"]), as_of=info["as_of"], list_name=list_name)


@task(name="read_edition_entries")
def read_edition_entries(warehouse_url: str | None, list_id: int) -> pl.DataFrame:
    """The rows of one published edition, in the published order, as ``ratings list`` prints them."""
    return edition_rows(warehouse.get_engine(warehouse_url), list_id)


def edition_rows(db: Engine, list_id: int) -> pl.DataFrame:
    """:func:`read_edition_entries` on an open warehouse (a caller reading many editions opens it once:
    an engine a call keeps its connections until it is collected)."""
    frame = warehouse.edition_entries(db, list_id)
    return frame.select([c for c in LIST_COLUMNS if c in frame.columns])


@task(name="export_entries")
def export_entries(entries: pl.DataFrame, edition: Edition, config: Mapping[str, Any]) -> pl.DataFrame:
    """CSV/JSON exports: integer ratings where the federation publishes integers, and the
    list's ``edition`` and ``as_of`` on every row.

    BARRUF, FIDE and the EGD publish whole ratings (the EGF keeps GoR exact inside and
    prints it whole); a rating is rounded half away from zero, as the federations do.

    Examples
    --------
    >>> from datetime import date
    >>> rows = pl.DataFrame({"federation": ["ajusc"], "player_id": ["7"], "rating": [1100.5]})
    >>> header = Edition("ajusc", list_id=1, edition=191, kind="ordinary", as_of=date(2025, 10, 4))
    >>> export_entries.fn(rows, header, {})
    shape: (1, 5)
    ┌────────────┬───────────┬────────┬─────────┬────────────┐
    │ federation ┆ player_id ┆ rating ┆ edition ┆ as_of      │
    │ ---        ┆ ---       ┆ ---    ┆ ---     ┆ ---        │
    │ str        ┆ str       ┆ i64    ┆ i64     ┆ str        │
    ╞════════════╪═══════════╪════════╪═════════╪════════════╡
    │ ajusc      ┆ 7         ┆ 1101   ┆ 191     ┆ 2025-10-04 │
    └────────────┴───────────┴────────┴─────────┴────────────┘
    """
    frame = entries
    rating = frame.get_column("rating")
    if rating.dtype.is_float() and system_for(edition.federation, config) in INTEGER_SYSTEMS:
        whole = round_half_away_array(rating.fill_null(np.nan).to_numpy().astype(np.float64))
        frame = frame.with_columns(pl.Series("rating", whole).fill_nan(None).cast(pl.Int64))
    return frame.with_columns(
        pl.lit(edition.edition, pl.Int64).alias("edition"),
        pl.lit(edition.as_of.isoformat(), pl.Utf8).alias("as_of"),
    )


@task(name="read_reports")
def read_reports(
    warehouse_url: str | None, competition_id: str, federation: str | None = None,
) -> list[validations.CompetitionReport] | None:
    """The organiser's reports of ``competition_id``, or of a file of that name.

    A competition id: its report. A file's name: the report of each competition it
    holds, or, when it held none it could be tied to (an unreadable file), the file's
    own report of findings. ``None``: neither a competition nor a file the warehouse knows.
    """
    db = warehouse.get_engine(warehouse_url)
    report = report_from_warehouse(db, competition_id, federation)
    if report is not None:
        return [report]
    name = Path(competition_id).name
    held = competitions_of_file(db, name, federation)
    if held:
        return [found for fed, cid in held if (found := report_from_warehouse(db, cid, fed)) is not None]
    findings = file_findings(db, name, federation)
    if findings.height:
        fed = federation or str(findings.get_column("federation").drop_nulls().first() or "")
        return [validations.file_report(name, findings, federation=fed)]
    return None


@task(name="render_reports")
def render_reports(
    reports: list[validations.CompetitionReport], fmt: Literal["markdown", "html"] = "markdown",
) -> list[str]:
    """Each report as the organiser reads it (Markdown or HTML)."""
    return [validations.render_report(report, fmt=fmt) for report in reports]


#: The federations' own list formats ``ratings list --format`` writes as files.
LIST_FILE_FORMATS: tuple[str, ...] = tuple(EXPORT_FORMATS)


@task(name="list_file")
def list_file(entries: pl.DataFrame, edition: Edition, file_format: str) -> tuple[str, bytes]:
    """The edition's export-ready ``entries`` as a file in ``file_format``: ``(file name, bytes)``
    (:func:`formats.list_exports.export_list`)."""
    header = ListHeader(edition.federation, edition.edition, edition.as_of, edition.list_name)
    return export_file_name(header, file_format), export_list(entries, file_format, header)
