"""Backfill: re-rate a federation's history from a date and republish its list.

Used by the data engineer on call after a correction (a late or corrected file, a
new starting list, a changed rule set). The engine re-rates from the seed list, so
everything before ``from_date`` comes out as it was published, and the run reports
which rating changes from ``from_date`` on (to ``to_date``) differ from what the
warehouse held. Published editions whose figures change get ONE correcting edition
with the diff (DESIGN.md *Publication*), never a rewrite.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from pathlib import Path

import polars as pl
from prefect import flow, get_run_logger, task
from prefect.artifacts import create_markdown_artifact
from prefect.cache_policies import NO_CACHE

import warehouse
from flows.config import federation_config
from tasks.ingest import FederationBatch
from tasks.load import load_federation
from tasks.publish import publish_federation
from tasks.rate import rate_federation
from tasks.recover import resume_unfinished_publication
from tasks.site import publish_site
from warehouse.guard import checkpoint, exclusive


@dataclass
class BackfillSummary:
    """What a backfill changed."""

    federation: str
    from_date: date
    to_date: date | None
    competitions_rerated: int
    changes_differing: int     # rating changes (player x competition) that differ from before
    edition: int | None


def differing_changes(before: pl.DataFrame, after: pl.DataFrame) -> pl.DataFrame:
    """Rating changes present on one side only, or with a different rating after."""
    key = ["competition_id", "player_id"]
    left = before.select(*key, pl.col("rating_after").alias("before"))
    right = after.select(*key, pl.col("rating_after").alias("after"))
    joined = left.join(right, on=key, how="full", coalesce=True)
    return joined.filter(
        pl.col("before").is_null() | pl.col("after").is_null() | (pl.col("before") != pl.col("after"))
    )


@task(name="stored_changes", cache_policy=NO_CACHE)
def stored_changes(warehouse_url: str | None, federation: str) -> pl.DataFrame:
    """The rating changes the warehouse holds now (before re-rating)."""
    return warehouse.rating_changes(warehouse.get_engine(warehouse_url), federation)


@flow(name="backfill", description="Re-rate a federation's history from a date and republish.")
@exclusive   # one writing run at a time per warehouse (warehouse/guard.py)
def backfill(
    federation: str,
    from_date: date,
    to_date: date | None = None,
    warehouse_url: str | None = None,
    as_of: date | None = None,
    reports_dir: str = "reports",
    site_dir: str | None = "",
) -> BackfillSummary:
    """Re-rate ``federation`` and report the changes dated from ``from_date`` (to ``to_date``)."""
    logger = get_run_logger()
    config = federation_config(federation)
    before = stored_changes(warehouse_url, federation)
    empty_batch = FederationBatch(federation=federation)
    day = as_of or to_date or date.today()
    resume_unfinished_publication(warehouse_url, day, reports_dir, federation)   # a killed run's (issue 9)
    rated = rate_federation(empty_batch, warehouse_url, config, day, full=True)
    checkpoint("rate")
    run = rated.run
    load_federation(empty_batch, run, warehouse_url, config, rated)
    checkpoint("load")
    published = publish_federation(empty_batch, run, warehouse_url, config, day, reports_dir, None, rated)
    checkpoint("publish")
    in_window = rated.competitions.filter(
        (pl.col("end_date") >= from_date)
        & (pl.col("end_date") <= (to_date or date.max))
    ).get_column("competition_id")
    window = lambda f: f.filter(pl.col("competition_id").is_in(in_window.to_list()))
    diff = differing_changes(window(before), window(run.changes))
    summary = BackfillSummary(federation, from_date, to_date, in_window.len(), diff.height, published.edition)
    create_markdown_artifact(
        key=f"backfill-{federation}",
        markdown=(
            f"# Backfill {federation} from {from_date}" + (f" to {to_date}" if to_date else "") + "\n\n"
            f"- competitions re-rated in the window: {summary.competitions_rerated}\n"
            f"- rating changes that differ from before: {summary.changes_differing}\n"
            f"- list edition: {published.edition if published.edition is not None else 'unchanged'}\n"
        ),
    )
    logger.info("%s", summary)
    if site_dir is not None:
        # "" (the default): the site lives beside the reports folder, as ``ratings run`` puts it.
        site_dir = site_dir or str(Path(reports_dir).parent / "site")
        publish_site(warehouse_url, site_dir, federation, day)
    return summary
