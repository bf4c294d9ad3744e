"""Validate: the federation's eligibility rules and data-quality suites over tonight's batch."""

from __future__ import annotations

from dataclasses import replace
from datetime import date
from pathlib import Path

import polars as pl
from sqlalchemy import Engine

import validations
import warehouse
from formats.schema import FINDINGS_SCHEMA, concat
from tasks.ingest import FederationBatch
from tasks.runtime import get_run_logger, task
from validations.dates import implausible_dates


def merge_reader_findings(
    batch: FederationBatch, checked: validations.Validation, extra: pl.DataFrame | None = None
) -> FederationBatch:
    """Fold the readers' findings (and ``extra`` checks made here) into the validation's verdict.

    A competition with a reader finding of severity ``reject`` is rejected whatever the
    eligibility rules said (its file could not be read completely), so that a game
    is never silently missing from a rated competition; its games are not rated.
    """
    extra = extra if extra is not None else batch.findings.head(0)
    findings = concat([batch.findings, checked.findings, extra], FINDINGS_SCHEMA).unique(maintain_order=True)
    rejected = set(
        concat([batch.findings, extra], FINDINGS_SCHEMA).filter(pl.col("severity") == "reject")
        .get_column("competition_id").drop_nulls().to_list()
    )
    held = set(
        concat([batch.findings, extra], FINDINGS_SCHEMA).filter(pl.col("severity") == "hold")
        .get_column("competition_id").drop_nulls().to_list()
    )
    competitions = checked.competitions.with_columns(
        pl.when(pl.col("competition_id").is_in(list(rejected)))
        .then(pl.lit("rejected"))
        .when(pl.col("competition_id").is_in(list(held)) & (pl.col("status") != "rejected"))
        .then(pl.lit("held"))
        .otherwise(pl.col("status"))
        .alias("status")
    )
    games = checked.games.with_columns(
        (pl.col("rated") & ~pl.col("competition_id").is_in(list(rejected))).alias("rated")
    )
    return replace(batch, competitions=competitions, games=games, findings=findings)


def known_ratings(db: Engine, federation: str) -> pl.DataFrame:
    """The ratings the warehouse holds (the current state, else the seeded list), so that
    the rules can tell a rated player from an unrated one whose file shows no rating."""
    current = warehouse.current_ratings(db, federation)
    return current if current.height else warehouse.history(db, federation).seed


@task(name="validate_batch")
def validate_batch(
    batch: FederationBatch, config: dict[str, object], gx_root: str | None = None,
    warehouse_url: str | None = None, as_of: date | None = None,
) -> FederationBatch:
    """Check every competition of the batch; the result carries ``status`` and ``rated``.

    A competition dated after ``as_of`` (the run's date, default today) or before the
    federation's seeded list is held for the rating officer (:mod:`validations.dates`).
    """
    logger = get_run_logger()
    db = warehouse.get_engine(warehouse_url)
    ratings = known_ratings(db, batch.federation)
    checked = validations.validate(
        batch.competitions,
        batch.games,
        federation=batch.federation,
        byes=batch.byes,
        players=batch.players,
        ratings=ratings,
        config=config,
        gx_root=Path(gx_root) if gx_root else None,
    )
    extra = None
    if config.get("system") == "egf-gor":
        # A newcomer with neither grade nor EGF rating cannot be given a starting rating.
        extra = validations.egf.newcomers_without_start(
            batch.competitions, batch.games, batch.players, ratings, federation=batch.federation
        )
    dated = implausible_dates(batch.competitions, as_of=as_of or date.today(),
                              seed_as_of=warehouse.seed_date(db, batch.federation), federation=batch.federation)
    if dated.height:
        extra = dated if extra is None else concat([extra, dated], FINDINGS_SCHEMA)
    merged = merge_reader_findings(batch, checked, extra)
    counts = merged.competitions.group_by("status").len().sort("status").rows()
    logger.info("%s: %s", batch.federation, ", ".join(f"{n} {s}" for s, n in counts) or "no competitions")
    return merged
