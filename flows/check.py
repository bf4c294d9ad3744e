"""Check: the organiser's report for result files as the next night would judge them; writes nothing.

Run by ``ratings check``. Its stages are in :mod:`tasks.check`.
"""

from __future__ import annotations

import sys

import polars as pl

from flows.config import federation_config
from tasks.check import (
    KNOWN_FEDERATIONS,
    CheckError,
    CompetitionReport,
    batch_reports,
    check_readable,
    json_text,
    rate_checked,
    read_checked,
    readable_url,
    render_text,
    report_record,
)
from tasks.gx import end_great_expectations
from tasks.runtime import flow
from tasks.validate import validate_batch

__all__ = ["CheckError", "check", "check_readable", "print_reports"]


@flow(name="check", description="Report result files as the next night would; writes nothing.")
def check(paths: list[str], federation: str | None = None, warehouse_url: str | None = None) -> list[CompetitionReport]:
    """Every competition's report (outcome, findings, rating changes) for ``paths``.

    Raises
    ------
    CheckError
        A file is missing or unreadable.
    """
    warehouse_url = readable_url(warehouse_url)
    ingested = read_checked(list(paths), federation)
    reports: list[CompetitionReport] = []
    for name, batch in sorted(ingested.batches.items()):
        if name not in KNOWN_FEDERATIONS:   # files no reader could tie to a federation
            reports.extend(batch_reports(batch, pl.DataFrame()))
            continue
        config = federation_config(name)
        if batch.competitions.height:
            try:
                batch = validate_batch(batch, config, None, warehouse_url)
            finally:
                end_great_expectations()
        changes = rate_checked(warehouse_url, batch, config)
        reports.extend(batch_reports(batch, changes))
    return reports


def print_reports(reports: list[CompetitionReport], fmt: str) -> None:
    """Print every report of :func:`check` to stdout (``text``: as the nightly renders it; ``json``)."""
    if fmt == "json":
        sys.stdout.write(json_text([report_record(r) for r in reports], indent=1, default=str) + "\n")
        return
    for report in reports:
        sys.stdout.write(render_text(report) + "\n")
