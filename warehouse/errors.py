"""Domain errors of the warehouse (all ``ValueError``, all one line, no password)."""

from __future__ import annotations

__all__ = [
    "AmbiguousCompetitionError",
    "BatchError",
    "MigrationError",
    "UnknownCompetitionError",
    "WarehouseError",
    "WarehouseUnavailableError",
]


class WarehouseError(ValueError):
    """Base class of the warehouse's errors; the message is one line for the CLI."""


class WarehouseUnavailableError(WarehouseError):
    """The warehouse URL cannot be opened (server down, bad path, bad driver)."""


class MigrationError(WarehouseError):
    """The database's schema cannot be brought to this program's version."""


class BatchError(WarehouseError):
    """A load batch breaks the load contract (wrong federation, missing status, ...)."""


class UnknownCompetitionError(WarehouseError, LookupError):
    """No competition with that id is in the warehouse (or the id is ambiguous)."""


class AmbiguousCompetitionError(UnknownCompetitionError):
    """The competition id exists in several federations and none was given."""
