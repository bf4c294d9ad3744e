"""What a rating run produces (:class:`Rated`) and what the warehouse holds of earlier runs (:class:`Stored`)."""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from typing import TYPE_CHECKING

import polars as pl

import engine
import warehouse
from formats.schema import PLAYERS_SCHEMA

if TYPE_CHECKING:
    from sqlalchemy.engine import Engine

__all__ = ["Rated", "Stored", "rating_basis"]


@dataclass(frozen=True)
class Rated:
    """The re-rated state of one federation, what it was rated from and, for FIDE, the
    unrated players' progress.

    On an incremental run ``run.changes`` and ``run.explanations`` hold only the rows
    from ``cut`` on; ``derived_offset`` says where they go in the stored tables.
    """

    run: engine.RatingRun
    competitions: pl.DataFrame             #: every accepted competition of the history
    progress: pl.DataFrame | None = None   #: validations.initial_rating_progress (FIDE only)
    start_state: pl.DataFrame = field(default_factory=lambda: pl.DataFrame())  #: state the run starts from
    cut: str | None = None                 #: point the run starts at (None: a full re-rate from the seed)
    changed: list[str] = field(default_factory=list)   #: competitions that moved the cut
    players: pl.DataFrame = field(default_factory=lambda: pl.DataFrame(schema=PLAYERS_SCHEMA))
    derived_offset: tuple[int, int] | None = None  #: (changes, explanations) rows kept before the run's
    basis: str | None = None               #: checksum of the seed and config the rows derive from
    full_reason: str | None = None         #: why the run re-rated from the seed
    #: A re-rate from the seed: the publication point before which its rows are the stored ones
    #: (:func:`rating.history.unchanged_before`; None: not known).
    unchanged_before: str | None = None
    #: A federation that publishes several lists (FIDE): each list rated on its own, by name.
    lists: dict[str, Rated] = field(default_factory=dict)
    #: One-off adjustments no change row carries (FIDE rapid and blitz, 1 October 2022): the
    #: day and ``player_id, rating`` of every rating it raised (:func:`adjusted_at`).
    adjustments: list[tuple[date, pl.DataFrame]] = field(default_factory=list)
    #: Where the next run can continue from (:mod:`rating.continued`), stored with the rows.
    checkpoints: tuple[warehouse.Checkpoint, ...] = ()


def rating_basis(seed: pl.DataFrame, config: dict[str, object]) -> str:
    """Checksum of what stored rating rows derive from besides the history: seed list and config."""
    digest = hashlib.sha256(json.dumps(config, sort_keys=True, default=str).encode())
    digest.update(seed.sort("player_id").write_csv().encode())
    return digest.hexdigest()


@dataclass(frozen=True)
class Stored:
    """What the warehouse holds of a federation's derived rows (for an incremental run).

    Reading it costs three aggregates and the ``ratings`` table; the rating changes
    themselves are read only when a late competition re-rates from inside the history.
    """

    n_changes: int             #: rows of ``rating_changes``
    games_total: int           #: their ``games`` summed (one explanation row per player and game)
    n_explanations: int        #: rows of ``explanations``
    basis: str | None          #: :func:`rating_basis` of the stored rows
    ratings: pl.DataFrame      #: RATINGS_SCHEMA, the stored state after the last competition
    read_changes: Callable[[], pl.DataFrame]  #: RATING_CHANGES_SCHEMA, in seq order
    #: the checkpoints stored with the rows, by list (:mod:`rating.continued`)
    read_checkpoints: Callable[[], dict[str, warehouse.Checkpoint]] = dict

    @classmethod
    def from_warehouse(cls, db: Engine, federation: str) -> Stored:
        """What ``db`` holds for ``federation``."""
        n_changes, games_total, n_explanations = warehouse.derived_counts(db, federation)
        return cls(
            n_changes=n_changes, games_total=games_total, n_explanations=n_explanations,
            basis=warehouse.rating_basis(db, federation), ratings=warehouse.current_ratings(db, federation),
            read_changes=lambda: warehouse.rating_changes(db, federation),
            # Read once: where the history is read and where the run rates both ask.
            read_checkpoints=functools.cache(lambda: warehouse.checkpoints(db, federation)),
        )
