"""A federation's history re-rated from its seed in blocks of months, with the outcome of one run.

A run from the seed (a what-if) holds every game and every rating change of the archive at once:
5.9 GB at 5 million FIDE games. Here the history is rated block by block, each block a run that goes
on from the state the block before left (:func:`rate_in_blocks`), as the nightly's first run of a
large inbox does (``tasks/_inbox_blocks.py``), except that the state stays in memory instead of the
warehouse: FIDE from the checkpoints each block makes (:mod:`rating.continued`), the other
restartable systems from the ratings after the block (:func:`rating.history.restart`). Memory then
follows one block, the initial-rating window behind it and the players, not the archive.

The blocks are cut only where a run going on from the block before equals the run from the seed
(:func:`blocks_of`): between months, where every competition after starts in a later month than
every one before ends, and never after a month that holds a one-off adjustment of a list.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING

import polars as pl

import engine
import warehouse
from engine.lists import lists_of
from engine.rulesets import REGISTRY
from formats.batch import FederationBatch
from formats.schema import (
    EXPLANATIONS_SCHEMA,
    GAMES_SCHEMA,
    PLAYERS_SCHEMA,
    concat,
    empty,
    merge_players,
)
from rating import continued
from rating.history import point_key, unchanged_before
from rating.run import rate
from rating.state import Rated, Stored, rating_basis

if TYPE_CHECKING:
    from sqlalchemy.engine import Engine

__all__ = ["BlockRows", "UnitSpan", "blocks_of", "plan_history", "rate_in_blocks"]


@dataclass(frozen=True)
class UnitSpan:
    """What the plan needs of one unit (an inbox's file, a stored competition): its size and the
    months its competitions cover."""

    key: str                    #: the unit's name (``tasks._inbox_blocks.unit_key``, a competition id)
    games: int                  #: its games (the block's budget counts them)
    first: date | None = None   #: the earliest start of its competitions (None: no dated competition)
    last: date | None = None    #: the latest end of its competitions
    keys: frozenset[tuple[str | None, str]] = frozenset()   #: its competitions (federation, id)
    #: it applies to every file of the night (an aliases file): the night is one block
    whole_night: bool = False


def _month(day: date) -> tuple[int, int]:
    return day.year, day.month


def _adjustment_months() -> set[tuple[int, int]]:
    """The months that hold a one-off adjustment of a list (FIDE rapid and blitz, October 2022).

    A block that ends with such a month leaves a checkpoint the next block cannot continue from
    (``rating.continued.next_checkpoints``: the run of the periods before it has not reached the
    day, and the list in force at it, published already, would show the adjustment), so the next
    block would re-rate from the seed, holding the whole history so far. No block ends there.

    >>> (2022, 10) in _adjustment_months()
    True
    """
    return {_month(r.effective_from) for r in REGISTRY.values() if r.params.get("adjust_to_standard_minus")}


def blocks_of(spans: list[UnitSpan], budget: int) -> list[list[str]]:
    """The units' keys in blocks of at most ``budget`` games where the months allow a cut.

    Parameters
    ----------
    spans
        Every unit (those without a date go with the first block, which reports them).
    budget
        Games per block; 0 or less: one block.

    Returns
    -------
    list of list of str
        The blocks in the order they run; the units without a dated competition (a file no
        reader understood, a players file) go with the first. One block when everything fits
        the budget or cannot be cut.

    Examples
    --------
    >>> d = date
    >>> spans = [UnitSpan("jan", 10, d(2025, 1, 4), d(2025, 1, 6)),
    ...          UnitSpan("feb", 10, d(2025, 2, 1), d(2025, 2, 2)),
    ...          UnitSpan("feb-mar", 10, d(2025, 2, 27), d(2025, 3, 2)),
    ...          UnitSpan("apr", 10, d(2025, 4, 5), d(2025, 4, 5)), UnitSpan("unread", 0)]
    >>> blocks_of(spans, 15)
    [['unread', 'jan'], ['feb', 'feb-mar'], ['apr']]
    >>> blocks_of(spans, 100)
    [['jan', 'feb', 'feb-mar', 'apr', 'unread']]
    """
    everything = [s.key for s in spans]
    if budget <= 0 or sum(s.games for s in spans) <= budget or any(s.whole_night for s in spans):
        return [everything]
    seen: set[tuple[str | None, str]] = set()
    for span in spans:
        if seen & span.keys:   # one competition in two files: its versions are chosen within one night
            return [everything]
        seen |= span.keys
    undated = [s.key for s in spans if s.first is None or s.last is None]
    dated = sorted((s for s in spans if s.first is not None and s.last is not None),
                   key=lambda s: (s.first, s.last, s.key))
    blocks: list[list[str]] = [undated]
    adjusted = _adjustment_months()
    games = 0
    reach: date | None = None   # the latest end of every unit planned so far
    for span in dated:
        assert span.first is not None and span.last is not None
        cut = reach is not None and _month(reach) < _month(span.first) and _month(reach) not in adjusted
        if cut and blocks[-1] and games + span.games > budget:
            blocks.append([])
            games = 0
        blocks[-1].append(span.key)
        games += span.games
        reach = span.last if reach is None else max(reach, span.last)
    return blocks


def plan_history(competitions: pl.DataFrame, games: pl.DataFrame, budget: int) -> list[list[str]]:
    """The competitions of a history (``competition_id, start_date, end_date``) in blocks of about
    ``budget`` games (``games``: ``competition_id, games``; a competition not there has none).

    Examples
    --------
    >>> comps = pl.DataFrame({"competition_id": ["A", "B", "C"], "start_date": [date(2025, 1, 4),
    ...     date(2025, 2, 1), date(2025, 3, 1)], "end_date": [date(2025, 1, 6), date(2025, 2, 2), None]})
    >>> plan_history(comps, pl.DataFrame({"competition_id": ["A", "B", "C"], "games": [10, 10, 10]}), 15)
    [['A'], ['B'], ['C']]
    """
    sized = competitions.select("competition_id", "start_date", "end_date").join(
        games.select("competition_id", "games"), on="competition_id", how="left", maintain_order="left")
    spans = [
        UnitSpan(str(cid), int(n or 0), start or end, end or start)
        for cid, start, end, n in sized.select("competition_id", "start_date", "end_date", "games").iter_rows()
    ]
    return blocks_of(spans, budget)


def _day() -> pl.Expr:
    """A competition's day, as the runs order it: its end, else its start."""
    return pl.coalesce("end_date", "start_date")


def _games(db: Engine, federation: str, added: FederationBatch, ids: list[str],
           since: date | None = None, until: date | None = None) -> pl.DataFrame:
    """The games of competitions ``ids``: a stored one's read from the warehouse (those of
    competitions whose day is from ``since`` to ``until``), an added file's from the file."""
    wanted = pl.Series(ids, dtype=pl.Utf8).implode()
    replaced = added.competitions.get_column("competition_id").implode()
    stored = warehouse.history_games(db, federation, since, until).filter(
        pl.col("competition_id").is_in(wanted) & ~pl.col("competition_id").is_in(replaced))
    new = added.games.filter(pl.col("competition_id").is_in(wanted))
    if new.height == 0:
        return stored
    return concat([stored, new], GAMES_SCHEMA)


def _after(rated: Rated, basis: str) -> Stored:
    """What the next block goes on from: this block's run, as the warehouse would hold it.

    The counts are a load's: the rows before the run's (its ``derived_offset``), then its own. A
    change row has one explanation row per game, so the explanations are counted by the changes'
    games, without building them (the warehouse checks the same sum: ``rating.history``).
    """
    kept = rated.derived_offset if rated.derived_offset is not None else (0, 0)
    n = kept[0] + rated.run.changes.height
    explained = kept[1] + int(rated.run.changes.get_column("games").fill_null(0).sum())
    checkpoints = {c.list_name: c for c in rated.checkpoints}

    def no_rows() -> pl.DataFrame:
        raise AssertionError("a run in blocks never re-rates inside a block already rated")

    return Stored(n_changes=n, games_total=explained, n_explanations=explained, basis=basis,
                  ratings=rated.run.ratings, read_changes=no_rows, read_checkpoints=lambda: checkpoints)


def rate_in_blocks(
    db: Engine, history: warehouse.History, added: FederationBatch, blocks: list[list[str]],
    config: dict[str, object], as_of: date | None = None, each: Callable[[Rated], None] | None = None,
) -> Rated:
    """The federation's history re-rated from its seed, block by block (:func:`plan_history`).

    Parameters
    ----------
    db
        The warehouse the games are read from, a block at a time.
    history
        What is rated, without its games (``warehouse.history(..., games_from=date.max)``), changed
        as the caller wants (a what-if's seed, players or competitions left out).
    added
        Competitions laid over the history (a what-if's added files, with their games); a stored
        competition of the same id is replaced.
    blocks
        The competition ids of each block, in the order they are rated.
    each
        Called with each block's run as soon as it is rated (a backfill keeps its rows:
        :class:`BlockRows`), with its checkpoints; once when everything is rated at once.

    Returns
    -------
    Rated
        The last block's run: the ratings after every competition, every accepted competition;
        its rows are the last block's only.
    """
    fed = added.federation
    lists = lists_of(config)
    if len(blocks) <= 1 or (len(lists) == 1 and not engine.restartable(fed, config)):
        # One block: the run from the seed over every game, as the history lies.
        ids = history.competitions.get_column("competition_id").to_list()
        everyone = replace(history, games=_games(db, fed, FederationBatch(federation=fed), ids), games_from=None)
        at_once = rate(everyone, added, config, as_of, checkpoints=each is not None)
        if each is not None:
            each(at_once)
        return at_once
    # Every player known once, the added files' over the stored (as History.laid_over merges them):
    # the blocks' batches then change no player the history knows.
    players = merge_players(concat([history.players, added.players], PLAYERS_SCHEMA))
    replaced = added.competitions.get_column("competition_id").implode()
    everything = concat([history.competitions.filter(~pl.col("competition_id").is_in(replaced)),
                         added.competitions], history.competitions.schema)
    no_games = _games(db, fed, added, [], date.max, date.min)
    basis = rating_basis(history.seed, config)
    stored: Stored | None = None
    rated: Rated | None = None
    done: list[str] = []
    for number, block in enumerate(blocks, start=1):
        comps = everything.filter(pl.col("competition_id").is_in(pl.Series(block, dtype=pl.Utf8).implode()))
        until = comps.select(_day().max()).item()
        before = replace(history, players=players, games=no_games, games_from=None,
                         competitions=everything.filter(pl.col("competition_id").is_in(
                             pl.Series(done, dtype=pl.Utf8).implode())))
        batch = FederationBatch(federation=fed, competitions=comps, games=no_games, players=players.clear())
        rated = None
        since = _since(before, batch, config, lists, stored, as_of, progress=number == len(blocks))
        if since is not None:
            # Going on from the block before: its games from ``since`` on (FIDE: the initial-rating
            # window before the checkpoint; the others: none, the state is the ratings after it).
            window = _games(db, fed, added, [*done, *block] if len(lists) > 1 else block, since, until)
            in_block = pl.col("competition_id").is_in(comps.get_column("competition_id").implode())
            part = replace(before, games=window.filter(~in_block), games_from=since)
            batch = replace(batch, games=window.filter(in_block))
            try:
                rated = rate(part, batch, config, as_of, stored=stored, checkpoints=True)
            except continued.CannotContinue:
                rated = None
        if rated is None:
            # The first block, or one that cannot go on from the block before: from the seed.
            every = _games(db, fed, added, [*done, *block], None, until)
            in_block = pl.col("competition_id").is_in(comps.get_column("competition_id").implode())
            rated = rate(replace(before, games=every.filter(~in_block)), replace(batch, games=every.filter(in_block)),
                         config, as_of, checkpoints=True)
        if each is not None:
            each(rated)
        stored = _after(rated, basis)
        done += block
    assert rated is not None
    return rated


def _since(history: warehouse.History, batch: FederationBatch, config: dict[str, object], lists: list[str],
           stored: Stored | None, as_of: date | None, *, progress: bool) -> date | None:
    """The first day of the games a block going on from ``stored`` needs of the history before it
    (None: it cannot go on, and re-rates from the seed).

    FIDE: the games of the period the block re-rates from on (the rating needs no other: the games
    its unrated players pooled before are in the checkpoint); with ``progress`` (the last block),
    from the initial-rating window before it, as ``rating.history.history_to_rate`` reads them for
    a night, for the unrated players' progress. Reading the 26-month window for every block read
    each game about eight times over (at 5M games: a backfill 5 times as long as the run at once).
    """
    if stored is None:
        return None
    if len(lists) > 1:
        at = continued.plan(history, batch, config, lists, unchanged_before(history, batch, config, stored),
                            stored.read_checkpoints())
        if at is None:
            return None
        return continued.games_from(at, as_of) if progress else continued.period_start(at)
    points = point_key(batch.competitions).get_column("point")
    return engine.point_date(str(points.min())) if points.len() else None


class BlockRows:
    """The rows of a run in blocks (:func:`rate_in_blocks`, its ``each``), gathered as the run from
    the seed gives them: a block from a checkpoint re-rates from a period on, so its rows replace the
    ones gathered from that period on (its ``derived_offset``), as the warehouse's load replaces them.

    The rating changes (one row per player and competition) are kept in memory, each list's on its
    own; the explanations (one row per player and game, ten times as many) are written to Parquet
    files in ``folder``, a file a block, which the load reads a file at a time
    (``warehouse.LoadBatch.explanation_files``).
    """

    def __init__(self, lists: list[str], folder: Path) -> None:
        self.lists, self.folder = lists, folder
        self.changes: dict[str, pl.DataFrame] = {}   #: by list ("" for a federation of one list)
        self.starts: dict[str, pl.DataFrame] = {}    #: the state each list's editions are rebuilt from
        self.adjustments: dict[str, list[tuple[date, pl.DataFrame]]] = {}
        self.files: list[tuple[Path, int]] = []      #: the explanations' files, with their rows
        self.last: Rated | None = None

    def __call__(self, rated: Rated) -> None:
        offset = rated.derived_offset
        self._keep_explanations(offset[1] if offset is not None else 0)
        explanations = rated.run.explanations
        path = self.folder / f"explanations-{len(self.files):05d}.parquet"
        explanations.write_parquet(path)
        self.files.append((path, explanations.height))
        if len(self.lists) > 1:
            # From the seed (cut None), or from the checkpoint of a period: the rows before it stay.
            period = None if rated.cut is None else rated.cut[:7]
            day = None if rated.cut is None else date.fromisoformat(rated.cut)
            for name, part in rated.lists.items():
                kept = self.changes.get(name) if period is not None else None
                new = part.run.changes
                self.changes[name] = new if kept is None else pl.concat([kept.filter(pl.col("period") < period), new])
                if period is None or name not in self.starts:
                    self.starts[name] = part.start_state
                # An adjustment before the checkpoint is the earlier blocks'; one after it, this block's.
                earlier = [(d, up) for d, up in self.adjustments.get(name, []) if day is not None and d < day]
                self.adjustments[name] = earlier + list(part.adjustments)
        else:
            kept = self.changes.get("") if offset is not None else None
            new = rated.run.changes
            self.changes[""] = new if kept is None else pl.concat([kept.head(offset[0] if offset else 0), new])
            if offset is None:
                self.starts[""] = rated.start_state
        self.last = rated

    def _keep_explanations(self, rows: int) -> None:
        """Keep the first ``rows`` explanation rows gathered (a block re-rates the rest)."""
        kept: list[tuple[Path, int]] = []
        for path, n in self.files:
            if rows <= 0:
                path.unlink()
                continue
            if n > rows:
                pl.read_parquet(path).head(rows).write_parquet(path)
                n = rows
            kept.append((path, n))
            rows -= n
        self.files = kept

    def rated(self, blocks: int) -> Rated:
        """The run from the seed the blocks make up: every rating change, the last block's ratings,
        competitions, players and checkpoints; the explanations are in :attr:`files`."""
        last = self.last
        assert last is not None
        reason = f"re-rated from the seed in {blocks} blocks of months"
        nothing = empty(EXPLANATIONS_SCHEMA)
        if len(self.lists) > 1:
            parts = {name: replace(part, run=engine.RatingRun(self.changes[name], nothing, part.run.ratings),
                                   start_state=self.starts[name], adjustments=self.adjustments[name], cut=None,
                                   derived_offset=None, unchanged_before=None, changed=[])
                     for name, part in last.lists.items()}
            first = parts[self.lists[0]]
            changes = continued.by_period([p.run.changes for p in parts.values()])
            return replace(first, run=engine.RatingRun(changes, nothing, first.run.ratings),
                           competitions=last.competitions, changed=[], players=last.players, basis=last.basis,
                           full_reason=reason, lists=parts, checkpoints=last.checkpoints, progress=last.progress)
        return replace(last, run=engine.RatingRun(self.changes[""], nothing, last.run.ratings),
                       start_state=self.starts[""], cut=None, derived_offset=None, changed=[], full_reason=reason,
                       unchanged_before=None)
