"""Backfill: re-rate a federation's history from a date and republish its list.

Used by the data engineer on call after a correction (a late or corrected file, a
new starting list, a changed rule set). The engine re-rates from the seed list, so
everything before ``from_date`` comes out as it was published, and the run reports
which rating changes from ``from_date`` on (to ``to_date``) differ from what the
warehouse held. Published editions whose figures change get ONE correcting edition
with the diff (DESIGN.md *Publication*), never a rewrite.
"""

from __future__ import annotations

import tempfile
from datetime import date
from pathlib import Path

from flows.config import federation_config, federations
from tasks import site_process
from tasks.backfill import (
    BackfillSummary,
    differing_changes,
    plan_backfill,
    rate_backfill_in_blocks,
    stored_changes,
    summarise_backfill,
)
from tasks.ingest import BLOCK_GAMES, FederationBatch
from tasks.load import load_federation
from tasks.publish import publish_federation
from tasks.rate import rate_federation
from tasks.recover import resume_unfinished_publication
from tasks.runtime import flow
from tasks.site import publish_site
from warehouse.guard import checkpoint, exclusive

__all__ = ["BackfillSummary", "backfill", "differing_changes"]


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
    block_games: int = BLOCK_GAMES,
) -> BackfillSummary:
    """Re-rate ``federation`` and report the changes dated from ``from_date`` (to ``to_date``).

    A history of more than ``block_games`` games is re-rated in blocks of months
    (``rating.blocks``), each block's games read when it is rated and its explanations written
    aside, and loaded in one transaction as one run's rows (0: one block)."""
    config = federation_config(federation)
    before = stored_changes(warehouse_url, federation, from_date, to_date)
    empty_batch = FederationBatch(federation=federation)
    day = as_of or to_date or date.today()
    resume_unfinished_publication(warehouse_url, day, reports_dir, federation, configs=federations())   # a killed run's
    why = f"re-rating from {from_date}" + (f" to {to_date}" if to_date else "") + " (replayed from the seed)"
    blocks = plan_backfill(warehouse_url, federation, config, block_games)
    with tempfile.TemporaryDirectory(prefix="ratings-backfill-") as folder:
        files: tuple[Path, ...] = ()
        if len(blocks) > 1:
            rated, files = rate_backfill_in_blocks(warehouse_url, federation, config, day, blocks, Path(folder), why)
        else:
            rated = rate_federation(empty_batch, warehouse_url, config, day, full=True, why=why)
        checkpoint("rate")
        run = rated.run
        load_federation(empty_batch, run, warehouse_url, config, rated, explanation_files=files)
        checkpoint("load")
    if site_dir is not None:
        site_process.start(warehouse_url, federation)   # a large site's process imports meanwhile
    published = publish_federation(empty_batch, run, warehouse_url, config, day, reports_dir, None, rated)
    checkpoint("publish")
    summary = summarise_backfill(federation, from_date, to_date, before, rated, published.edition)
    if site_dir is not None:
        # "" (the default): the site lives beside the reports folder, as ``ratings run`` puts it.
        site_dir = site_dir or str(Path(reports_dir).parent / "site")
        publish_site(warehouse_url, site_dir, federation, day, configs=federations())
    return summary
