"""FIDE Elo continued from a checkpoint: the state at the start of a rating period.

A FIDE night adds games to the period in progress (the first list after tonight's
tournaments end), so re-rating it from the seed re-does years of periods that cannot
change. The state at the start of that period (:func:`checkpoint_state`) is enough to
go on from, with two facts the ratings alone do not carry:

- whether a seeded K is still in force (FIDE: the K a list prints holds until the
  player's first period rated here, ``fide_kernel._k_of``): the checkpoint keeps the
  seed's K only for players the history has not rated yet;
- the games an unrated player has pooled towards an initial rating: they are replayed
  against stand-ins rated as the opponents were then (:func:`continue_from`, from his
  explanation rows), from the window the rule sets look back over (26 months), and their
  rows dropped.

The continuation equals the run from the seed row for row when every tournament rated
after the checkpoint starts on or after the list in force at it (:func:`can_continue`):
a tournament that starts earlier looks up a rating the checkpoint has moved past.
No IO, no Prefect, no SQL: frames in, frames out.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

import polars as pl

from engine import rulesets
from engine.fide_periods import months_before
from engine.lists import Pooled

__all__ = ["Continuation", "can_continue", "checkpoint_state", "continue_from", "window_start"]


def window_start(period: date) -> date:
    """The earliest end day of a game an initial rating from ``period`` on can count: the
    longest window any FIDE rule set looks back over.

    Examples
    --------
    >>> window_start(date(2025, 11, 1))
    datetime.date(2023, 9, 1)
    """
    months = max(int(r.params.get("initial_window_months", 0)) for r in rulesets.REGISTRY.values()
                 if r.system == "fide-elo")
    return months_before(period, months)


def can_continue(competitions: pl.DataFrame, period: date, previous: date | None) -> bool:
    """Whether the tournaments rated from ``period`` on can continue from the state at its start.

    ``previous``: the list before ``period`` (the one in force at the checkpoint, None: the
    seed's). Every tournament must start on or after it, so that the rating it looks up at its
    start is the checkpoint's.
    """
    if previous is None or competitions.height == 0:
        return True
    start = pl.coalesce("start_date", "end_date")
    return bool(competitions.select((start >= previous).all()).item())


def checkpoint_state(ratings: pl.DataFrame, changes: pl.DataFrame, seed: pl.DataFrame) -> pl.DataFrame:
    """The state after a run (``ratings``, its ``changes``), as a seed to continue from.

    The seed's K stays only for a player the run has not rated (no counted game, no initial
    rating): the kernel applies a seeded K until then and its rules' K after. Names stay the
    seed's (null for a newcomer), as the engine's own state keeps them.
    """
    rated_here = changes.filter(
        pl.col("k").is_not_null() | (pl.col("rating_before").is_null() & pl.col("rating_after").is_not_null())
    ).select("player_id").unique()
    seed_k = pl.col("k").cast(pl.Int32) if "k" in seed.columns else pl.lit(None, pl.Int32)
    seeded = seed.select("player_id", seed_k.alias("_seed_k"), pl.col("name").alias("_seed_name"))
    out = ratings.join(seeded, on="player_id", how="left", maintain_order="left").with_columns(
        pl.when(pl.col("player_id").is_in(rated_here.get_column("player_id").implode()))
        .then(None).otherwise(pl.col("_seed_k")).alias("k"),
        pl.col("_seed_name").alias("name"),
    ).drop("_seed_k", "_seed_name")
    return out


@dataclass(frozen=True)
class Continuation:
    """What a run from a checkpoint rates besides the tournaments after it: the checkpoint's
    state with a stand-in for each rated opponent of a pooled game, and the replayed games."""

    seed: pl.DataFrame          #: the checkpoint's state and the stand-ins
    competitions: pl.DataFrame  #: the tournaments replayed (their rows are dropped)
    games: pl.DataFrame         #: the pooled games, each against its stand-in
    stand_ins: list[str]        #: dropped from the ratings
    pooled: list[str]           #: the players whose games are replayed

    def as_pooled(self) -> Pooled:
        """The replay as games carried over a one-off adjustment (:func:`engine.lists.pooled_games`):
        a cut after the checkpoint carries them on, for the players still unrated there."""
        games = self.games.with_columns(pl.lit("played").alias("status"), pl.lit(True).alias("rated"))
        ghosts = self.seed.filter(pl.col("player_id").is_in(pl.Series(self.stand_ins, dtype=pl.Utf8).implode()))
        return Pooled(self.competitions, games, self.stand_ins, self.pooled, ghosts)

    def finish(self, changes: pl.DataFrame, explanations: pl.DataFrame, ratings: pl.DataFrame,
               state: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
        """The run's rows without the replay's: no row of a replayed tournament, no stand-in, and a
        pooled player's last game the later of the run's and the checkpoint's (a replay is no game)."""
        replayed = self.competitions.get_column("competition_id").implode()
        before = state.select("player_id", pl.col("last_played").alias("_before"))
        ratings = ratings.filter(~pl.col("player_id").is_in(pl.Series(self.stand_ins, dtype=pl.Utf8).implode()))
        if self.pooled:
            from engine._fide_frames import _status  # the frames' module loads the compiled kernels

            fixed = ratings.join(before, on="player_id", how="left", maintain_order="left").with_columns(
                pl.when(pl.col("player_id").is_in(pl.Series(self.pooled, dtype=pl.Utf8).implode()))
                .then(pl.max_horizontal("last_played", "_before")).otherwise(pl.col("last_played"))
                .alias("last_played")).drop("_before")
            as_of = ratings.get_column("as_of").max()
            ratings = fixed.with_columns(_status(pl.col("rating"), pl.col("last_played"),
                                                 as_of if isinstance(as_of, date) else None).alias("status"))
        return (changes.filter(~pl.col("competition_id").is_in(replayed)),
                explanations.filter(~pl.col("competition_id").is_in(replayed)), ratings)


def continue_from(state: pl.DataFrame, explanations: pl.DataFrame, competitions: pl.DataFrame) -> Continuation:
    """The seed of a run from a checkpoint: ``state`` (:func:`checkpoint_state`) and the games the
    players unrated in it pooled before it, replayed against stand-ins.

    ``explanations``: the explanation rows of the tournaments before the checkpoint (at least of
    the unrated players, from :func:`window_start` on): a pooled game is a row of an unrated
    player against an opponent rated then (``opponent_rating``); ``competitions``: their dates.
    The stand-in ``~pool~<tournament>~<opponent>`` is seeded at that rating and seen nowhere
    else, so that the opponent's own rating does not move twice.
    """
    unrated = state.filter(pl.col("rating").is_null()).get_column("player_id").implode()
    sides = explanations.filter(
        pl.col("player_id").is_in(unrated) & pl.col("opponent_rating").is_not_null()
        & pl.col("competition_id").is_in(competitions.get_column("competition_id").implode()))
    ghost = pl.format("~pool~{}~{}", "competition_id", "opponent_id")
    games = sides.select(
        "competition_id", pl.col("round").cast(pl.Int32), pl.col("player_id").alias("player_a"),
        ghost.alias("player_b"), pl.col("score").cast(pl.Float64).alias("score_a"),
    )
    ghosts = sides.select(ghost.alias("player_id"), pl.col("opponent_rating").alias("rating")).unique(
        "player_id", maintain_order=True).with_columns(pl.lit(0, pl.Int64).alias("games"))
    comps = competitions.filter(pl.col("competition_id").is_in(games.get_column("competition_id").unique().implode()))
    return Continuation(
        seed=pl.concat([state, ghosts], how="diagonal_relaxed"), competitions=comps, games=games,
        stand_ins=ghosts.get_column("player_id").to_list(),
        pooled=sorted(set(games.get_column("player_a").to_list())),
    )
