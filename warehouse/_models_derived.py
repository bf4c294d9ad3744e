"""What the engine derived from the history: rating changes, explanations, current ratings and the checksums of their blocks (see :mod:`warehouse.models`)."""

from __future__ import annotations

import datetime as dt

import sqlalchemy as sa
from sqlmodel import Field, SQLModel

from warehouse._model_types import DOUBLE as _DOUBLE
from warehouse._model_types import TEXT as _TEXT

__all__ = [
    "DerivedCheckpoint",
    "DerivedState",
    "Explanation",
    "Rating",
    "RatingChange",
]


class RatingChange(SQLModel, table=True):
    """Derived: one row per rated player and competition (FIDE: and period).

    Replaced per federation by every load that carries a rating run.
    """

    __tablename__ = "rating_changes"
    __table_args__ = (
        sa.Index("ix_rating_changes_player", "federation", "player_id"),
        sa.Index("ix_rating_changes_competition", "federation", "competition_id"),
    )

    federation: str = Field(primary_key=True, sa_type=_TEXT)
    seq: int = Field(primary_key=True, sa_type=sa.BigInteger(), sa_column_kwargs={"autoincrement": False})
    competition_id: str = Field(sa_type=_TEXT)
    period: str | None = Field(default=None, sa_type=_TEXT)  #: FIDE rating period ``2025-11``
    player_id: str = Field(sa_type=_TEXT)
    rating_before: float | None = Field(default=None, sa_type=_DOUBLE)
    games: int | None = Field(default=None, sa_type=sa.BigInteger())
    score: float | None = Field(default=None, sa_type=_DOUBLE)
    expected: float | None = Field(default=None, sa_type=_DOUBLE)
    k: float | None = Field(default=None, sa_type=_DOUBLE)
    change: float | None = Field(default=None, sa_type=_DOUBLE)
    rating_after: float | None = Field(default=None, sa_type=_DOUBLE)
    rule_set: str | None = Field(default=None, sa_type=_TEXT)


class Explanation(SQLModel, table=True):
    """Derived: how each game contributed to a player's rating change."""

    __tablename__ = "explanations"
    # The biggest table (two rows per game): one index only, for a player's history.
    __table_args__ = (sa.Index("ix_explanations_player", "federation", "player_id"),)

    federation: str = Field(primary_key=True, sa_type=_TEXT)
    seq: int = Field(primary_key=True, sa_type=sa.BigInteger(), sa_column_kwargs={"autoincrement": False})
    competition_id: str = Field(sa_type=_TEXT)
    period: str | None = Field(default=None, sa_type=_TEXT)
    player_id: str = Field(sa_type=_TEXT)
    round: int | None = None
    opponent_id: str | None = Field(default=None, sa_type=_TEXT)
    rating: float | None = Field(default=None, sa_type=_DOUBLE)
    opponent_rating: float | None = Field(default=None, sa_type=_DOUBLE)
    handicap: int | None = None
    score: float | None = Field(default=None, sa_type=_DOUBLE)
    expected: float | None = Field(default=None, sa_type=_DOUBLE)
    k: float | None = Field(default=None, sa_type=_DOUBLE)
    contribution: float | None = Field(default=None, sa_type=_DOUBLE)
    rule_set: str | None = Field(default=None, sa_type=_TEXT)
    source_line: int | None = None


class DerivedState(SQLModel, table=True):
    """Checksums of each derived table's content, per federation and block of rows.

    ``rating_changes`` and ``explanations`` are hashed in blocks of consecutive
    ``seq`` (``warehouse.load.DERIVED_BLOCK`` rows); a new rating run rewrites
    only from the first block that differs, so a night that appends a few
    competitions to a long history writes a few rows, not the history.
    ``ratings`` is one block.
    """

    __tablename__ = "derived_state"

    federation: str = Field(primary_key=True, sa_type=_TEXT)
    table_name: str = Field(primary_key=True, sa_type=_TEXT)  #: rating_changes | explanations | ratings
    block: int = Field(primary_key=True, sa_column_kwargs={"autoincrement": False})  #: rows seq // DERIVED_BLOCK
    content_sha256: str = Field(sa_type=_TEXT)  #: sha256 of the block's rows as CSV
    n_rows: int = Field(sa_type=sa.BigInteger())


class Rating(SQLModel, table=True):
    """Derived: each player's current rating state (after the last rated competition)."""

    __tablename__ = "ratings"

    federation: str = Field(primary_key=True, sa_type=_TEXT)
    player_id: str = Field(primary_key=True, sa_type=_TEXT)
    name: str | None = Field(default=None, sa_type=_TEXT)
    rating: float | None = Field(default=None, sa_type=_DOUBLE)  #: null: unrated (FIDE)
    games: int | None = Field(default=None, sa_type=sa.BigInteger())
    as_of: dt.date | None = None
    k: int | None = None
    status: str | None = Field(default=None, sa_type=_TEXT)
    last_played: str | None = Field(default=None, sa_type=_TEXT)
    rated_max: float | None = Field(default=None, sa_type=_DOUBLE)


class DerivedCheckpoint(SQLModel, table=True):
    """Derived: where a federation's next run can continue from, for each of its lists (FIDE).

    The engine's state at the start of the last rating period rated (``point``: that period's
    list day), the games unrated players had pooled before it within the initial-rating window,
    and the state publication rebuilds editions from; ``n_changes`` and ``n_explanations`` are
    the stored rows before it (rows are stored period by period). Replaced with the derived
    rows by every load that carries them, so it always describes them; the frames are Parquet
    (engine state, not for analysts: ``ratings`` and ``rating_changes`` are).
    """

    __tablename__ = "derived_checkpoints"

    federation: str = Field(primary_key=True, sa_type=_TEXT)
    list_name: str = Field(primary_key=True, sa_type=_TEXT)  #: the list (FIDE: standard, rapid, blitz)
    point: str = Field(sa_type=_TEXT)  #: the list day the state is at: ``2026-02-01``
    n_changes: int = Field(sa_type=sa.BigInteger())  #: rows of ``rating_changes`` before it
    n_explanations: int = Field(sa_type=sa.BigInteger())  #: rows of ``explanations`` before it
    state: bytes = Field(sa_type=sa.LargeBinary())  #: RATINGS_SCHEMA, the engine's state (Parquet)
    pooled: bytes = Field(sa_type=sa.LargeBinary())  #: EXPLANATIONS_SCHEMA, pooled games (Parquet)
    start: bytes = Field(sa_type=sa.LargeBinary())  #: RATINGS_SCHEMA, publication's state (Parquet)
