"""Where a night re-rates from: the earliest competition it adds, replaces or removes, and the
state at that point (the seed with the stored rating changes before it laid over it).

A night whose competitions all end after everything rated continues from the stored state
after the last competition; a late competition re-rates from its own point; a full re-rate
from the seed happens when the federation's engine cannot continue from a stored state
(:func:`engine.restartable`), when the seed list or the federation's config changed since the
stored rows were computed, and when the stored rows do not line up with the history.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import date
from typing import TYPE_CHECKING

import polars as pl

import engine
import warehouse
from engine.lists import lists_of
from formats.batch import FederationBatch
from formats.schema import PLAYERS_SCHEMA, concat, merge_players
from rating.state import Stored, rating_basis

if TYPE_CHECKING:
    from sqlalchemy.engine import Engine

__all__ = ["LAST", "history_to_rate", "point_key", "restart", "started_from", "stored_state", "unchanged_before"]

LAST = "~"  # sorts after every point: nothing to re-rate


def point_key(competitions: pl.DataFrame) -> pl.DataFrame:
    return engine.competition_points(competitions, "per-competition").select("competition_id", "point")


def _cut(
    history: warehouse.History, batch: FederationBatch, config: dict[str, object],
    stored: Stored | None, basis: str,
) -> tuple[str | None, list[str], str | None]:
    """The point tonight re-rates from: ``(cut or None, changed, reason for a full run)``."""
    fed = batch.federation
    changed = list(dict.fromkeys(
        [*batch.competitions.get_column("competition_id").to_list(), *batch.rerate]
    ))
    if not engine.restartable(fed, config):
        return None, changed, f"the {engine.system_for(fed, config)} engine re-rates from the seed"
    if stored is None:
        return None, changed, "full re-rate requested"
    if stored.basis != basis:
        if stored.n_changes == 0:
            return None, changed, "nothing was rated before"
        return None, changed, "seed list or config changed since the stored rows"
    if stored.games_total != stored.n_explanations:
        return None, changed, "stored rows do not line up with the history"
    old = history.competitions.filter(pl.col("competition_id").is_in(changed))
    new = batch.competitions.filter(pl.col("competition_id").is_in(changed))
    keys = pl.concat([point_key(old), point_key(new)]).get_column("point").to_list()
    return (min(keys) if keys else LAST), changed, None


def unchanged_before(
    history: warehouse.History, batch: FederationBatch, config: dict[str, object], stored: Stored | None,
) -> str | None:
    """The publication point before which a re-rate from the seed gives the stored rows again.

    The engine is deterministic: with the seed list and config the stored rows derive from
    (their basis), what comes before the earliest point tonight adds, replaces or removes a
    competition is what the warehouse holds. Publication need not rebuild the editions before it
    (FIDE re-rates from the seed every night, and rebuilt every monthly edition of every list to
    compare it with what it published). None: not known (no stored rows, or another basis);
    :data:`LAST`: tonight changes nothing rated.
    """
    if stored is None or stored.n_changes == 0 or stored.basis != rating_basis(history.seed, config):
        return None
    if _inputs_changed(history, batch):
        return None
    changed = [*batch.competitions.get_column("competition_id").to_list(), *batch.rerate]
    both = pl.concat([history.competitions.filter(pl.col("competition_id").is_in(changed)),
                      batch.competitions.filter(pl.col("competition_id").is_in(changed))], how="diagonal_relaxed")
    if both.filter(pl.coalesce("end_date", "start_date").is_null()).height:
        return None  # a competition without a date: no point to start from
    points = engine.competition_points(both, engine.publication_of(batch.federation, config)).get_column("point")
    return str(points.min()) if points.len() else LAST


#: What the engine reads of a player besides his games (a declared rating starts a newcomer, a birth
#: year sets a junior's K): a file that changes one for a known player changes his earlier rows.
_ENGINE_INPUTS = ("player_id", "birth_year", "declared_rating", "declared_rating_origin")


def _inputs_changed(history: warehouse.History, batch: FederationBatch) -> bool:
    """Whether tonight's files change what the engine reads of a player the history knows."""
    if batch.players.height == 0 or history.players.height == 0:
        return False
    # The players as History.laid_over merges them, without laying the games over (a copy of them all).
    before = merge_players(concat([history.players], PLAYERS_SCHEMA)).select(_ENGINE_INPUTS)
    after = merge_players(concat([history.players, batch.players], PLAYERS_SCHEMA)).select(_ENGINE_INPUTS).filter(
        pl.col("player_id").is_in(before.get_column("player_id").implode()))
    return not before.sort("player_id").equals(after.sort("player_id"))


def history_to_rate(
    db: Engine, batch: FederationBatch, config: dict[str, object], stored: Stored | None,
    as_of: date | None = None,
) -> warehouse.History:
    """The history :func:`rate` needs for ``batch``: when the run continues from the stored
    rows, the games of the competitions from the day of its cut on only (a federation with
    several lists: from the initial-rating window before its checkpoint, :mod:`rating.continued`).

    Reading every game is most of a night's rate stage on a large history (2.4 s at 1M
    games), for a run that re-rates the last few competitions.
    """
    from rating import continued  # the lists' checkpoints, which rate through rating.run

    fed = batch.federation
    lists = lists_of(config)
    if stored is None or (len(lists) == 1 and not engine.restartable(fed, config)):
        return warehouse.history(db, fed)
    ahead = warehouse.history(db, fed, games_from=date.max)  # everything but the games
    if len(lists) > 1:
        checkpoints = stored.read_checkpoints()
        at = continued.plan(ahead, batch, config, lists, unchanged_before(ahead, batch, config, stored), checkpoints)
        if at is None:
            return warehouse.history(db, fed)
        since = continued.games_from(at, as_of)
        # Before the checkpoint's period, the window serves the players still unrated (the pooled
        # games, their progress): a game between two players rated on every list there is left out.
        rated = continued.rated_everywhere(checkpoints, lists)
        games = warehouse.history_games(db, fed, since, rated_before=(continued.period_start(at), rated))
        return replace(ahead, games=games, games_from=since)
    cut = _cut(ahead, batch, config, stored, rating_basis(ahead.seed, config))[0]
    first = None if cut is None else date.max if cut == LAST else engine.point_date(cut)
    if first == date.max:
        return ahead
    return replace(ahead, games=warehouse.history_games(db, fed, first), games_from=first)


def restart(
    history: warehouse.History, batch: FederationBatch, config: dict[str, object],
    stored: Stored | None, basis: str,
) -> tuple[str | None, list[str], pl.DataFrame | None, tuple[int, int] | None, str | None]:
    """Where to start: ``(cut, changed, head changes or None, offsets, reason for a full run)``.

    ``head`` None: tonight only appends after everything rated, and the stored state
    after the last competition is where to start.
    """
    cut, changed, reason = _cut(history, batch, config, stored, basis)
    if cut is None or stored is None:  # _cut gives a cut only with stored rows
        return None, changed, None, None, reason
    rated_before = point_key(history.competitions.filter(pl.col("status").is_in(["accepted", "accepted_with_exclusions"])))
    last_rated = rated_before.get_column("point").max()
    if last_rated is None or str(last_rated) < cut:
        return cut, changed, None, (stored.n_changes, stored.n_explanations), None
    head = stored.read_changes().join(rated_before, on="competition_id", how="left", maintain_order="left")
    inside = head.get_column("point").fill_null(LAST) < cut
    n_head = int(inside.sum())
    if n_head and not bool(inside.head(n_head).all()):
        return None, changed, None, None, "stored rows are not in rating order"
    head = head.head(n_head)
    if head.get_column("point").null_count():
        return None, changed, None, None, "stored rows do not line up with the history"
    head = head.join(
        history.competitions.select("competition_id", "end_date"), on="competition_id", how="left",
        maintain_order="left",
    )
    return cut, changed, head, (n_head, int(head.get_column("games").fill_null(0).sum())), None


def stored_state(ratings: pl.DataFrame, seed_state: pl.DataFrame) -> pl.DataFrame:
    """The stored state after the last competition, as :func:`engine.advance_state` would give it.

    The stored row's name comes from the files and its status from the list's rules; the
    state the engine continues from keeps the seed's name and status (null for a newcomer),
    exactly as a state rebuilt from the seed and the changes does.
    """
    seed = seed_state.select("player_id", pl.col("name").alias("_name"), pl.col("status").alias("_status"))
    out = ratings.join(seed, on="player_id", how="left", maintain_order="left").with_columns(
        pl.col("_name").alias("name"), pl.col("_status").alias("status")
    )
    return out.drop("_name", "_status")


def started_from(cut: str | None, reason: str | None, *, seeded: bool) -> str:
    """Where a rating run started, in words (``cut``: the history point it continued from).

    Examples
    --------
    >>> started_from("2025-12-13|2025-12-13|BARRUF-195", None, seeded=True)
    'from BARRUF-195 (2025-12-13) on'
    >>> started_from("2026-02-01", None, seeded=True)
    'from the list of 2026-02-01 on'
    >>> started_from("~", None, seeded=True)
    'nothing earlier than tonight'
    >>> started_from(None, "nothing was rated before", seeded=False)
    'from the start, without a seed list (nothing was rated before)'
    """
    if cut is None:
        where = "from the seed list" if seeded else "from the start, without a seed list"
        return f"{where} ({reason})" if reason else where
    if cut == LAST:
        return "nothing earlier than tonight"
    day, *rest = cut.split("|")
    return f"from {rest[-1]} ({day}) on" if rest else f"from the list of {day} on"
