"""The nightly job: ingest -> validate -> rate -> load -> publish, one shot.

Run by the ``nightly`` deployments of ``prefect.yaml`` (one per federation, on a
cron schedule) or by hand with ``ratings run``.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import date
from pathlib import Path

import polars as pl
from prefect import flow, get_run_logger
from prefect.artifacts import create_markdown_artifact

import validations
from flows.config import federation_config
from formats.schema import COMPETITIONS_SCHEMA, FINDINGS_SCHEMA, RATING_CHANGES_SCHEMA
from tasks.decisions import record_approvals_rated, with_pending_approvals
from tasks.frames import concat
from tasks.ingest import FILES_SCHEMA, ingest_inbox
from tasks.load import load_federation
from tasks.publish import Published, publish_federation
from tasks.rate import rate_federation
from tasks.recover import resume_unfinished_publication
from tasks.site import publish_site
from tasks.validate import validate_batch
from warehouse.guard import checkpoint, exclusive


@dataclass
class NightlyRun:
    """What one nightly run did (returned by the flow, printed by ``ratings run``)."""

    as_of: date
    files_seen: int = 0
    files_skipped: list[str] = field(default_factory=list)
    files_ignored: list[str] = field(default_factory=list)
    competitions: dict[str, dict[str, str]] = field(default_factory=dict)   # federation -> id -> status
    published: dict[str, Published] = field(default_factory=dict)
    report_paths: list[str] = field(default_factory=list)
    summary_markdown: str = ""
    file_outcomes: dict[str, str] = field(default_factory=dict)   # file -> its one outcome, with the reason


@flow(name="nightly", description="Ingest new result files, validate, rate, load and publish.")
@exclusive   # one writing run at a time per warehouse (warehouse/guard.py)
def nightly(
    inbox: str = "inbox",
    warehouse_url: str | None = None,
    federation: str | None = None,
    as_of: date | None = None,
    reports_dir: str = "reports",
    gx_root: str | None = None,
    site_dir: str | None = "",
) -> NightlyRun:
    """Process every new file of ``inbox`` for every federation (or only ``federation``).

    Parameters
    ----------
    inbox
        Folder where the rating officer drops the organisers' files. Files stay there;
        a file whose checksum is already in the load ledger is skipped.
    warehouse_url
        SQLAlchemy URL of the warehouse; ``None`` takes ``$RATINGS_WAREHOUSE_URL`` or the
        embedded ``sqlite:///ratings.db``.
    federation
        Only this federation's files (``ajusc``, ``fide``, ``egf``); ``None``: all.
    as_of
        Date of the published lists (default: today).
    reports_dir
        Folder for the organisers' reports (Markdown and HTML, one per competition).
    gx_root
        Folder of the file-based Great Expectations project (Data Docs); ``None``: an
        ephemeral context.
    site_dir
        Folder of the static publication site, regenerated at the end; ``""`` (default):
        ``site/`` beside ``reports_dir``; ``None``: no site.
    """
    logger = get_run_logger()
    as_of = as_of or date.today()
    if federation is not None:
        federation_config(federation)   # fail fast, with the known ids, on a typo
    summary = NightlyRun(as_of=as_of)
    resume_unfinished_publication(warehouse_url, as_of, reports_dir, federation)   # a killed run's (issue 9)
    if gx_root:
        # Created once, before any validation: concurrent writers corrupt a GX file project.
        validations.ensure_gx_project(Path(gx_root))
    ingested = ingest_inbox(inbox, warehouse_url, federation)
    checkpoint("ingest")
    # Competitions the rating officer approved since the last run are rated tonight,
    # even when no new file arrived for their federation (issue 14).
    approved = with_pending_approvals(ingested, warehouse_url, federation)
    summary.files_seen = ingested.files_seen
    summary.files_skipped = ingested.files_skipped
    summary.files_ignored = ingested.files_ignored
    competition_frames: list[pl.DataFrame] = []
    finding_frames: list[pl.DataFrame] = []
    change_frames: list[pl.DataFrame] = []
    for fed, batch in sorted(ingested.batches.items()):
        config = federation_config(fed) if fed != "unknown" else {}
        if config:
            batch = validate_batch(batch, config, gx_root, warehouse_url)
            checkpoint("validate")
            rated = rate_federation(batch, warehouse_url, config, as_of)
            checkpoint("rate")
            run, progress = rated.run, rated.progress
        else:
            run, progress, rated = None, None, None
        load_federation(batch, run, warehouse_url, config, rated)
        checkpoint("load")
        if run is not None and fed in approved:
            record_approvals_rated(fed, warehouse_url)
        published = publish_federation(batch, run, warehouse_url, config, as_of, reports_dir, progress, rated,
                                       also_report=approved.get(fed, []))
        checkpoint("publish")
        summary.published[fed] = published
        summary.competitions[fed] = dict(published.reports)
        summary.report_paths += published.report_paths
        competition_frames.append(batch.competitions)
        finding_frames.append(batch.findings)
        if run is not None:
            tonight = batch.competitions.get_column("competition_id").to_list()
            change_frames.append(run.changes.filter(pl.col("competition_id").is_in(tonight)))
    files_tonight = concat([b.files for b in ingested.batches.values()], FILES_SCHEMA)
    summary.file_outcomes = validations.file_outcomes(
        files=files_tonight, competitions=concat(competition_frames, COMPETITIONS_SCHEMA),
        statuses=summary.competitions, findings=concat(finding_frames, FINDINGS_SCHEMA),
        skipped=summary.files_skipped, ignored=summary.files_ignored,
    )
    night = validations.NightlySummary.from_frames(
        files=concat([b.files for b in ingested.batches.values()], FILES_SCHEMA),
        competitions=concat(competition_frames, COMPETITIONS_SCHEMA),
        changes=concat(change_frames, RATING_CHANGES_SCHEMA),
        as_of=as_of,
        files_skipped=len(summary.files_skipped),
    )
    summary.summary_markdown = validations.render_summary(replace(night, outcomes=summary.file_outcomes))
    create_markdown_artifact(key="nightly-summary", markdown=summary.summary_markdown,
                             description=f"Nightly run as of {as_of}")
    logger.info("nightly as of %s: %d file(s) seen, %d skipped", as_of, summary.files_seen,
                len(summary.files_skipped))
    if gx_root:
        validations.build_data_docs(Path(gx_root))
    if site_dir is not None:
        # "" (the default): the site lives beside the reports folder, as ``ratings run`` puts it.
        site_dir = site_dir or str(Path(reports_dir).parent / "site")
        publish_site(warehouse_url, site_dir, federation, as_of)
    return summary

