"""The rules of a federation that publishes several lists (FIDE: standard, rapid, blitz).

A competition is rated in the list its ``modality`` names, else in the first list. A
player enters a later list at his rating on the first list in force on the start of his
first competition of it (:class:`StandardInForce`); a rule set with
``adjust_to_standard_minus`` raises, on the day it takes effect, every rating of its list
more than that many points below the first list (:func:`adjustments_of`,
:func:`adjusted`); and the games an unrated player pooled towards an initial rating cross
that day with him (:func:`pooled_games`).

Sources: RULES.md, "FIDE rapid and blitz lists"; FIDE Rating Regulations effective from
1 October 2022, Annex (the one-off adjustment of rapid and blitz ratings).
No IO, no Prefect, no SQL: frames in, frames out.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from typing import Any

import polars as pl

from engine.rulesets import REGISTRY, system_for

__all__ = [
    "INITIAL_RATING_SYSTEMS",
    "StandardInForce",
    "adjusted",
    "adjustments_of",
    "list_of_competitions",
    "lists_of",
    "pooled_games",
    "tracks_unrated",
]

#: The systems whose unrated players earn an initial rating from games pooled over a
#: window (FIDE Rating Regulations 8.2): their progress towards it is part of a run.
INITIAL_RATING_SYSTEMS = ("fide-elo",)

#: The day before every list: a seeded rating is in force from the start of the history.
_EVER = date(1900, 1, 1)


def lists_of(config: Mapping[str, object]) -> list[str]:
    """The federation's lists (``lists`` in its table); empty: one list, unnamed.

    Examples
    --------
    >>> lists_of({"lists": ["standard", "rapid", "blitz"]}), lists_of({})
    (['standard', 'rapid', 'blitz'], [])
    """
    value = config.get("lists") or []
    return [str(x) for x in value] if isinstance(value, list | tuple) else []


def tracks_unrated(federation: str, config: Mapping[str, Any] | None = None) -> bool:
    """Whether the federation's system rates unrated players only once they earn a rating.

    Examples
    --------
    >>> tracks_unrated("fide"), tracks_unrated("ajusc"), tracks_unrated("cze", {"system": "fide-elo"})
    (True, False, True)
    """
    return system_for(federation, config) in INITIAL_RATING_SYSTEMS


def list_of_competitions(competitions: pl.DataFrame, lists: list[str]) -> pl.Series:
    """Each competition's list: its ``modality`` when that is one of ``lists``, else the first.

    Examples
    --------
    >>> c = pl.DataFrame({"modality": ["rapid", None, "classic", "blitz"]})
    >>> list_of_competitions(c, ["standard", "rapid", "blitz"]).to_list()
    ['rapid', 'standard', 'standard', 'blitz']
    """
    modality = competitions.get_column("modality") if "modality" in competitions.columns else pl.Series(
        [None] * competitions.height, dtype=pl.Utf8
    )
    return modality.cast(pl.Utf8).replace_strict({m: m for m in lists}, default=lists[0], return_dtype=pl.Utf8).alias("list")


@dataclass(frozen=True)
class StandardInForce:
    """A player's rating on the first (FIDE: standard) list in force on any day.

    The seeded rating from the start, then from the day each rating period's list is
    published (its ``period``, ``YYYY-MM``: the 1st of that month) the rating after
    that period, as the first list's run computed it.

    Examples
    --------
    >>> seed = pl.DataFrame({"player_id": ["1", "2"], "rating": [2000.0, None]})
    >>> changes = pl.DataFrame({"period": ["2022-09", "2022-11"], "player_id": ["1", "1"],
    ...                         "rating_after": [2010.0, 2030.0]})
    >>> in_force = StandardInForce.of(seed, changes)
    >>> in_force.on(date(2022, 10, 15)).rows(), in_force.on(date(2022, 8, 31)).rows()
    ([('1', 2010.0)], [('1', 2000.0)])
    """

    timeline: pl.DataFrame  #: ``player_id``, ``since`` (the list's day), ``rating``; by ``since``

    @classmethod
    def of(cls, seed: pl.DataFrame, changes: pl.DataFrame) -> StandardInForce:
        """From the first list's seed and the rating changes its run computed."""
        base = seed.select(
            pl.col("player_id").cast(pl.Utf8), pl.lit(_EVER, pl.Date).alias("since"),
            pl.col("rating").cast(pl.Float64),
        )
        after = changes.filter(pl.col("period").is_not_null()).select(
            pl.col("player_id").cast(pl.Utf8),
            (pl.col("period") + "-01").str.to_date("%Y-%m-%d").alias("since"),
            pl.col("rating_after").cast(pl.Float64).alias("rating"),
        )
        # Every row of a period carries the rating after the period: one per player and period.
        after = after.unique(subset=["player_id", "since"], keep="last", maintain_order=True)
        timeline = pl.concat([base, after]).filter(pl.col("rating").is_not_null() & (pl.col("rating") > 0))
        return cls(timeline.sort("since", "player_id", maintain_order=True))

    def on(self, day: date) -> pl.DataFrame:
        """``player_id, rating``: the first list in force on ``day`` (rated players only)."""
        return (
            self.timeline.filter(pl.col("since") <= day)
            .group_by("player_id", maintain_order=True).agg(pl.col("rating").last())
            .sort("player_id")
        )

    def at_first_start(self, competitions: pl.DataFrame, games: pl.DataFrame) -> pl.DataFrame:
        """``player_id, entry_rating``: each player's rating in force on the start of his
        first competition among ``competitions`` (players without one left out)."""
        starts = competitions.select(
            "competition_id", pl.coalesce("start_date", "end_date").alias("day")
        )
        sides = pl.concat([
            games.select("competition_id", pl.col("player_a").alias("player_id")),
            games.select("competition_id", pl.col("player_b").alias("player_id")),
        ]).filter(pl.col("player_id").is_not_null())
        first = (
            sides.join(starts, on="competition_id", how="inner")
            .group_by("player_id").agg(pl.col("day").min())
            .filter(pl.col("day").is_not_null()).sort("day")
        )
        found = first.join_asof(
            self.timeline, left_on="day", right_on="since", by="player_id", strategy="backward",
            check_sortedness=False,
        )
        return found.filter(pl.col("rating").is_not_null()).select(
            "player_id", pl.col("rating").alias("entry_rating")
        ).sort("player_id")

    def fill_declared(self, players: pl.DataFrame, competitions: pl.DataFrame, games: pl.DataFrame,
                      entered: pl.Series | None = None) -> pl.DataFrame:
        """``players`` with the entry rating where the files declare none (or 0, "unrated").

        The engine starts a player not on the seed from his declared rating; a seeded or
        computed rating always wins over it (:func:`engine.fide_elo.rate_history`), so the
        entry rating only counts for a player the list has not rated yet. ``entered``: players
        who entered the list before ``competitions`` (a run continued from a checkpoint), whose
        entry was taken then: they get none now.
        """
        entry = self.at_first_start(competitions, games)
        if entered is not None:
            entry = entry.filter(~pl.col("player_id").is_in(entered.implode()))
        if "declared_rating" not in players.columns:
            players = players.with_columns(pl.lit(None, pl.Float64).alias("declared_rating"))
        out = players.join(entry, on="player_id", how="full", coalesce=True, maintain_order="left")
        declared = pl.col("declared_rating").cast(pl.Float64)
        return out.with_columns(
            pl.when(declared > 0).then(declared).otherwise(pl.col("entry_rating")).alias("declared_rating")
        ).drop("entry_rating")


def adjustments_of(federation: str, config: Mapping[str, Any] | None, list_name: str) -> list[tuple[date, float]]:
    """The one-off adjustments of list ``list_name`` to the first list: ``(day, points below)``.

    A rule set with ``adjust_to_standard_minus`` raises, on the day it takes effect,
    every rating of its list more than that many points below the player's standard
    rating to standard minus that many (FIDE rapid and blitz, 1 October 2022).

    Examples
    --------
    >>> adjustments_of("fide", {}, "rapid"), adjustments_of("fide", {}, "standard")
    ([(datetime.date(2022, 10, 1), 100.0)], [])
    """
    system = system_for(federation, config)
    return sorted(
        (r.effective_from, float(r.params["adjust_to_standard_minus"]))
        for r in REGISTRY.values()
        if r.system == system and r.rating_list == list_name and r.params.get("adjust_to_standard_minus")
    )


def adjusted(ratings: pl.DataFrame, standard: pl.DataFrame, below: float) -> pl.DataFrame:
    """``ratings`` after the one-off adjustment to ``standard`` - ``below``, as a seed to go on from.

    :func:`engine.fide_elo.adjust_to_standard_2022` raises to standard - 100; another
    distance shifts the standard it is given. The highest rating reached follows the
    raise, and the K the list printed is dropped: the run after the cut applies its own
    rules' K (a seeded K would win over them).
    """
    floor = standard.with_columns((pl.col("rating") - (below - 100.0)).alias("rating"))
    from engine import fide_elo  # the kernels' module, imported only where a list is adjusted

    out = fide_elo.adjust_to_standard_2022(ratings, floor)
    if "rated_max" in out.columns:
        out = out.with_columns(pl.max_horizontal("rated_max", "rating").alias("rated_max"))
    if "k" in out.columns:
        out = out.with_columns(pl.lit(None, out.schema["k"]).alias("k"))
    return out


@dataclass(frozen=True)
class Pooled:
    """The games still-unrated players pooled before a cut, to replay after it."""

    competitions: pl.DataFrame  #: the competitions replayed
    games: pl.DataFrame         #: their games, each opponent replaced by a stand-in
    stand_ins: list[str]        #: the stand-ins' ids
    players: list[str]          #: the pooled players (their seed rows go: the replay counts their games again)
    seed: pl.DataFrame          #: the stand-ins' seed rows


def pooled_games(ratings: pl.DataFrame, explanations: pl.DataFrame, competitions: pl.DataFrame,
                 before: Pooled | None = None) -> Pooled:
    """The games still-unrated players (``ratings`` after the cut) pooled before it.

    A pooled game is an explanation row (``explanations``: the segment's, its replayed rows
    dropped) of a player unrated at the cut against an opponent rated at that event's start
    (``opponent_rating``), whether or not the game moved the opponent's rating: a game against
    an unrated player counts for no rated player, yet it counts towards the newcomer's pool. It is
    replayed against a stand-in, ``~pool~<competition>~<opponent>``, seeded at that rating and seen
    nowhere else, so that the opponent's own rating does not move twice. Games against opponents
    unrated then never counted and are left out. ``before``: the games carried over an earlier cut
    (replayed in this segment, so not among its rows), kept for the players still unrated.
    ``competitions``: the segment's (their dates).
    """
    unrated = ratings.filter(pl.col("rating").is_null()).get_column("player_id").implode()
    sides = explanations.filter(pl.col("player_id").is_in(unrated) & pl.col("opponent_rating").is_not_null())
    ghost = pl.format("~pool~{}~{}", "competition_id", "opponent_id")
    replay = sides.select(
        "competition_id", pl.col("round").cast(pl.Int32), pl.col("player_id").alias("player_a"),
        ghost.alias("player_b"), pl.col("score").cast(pl.Float64).alias("score_a"),
        pl.lit("played").alias("status"), pl.lit(True).alias("rated"),
    )
    ghosts = sides.select(ghost.alias("player_id"), pl.col("opponent_rating").alias("rating")).unique(
        "player_id", maintain_order=True
    ).with_columns(pl.lit(0, pl.Int64).alias("games"))
    comps = competitions.filter(pl.col("competition_id").is_in(replay.get_column("competition_id").unique().implode()))
    if before is not None:
        kept = before.games.filter(pl.col("player_a").is_in(unrated))
        replay = pl.concat([kept, replay], how="diagonal_relaxed")
        ghosts = pl.concat([before.seed.filter(pl.col("player_id").is_in(kept.get_column("player_b").implode())),
                            ghosts], how="diagonal_relaxed")
        comps = pl.concat([before.competitions.filter(
            pl.col("competition_id").is_in(kept.get_column("competition_id").implode())), comps], how="diagonal_relaxed")
    pooled = sorted(set(replay.get_column("player_a").to_list()))
    return Pooled(comps, replay, ghosts.get_column("player_id").to_list(), pooled, ghosts)
