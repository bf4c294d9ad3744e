"""A large inbox (the first run of a migrated archive) taken in blocks of months.

A night holds its whole batch in memory: every stage reads it, and rating, loading and
publishing it at once cost memory in proportion to the archive it brings. An inbox of more
games than the block's budget is therefore read block by block, each a night of its own
that goes on from the rating state the block before left in the warehouse (FIDE from its
checkpoints, the others from their stored state), so memory follows one block and the
players, not the archive.

The blocks are cut only where the result is the one batch's: between months, where every
competition of the blocks after starts in a later month than every competition of the
blocks before ends (and never after a month that holds a one-off adjustment of a list:
:func:`_adjustment_months`). The lists are then rated and published in date order, edition by
edition, as the one batch rates and publishes them. An inbox that cannot be cut so (one
file spanning the whole archive), or that holds what a night applies to every file of it
(a rating officer's aliases, a request to process a file again, one competition in two
files), is one block.

Prefect-free policy of the ingest task (``tasks.ingest``), beside it for the reason given
in ``tasks/_inbox.py``.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

import polars as pl

import formats
from engine.rulesets import REGISTRY
from tasks._inbox_read import _competition_keys

__all__ = ["BLOCK_GAMES", "UnitSpan", "blocks_of", "span_of", "unit_key"]

#: Games per block of a large inbox by default (the nightly's ``block_games``; 0: one batch). On the
#: 1M-game FIDE-shaped archive, blocks of 250,000 games take the first run's peak from 2.15 to 1.12 GB
#: for 13 % more time (docs/benchmarks.md); an inbox of fewer games is one block, read once.
BLOCK_GAMES = 250_000


def unit_key(unit: object) -> str:
    """The name a unit of the inbox (a file, or a folder's files) is planned by: its first path.

    Examples
    --------
    >>> from pathlib import Path
    >>> unit_key(Path("inbox/a.trf")), unit_key([Path("inbox/t/1.csv"), Path("inbox/t/2.csv")])
    ('inbox/a.trf', 'inbox/t/1.csv')
    """
    return str(unit[0] if isinstance(unit, list) else unit)


@dataclass(frozen=True)
class UnitSpan:
    """What the plan needs of one unit read: its size and the months its competitions cover."""

    key: str                    #: :func:`unit_key`
    games: int                  #: its games (the block's budget counts them)
    first: date | None = None   #: the earliest start of its competitions (None: no dated competition)
    last: date | None = None    #: the latest end of its competitions
    keys: frozenset[tuple[str | None, str]] = frozenset()   #: its competitions (federation, id)
    #: it applies to every file of the night (an aliases file): the night is one block
    whole_night: bool = False


def span_of(key: str, result: formats.ReadResult) -> UnitSpan:
    """The span of one file read (its frames are dropped after this).

    A competition's day is its end (its start when it has no end), as the rating runs order
    it; its first day is its start (its end when it has no start).
    """
    comps = result.competitions
    first = last = None
    if comps.height:
        days = comps.select(first=pl.coalesce("start_date", "end_date").min(),
                            last=pl.coalesce("end_date", "start_date").max()).row(0)
        first, last = days
    return UnitSpan(key=key, games=result.games.height, first=first, last=last,
                    keys=frozenset(_competition_keys(result)), whole_night=bool(result.aliases.height))


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
        Every unit of the inbox (those the night does not read, without a date, go with the
        first block, which reports them).
    budget
        Games per block; 0 or less: one block.

    Returns
    -------
    list of list of str
        The blocks in the order they run; the units without a dated competition (a file no
        reader understood, a players file) go with the first. One block when the inbox fits
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
