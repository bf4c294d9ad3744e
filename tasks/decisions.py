"""The rating officer's approvals reach the ratings: what the nightly run does with them.

An approved held competition is ``accepted`` in the warehouse, so the history the
rating step reads (``warehouse.history``) holds it. A run re-rates a federation
only when its inbox holds something new; :func:`with_pending_approvals` adds an
empty batch for every federation with approvals not rated yet, so the next run
rates them even with an empty inbox, and :func:`record_approvals_rated` marks
them rated once the federation's load committed.
"""

from __future__ import annotations

import warehouse
from tasks.ingest import FederationBatch, Ingested
from tasks.runtime import get_run_logger, task


@task(name="pending_approvals")
def with_pending_approvals(
    ingested: Ingested, warehouse_url: str | None, federation: str | None = None,
) -> dict[str, list[str]]:
    """Give every federation with pending approvals a batch (empty when nothing new arrived);
    return the pending competition ids by federation."""
    pending = warehouse.decisions.pending_approvals(warehouse.get_engine(warehouse_url), federation)
    for fed, ids in pending.items():
        ingested.batches.setdefault(fed, FederationBatch(federation=fed)).rerate.extend(ids)
        get_run_logger().info("%s: re-rating for %d approved competition(s): %s", fed, len(ids), ", ".join(ids))
    return pending


@task(name="record_approvals_rated")
def record_approvals_rated(federation: str, warehouse_url: str | None) -> int:
    """After the federation's load: its approved competitions are rated."""
    return warehouse.decisions.mark_applied(warehouse.get_engine(warehouse_url), federation)
