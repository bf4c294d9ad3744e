"""What the schema's modules share: the column types every table uses and :func:`table_of`."""

from __future__ import annotations

import sqlalchemy as sa
from sqlmodel import SQLModel

__all__ = ["DOUBLE", "TEXT", "TS", "table_of"]

# Explicit SQL types so that SQLite and PostgreSQL hold the same values and
# Alembic's type comparison sees no drift (``sa.Double`` is DOUBLE PRECISION on
# PostgreSQL; a bare ``Float`` would reflect back as another type).
TEXT = sa.String()
DOUBLE: sa.Double[float] = sa.Double()
TS = sa.DateTime(timezone=True)


def table_of(model: type[SQLModel]) -> sa.Table:
    """The table of a SQLModel table class (its ``__table__``, which SQLModel does not declare
    to a type checker).

    Examples
    --------
    >>> from warehouse.models import Federation
    >>> table_of(Federation).name
    'federations'
    """
    found = sa.inspect(model).local_table
    if not isinstance(found, sa.Table):
        raise TypeError(f"{model.__name__} is not mapped to one table")
    return found
