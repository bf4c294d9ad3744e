"""Rating lists: the seeded lists, the published editions, their lines and corrections (see :mod:`warehouse.models`)."""

from __future__ import annotations

import datetime as dt

import sqlalchemy as sa
from sqlmodel import Field, SQLModel

from warehouse._model_types import DOUBLE as _DOUBLE
from warehouse._model_types import TEXT as _TEXT
from warehouse._model_types import TS as _TS

__all__ = [
    "EditionCorrection",
    "RatingList",
    "RatingListLine",
    "SeedEntry",
]


class SeedEntry(SQLModel, table=True):
    """A starting list a federation brought when it moved onto the pipeline.

    Rows are kept per seed file (``ledger_id``); the federation's seed is the
    most recently loaded one.
    """

    __tablename__ = "seed_list"

    ledger_id: int = Field(primary_key=True, foreign_key="load_ledger.id", sa_type=sa.BigInteger())
    player_id: str = Field(primary_key=True, sa_type=_TEXT)
    federation: str = Field(foreign_key="federations.id", sa_type=_TEXT)
    name: str | None = Field(default=None, sa_type=_TEXT)
    rating: float | None = Field(default=None, sa_type=_DOUBLE)
    games: int | None = Field(default=None, sa_type=sa.BigInteger())
    as_of: dt.date | None = None
    k: int | None = None
    status: str | None = Field(default=None, sa_type=_TEXT)
    last_played: str | None = Field(default=None, sa_type=_TEXT)
    rated_max: float | None = Field(default=None, sa_type=_DOUBLE)
    edition: int | None = None  #: the edition number the seeded list carried (same on every row)


class RatingList(SQLModel, table=True):
    """A published edition of a federation's list (immutable).

    ``edition`` counts per federation, from the seeded list's edition + 1 (else 1).
    An ``ordinary`` edition follows a rated competition (dated at its end date) or is a
    monthly list (dated the 1st); a ``correcting`` edition, dated the day it was
    published, replaces figures of editions already published (``edition_corrections``).
    """

    __tablename__ = "rating_lists"
    __table_args__ = (
        sa.UniqueConstraint("federation", "edition", name="uq_rating_lists_edition"),
        sa.Index("ix_rating_lists_as_of", "federation", "as_of"),
    )

    id: int = Field(primary_key=True, sa_type=sa.BigInteger(), sa_column_kwargs={"autoincrement": False})
    federation: str = Field(foreign_key="federations.id", sa_type=_TEXT)
    edition: int
    as_of: dt.date  #: the date the list is in force from
    published_at: dt.datetime = Field(sa_type=_TS)
    n_players: int
    content_sha256: str = Field(sa_type=_TEXT)  #: checksum of the list's rows
    list_name: str | None = Field(default=None, sa_type=_TEXT)  #: which list (null: the federation's first)
    kind: str | None = Field(default=None, sa_type=_TEXT)  #: ordinary | correcting (null: ordinary)
    covers: str | None = Field(default=None, sa_type=_TEXT)
    """The last point of the history the edition holds: ``end|start|competition_id`` of its
    last competition (per-competition publication) or the monthly list's date."""
    lines: str | None = Field(default=None, sa_type=_TEXT)
    """How ``rating_list_lines`` holds it: ``changes`` (since the previous edition of the
    list) or ``full`` (null: full, editions published before revision 0006)."""
    base_edition: int | None = None
    """The edition its lines start from: its own (``full``), else the list's last ``full``
    edition before it, or 0 when every edition of the list since the first stored changes."""


class RatingListLine(SQLModel, table=True):
    """The lines an edition stored (immutable): its changes since the previous edition of
    its list, or every line (``RatingList.lines``).

    A ``changes`` edition stores the players whose line (name, rating, games, status,
    category) differs from the previous edition of the list, the players new to the list,
    and a ``removed`` line for each player who left it; its ranks and order follow from
    the figures (ranks to active players, ties shared; then rating, then player id), as
    every federation's list orders them. A ``full`` edition stores every line with its
    rank and ``position``, as published. The view ``rating_list_entries`` gives every
    edition's lines in full (an edition per competition of a 1M-game archive
    is 10^8 full lines, and 0.5 % of them differ from the edition before).
    """

    __tablename__ = "rating_list_lines"
    __table_args__ = (sa.Index("ix_rating_list_lines_player", "federation", "player_id"),)

    list_id: int = Field(primary_key=True, foreign_key="rating_lists.id", sa_type=sa.BigInteger())
    seq: int = Field(primary_key=True, sa_column_kwargs={"autoincrement": False})
    federation: str = Field(sa_type=_TEXT)
    player_id: str | None = Field(default=None, sa_type=_TEXT)
    name: str | None = Field(default=None, sa_type=_TEXT)
    rating: float | None = Field(default=None, sa_type=_DOUBLE)
    games: int | None = Field(default=None, sa_type=sa.BigInteger())
    status: str | None = Field(default=None, sa_type=_TEXT)  #: active | provisional | inactive | unrated
    category: str | None = Field(default=None, sa_type=_TEXT)
    rank: int | None = Field(default=None, sa_type=sa.BigInteger())  #: as published (``full`` editions)
    position: int | None = None  #: as published (``full`` editions)
    removed: bool = False  #: the player left the list in this edition (``changes`` editions)


class EditionCorrection(SQLModel, table=True):
    """One figure of a published edition that a correcting edition changed (immutable).

    The published edition keeps its figure; this row says what it is now and which
    correcting edition (``list_id``, ``correcting_edition``) published the change.
    """

    __tablename__ = "edition_corrections"
    __table_args__ = (
        sa.Index("ix_edition_corrections_list", "list_id"),
        sa.Index("ix_edition_corrections_player", "federation", "player_id"),
    )

    id: int = Field(primary_key=True, sa_type=sa.BigInteger(), sa_column_kwargs={"autoincrement": False})
    list_id: int = Field(foreign_key="rating_lists.id", sa_type=sa.BigInteger())  #: the correcting edition
    federation: str = Field(sa_type=_TEXT)
    list_name: str | None = Field(default=None, sa_type=_TEXT)
    correcting_edition: int  #: edition number of the correcting edition
    edition: int  #: the published edition whose figure changed
    edition_as_of: dt.date | None = None  #: that edition's date
    player_id: str = Field(sa_type=_TEXT)
    name: str | None = Field(default=None, sa_type=_TEXT)
    published: float | None = Field(default=None, sa_type=_DOUBLE)  #: figure published (null: not listed)
    now: float | None = Field(default=None, sa_type=_DOUBLE)  #: figure now (null: no longer listed)
    reason: str | None = Field(default=None, sa_type=_TEXT)  #: the competitions that caused it
