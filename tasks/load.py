"""Load: tonight's batch and the re-rated state into the warehouse, in one transaction."""

from __future__ import annotations

from pathlib import Path

import engine
import warehouse
from rating import Rated
from tasks.ingest import FederationBatch
from tasks.runtime import get_run_logger, task


@task(name="load_federation", retries=2, retry_delay_seconds=[10, 60])
def load_federation(
    batch: FederationBatch, run: engine.RatingRun | None, warehouse_url: str | None,
    config: dict[str, object] | None = None, rated: Rated | None = None,
    explanation_files: tuple[Path, ...] = (),
) -> warehouse.LoadResult:
    """Exactly-once: the warehouse skips files already in its ledger, so a retry is safe.

    ``rated`` (from ``rate_federation``) says where an incremental run's rows go;
    ``explanation_files``: the run's explanations, in Parquet files read a file at a time
    (a backfill in blocks), instead of ``run.explanations``.
    """
    logger = get_run_logger()
    db = warehouse.get_engine(warehouse_url)
    if config:
        warehouse.register_federation(
            db, batch.federation, name=str(config.get("name")), game=str(config.get("game")),
            system=str(config.get("system")),
        )
    result = warehouse.load_batch(
        db,
        warehouse.LoadBatch(
            federation=batch.federation,
            files=batch.files,
            competitions=batch.competitions,
            players=batch.players,
            games=batch.games,
            byes=batch.byes,
            findings=batch.findings,
            changes=run.changes if run is not None else None,
            explanations=run.explanations if run is not None and not explanation_files else None,
            explanation_files=explanation_files,
            ratings=run.ratings if run is not None else None,
            derived_offset=rated.derived_offset if rated is not None else None,
            derived_basis=rated.basis if rated is not None else None,
            checkpoints=rated.checkpoints if rated is not None else (),
        ),
    )
    logger.info("%s: %s", batch.federation, loaded_in_words(result))
    return result


def loaded_in_words(result: warehouse.LoadResult) -> str:
    """A load's counts as its log line says them.

    Examples
    --------
    >>> loaded_in_words(warehouse.LoadResult(21, 0, 20, 0, 2505, load_id=2))
    'loaded 21 file(s), 20 competition(s), 2505 game(s)'
    >>> loaded_in_words(warehouse.LoadResult(1, 1, 1, 1, 36))
    'loaded 1 file(s) (1 already loaded), 1 competition(s) (1 earlier version(s) superseded), 36 game(s)'
    >>> loaded_in_words(warehouse.LoadResult(0, 2, 0, 0, 0))
    'nothing new to load (2 file(s) already loaded)'
    >>> loaded_in_words(warehouse.LoadResult(0, 0, 0, 0, 0))
    'nothing new to load'
    """
    if result.files_loaded == 0 and result.competitions_loaded == 0 and result.games_loaded == 0:
        return "nothing new to load" + (f" ({result.files_skipped} file(s) already loaded)" if result.files_skipped else "")
    skipped = f" ({result.files_skipped} already loaded)" if result.files_skipped else ""
    superseded = (f" ({result.competitions_superseded} earlier version(s) superseded)"
                  if result.competitions_superseded else "")
    return (f"loaded {result.files_loaded} file(s){skipped}, {result.competitions_loaded} competition(s)"
            f"{superseded}, {result.games_loaded} game(s)")
