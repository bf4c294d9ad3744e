"""Pre-check: the organiser's report for result files as the next night would judge them.

The files are read as the nightly run reads its inbox (:func:`tasks.ingest.read_inbox`),
validated by the nightly's own stage (:func:`tasks.validate.validate_batch`), rated with
the federation's history (:func:`rating.rate`) and reported with the nightly's
report code (:mod:`validations.report`). Nothing is written to the warehouse.
"""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import polars as pl

import warehouse
from formats._common import KNOWN_FEDERATIONS
from formats.safety import escape_controls, json_text
from formats.schema import FINDINGS_SCHEMA, conform
from rating import rate
from tasks.ingest import FederationBatch, Ingested, copy_to_inbox, read_inbox
from tasks.runtime import task
from validations.report import CompetitionReport, build_report, file_report, render_report

__all__ = [
    "KNOWN_FEDERATIONS", "CheckError", "CompetitionReport", "batch_reports", "check_readable", "json_text", "rate_checked", "read_checked", "readable_url", "render_text", "report_record", "terminal_text"]


class CheckError(ValueError):
    """Files that cannot be checked: missing or unreadable."""


def readable_url(url: str | None) -> str:
    """The warehouse URL to read from, creating nothing: an SQLite file that does not exist
    yet is read as an empty warehouse in memory (a first night would start from nothing).

    Examples
    --------
    >>> readable_url("sqlite:////nonexistent/folder/w.db")
    'sqlite://'
    """
    from sqlalchemy.engine import make_url

    from warehouse.db import resolve_url

    resolved = resolve_url(url)
    parsed = make_url(resolved)
    if (parsed.get_backend_name() == "sqlite" and parsed.database not in (None, "", ":memory:")
            and not Path(str(parsed.database)).exists()):
        return "sqlite://"
    return resolved


def check_readable(paths: Sequence[str | Path]) -> None:
    """Refuse, in one line, a file that is missing or unreadable (before the flow starts).

    Raises
    ------
    CheckError
        The first such file.
    """
    for name in paths:
        path = Path(name)
        if path.is_dir():
            continue
        try:
            with path.open("rb"):
                pass
        except OSError as error:
            raise CheckError(f"{name}: cannot read the file: {error.strerror or error}") from None


@task(name="read_checked")
def read_checked(paths: list[str], federation: str | None) -> Ingested:
    """The files, read as the nightly run reads its inbox, grouped by federation."""
    with tempfile.TemporaryDirectory(prefix="ratings-check-") as folder:
        copy_to_inbox(paths, Path(folder), error=CheckError)
        return read_inbox(Path(folder), set(), federation)


@task(name="rate_checked")
def rate_checked(
    warehouse_url: str | None, batch: FederationBatch, config: dict[str, object]
) -> pl.DataFrame:
    """The rating changes the batch would make on top of the warehouse's history (not stored)."""
    if not batch.competitions.height:
        return pl.DataFrame()
    url = readable_url(warehouse_url)
    db = warehouse.get_engine(url, migrate_schema=url == "sqlite://")
    history = warehouse.history(db, batch.federation)
    return rate(history, batch, config).run.changes


def batch_reports(batch: FederationBatch, changes: pl.DataFrame) -> list[CompetitionReport]:
    """One report per competition of the validated batch, and one per unreadable file."""
    findings = conform(batch.findings, FINDINGS_SCHEMA) if batch.findings.height else batch.findings
    reports: list[CompetitionReport] = []
    for competition_id in batch.competitions.get_column("competition_id").to_list():
        own = changes.filter(pl.col("competition_id") == competition_id) if changes.height else None
        reports.append(build_report(batch.competitions, findings, competition_id, federation=batch.federation,
                                    changes=own, games=batch.games, players=batch.players,
                                    byes=batch.byes))
    if findings.height:
        loose = findings.filter(pl.col("competition_id").is_null())
        for source in sorted(set(loose.get_column("source").drop_nulls().to_list())):
            reports.append(file_report(source, loose, federation=batch.federation))
    return reports


def report_record(report: CompetitionReport) -> dict[str, Any]:
    """One report as plain data: outcome, findings with line and field, rating changes."""
    return {
        "federation": report.federation,
        "competition_id": report.competition_id,
        "source": report.source,
        "status": report.status,
        "findings": report.findings.to_dicts(),
        "changes": report.changes.to_dicts(),
    }


def render_text(report: CompetitionReport) -> str:
    """The report as the nightly renders it for the organiser (Markdown, user text escaped),
    with any control character left in it shown escaped (``\\x1b``) for the terminal.

    Examples
    --------
    >>> terminal_text("a\\x1bb\\n")
    'a\\\\x1bb\\n'
    """
    return terminal_text(render_report(report, fmt="markdown"))


def terminal_text(text: object, *, keep: str = "\n\t") -> str:
    """``text`` as a terminal may show it: every control character but ``keep`` escaped
    (:func:`formats.safety.escape_controls`, the one helper for it)."""
    return escape_controls(str(text), keep=keep)
