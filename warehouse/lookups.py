"""Small read queries for the ``ratings`` commands (``report`` by file name,
list exports that name their edition)."""

from __future__ import annotations

import datetime as dt

import polars as pl
import sqlalchemy as sa
from sqlalchemy import Engine

from formats.schema import FINDINGS_SCHEMA
from warehouse._model_types import table_of
from warehouse.models import Competition, Finding, RatingList

__all__ = ["competitions_of_file", "edition_in_force", "file_findings"]

_C = table_of(Competition)
_F = table_of(Finding)
_RL = table_of(RatingList)


def edition_in_force(engine: Engine, federation: str, as_of: dt.date | None = None) -> tuple[int, dt.date] | None:
    """``(edition, as_of)`` of the list in force on ``as_of`` (the latest when None)."""
    query = sa.select(_RL.c.edition, _RL.c.as_of).where(_RL.c.federation == federation)
    if as_of is not None:
        query = query.where(_RL.c.as_of <= as_of)
    with engine.connect() as conn:
        row = conn.execute(query.order_by(_RL.c.as_of.desc(), _RL.c.edition.desc()).limit(1)).first()
    return None if row is None else (int(row[0]), row[1])


def competitions_of_file(engine: Engine, source: str, federation: str | None = None) -> list[tuple[str, str]]:
    """``(federation, competition_id)`` of the current competitions read from file ``source``; when
    none is current, those a later file superseded (their report is the current version's: an
    organiser asks for the file they sent, whatever replaced it since)."""
    with engine.connect() as conn:
        for current in (True, False):
            query = sa.select(_C.c.federation, _C.c.competition_id).where(
                (_C.c.source == source) & ((_C.c.status != "superseded") if current else (_C.c.status == "superseded")))
            if federation is not None:
                query = query.where(_C.c.federation == federation)
            found = list(dict.fromkeys(
                (str(f), str(c)) for f, c in conn.execute(query.order_by(_C.c.federation, _C.c.competition_id))))
            if found:
                return found
    return []


def file_findings(engine: Engine, source: str, federation: str | None = None) -> pl.DataFrame:
    """The findings of a file that could not be read into a competition (``competition_id`` null)."""
    cols = [_F.c[name] for name in FINDINGS_SCHEMA]
    query = sa.select(*cols).where((_F.c.source == source) & _F.c.competition_id.is_(None))
    if federation is not None:
        query = query.where(_F.c.federation == federation)
    with engine.connect() as conn:
        rows = [tuple(r) for r in conn.execute(query.order_by(_F.c.id))]
    return pl.DataFrame(rows, schema=FINDINGS_SCHEMA, orient="row")
