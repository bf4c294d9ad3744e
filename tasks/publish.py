"""Publish: the rating list (an immutable edition when it changed) and the organisers' reports.

Each competition of tonight's batch gets its report written to the reports folder
(Markdown and HTML) and attached to the flow run as a Prefect artifact keyed per
competition; the night gets one summary artifact.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from datetime import date
from pathlib import Path

import polars as pl
from prefect import get_run_logger, task
from prefect.artifacts import create_markdown_artifact
from prefect.cache_policies import NO_CACHE
from sqlalchemy import Engine

import engine
import validations
import warehouse
from warehouse.guard import checkpoint
from tasks.ingest import FederationBatch


@dataclass
class Published:
    """What one federation's publish step produced."""

    federation: str
    edition: int | None                      # None: the list did not change
    players_listed: int
    players_changed: int                     # rating differs from the previous edition
    reports: dict[str, str] = field(default_factory=dict)   # competition (or file) -> status
    report_paths: list[str] = field(default_factory=list)


def artifact_key(*parts: str) -> str:
    """Prefect artifact keys allow lowercase letters, digits and dashes only.

    Examples
    --------
    >>> artifact_key("ajusc", "BARRUF-191", "report")
    'ajusc-barruf-191-report'
    """
    return re.sub(r"[^a-z0-9]+", "-", "-".join(parts).lower()).strip("-")


def changed_players(previous: pl.DataFrame, current: pl.DataFrame) -> int:
    """How many players' published rating differs between two lists (new players included)."""
    if previous.height == 0:
        return current.height
    joined = current.select("player_id", "rating").join(
        previous.select("player_id", pl.col("rating").alias("previous")), on="player_id", how="left"
    )
    return joined.filter(pl.col("previous").is_null() | (pl.col("rating") != pl.col("previous"))).height


def unreadable_file_reports(batch: FederationBatch) -> list[validations.CompetitionReport]:
    """Files that could not be tied to any competition still get a report, keyed by file name."""
    orphans = batch.findings.filter(pl.col("competition_id").is_null())
    return [
        validations.file_report(str(source), findings, federation=batch.federation)
        for (source,), findings in orphans.group_by(["source"], maintain_order=True)
    ]


def report_from_warehouse(
    db: Engine, competition_id: str, federation: str | None, progress: pl.DataFrame | None = None
) -> validations.CompetitionReport | None:
    """The organiser's report of a competition as the warehouse holds it (None: unknown id).

    ``progress`` (FIDE) lists the unrated players of this competition with how far they
    are from an initial rating.
    """
    try:
        detail = warehouse.competition_report(db, competition_id, federation=federation)
    except warehouse.UnknownCompetitionError:
        return None
    report = validations.report_from_record(detail.competition, detail.findings, detail.changes)
    games = detail.games
    excluded = int((~games.get_column("rated").fill_null(True)).sum()) if games.height else 0
    own = None
    if progress is not None and progress.height and games.height:
        ids = pl.concat([games.get_column("player_a"), games.get_column("player_b")]).unique()
        own = progress.filter(pl.col("player_id").is_in(ids.to_list()))
    return replace(report, games=games.height, excluded_games=excluded, progress=own)


@task(name="publish_federation", cache_policy=NO_CACHE)
def publish_federation(
    batch: FederationBatch,
    run: engine.RatingRun | None,
    warehouse_url: str | None,
    config: dict[str, object],
    as_of: date,
    reports_dir: str,
    progress: pl.DataFrame | None = None,
) -> Published:
    """Publish the list as of ``as_of`` and every report of tonight's batch."""
    logger = get_run_logger()
    db = warehouse.get_engine(warehouse_url)
    edition: int | None = None
    listed = changed = 0
    if run is not None:
        rating_list = engine.rating_list(batch.federation, run.ratings, as_of=as_of, config=config)
        previous = warehouse.rating_list(db, batch.federation)
        edition = warehouse.publish_list(db, batch.federation, rating_list, as_of=as_of)
        listed = rating_list.height
        changed = changed_players(previous, rating_list)
        logger.info(
            "%s: list as of %s, %d player(s), %d changed, edition %s",
            batch.federation, as_of, listed, changed, edition if edition is not None else "unchanged",
        )
    published = Published(batch.federation, edition, listed, changed)
    reports = [
        report_from_warehouse(db, cid, batch.federation, progress)
        for cid in batch.competitions.get_column("competition_id").unique(maintain_order=True).to_list()
    ]
    reports += unreadable_file_reports(batch)
    root = Path(reports_dir)
    for report in reports:
        if report is None:
            continue
        checkpoint("report")
        paths = validations.write_report(report, root)
        published.reports[report.competition_id] = report.status
        published.report_paths += [str(p) for p in paths]
        create_markdown_artifact(
            key=artifact_key(report.federation, report.competition_id, "report"),
            markdown=paths[0].read_text(encoding="utf-8"),
            description=f"{report.federation} {report.competition_id}: {report.status}",
        )
    return published
