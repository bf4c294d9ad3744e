"""Rate: bring a federation's ratings up to date with tonight's competitions (:mod:`rating`)."""

from __future__ import annotations

from datetime import date

import rating
import warehouse
from formats.batch import FederationBatch
from rating import Rated
from rating.history import started_from
from tasks.runtime import get_run_logger, task

__all__ = ["Rated", "rate_federation"]


@task(name="rate_federation")
def rate_federation(
    batch: FederationBatch, warehouse_url: str | None, config: dict[str, object], as_of: date | None = None,
    full: bool = False, why: str | None = None,
) -> Rated:
    """Rate ``batch.federation`` through tonight's competitions (:func:`rating.rate_federation`).

    ``why``: what the log line says the run re-rates (a backfill: from its date), instead of
    where the engine started.
    """
    rated = rating.rate_federation(warehouse.get_engine(warehouse_url), batch, config, as_of, full=full)
    run = rated.run
    how = why or "rated " + started_from(rated.cut, rated.full_reason, seeded=rated.start_state.height > 0)
    get_run_logger().info(
        "%s: %s: %d rating change(s) over %d competition(s), %d player(s) in the state",
        batch.federation, how, run.changes.height, run.changes.get_column("competition_id").n_unique(),
        run.ratings.height,
    )
    return rated

