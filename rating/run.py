"""Rate a federation: the engine over its merged history, each of its lists with its rules.

Pure but for :func:`rate_federation`, which reads what it needs from the warehouse: a
data scientist can call :func:`rate` on frames read any way.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import date
from typing import TYPE_CHECKING

import polars as pl

import engine
import engine.lists
import validations
import warehouse
from engine.lists import (
    StandardInForce,
    adjusted,
    adjustments_of,
    list_of_competitions,
    lists_of,
    pooled_games,
    tracks_unrated,
)
from formats.batch import FederationBatch
from rating import continued
from rating.history import LAST, history_to_rate, point_key, restart, stored_state, unchanged_before
from rating.state import Rated, Stored, rating_basis

if TYPE_CHECKING:
    from sqlalchemy.engine import Engine

__all__ = ["adjusted_at", "rate", "rate_federation"]


def _only_list(history: warehouse.History, batch: FederationBatch, lists: list[str], name: str,
               ) -> tuple[warehouse.History, FederationBatch]:
    """The part of the history and of the batch rated in list ``name``."""
    def ids(comps: pl.DataFrame) -> list[str]:
        mine = list_of_competitions(comps, lists) == name
        return comps.filter(mine).get_column("competition_id").to_list()

    old, new = ids(history.competitions), ids(batch.competitions)
    seed = history.seed if name == lists[0] else history.seed.clear()
    part = replace(
        history, seed=seed,
        competitions=history.competitions.filter(pl.col("competition_id").is_in(old)),
        games=history.games.filter(pl.col("competition_id").is_in(old)),
    )
    # A corrected version that moves a competition to another list re-rates the list it leaves too.
    moved = batch.competitions.filter(
        pl.col("competition_id").is_in(old) & ~pl.col("competition_id").is_in(new)
    ).with_columns(pl.lit("superseded").alias("status"))
    tonight = replace(
        batch,
        competitions=pl.concat([batch.competitions.filter(pl.col("competition_id").is_in(new)), moved],
                               how="diagonal_relaxed"),
        games=batch.games.filter(pl.col("competition_id").is_in(new)),
    )
    return part, tonight


def _rate_entered_list(
    history: warehouse.History, batch: FederationBatch, config: dict[str, object], as_of: date | None,
    list_name: str, in_force: StandardInForce,
) -> Rated:
    """Rate a list that players enter at their rating on the first list (FIDE rapid, blitz).

    A player enters the list at his standard rating in force on the start of his first
    competition of the list, unless the files declare his rating on it (their own
    federation's) or the list has rated him already ("A player enters each list at his
    standard rating when he has one", RULES.md, "FIDE rapid and blitz lists"); a player
    without a standard rating enters unrated and earns an initial rating as usual.

    A history that crosses a one-off adjustment day (:func:`adjustments_of`: 1 October
    2022) is rated in segments: the competitions rated in the lists up to that day's
    (ending before it), then the rest from the adjusted state (:func:`adjusted`, with
    the standard list in force on that day). What does not cross the cut by itself: the
    games an unrated player has pooled towards an initial rating and not yet used (FIDE
    keeps them for the rule set's window, 26 months). They are carried over
    (:func:`engine.lists.pooled_games`): the next segment replays them against stand-ins rated as the
    opponents were then, and drops the replayed rows. The adjustment itself is no rating change row: the state after the cut (``run.ratings``,
    the changes after it) carries it, but an edition rebuilt from the change rows shows
    it only for the players who played after the cut.
    """
    accepted, _, players = history.laid_over(batch.competitions, batch.games, batch.players)
    cuts = [(day, below) for day, below in adjustments_of(batch.federation, config, list_name)
            if continued.crosses(accepted, day)]
    if not cuts:
        return rate(history, batch, config, as_of, entry=in_force)
    tonight_ids = batch.competitions.get_column("competition_id").to_list()
    seed = history.seed
    cut_days: list[date | None] = [day for day, _ in cuts]
    bounds = list(zip([None, *cut_days], [*cut_days, None], strict=True))
    runs: list[Rated] = []
    raised: list[tuple[date, pl.DataFrame]] = []
    carried: engine.lists.Pooled | None = None
    for i, (lo, hi) in enumerate(bounds):
        entered = None if not runs else runs[-1].run.ratings.get_column("player_id")
        done, seg_comps = rate_segment(history, batch, seed, (lo, hi), carried, config, as_of, in_force, entered)
        runs.append(done)
        if hi is not None:
            seed, up, carried = across_the_cut(done.run.ratings, done.run.explanations, in_force, hi, cuts[i][1],
                                               seg_comps, carried)
            raised.append((hi, up))
    last = runs[-1]
    return replace(
        last,
        run=engine.RatingRun(
            changes=pl.concat([r.run.changes for r in runs]),
            explanations=pl.concat([r.run.explanations for r in runs]),
            ratings=last.run.ratings,
        ),
        competitions=accepted,
        start_state=runs[0].start_state,
        changed=list(dict.fromkeys(tonight_ids)),
        players=players,
        basis=rating_basis(history.seed, config),
        full_reason=f"re-rated from the seed in {len(runs)} segments (adjustment of {cuts[0][0]})",
        adjustments=raised,
    )


def rate_segment(
    history: warehouse.History, batch: FederationBatch, seed: pl.DataFrame, span: tuple[date | None, date | None],
    carried: engine.lists.Pooled | None, config: dict[str, object], as_of: date | None, in_force: StandardInForce,
    entered: pl.Series | None = None,
) -> tuple[Rated, pl.DataFrame]:
    """The competitions ending in ``span`` (from, before; ``None``: open) rated from ``seed``.

    The pooled games ``carried`` over the cut before are replayed and their rows dropped.
    ``entered``: the players the list knew before the cut (the segment before's ratings). They
    entered it then and take no entry rating now: a pooled player's first competition here is a
    replayed one, and the standard list in force on its day is not what he entered at (a run from a
    checkpoint knows that list from the checkpoint on only; ``rating.continued``).
    Also returns the segment's accepted competitions (what the next cut carries).
    """
    lo, hi = span
    end = pl.coalesce("end_date", "start_date")
    tonight_ids = batch.competitions.get_column("competition_id").to_list()
    inside = pl.lit(True)
    if lo is not None:
        inside = inside & (end >= lo)
    if hi is not None:
        inside = inside & (end < hi)
    # A competition tonight replaces its stored version in every segment.
    old = history.competitions.filter(inside & ~pl.col("competition_id").is_in(tonight_ids))
    new = batch.competitions.filter(inside | (pl.col("status") == "superseded"))
    part = replace(
        history, seed=seed, competitions=old,
        games=history.games.filter(pl.col("competition_id").is_in(old.get_column("competition_id").to_list())),
    )
    tonight = replace(
        batch, competitions=new,
        games=batch.games.filter(pl.col("competition_id").is_in(new.get_column("competition_id").to_list())),
    )
    seg_comps, _, _ = part.laid_over(tonight.competitions, tonight.games, tonight.players)
    if carried is not None:
        part = replace(
            part, competitions=pl.concat([part.competitions, carried.competitions], how="diagonal_relaxed"),
            games=pl.concat([part.games, carried.games], how="diagonal_relaxed"),
        )
    done = rate(part, tonight, config, as_of, entry=in_force, entered=entered)
    if carried is not None:
        replayed, ghosts = carried.competitions.get_column("competition_id").to_list(), carried.stand_ins
        done = replace(done, run=engine.RatingRun(
            changes=done.run.changes.filter(~pl.col("competition_id").is_in(replayed)),
            explanations=done.run.explanations.filter(~pl.col("competition_id").is_in(replayed)),
            ratings=done.run.ratings.filter(~pl.col("player_id").is_in(ghosts)),
        ))
    return done, seg_comps


def across_the_cut(
    ratings: pl.DataFrame, explanations: pl.DataFrame, in_force: StandardInForce, day: date, below: float,
    seg_comps: pl.DataFrame, carried: engine.lists.Pooled | None,
) -> tuple[pl.DataFrame, pl.DataFrame, engine.lists.Pooled]:
    """The seed of the segment from adjustment day ``day``, the ratings the adjustment raised
    (``player_id, rating``) and the pooled games carried over the cut.

    ``ratings``, ``explanations``: the segment before the cut (its replayed rows dropped);
    ``seg_comps``: its competitions; ``carried``: the games carried over the cut before (or
    replayed from a checkpoint), replayed in that segment.
    """
    seed = adjusted(ratings, in_force.on(day), below)
    before = ratings.select("player_id", pl.col("rating").alias("_before"))
    raised = seed.join(before, on="player_id", how="inner").filter(
        pl.col("rating") != pl.col("_before")).select("player_id", "rating")
    carried = pooled_games(ratings, explanations, seg_comps, carried)
    seed = pl.concat(
        [seed.filter(~pl.col("player_id").is_in(carried.players)), carried.seed], how="diagonal_relaxed"
    )
    return seed, raised, carried


def adjusted_at(state: pl.DataFrame, point: str, rated: Rated, changes: pl.DataFrame) -> pl.DataFrame:
    """The state at ``point`` with ``rated``'s one-off adjustments in force then.

    An edition rebuilt from the change rows (``engine.states_at``) misses a rating the
    adjustment raised until the player plays again: from the adjustment's day on, every
    raised rating no change row has moved since (``changes``: with their ``point``)
    takes its raised value.

    Examples
    --------
    >>> state = pl.DataFrame({"player_id": ["1", "2"], "rating": [1500.0, 1850.0]})
    >>> rated = Rated(run=None, competitions=pl.DataFrame(),  # type: ignore[arg-type]
    ...               adjustments=[(date(2022, 10, 1), pl.DataFrame({"player_id": ["1"], "rating": [1700.0]}))])
    >>> none = pl.DataFrame({"point": [], "player_id": []}, schema={"point": pl.Utf8, "player_id": pl.Utf8})
    >>> adjusted_at(state, "2022-10-01", rated, none)["rating"].to_list()
    [1700.0, 1850.0]
    >>> adjusted_at(state, "2022-09-01", rated, none)["rating"].to_list()
    [1500.0, 1850.0]
    """
    for day, raised in rated.adjustments:
        cut = day.isoformat()
        if point < cut:
            continue
        moved = changes.filter((pl.col("point") > cut) & (pl.col("point") <= point)).get_column("player_id")
        still = raised.filter(~pl.col("player_id").is_in(moved.to_list())).rename({"rating": "_raised"})
        state = state.join(still, on="player_id", how="left", maintain_order="left").with_columns(
            pl.coalesce("_raised", "rating").alias("rating")
        ).drop("_raised")
    return state


def rate(
    history: warehouse.History, batch: FederationBatch, config: dict[str, object], as_of: date | None = None,
    *, stored: Stored | None = None, entry: StandardInForce | None = None, entered: pl.Series | None = None,
    checkpoints: bool = False,
) -> Rated:
    """The engine over the merged history (pure; the task below adds logging).

    With ``stored`` (what the warehouse holds) a restartable engine continues from the
    state at the earliest competition tonight adds, replaces or removes; without it,
    or when that cannot be exact, the whole history is re-rated from the seed.
    A federation with several ``lists`` (FIDE: standard, rapid, blitz) rates each list
    on its own, from the seed for the first list and, for the others, from the files' own
    declared ratings, else from the player's rating on the first list (FIDE: a player
    enters the rapid and blitz lists at his standard rating, see
    :func:`_rate_entered_list`), always in full; ``Rated.lists`` holds each list's result
    and ``run`` their rows one list after the other (``ratings``: the first list's).
    FIDE: also how far each still-unrated player is from an initial rating on ``as_of``.
    ``entry``: the ratings a player not on the list (no seeded or computed rating, no
    declared one) enters it at, taken on the start of his first competition of the run;
    ``entered``: the players who entered the list before the run (a segment after a cut), who
    get none.
    ``checkpoints``: also make the checkpoints the next night continues from (a run whose rows
    the warehouse stores; :mod:`rating.continued`).
    """
    lists = lists_of(config)
    if len(lists) > 1:
        return _rate_lists(history, batch, config, as_of, lists, stored, keep=checkpoints)
    fed = batch.federation
    accepted, games, players = history.laid_over(batch.competitions, batch.games, batch.players)
    basis = rating_basis(history.seed, config)
    cut, changed, head, offset, reason = restart(history, batch, config, stored, basis)
    if history.games_from is not None and (
        cut is None or not engine.restartable(fed, config) or (cut != LAST and engine.point_date(cut) < history.games_from)
    ):
        raise ValueError(
            f"{fed}: the history holds the games from {history.games_from} on only, and this run"
            f" re-rates from {cut or 'the seed'}: read it with rating.history_to_rate"
        )
    start = engine.state_from_seed(history.seed)
    rate_comps, rate_games = accepted, games
    if cut is not None and head is None and stored is not None:
        start = stored_state(stored.ratings, start)
    elif cut is not None and head is not None:
        start = engine.advance_state(fed, start, head, config=config)
    if cut is not None:
        tail = point_key(accepted).filter(pl.col("point") >= cut).get_column("competition_id").to_list()
        rate_comps = accepted.filter(pl.col("competition_id").is_in(tail))
        rate_games = games.filter(pl.col("competition_id").is_in(tail))
    declared = engine.own_declared_ratings(players, fed)
    if entry is not None:
        declared = entry.fill_declared(declared, rate_comps, rate_games, entered=entered)
    run = engine.rate_history(
        fed, rate_comps, rate_games, start if cut is not None else history.seed, config=config,
        players=declared,
    )
    # The explanation rows stay unbuilt until the load (or a report) reads them.
    done = finish_rated(fed, engine.RatingRun(run.changes, run.lazy_explanations, run.ratings), accepted, games,
                        players, config, as_of, start=start)
    return replace(done, cut=cut, changed=changed, derived_offset=offset, basis=basis, full_reason=reason)


def finish_rated(
    federation: str, run: engine.RatingRun, accepted: pl.DataFrame, games: pl.DataFrame, players: pl.DataFrame,
    config: dict[str, object], as_of: date | None, *, start: pl.DataFrame,
) -> Rated:
    """A run's result: its ratings with the files' names, and (FIDE) the unrated players' progress.

    ``accepted``, ``games``: every accepted competition and its rated games (at least those of the
    initial-rating window); ``start``: the state publication rebuilds the run's editions from.
    """
    # The state only knows the names the seed list printed; newcomers get theirs from the files.
    names = players.select("player_id", pl.col("name").alias("_name")).filter(pl.col("_name").is_not_null())
    ratings = (
        run.ratings.join(names, on="player_id", how="left")
        .with_columns(pl.coalesce("name", "_name").alias("name"))
        .drop("_name")
    )
    ratings = ratings.sort("player_id")
    progress = None
    if tracks_unrated(federation, config):
        progress = validations.initial_rating_progress(
            games, ratings, as_of or date.today(), competitions=accepted, players=players
        )
    return Rated(run=engine.RatingRun(changes=run.changes, explanations=run.lazy_explanations, ratings=ratings),
                 competitions=accepted, progress=progress, start_state=start, players=players)


def _rate_lists(
    history: warehouse.History, batch: FederationBatch, config: dict[str, object], as_of: date | None,
    lists: list[str], stored: Stored | None = None, *, keep: bool = False,
) -> Rated:
    """:func:`rate` of a federation with several lists: each on its own.

    From the stored checkpoints when nothing before them changed (:mod:`rating.continued`), else
    from the seed. The run leaves the checkpoints of the next night in ``Rated.checkpoints``;
    with ``stored``, each list's result says before which point its rows are the stored ones
    (``Rated.unchanged_before``): publication checks the editions from there on only.
    """
    same = unchanged_before(history, batch, config, stored)
    kept = stored.read_checkpoints() if stored is not None else {}
    at = continued.plan(history, batch, config, lists, same, kept)
    if at is None and history.games_from is not None:
        raise ValueError(f"{batch.federation}: the history holds the games from {history.games_from} on only, and"
                         " this run re-rates from the seed: read it with rating.history_to_rate")

    def only(part: warehouse.History, tonight: FederationBatch, name: str) -> tuple[warehouse.History, FederationBatch]:
        return _only_list(part, tonight, lists, name)

    def rate_list(part: warehouse.History, tonight: FederationBatch, name: str, before: warehouse.Checkpoint | None,
                  in_force: StandardInForce | None) -> Rated:
        own = {**config, "lists": [name]}
        if at is not None:
            return continued.continue_list(part, tonight, own, as_of, at, before, in_force)
        if in_force is None:
            return rate(part, tonight, own, as_of)
        return _rate_entered_list(part, tonight, own, as_of, name, in_force)

    def every_list() -> dict[str, Rated]:
        parts: dict[str, Rated] = {}
        for name in lists:
            part, tonight = only(history, batch, name)
            if name != lists[0] and part.competitions.height == 0 and tonight.competitions.height == 0:
                continue  # nothing was ever rated in this list
            # The first list in force: from the seed, or from the checkpoint (every tournament from it on
            # starts on or after the list in force there).
            base = history.seed if at is None else kept[lists[0]].state
            in_force = None if name == lists[0] else StandardInForce.of(base, parts[lists[0]].run.changes)
            parts[name] = rate_list(part, tonight, name, None if at is None else kept.get(name), in_force)
        return parts

    try:
        parts = every_list()
    except continued.CannotContinue:
        if history.games_from is not None:
            raise  # the caller reads every game and rates again (rate_federation)
        at = None
        parts = every_list()
    parts = {name: replace(p, unchanged_before=same) for name, p in parts.items()}
    first = parts[lists[0]]
    changes = continued.by_period([p.run.changes for p in parts.values()])
    explanations = continued.by_period([p.run.explanations for p in parts.values()])
    accepted, _, players = history.laid_over(batch.competitions, batch.games, batch.players)
    offset = None if at is None else (kept[lists[0]].n_changes, kept[lists[0]].n_explanations)
    return replace(
        first,
        run=engine.RatingRun(changes=changes, explanations=explanations, ratings=first.run.ratings),
        competitions=accepted,
        changed=batch.competitions.get_column("competition_id").unique(maintain_order=True).to_list(),
        players=players,
        derived_offset=offset,
        basis=rating_basis(history.seed, config),
        full_reason=None if at is not None else f"{len(lists)} lists, each re-rated from its start",
        lists=parts,
        checkpoints=continued.next_checkpoints(history, batch, config, lists, parts, changes, explanations,
                                               None if at is None else (at, kept), rate_list, only) if keep else (),
    )


def rate_federation(
    db: Engine, batch: FederationBatch, config: dict[str, object], as_of: date | None = None, *,
    full: bool = False,
) -> Rated:
    """Rate ``batch.federation`` through tonight's competitions, reading what it needs from ``db``.

    From the first competition that changes anything when the engine can continue from the
    stored state, else (or with ``full``) from the seed list; only the games the run needs
    are read (:func:`rating.history.history_to_rate`).
    """
    stored = None if full else Stored.from_warehouse(db, batch.federation)
    history = history_to_rate(db, batch, config, stored, as_of)
    try:
        return rate(history, batch, config, as_of, stored=stored, checkpoints=True)
    except continued.CannotContinue:
        return rate(warehouse.history(db, batch.federation), batch, config, as_of, stored=stored, checkpoints=True)
