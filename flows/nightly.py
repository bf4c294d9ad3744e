"""The nightly job: ingest -> validate -> rate -> load -> publish, one shot.

Run by the ``nightly`` deployments of ``prefect.yaml`` (one per federation, on a
cron schedule) or by hand with ``ratings run``.

On a Dask task runner (``ratings run --dask-workers N``) the federations'
validations run in parallel on the Dask workers, gathered before the first rating; rate,
load and publish stay sequential per federation (they write the warehouse under one
guard), so the outcome is the sequential run's.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

import polars as pl

from flows import errors
from flows.config import delivery_settings, federation_config, federations
from flows.orchestration import get_run_logger, map_over, on_dask
from tasks import site_process
from tasks.decisions import record_approvals_rated, with_pending_approvals
from tasks.deliver import Delivered, NightOutcome, deliver_night
from tasks.gx import build_data_docs, end_great_expectations, prepare_gx_project
from tasks.ingest import BLOCK_GAMES, FederationBatch, Ingested, ingest_inbox, plan_inbox
from tasks.load import load_federation
from tasks.publish import Published, publish_federation
from tasks.rate import rate_federation
from tasks.recover import resume_unfinished_publication
from tasks.runtime import flow
from tasks.site import publish_site
from tasks.summary import kept_for_summary, summarise_night
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
    file_findings: dict[str, str] = field(default_factory=dict)   # refused file -> its deciding finding, line and field
    #: federation -> what failed unexpectedly (one line, with the log file of the details);
    #: the other federations ran to the end (``ratings run`` exits 2).
    internal_errors: dict[str, str] = field(default_factory=dict)
    #: what e-mail delivery did (``None``: nothing is e-mailed: no ``[delivery]``, or ``--no-deliver``)
    delivered: Delivered | None = None


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
    deliver: bool = True,
    block_games: int = BLOCK_GAMES,
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
    deliver
        E-mail each new report to its organiser and the digest to the rating officer, when
        the installation's config has a ``[delivery]`` table (``False``: ``--no-deliver``).
    block_games
        An inbox of more games is taken in blocks of about as many (the first run of an
        archive: ``tasks/_inbox_blocks.py``), each rated, loaded and published in date order
        before the next is read, with the same outcome as one batch; ``0``: one batch (default:
        ``tasks._inbox_blocks.BLOCK_GAMES``, 250,000).
    """
    logger = get_run_logger()
    as_of = as_of or date.today()
    if federation is not None:
        federation_config(federation)   # fail fast, with the known ids, on a typo
    summary = NightlyRun(as_of=as_of)
    resumed = resume_unfinished_publication(warehouse_url, as_of, reports_dir, federation, configs=federations())   # a killed run's
    if gx_root:
        # Created once, before any validation: concurrent writers corrupt a GX file project.
        prepare_gx_project(gx_root)
    blocks = plan_inbox(inbox, warehouse_url, federation, block_games)
    night = _Night()
    approved: dict[str, list[str]] = {}
    for number, block in enumerate(blocks, start=1):
        if len(blocks) > 1:
            logger.info("block %d of %d: %d file(s)", number, len(blocks), len(block))
        ingested = ingest_inbox(inbox, warehouse_url, federation, only=block if len(blocks) > 1 else None)
        checkpoint("ingest")
        if number == 1:
            # Competitions the rating officer approved since the last run are rated tonight,
            # even when no new file arrived for their federation.
            approved = with_pending_approvals(ingested, warehouse_url, federation)
            summary.files_seen = ingested.files_seen
        summary.files_skipped += ingested.files_skipped
        summary.files_ignored += ingested.files_ignored
        night.outcomes.update(ingested.file_outcomes)
        night.files += [b.files for b in ingested.batches.values()]
        for fed in sorted(night.stopped & set(ingested.batches)):
            # Stopped in an earlier block: its later files wait for the run that finishes those.
            sources = ingested.batches.pop(fed).files.get_column("source").to_list()
            night.failed.update({source: f"not finished: {summary.internal_errors[fed]}" for source in sources})
        tonight = _Tonight(
            warehouse_url=warehouse_url, federation=federation, as_of=as_of, reports_dir=reports_dir, gx_root=gx_root,
            site_dir=site_dir, approved=approved if number == 1 else {},
            validated=_validate_on_dask(ingested.batches, gx_root, warehouse_url, as_of) if on_dask() else {},
            # The GX process is ended and the site's process started in the last block only.
            last=max(ingested.batches, default=None) if number == len(blocks) else None,
        )
        _every_federation(ingested, tonight, summary, night, logger)
    summary.file_outcomes, summary.file_findings, summary.summary_markdown = summarise_night(
        night.finished, {fed: pl.concat(runs, how="vertical_relaxed") for fed, runs in night.changes.items()}, summary.competitions,
        as_of=as_of, skipped=summary.files_skipped, ignored=summary.files_ignored,
        failed={**night.outcomes, **night.failed}, files=night.files,
    )
    logger.info("nightly as of %s: %d file(s) in the inbox, %d already loaded", as_of, summary.files_seen,
                len(summary.files_skipped), extra={"summary": True})
    if gx_root:
        build_data_docs(gx_root)
        end_great_expectations()
    if site_dir is not None:
        # "" (the default): the site lives beside the reports folder, as ``ratings run`` puts it.
        site_dir = site_dir or str(Path(reports_dir).parent / "site")
        publish_site(warehouse_url, site_dir, federation, as_of, configs=federations())
    if deliver:
        _deliver(summary, [*resumed.values(), *summary.published.values()], warehouse_url, reports_dir, federation)
    return summary


@dataclass
class _Tonight:
    """What every federation's stages share tonight: the run's settings and what came before."""

    warehouse_url: str | None
    federation: str | None
    as_of: date
    reports_dir: str
    gx_root: str | None
    site_dir: str | None
    approved: dict[str, list[str]]   #: federation -> the competitions approved since the last run
    validated: dict[str, FederationBatch | Exception]   #: validated on the Dask workers
    last: str | None   #: the federation whose turn comes last


@dataclass
class _Turn:
    """Where one federation's turn is: its stage (named by an error's line) and its batch."""

    stage: str
    batch: FederationBatch


@dataclass
class _Night:
    """What the night's blocks have done so far (one block but for a large inbox)."""

    finished: list[FederationBatch] = field(default_factory=list)   #: the batches that ran to the end
    changes: dict[str, list[pl.DataFrame]] = field(default_factory=dict)   #: federation -> its runs' changes
    outcomes: dict[str, str] = field(default_factory=dict)   #: the files ingest did not read, with why
    failed: dict[str, str] = field(default_factory=dict)   #: file -> why it is not finished
    stopped: set[str] = field(default_factory=set)   #: the federations an internal error stopped
    files: list[pl.DataFrame] = field(default_factory=list)   #: every batch's files


def _every_federation(ingested: Ingested, tonight: _Tonight, summary: NightlyRun, night: _Night, logger: Any) -> None:
    """Each federation's turn, one after the other, added to ``night`` and ``summary``: its
    finished batch and rating changes, or the files of a federation that failed."""
    for fed, batch in sorted(ingested.batches.items()):
        turn = _Turn(stage="validate", batch=batch)
        try:
            published, run = _federation_turn(fed, turn, tonight)
        except Exception as error:   # one federation's bug must not stop the others' night
            if errors.affects_every_federation(error):
                raise
            line = _internal_error(fed, turn.stage, error)
            logger.error("%s", line)
            summary.internal_errors[fed] = line
            night.stopped.add(fed)
            night.failed.update({str(source): f"not finished: {line}"
                                 for source in turn.batch.files.get_column("source").to_list()})
            continue
        earlier = summary.published.get(fed)
        summary.published[fed] = published if earlier is None else earlier.followed_by(published)
        summary.competitions.setdefault(fed, {}).update(published.reports)
        summary.report_paths += published.report_paths
        # What the summary reads of a block (its competitions, the first finding of each rule; the
        # changes of its own competitions): the games, players and the run's rows go with the block.
        night.finished.append(kept_for_summary(turn.batch))
        if run is not None:
            ids = turn.batch.competitions.get_column("competition_id").implode()
            night.changes.setdefault(fed, []).append(run.changes.filter(pl.col("competition_id").is_in(ids)))


def _federation_turn(fed: str, turn: _Turn, tonight: _Tonight) -> tuple[Published, Any]:
    """validate -> rate -> load -> publish for one federation (``unknown``: load and publish
    only, the files no reader could tie to a federation); its published lists and its run."""
    config = federation_config(fed) if fed != "unknown" else {}
    run, progress, rated = None, None, None
    if config:
        turn.batch = _validate(fed, turn.batch, config, tonight)
        checkpoint("validate")
        turn.stage = "rate"
        rated = rate_federation(turn.batch, tonight.warehouse_url, config, tonight.as_of)
        checkpoint("rate")
        run, progress = rated.run, rated.progress
    turn.stage = "load"
    load_federation(turn.batch, run, tonight.warehouse_url, config, rated)
    checkpoint("load")
    if run is not None and fed in tonight.approved:
        record_approvals_rated(fed, tonight.warehouse_url)
    turn.stage = "publish"
    if tonight.site_dir is not None and fed == tonight.last:
        site_process.start(tonight.warehouse_url, tonight.federation)   # a large site's process imports meanwhile
    published = publish_federation(turn.batch, run, tonight.warehouse_url, config, tonight.as_of, tonight.reports_dir,
                                   progress, rated, also_report=tonight.approved.get(fed, []))
    checkpoint("publish")
    return published, run


def _validate(fed: str, batch: FederationBatch, config: dict[str, Any], tonight: _Tonight) -> FederationBatch:
    """The federation's validated batch: the Dask workers' (their error raised here, in its
    turn), else ``validate_batch`` now."""
    if fed in tonight.validated:
        outcome = tonight.validated[fed]
        if isinstance(outcome, Exception):
            raise outcome
        return outcome
    try:
        return validate_batch(batch, config, tonight.gx_root, tonight.warehouse_url, tonight.as_of)
    finally:
        if fed == tonight.last and not tonight.gx_root:
            # Nothing else of the night needs it: its memory goes before the rating's.
            end_great_expectations()


def _deliver(summary: NightlyRun, published: list[Published], warehouse_url: str | None, reports_dir: str,
             federation: str | None) -> None:
    """E-mail tonight's reports and the digest, when the installation has mail settings.

    Last, after the lists and the site are out: a mail server that is down or slow never
    holds up a publication, and what it could not take is retried by the next run.
    """
    settings = delivery_settings()
    if settings is None or not settings.enabled:
        return
    off = [fed for fed in {p.federation for p in published} if fed != "unknown"
           and federation_config(fed).get("deliver") is False]
    outcome = NightOutcome(
        as_of=summary.as_of, statuses=summary.competitions,
        editions={p.federation: p.editions for p in published if p.editions},
        internal_errors=dict(summary.internal_errors), federation=federation,
    )
    written = [report for p in published for report in p.written]
    try:
        summary.delivered = deliver_night(warehouse_url, written, outcome, settings, reports_dir, off)
    except Exception as error:   # the night is done: a delivery bug must not undo its outcome
        if errors.affects_every_federation(error):
            raise
        line = _internal_error("delivery", "deliver", error)
        get_run_logger().error("%s", line)
        summary.internal_errors["delivery"] = line


def _validate_on_dask(
    batches: dict[str, FederationBatch], gx_root: str | None, warehouse_url: str | None, as_of: date,
) -> dict[str, FederationBatch | Exception]:
    """Every known federation's ``validate_batch``, submitted to the Dask workers at once.

    Federation -> its validated batch, or the exception it raised (re-raised in that
    federation's turn, so it stops that federation alone, as in the sequential run).
    """
    known: list[tuple[str, dict[str, object]]] = []
    for fed in sorted(batches):
        try:
            config = federation_config(fed) if fed != "unknown" else {}
        except Exception:   # noqa: BLE001, S112 - left to that federation's turn, which reports it
            continue
        if config:
            known.append((fed, config))
    outcomes = map_over(validate_batch, [(batches[fed], config, gx_root, warehouse_url, as_of)
                                         for fed, config in known])
    return {fed: outcome for (fed, _), outcome in zip(known, outcomes, strict=True)}


def _internal_error(federation: str, stage: str, error: Exception) -> str:
    """One line for an unexpected error in ``federation``'s ``stage``; the details go to a log file."""
    try:
        where = f"details in {errors.write_error_log(error, f'run ({federation}, {stage})')}"
    except OSError as log_error:
        where = f"and the log could not be written: {log_error}"
    return f"internal error ({errors.one_line(error)}) in the {stage} stage of {federation}; {where}"
