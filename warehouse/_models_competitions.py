"""Competitions as loaded, version by version, with their games, byes and findings (see :mod:`warehouse.models`)."""

from __future__ import annotations

import datetime as dt

import sqlalchemy as sa
from sqlmodel import Field, SQLModel

from warehouse._model_types import DOUBLE as _DOUBLE
from warehouse._model_types import TEXT as _TEXT

__all__ = [
    "Bye",
    "Competition",
    "Finding",
    "Game",
]


class Competition(SQLModel, table=True):
    """One version of a competition as read from one source file.

    ``status`` is ``accepted`` or ``rejected`` (validation outcome) for the
    current version and ``superseded`` once a corrected file replaced it; the
    old version keeps its games and findings. ``outcome`` keeps the validation
    result even after supersession. At most one version per
    ``(federation, competition_id)`` is not superseded.
    """

    __tablename__ = "competitions"
    __table_args__ = (
        sa.UniqueConstraint("federation", "competition_id", "source_sha256", name="uq_competitions_version"),
        sa.Index("ix_competitions_current", "federation", "competition_id", "status"),
        sa.Index("ix_competitions_dates", "federation", "end_date", "start_date"),
    )

    id: int = Field(primary_key=True, sa_type=sa.BigInteger(), sa_column_kwargs={"autoincrement": False})
    federation: str = Field(foreign_key="federations.id", sa_type=_TEXT)
    competition_id: str = Field(sa_type=_TEXT)
    version: int  #: 1 for the first file, +1 per correction
    name: str | None = Field(default=None, sa_type=_TEXT)
    start_date: dt.date | None = None
    end_date: dt.date | None = None
    rounds: int | None = None
    modality: str | None = Field(default=None, sa_type=_TEXT)
    results_public: bool | None = None
    event_class: str | None = Field(default=None, sa_type=_TEXT)
    source: str | None = Field(default=None, sa_type=_TEXT)  #: file name
    source_sha256: str = Field(sa_type=_TEXT)  #: checksum of the file's bytes
    rounds_declared: int | None = None  #: rounds the file announces (TRF XXR, OpenGotha numberOfRounds)
    organiser_email: str | None = Field(default=None, sa_type=_TEXT)  #: the file's address for the report
    status: str = Field(sa_type=_TEXT)  #: accepted | rejected | superseded
    outcome: str = Field(sa_type=_TEXT)  #: accepted | rejected (kept when superseded)
    load_id: int = Field(foreign_key="loads.id", sa_type=sa.BigInteger())


class Game(SQLModel, table=True):
    """One game of one competition version (byes are in ``byes``).

    ``score_a`` is 1, 0.5 or 0 for ``player_a`` (null: unknown); ``rated`` is
    False for a game excluded by validation; ``source_line`` points into the file.
    """

    __tablename__ = "games"
    __table_args__ = (
        sa.Index("ix_games_competition_rated", "competition_key", "rated"),  # counts read the index only
        sa.Index("ix_games_player_a", "federation", "player_a"),
        sa.Index("ix_games_player_b", "federation", "player_b"),
    )

    id: int = Field(primary_key=True, sa_type=sa.BigInteger(), sa_column_kwargs={"autoincrement": False})
    competition_key: int = Field(foreign_key="competitions.id", sa_type=sa.BigInteger())
    federation: str = Field(sa_type=_TEXT)
    competition_id: str = Field(sa_type=_TEXT)
    round: int | None = None
    player_a: str | None = Field(default=None, sa_type=_TEXT)
    player_b: str | None = Field(default=None, sa_type=_TEXT)
    score_a: float | None = Field(default=None, sa_type=_DOUBLE)
    status: str | None = Field(default=None, sa_type=_TEXT)  #: played | forfeit | unknown
    handicap: int | None = None
    colour_a: str | None = Field(default=None, sa_type=_TEXT)
    source_line: int | None = None
    rated: bool | None = None


class Bye(SQLModel, table=True):
    """A bye (not a game): kept for the organiser's report."""

    __tablename__ = "byes"
    __table_args__ = (sa.Index("ix_byes_competition", "competition_key"),)

    id: int = Field(primary_key=True, sa_type=sa.BigInteger(), sa_column_kwargs={"autoincrement": False})
    competition_key: int = Field(foreign_key="competitions.id", sa_type=sa.BigInteger())
    federation: str = Field(sa_type=_TEXT)
    competition_id: str = Field(sa_type=_TEXT)
    round: int | None = None
    player_id: str | None = Field(default=None, sa_type=_TEXT)
    kind: str | None = Field(default=None, sa_type=_TEXT)  #: full | half | zero | pairing | absent
    source_line: int | None = None


class Finding(SQLModel, table=True):
    """A reader, eligibility or data-quality finding, naming file, line and field.

    ``competition_key`` ties it to the competition version it was found in
    (null: a file that could not be tied to a competition).
    """

    __tablename__ = "findings"
    __table_args__ = (
        sa.Index("ix_findings_competition", "competition_key"),
        sa.Index("ix_findings_federation", "federation", "competition_id"),
    )

    id: int = Field(primary_key=True, sa_type=sa.BigInteger(), sa_column_kwargs={"autoincrement": False})
    competition_key: int | None = Field(default=None, foreign_key="competitions.id", sa_type=sa.BigInteger())
    load_id: int = Field(foreign_key="loads.id", sa_type=sa.BigInteger())
    federation: str = Field(sa_type=_TEXT)
    competition_id: str | None = Field(default=None, sa_type=_TEXT)
    rule: str | None = Field(default=None, sa_type=_TEXT)  #: stable id, e.g. ``ajusc.min_rounds``
    severity: str | None = Field(default=None, sa_type=_TEXT)  #: reject | exclude | warn
    message: str | None = Field(default=None, sa_type=_TEXT)
    source: str | None = Field(default=None, sa_type=_TEXT)
    line: int | None = None
    field: str | None = Field(default=None, sa_type=_TEXT)
