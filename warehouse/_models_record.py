"""The warehouse's record of federations, loads, the load ledger and players (see :mod:`warehouse.models`)."""

from __future__ import annotations

import datetime as dt

import sqlalchemy as sa
from sqlmodel import Field, SQLModel

from warehouse._model_types import DOUBLE as _DOUBLE
from warehouse._model_types import TEXT as _TEXT
from warehouse._model_types import TS as _TS

__all__ = [
    "Federation",
    "LedgerEntry",
    "Load",
    "Player",
    "PlayerAlias",
]


class Federation(SQLModel, table=True):
    """A game federation whose lists the warehouse keeps (``ajusc``, ``fide``, ``egf``).

    Created on first load; ``name``, ``game`` and ``system`` are filled from the
    federation's table in ``federations.toml`` when the flow registers it.
    """

    __tablename__ = "federations"

    id: str = Field(primary_key=True, sa_type=_TEXT)  #: federation id, e.g. ``fide``
    name: str | None = Field(default=None, sa_type=_TEXT)  #: full name
    game: str | None = Field(default=None, sa_type=_TEXT)  #: the game rated
    system: str | None = Field(default=None, sa_type=_TEXT)  #: rating system id, e.g. ``fide-elo``


class Load(SQLModel, table=True):
    """One committed load (a ``load_batch`` or ``load_seed`` call that changed something).

    An audit trail: when, what kind, and the counts reported back to the flow.
    A batch that was entirely a re-send writes no row.
    """

    __tablename__ = "loads"

    id: int = Field(primary_key=True, sa_type=sa.BigInteger(), sa_column_kwargs={"autoincrement": False})
    federation: str = Field(foreign_key="federations.id", sa_type=_TEXT)
    kind: str = Field(sa_type=_TEXT)  #: ``results`` | ``seed``
    loaded_at: dt.datetime = Field(sa_type=_TS)
    files_loaded: int = 0
    files_skipped: int = 0
    competitions_loaded: int = 0
    competitions_superseded: int = 0
    games_loaded: int = Field(default=0, sa_type=sa.BigInteger())


class LedgerEntry(SQLModel, table=True):
    """The load ledger: which file versions are in the warehouse (exactly-once key).

    One row per ``(federation, competition_id, source_sha256)``. A file that held
    no competition (a players file, an unreadable file, a seed list) has
    ``competition_id = ''``. A file already in the ledger is never loaded again.
    """

    __tablename__ = "load_ledger"
    __table_args__ = (
        sa.UniqueConstraint("federation", "competition_id", "source_sha256", name="uq_load_ledger_key"),
        sa.Index("ix_load_ledger_sha", "source_sha256"),
    )

    id: int = Field(primary_key=True, sa_type=sa.BigInteger(), sa_column_kwargs={"autoincrement": False})
    federation: str = Field(foreign_key="federations.id", sa_type=_TEXT)
    competition_id: str = Field(sa_type=_TEXT)  #: ``''`` for a file without competitions
    source_sha256: str = Field(sa_type=_TEXT)  #: sha256 of the file's bytes
    source: str | None = Field(default=None, sa_type=_TEXT)  #: file name
    format: str | None = Field(default=None, sa_type=_TEXT)  #: detected format
    kind: str = Field(sa_type=_TEXT)  #: ``results`` | ``file`` | ``seed``
    n_findings: int | None = None  #: findings the reader reported for the file
    load_id: int = Field(foreign_key="loads.id", sa_type=sa.BigInteger())


class Player(SQLModel, table=True):
    """A player, identified by the federation's own id (current details).

    Later files fill details that were missing (nulls never erase a known value);
    a changed name keeps the previous one in ``player_aliases``.
    """

    __tablename__ = "players"

    federation: str = Field(primary_key=True, foreign_key="federations.id", sa_type=_TEXT)
    player_id: str = Field(primary_key=True, sa_type=_TEXT)  #: the federation's id (FIDE id, EGD pin, ...)
    name: str | None = Field(default=None, sa_type=_TEXT)
    country: str | None = Field(default=None, sa_type=_TEXT)
    club: str | None = Field(default=None, sa_type=_TEXT)
    birth_year: int | None = None
    declared_rank: str | None = Field(default=None, sa_type=_TEXT)  #: EGF grade declared in a file
    declared_rating: float | None = Field(default=None, sa_type=_DOUBLE)  #: rating printed in a file
    declared_rating_origin: str | None = Field(default=None, sa_type=_TEXT)  #: whose list it is from (FIDE, EGF, FFG)


class PlayerAlias(SQLModel, table=True):
    """Other names a player was known by (spellings in older files)."""

    __tablename__ = "player_aliases"

    federation: str = Field(primary_key=True, sa_type=_TEXT)
    player_id: str = Field(primary_key=True, sa_type=_TEXT)
    alias: str = Field(primary_key=True, sa_type=_TEXT)
