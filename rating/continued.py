"""A federation with several lists (FIDE) rated from the period a night changes, not from its seed.

Each run stores, with its rows, a checkpoint per list (:class:`warehouse.Checkpoint`): the
engine's state at the start of the last rating period (the period in progress), every game the
players still unrated pooled before it, and the state publication starts from. The next night that
changes nothing before that period continues from it (:func:`plan` says whether it can,
:func:`continue_list` rates each list): it re-rates the period in progress and what follows, with the pooled
games replayed (:mod:`engine.fide_restart`), and replaces the stored rows from the checkpoint's
offsets on (they are stored period by period, so those rows are a tail of ``seq``).

The continuation equals the run from the seed row for row when (:func:`plan`): nothing before the
checkpoint changed (:func:`rating.history.unchanged_before`), every tournament from it on starts
on or after the list in force at it (:func:`engine.fide_restart.can_continue`), and the state at
the checkpoint holds every one-off adjustment (rapid and blitz, 1 October 2022) the run from the
seed makes: that run cuts a list whose competitions end on both sides of the day, so the
checkpoint's own run (the periods before it) must have been cut there too (:func:`crosses`); the
games pooled before it are replayed as the run from the seed carries them over its cut
(:func:`engine.lists.pooled_games`). Otherwise the run re-rates from the seed, as before; so
does a replay that would rate a pooled player (:class:`CannotContinue`), a safety net.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from datetime import date

import polars as pl

import engine
import warehouse
from engine.fide_periods import months_before
from engine.fide_restart import can_continue, checkpoint_state, continue_from, window_start
from engine.lists import Pooled, StandardInForce, adjustments_of, list_of_competitions, lists_of
from formats.batch import FederationBatch
from formats.schema import EXPLANATIONS_SCHEMA, conform, empty
from rating.history import LAST
from rating.state import Rated

__all__ = ["CannotContinue", "by_period", "continue_list", "games_from", "next_checkpoints", "period_start", "plan",
           "rated_everywhere"]


class CannotContinue(ValueError):
    """A run from the checkpoint would not equal the run from the seed: re-rate from the seed."""

#: A list's rating through the competitions given, as the run rates it: ``(part, tonight, list, start,
#: entry)`` -> its result. ``start``: the checkpoint it goes on from (None: the seed, or nothing before);
#: ``entry``: the first list in force (the lists players enter at their standard rating).
RateList = Callable[[warehouse.History, FederationBatch, str, warehouse.Checkpoint | None, StandardInForce | None],
                    Rated]


def _points(competitions: pl.DataFrame) -> pl.DataFrame:
    """``competition_id, end_date, point``: each competition's rating period (its list day; null for
    a competition without a date, which is never rated)."""
    dated = pl.coalesce("end_date", "start_date").is_not_null()
    return pl.concat([
        engine.competition_points(competitions.filter(dated), "monthly"),
        competitions.filter(~dated).select(pl.col("competition_id").cast(pl.Utf8), pl.col("end_date").cast(pl.Date),
                                           pl.lit(None, pl.Utf8).alias("point")),
    ])


def _day(point: str) -> date:
    return date.fromisoformat(point)


def _previous(point: str) -> date:
    """The list before the period's: the one in force at the checkpoint."""
    return months_before(_day(point), 1)


def games_from(point: str, as_of: date | None) -> date:
    """The first day of the games a run from checkpoint ``point`` reads: the initial-rating window
    before it (the pooled games) and before ``as_of`` (the unrated players' progress)."""
    return min(window_start(_day(point)), window_start(as_of or _day(point)))


def period_start(point: str) -> date:
    """The first day of the period a checkpoint at ``point`` starts: a competition ending before it
    is rated before the checkpoint (its point is earlier), one ending on or after it from it.

    Examples
    --------
    >>> period_start("2023-04-01")
    datetime.date(2023, 3, 1)
    """
    return _previous(point)


def rated_everywhere(checkpoints: Mapping[str, warehouse.Checkpoint], lists: list[str]) -> pl.Series:
    """The players with a rating in the state of every list's checkpoint (none when a list has none).
    A FIDE rating is never taken away, so they are rated on every list from there on."""
    rated: pl.Series | None = None
    for name in lists:
        if name not in checkpoints:
            return pl.Series("player_id", [], dtype=pl.Utf8)
        state = checkpoints[name].state
        ids = state.filter(pl.col("rating").is_not_null()).get_column("player_id").cast(pl.Utf8)
        rated = ids if rated is None else rated.filter(rated.is_in(ids.implode()))
    return pl.Series("player_id", [], dtype=pl.Utf8) if rated is None else rated


def crosses(competitions: pl.DataFrame, day: date) -> bool:
    """Whether a run over ``competitions`` is cut at adjustment ``day`` (``rating.run``: some end
    before it, some on or after it), so that its state after them is the adjusted one.

    Examples
    --------
    >>> c = pl.DataFrame({"start_date": [date(2022, 9, 1)], "end_date": [date(2022, 9, 3)]})
    >>> crosses(c, date(2022, 10, 1)), crosses(pl.concat([c, c.with_columns(pl.lit(date(2022, 11, 5))
    ...                                                                    .alias("end_date"))]), date(2022, 10, 1))
    (False, True)
    """
    end = competitions.select(pl.coalesce("end_date", "start_date").alias("d")).get_column("d")
    return bool((end < day).any()) and bool((end >= day).any())


def plan(history: warehouse.History, batch: FederationBatch, config: dict[str, object], lists: list[str],
         same: str | None, checkpoints: Mapping[str, warehouse.Checkpoint]) -> str | None:
    """The point to continue from (the checkpoints'), or None: re-rate from the seed.

    ``same``: the point before which nothing changed (:func:`rating.history.unchanged_before`).
    """
    if same is None or same == LAST or not checkpoints:
        return None
    point = {c.point for c in checkpoints.values()}
    if len(point) != 1 or lists[0] not in checkpoints:
        return None
    at = point.pop()
    if same < at:
        return None
    tonight = batch.competitions.get_column("competition_id").to_list()
    everything = pl.concat([history.competitions.filter(~pl.col("competition_id").is_in(tonight)),
                            batch.competitions], how="diagonal_relaxed")
    everything = everything.filter(pl.col("status").is_in(["accepted", "accepted_with_exclusions"]))
    dated = everything.join(_points(everything).select("competition_id", "point"), on="competition_id")
    of_list = list_of_competitions(dated, lists)
    for name in lists:
        mine = dated.filter(of_list == name)
        if name not in checkpoints and mine.filter(pl.col("point") < at).height:
            return None  # rows before the checkpoint, and no state of this list at it
        if not can_continue(mine.filter(pl.col("point") >= at), _day(at), _previous(at)):
            return None
        head = mine.filter(pl.col("point") < at)
        if any(day < _day(at) and crosses(mine, day) and not crosses(head, day)
               for day, _ in adjustments_of(batch.federation, config, name)):
            # The run from the seed adjusts this list on that day, before the checkpoint: the checkpoint's
            # state is not adjusted, and the editions since, before the checkpoint, would need the
            # adjustment too. One on or after the checkpoint, :func:`continue_list` cuts as that run does.
            return None
    return at


def by_period(lists: list[pl.DataFrame]) -> pl.DataFrame:
    """The rows of several lists in rating order: period by period, each period's rows list after list.

    A night changes the period in progress: stored in this order, what it changes is a tail of
    the stored rows (``seq``), so the load rewrites and the site re-reads from that period on, not
    every rapid and blitz row behind the standard list's. Within a list the rows keep the engine's
    order (a stable sort); one list is left as it is.

    Examples
    --------
    >>> std = pl.DataFrame({"player_id": ["1", "2"], "period": ["2025-10", "2025-11"]})
    >>> rapid = pl.DataFrame({"player_id": ["3"], "period": ["2025-10"]})
    >>> by_period([std, rapid])["player_id"].to_list()
    ['1', '3', '2']
    """
    rows = pl.concat(lists)
    return rows if len(lists) == 1 else rows.sort("period", maintain_order=True)


def _split(history: warehouse.History, batch: FederationBatch, keep: Callable[[pl.Expr], pl.Expr],
           ) -> tuple[warehouse.History, FederationBatch]:
    """The history and the batch restricted to the competitions whose point ``keep`` selects (a
    competition tonight replaces its stored version, wherever either falls)."""
    def ids(comps: pl.DataFrame) -> list[str]:
        dated = comps.join(_points(comps).select("competition_id", "point"), on="competition_id", how="left")
        return dated.filter(keep(pl.col("point"))).get_column("competition_id").to_list()

    replaced = batch.competitions.get_column("competition_id").implode()
    old = ids(history.competitions.filter(~pl.col("competition_id").is_in(replaced)))
    new = ids(batch.competitions)
    part = replace(history, competitions=history.competitions.filter(pl.col("competition_id").is_in(old)),
                   games=history.games.filter(pl.col("competition_id").is_in(old)))
    tonight = replace(batch, competitions=batch.competitions.filter(pl.col("competition_id").is_in(new)),
                      games=batch.games.filter(pl.col("competition_id").is_in(new)))
    return part, tonight


def continue_list(
    history: warehouse.History, batch: FederationBatch, config: dict[str, object], as_of: date | None, at: str,
    checkpoint: warehouse.Checkpoint | None, in_force: StandardInForce | None,
) -> Rated:
    """One list rated from ``checkpoint`` (None: a list with nothing rated before ``at``) through
    every competition of period ``at`` and after, the pooled games replayed and their rows dropped.

    A one-off adjustment on or after the checkpoint (:func:`_cuts`) cuts the run as it cuts the run
    from the seed (``rating.run``): the competitions before the day from the checkpoint, then the
    rest from the adjusted state, with every game the still-unrated players pooled carried over.
    The players the list knew before the cut take no entry rating after it
    (:func:`rating.run.rate_segment`): the standard list in force known here starts at the
    checkpoint, and a pooled player's replayed games are older.
    """
    from rating.run import across_the_cut, finish_rated, rate_segment  # the seed's run's steps

    fed = batch.federation
    accepted, games, players = history.laid_over(batch.competitions, batch.games, batch.players)
    points = _points(accepted)
    tail = points.filter(pl.col("point") >= at).get_column("competition_id").implode()
    before = points.filter(pl.col("point") < at)
    # A list without a checkpoint (never rated before it) starts from the seed, as state and as start.
    if checkpoint is not None:
        state, start = checkpoint.state, checkpoint.start
    else:
        state = start = engine.state_from_seed(history.seed)
    cuts = _cuts(fed, config, accepted, at) if in_force is not None else []
    end = pl.coalesce("end_date", "start_date")
    first = pl.lit(True) if not cuts else end < cuts[0][0]
    comps = accepted.filter(pl.col("competition_id").is_in(tail) & first)
    rated_games = games.filter(pl.col("competition_id").is_in(comps.get_column("competition_id").implode()))
    # Nothing of this list from the checkpoint on: no replay either (its periods would date the state).
    pooled = checkpoint.pooled if checkpoint is not None and (comps.height or cuts) else empty(EXPLANATIONS_SCHEMA)
    go_on = continue_from(state, pooled,
                          accepted.filter(pl.col("competition_id").is_in(before["competition_id"].implode())))
    declared = engine.own_declared_ratings(players, fed)
    if in_force is not None:
        # A player the list knows at the checkpoint entered it before (rated, or pooling games).
        declared = in_force.fill_declared(declared, comps, rated_games, entered=state.get_column("player_id"))
    run = engine.rate_history(fed, pl.concat([comps, go_on.competitions], how="diagonal_relaxed"),
                              pl.concat([rated_games, go_on.games], how="diagonal_relaxed"), go_on.seed,
                              config=config, players=declared)
    # The replay holds every game a pooled player pooled, so that each period it replays sees the pool
    # the run from the seed saw there, which rated no one. Should it rate someone (a pooled game not
    # stored), the run would not equal the run from the seed: start from the seed.
    replayed = go_on.competitions.get_column("competition_id").implode()
    if run.changes.filter(pl.col("competition_id").is_in(replayed) & pl.col("rating_before").is_null()
                          & pl.col("rating_after").is_not_null()).height:
        raise CannotContinue(f"{fed}: a pooled player would earn a rating in the games replayed before {at}")
    changes, explanations, ratings = go_on.finish(run.changes, run.explanations, run.ratings, state)
    parts, raised = [(changes, explanations)], []
    if cuts:
        assert in_force is not None
        carried: Pooled | None = go_on.as_pooled()
        seg_comps = comps
        rest = replace(history, games_from=None)  # the segments after a cut read no game before it
        for i, (day, below) in enumerate(cuts):
            seed, up, carried = across_the_cut(ratings, explanations, in_force, day, below, seg_comps, carried)
            raised.append((day, up))
            done, seg_comps = rate_segment(rest, batch, seed, (day, cuts[i + 1][0] if i + 1 < len(cuts) else None),
                                           carried, config, as_of, in_force, ratings.get_column("player_id"))
            explanations, ratings = done.run.explanations, done.run.ratings
            parts.append((done.run.changes, explanations))
    done = finish_rated(fed, engine.RatingRun(pl.concat([c for c, _ in parts]), pl.concat([e for _, e in parts]),
                                              ratings), accepted, games, players, config, as_of, start=start)
    changed = [*batch.competitions.get_column("competition_id").to_list(), *batch.rerate]
    return replace(done, cut=at, changed=list(dict.fromkeys(changed)), adjustments=raised)


def _cuts(federation: str, config: dict[str, object], accepted: pl.DataFrame, at: str) -> list[tuple[date, float]]:
    """The one-off adjustments a run of a list from checkpoint ``at`` makes: on or after the checkpoint's
    day, where the list's competitions (``accepted``, all of them) end on both sides of the day, as the
    run from the seed cuts (``rating.run``). One before it is in the checkpoint's state, or the night
    re-rates from the seed (:func:`plan`)."""
    names = lists_of(config)
    name = names[0] if names else ""
    return [(day, below) for day, below in adjustments_of(federation, config, name)
            if day >= _day(at) and crosses(accepted, day)]


def next_checkpoints(
    history: warehouse.History, batch: FederationBatch, config: dict[str, object], lists: list[str],
    parts: Mapping[str, Rated], changes: pl.DataFrame, explanations: pl.DataFrame,
    start: tuple[str, Mapping[str, warehouse.Checkpoint]] | None, rate_list: RateList,
    only_list: Callable[[warehouse.History, FederationBatch, str], tuple[warehouse.History, FederationBatch]],
) -> tuple[warehouse.Checkpoint, ...]:
    """The checkpoints at the start of the last period rated, for the next night (none: it cannot
    continue, and re-rates from the seed).

    ``parts``, ``changes``, ``explanations``: this run (from the seed, or from ``start``: its point and
    checkpoints); ``rate_list`` rates a list through the competitions of a history as this run did.
    """
    accepted, _, _ = history.laid_over(batch.competitions, batch.games, batch.players)
    if accepted.height == 0:
        return ()
    at = str(_points(accepted).get_column("point").max())
    for name in lists:
        # An adjustment on or after the list in force at the checkpoint: the run through the periods
        # before it (the head) does not reach it, so its state is not the adjusted one a run from
        # the checkpoint needs. One still to come, the run from the checkpoint cuts (:func:`_cuts`).
        if any(_previous(at) <= day < _day(at) for day, _ in adjustments_of(batch.federation, config, name)):
            return ()
    base = (0, 0) if start is None else (start[1][lists[0]].n_changes, start[1][lists[0]].n_explanations)
    period = at[:7]
    offsets = (base[0] + changes.filter(pl.col("period") < period).height,
               base[1] + explanations.filter(pl.col("period") < period).height)
    if start is not None and start[0] == at:
        return tuple(replace(c, n_changes=offsets[0], n_explanations=offsets[1]) for c in start[1].values())
    head_history, head_batch = _split(history, batch, lambda p: p < at)
    out: list[warehouse.Checkpoint] = []
    in_force: StandardInForce | None = None
    for name in lists:
        if name not in parts:
            continue
        part, tonight = only_list(head_history, head_batch, name)
        before = None if start is None else start[1].get(name)
        head = rate_list(part, tonight, name, before, in_force)
        if name == lists[0]:
            seed = before.state if before is not None else history.seed
            in_force = StandardInForce.of(seed, head.run.changes)
        out.append(_checkpoint(batch.federation, config, name, at, offsets, head, before, part.seed))
    return tuple(out)


def _checkpoint(federation: str, config: dict[str, object], name: str, at: str, offsets: tuple[int, int],
                head: Rated, before: warehouse.Checkpoint | None, seed: pl.DataFrame) -> warehouse.Checkpoint:
    """List ``name``'s checkpoint at ``at`` from the run through the periods before it (``head``)."""
    state = checkpoint_state(head.run.ratings, head.run.changes, before.state if before is not None else seed)
    # Every game a player still unrated pooled, not only those of the window before the checkpoint:
    # replayed, each period before it must see the pool the run from the seed saw (which rated no one).
    unrated = state.filter(pl.col("rating").is_null()).get_column("player_id").implode()
    kept = [head.run.explanations] + ([before.pooled] if before is not None else [])
    pooled = pl.concat([conform(e, EXPLANATIONS_SCHEMA) for e in kept]).filter(
        pl.col("player_id").is_in(unrated) & pl.col("opponent_rating").is_not_null())
    points = _points(head.competitions).select("competition_id", "end_date", "point")
    dated = head.run.changes.join(points, on="competition_id", how="inner", maintain_order="left")
    previous = _previous(at).isoformat()
    start = next(s for _, s in engine.states_at(federation, head.start_state, dated, [previous],
                                                          config=config))
    from rating.run import (
        adjusted_at,  # the adjustments in force at a point, as publication applies them
    )

    start = adjusted_at(start, previous, head, dated)
    return warehouse.Checkpoint(name, at, offsets[0], offsets[1], state, pooled, start)

