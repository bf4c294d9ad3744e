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
:func:`rating.blocks.blocks_of`, whose plan a what-if's run in blocks shares). The lists are then
rated and published in date order, edition by edition, as the one batch rates and publishes
them. An inbox that cannot be cut so (one file spanning the whole archive), or that holds what a night applies to every file of it
(a rating officer's aliases, a request to process a file again, one competition in two
files), is one block.

Prefect-free policy of the ingest task (``tasks.ingest``), beside it for the reason given
in ``tasks/_inbox.py``.
"""

from __future__ import annotations

import polars as pl

import formats
from rating.blocks import UnitSpan, blocks_of
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
