"""Recover: finish the publication a killed run left half done.

A run commits its load (history, ratings) in one transaction and then publishes:
the editions of the list, the organisers' reports. A run killed in between used to
leave that night unpublished for good, because the rerun finds every file in the
load ledger and has nothing new to publish. The load now writes a
``pending_publications`` row in its own transaction, and the publish step deletes it
at its very end (:func:`warehouse.load.finish_publication`). Before anything else,
every writing run calls :func:`resume_unfinished_publication`: for each federation
with a pending row it re-rates the history from the seed (the lists are derived
from it, bit for bit), publishes the editions still missing and writes the reports
of the competitions and files those loads brought. Every step is idempotent, so a
run killed again while recovering is recovered by the next one.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date
from typing import Any

import warehouse
from tasks.ingest import FederationBatch
from tasks.publish import Published, publish_federation
from tasks.rate import rate_federation
from tasks.runtime import get_run_logger, task
from warehouse.load import pending_publications, published_by


@task(name="resume_unfinished_publication")
def resume_unfinished_publication(
    warehouse_url: str | None, as_of: date, reports_dir: str, federation: str | None = None,
    configs: Mapping[str, Mapping[str, Any]] | None = None,
) -> dict[str, Published]:
    """Finish every publication a killed run left pending (only ``federation``'s, if given).

    Parameters
    ----------
    warehouse_url
        The warehouse (``None``: the default one).
    as_of
        This run's date: a correcting edition the recovery publishes is dated the day
        it is published.
    reports_dir
        Where the organisers' reports go.
    federation
        Only this federation's pending publication.
    configs
        The federations' configuration (``flows.config.federations()``, passed by the flow).

    Returns
    -------
    dict[str, Published]
        What was published per federation (empty: nothing was pending).
    """
    db = warehouse.get_engine(warehouse_url)
    pending = pending_publications(db, federation)
    if not pending:
        return {}
    logger = get_run_logger()
    known = configs or {}
    out: dict[str, Published] = {}
    for fed, load_ids in pending.items():
        competitions, orphans = published_by(db, fed, load_ids)
        logger.warning(
            "%s: the publication of load(s) %s did not finish (a run was interrupted): publishing %d "
            "competition report(s) and the missing editions now", fed, ", ".join(map(str, load_ids)),
            len(competitions),
        )
        config = dict(known.get(fed, {}))
        batch = FederationBatch(federation=fed, findings=orphans)
        rated = rate_federation.fn(FederationBatch(federation=fed), warehouse_url, config, as_of, full=True) \
            if config else None
        out[fed] = publish_federation.fn(
            batch, rated.run if rated is not None else None, warehouse_url, config, as_of, reports_dir,
            rated.progress if rated is not None else None, rated, also_report=competitions,
        )
    return out
