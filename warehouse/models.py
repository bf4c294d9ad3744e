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

from sqlmodel import SQLModel

from warehouse._models_competitions import Bye, Competition, Finding, Game
from warehouse._models_derived import (
    DerivedCheckpoint,
    DerivedState,
    Explanation,
    Rating,
    RatingChange,
)
from warehouse._models_lists import EditionCorrection, RatingList, RatingListLine, SeedEntry
from warehouse._models_record import Federation, LedgerEntry, Load, Player, PlayerAlias

__all__ = [
    "Bye",
    "Competition",
    "DerivedCheckpoint",
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

metadata = SQLModel.metadata
