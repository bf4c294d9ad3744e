"""The warehouse schema: one SQLModel class per table, documented for analysts.

Conventions
-----------
- Natural keys are the federation's own: ``(federation, player_id)``,
  ``(federation, competition_id)``. Every table carries ``federation`` so an
  analyst can filter without joins.
- Surrogate keys (``id``) are allocated by the loader inside its serialised
  transaction (``max(id) + 1``), never by a database sequence: a load that is
  killed half-way leaves no gap, so a rerun gives the very rows a clean load
  gives, on SQLite and on PostgreSQL alike.
- Derived tables (``rating_changes``, ``explanations``, ``ratings``) are
  replaced per federation in the load's transaction; their key is
  ``(federation, seq)``, the row's position in the engine's output, so the same
  history always gives the same rows. ``derived_state`` keeps checksums of
  blocks of rows, so a rating run rewrites only from its first change on. They carry no foreign
  keys (a per-row check on millions of rows rewritten nightly, for a value the
  loader writes itself) and few indexes, for the same reason.
- Published lists (``rating_lists`` + ``rating_list_lines``, read in full through the view
  ``rating_list_entries``) are immutable:
  triggers in the migration refuse UPDATE and DELETE.

The Alembic migrations in ``warehouse/migrations`` create exactly these tables;
``tests/warehouse/test_migrations.py`` checks that autogenerate finds no drift.
"""

from __future__ import annotations

import datetime as dt

import sqlalchemy as sa
from sqlmodel import Field, SQLModel

__all__ = [
    "Bye",
    "Competition",
    "DerivedState",
    "EditionCorrection",
    "Explanation",
    "Federation",
    "Finding",
    "Game",
    "LedgerEntry",
    "Load",
    "Player",
    "PlayerAlias",
    "Rating",
    "RatingChange",
    "RatingList",
    "RatingListLine",
    "SeedEntry",
    "metadata",
]

# Explicit SQL types so that SQLite and PostgreSQL hold the same values and
# Alembic's type comparison sees no drift (``sa.Double`` is DOUBLE PRECISION on
# PostgreSQL; a bare ``Float`` would reflect back as another type).
_TEXT = sa.String()
_DOUBLE: sa.Double[float] = sa.Double()
_TS = sa.DateTime(timezone=True)

metadata = SQLModel.metadata


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
