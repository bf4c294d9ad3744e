"""Rate: re-rate a federation's whole history, tonight's accepted competitions included.

The history is the source of truth and the lists are derived from it, so a
competition that arrives late (dated before others already rated) simply takes
its place in date order: every later rating is recomputed.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

import polars as pl
from prefect import get_run_logger, task
from prefect.cache_policies import NO_CACHE

import engine
import validations
import warehouse
from formats.schema import COMPETITIONS_SCHEMA, GAMES_SCHEMA, PLAYERS_SCHEMA
from tasks.frames import concat
from tasks.ingest import FederationBatch


def merged_history(history: warehouse.History, batch: FederationBatch) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    """History with tonight's batch laid over it: a competition sent again replaces its old version.

    Returns the accepted competitions, their rated games and every known player.
    """
    replaced = batch.competitions.get_column("competition_id").to_list()
    competitions = concat(
        [history.competitions.filter(~pl.col("competition_id").is_in(replaced)), batch.competitions],
        COMPETITIONS_SCHEMA,
    )
    games = concat(
        [history.games.filter(~pl.col("competition_id").is_in(replaced)), batch.games], GAMES_SCHEMA
    )
    accepted = competitions.filter(pl.col("status").is_in(["accepted", "accepted_with_exclusions"]))
    rated_games = games.filter(
        pl.col("competition_id").is_in(accepted.get_column("competition_id").to_list())
        & pl.col("rated").fill_null(True)
    )
    players = concat([history.players, batch.players], PLAYERS_SCHEMA).unique(
        subset=["federation", "player_id"], keep="last", maintain_order=True
    )
    return accepted, rated_games, players


def own_declared_ratings(players: pl.DataFrame, federation: str) -> pl.DataFrame:
    """Keep a file's declared rating only where it comes from this federation's own list.

    DESIGN.md: a newcomer starts from what the file declares when it is the same
    federation's rating (a TRF rating for FIDE, an OpenGotha rating whose origin is
    the EGF); a national list's rating (FFG, ...) is ignored and the federation's rule
    for newcomers applies (EGF: from the declared grade). Unsaid origin: the file's own.

    Examples
    --------
    >>> p = pl.DataFrame({"player_id": ["a", "b", "c"], "declared_rating": [2100.0, 1500.0, 900.0],
    ...                   "declared_rating_origin": ["EGF", "FFG", None]})
    >>> own_declared_ratings(p, "egf").get_column("declared_rating").to_list()
    [2100.0, None, 900.0]
    """
    if "declared_rating_origin" not in players.columns:
        return players
    origin = pl.col("declared_rating_origin").str.to_lowercase()
    return players.with_columns(
        pl.when(origin.is_null() | (origin == federation.lower()))
        .then(pl.col("declared_rating"))
        .otherwise(None)
        .alias("declared_rating")
    )


@dataclass(frozen=True)
class Rated:
    """The re-rated state of one federation, what it was rated from and, for FIDE, the
    unrated players' progress."""

    run: engine.RatingRun
    competitions: pl.DataFrame             #: the accepted competitions that were rated
    progress: pl.DataFrame | None = None   #: validations.initial_rating_progress (FIDE only)


def rate(
    history: warehouse.History, batch: FederationBatch, config: dict[str, object], as_of: date | None = None
) -> Rated:
    """The engine over the merged history (pure; the task below adds logging).

    FIDE: also how far each still-unrated player is from an initial rating on ``as_of``.
    """
    accepted, games, players = merged_history(history, batch)
    run = engine.rate_history(
        batch.federation, accepted, games, history.seed, config=config,
        players=own_declared_ratings(players, batch.federation),
    )
    # The state only knows the names the seed list printed; newcomers get theirs from the files.
    names = players.select("player_id", pl.col("name").alias("_name")).filter(pl.col("_name").is_not_null())
    ratings = (
        run.ratings.join(names, on="player_id", how="left")
        .with_columns(pl.coalesce("name", "_name").alias("name"))
        .drop("_name")
    )
    progress = None
    if batch.federation == "fide":
        progress = validations.initial_rating_progress(
            games, ratings, as_of or date.today(), competitions=accepted, players=players
        )
    return Rated(
        run=engine.RatingRun(changes=run.changes, explanations=run.explanations, ratings=ratings),
        competitions=accepted,
        progress=progress,
    )


@task(name="rate_federation", cache_policy=NO_CACHE)
def rate_federation(
    batch: FederationBatch, warehouse_url: str | None, config: dict[str, object], as_of: date | None = None
) -> Rated:
    """Re-rate ``batch.federation`` from its seed list through tonight's competitions."""
    logger = get_run_logger()
    history = warehouse.history(warehouse.get_engine(warehouse_url), batch.federation)
    rated = rate(history, batch, config, as_of)
    run = rated.run
    logger.info(
        "%s: %d rating change(s) over %d competition(s), %d player(s) in the state",
        batch.federation, run.changes.height, run.changes.get_column("competition_id").n_unique(),
        run.ratings.height,
    )
    return rated
