"""The stages of a backfill (``flows/backfill.py``) that are its own: what the warehouse
held before, and what changed."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from pathlib import Path

import polars as pl

import engine
import warehouse
from engine.lists import lists_of
from formats.batch import FederationBatch
from rating import Rated
from rating.blocks import BlockRows, plan_history, rate_in_blocks
from tasks.runtime import create_markdown_artifact, get_run_logger, task


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
    """Rating changes present on one side only, or with a different rating after.

    Examples
    --------
    >>> before = pl.DataFrame({"competition_id": ["C", "C"], "player_id": ["1", "2"], "rating_after": [1.0, 2.0]})
    >>> after = pl.DataFrame({"competition_id": ["C", "C"], "player_id": ["1", "3"], "rating_after": [1.0, 3.0]})
    >>> sorted(differing_changes(before, after).get_column("player_id").to_list())
    ['2', '3']

    A FIDE player still unrated has a change row with no rating after: the same on both sides,
    it is no difference.

    >>> unrated = pl.DataFrame({"competition_id": ["C"], "player_id": ["4"], "rating_after": [None]},
    ...                        schema_overrides={"rating_after": pl.Float64})
    >>> differing_changes(unrated, unrated).height
    0
    """
    key = ["competition_id", "player_id"]
    left = before.select(*key, pl.col("rating_after").alias("before"), pl.lit(True).alias("_was"))
    right = after.select(*key, pl.col("rating_after").alias("after"), pl.lit(True).alias("_is"))
    joined = left.join(right, on=key, how="full", coalesce=True)
    return joined.filter(
        pl.col("_was").is_null() | pl.col("_is").is_null() | pl.col("before").ne_missing(pl.col("after"))
    ).drop("_was", "_is")


def plan_backfill(warehouse_url: str | None, federation: str, config: dict[str, object],
                  block_games: int) -> list[list[str]]:
    """The stored history's competitions in blocks of months of about ``block_games`` games
    (:func:`rating.blocks.plan_history`); one block when the federation's engine cannot go on
    from a stored state (it re-rates from the seed at once)."""
    db = warehouse.get_engine(warehouse_url)
    if len(lists_of(config)) <= 1 and not engine.restartable(federation, config):
        return [[]]
    meta = warehouse.history(db, federation, games_from=date.max)
    return plan_history(meta.competitions, warehouse.games_per_competition(db, federation), block_games)


@task(name="rate_in_blocks")
def rate_backfill_in_blocks(
    warehouse_url: str | None, federation: str, config: dict[str, object], as_of: date, blocks: list[list[str]],
    folder: Path, why: str,
) -> tuple[Rated, tuple[Path, ...]]:
    """The federation re-rated from its seed in ``blocks`` (:func:`rating.blocks.rate_in_blocks`),
    with the outcome of one run: its rows as one run gives them, the explanations in Parquet files
    under ``folder`` that the load reads a file at a time. Memory follows a block, the players and
    the rating changes, not the archive's games and explanations."""
    db = warehouse.get_engine(warehouse_url)
    meta = warehouse.history(db, federation, games_from=date.max)   # the games are read block by block
    rows = BlockRows(lists_of(config), folder)
    rate_in_blocks(db, meta, FederationBatch(federation=federation), blocks, config, as_of, each=rows)
    rated = rows.rated(len(blocks))
    run = rated.run
    get_run_logger().info(
        "%s: %s in %d blocks of months: %d rating change(s) over %d competition(s), %d player(s) in the state",
        federation, why, len(blocks), run.changes.height, run.changes.get_column("competition_id").n_unique(),
        run.ratings.height,
    )
    return rated, tuple(path for path, _ in rows.files)


@task(name="stored_changes")
def stored_changes(warehouse_url: str | None, federation: str, from_date: date | None = None,
                   to_date: date | None = None) -> pl.DataFrame:
    """The rating changes the warehouse holds now (before re-rating), of the competitions that end
    from ``from_date`` to ``to_date``: what the backfill compares (``competition_id, player_id,
    rating_after``), not every column of every change of the archive."""
    return warehouse.rating_changes(warehouse.get_engine(warehouse_url), federation, ended_from=from_date,
                                    ended_until=to_date, columns=["competition_id", "player_id", "rating_after"])


@task(name="summarise_backfill")
def summarise_backfill(
    federation: str, from_date: date, to_date: date | None, before: pl.DataFrame, rated: Rated,
    edition: int | None,
) -> BackfillSummary:
    """Which rating changes dated in the window differ from what the warehouse held (and an artifact)."""
    in_window = rated.competitions.filter(
        (pl.col("end_date") >= from_date) & (pl.col("end_date") <= (to_date or date.max))
    ).get_column("competition_id").to_list()

    def window(frame: pl.DataFrame) -> pl.DataFrame:
        return frame.filter(pl.col("competition_id").is_in(in_window))

    diff = differing_changes(window(before), window(rated.run.changes))
    summary = BackfillSummary(federation, from_date, to_date, len(in_window), diff.height, edition)
    create_markdown_artifact(
        key=f"backfill-{federation}",
        markdown=(
            f"# Backfill {federation} from {from_date}" + (f" to {to_date}" if to_date else "") + "\n\n"
            f"- competitions re-rated in the window: {summary.competitions_rerated}\n"
            f"- rating changes that differ from before: {summary.changes_differing}\n"
            f"- list edition: {edition if edition is not None else 'unchanged'}\n"
        ),
    )
    get_run_logger().info(
        "%s: backfill from %s%s: %d competition(s) re-rated in the window, %d rating change(s) differ from "
        "before, %s", federation, from_date, f" to {to_date}" if to_date else "", summary.competitions_rerated,
        summary.changes_differing, f"edition {edition}" if edition is not None else "list unchanged")
    return summary
