"""Loads whose publication (editions, reports) has not finished yet.

Private to :mod:`warehouse.load`, which re-exports the public names.
"""

from __future__ import annotations

import polars as pl
import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine
from sqlmodel import Field, SQLModel

from formats.schema import FINDINGS_SCHEMA, empty
from warehouse._model_types import table_of
from warehouse.bulk import read_frame
from warehouse.db import write_transaction
from warehouse.models import Competition, Finding

_T_COMPETITIONS = table_of(Competition)
_T_FINDINGS = table_of(Finding)


class PendingPublication(SQLModel, table=True):
    """A load whose publication (editions, reports) has not finished yet.

    :func:`load_batch` writes the row in the load's own transaction; the publish step
    deletes it once every edition and report of the load is out. A run killed in
    between leaves the row, and the next run finishes that publication first
    (``tasks/recover.py``), so nothing committed stays unpublished.
    """

    __tablename__ = "pending_publications"

    federation: str = Field(primary_key=True, sa_type=sa.String())
    #: ``loads.id`` of the load; 0: a load that only replaced derived rows (a backfill)
    load_id: int = Field(primary_key=True, sa_type=sa.BigInteger(), sa_column_kwargs={"autoincrement": False})


_T_PENDING = table_of(PendingPublication)


def _mark_pending(conn: Connection, federation: str, load_id: int) -> None:
    """Record, in the load's transaction, that this load still has to be published."""
    exists = conn.execute(
        sa.select(_T_PENDING.c.load_id).where(_T_PENDING.c.federation == federation, _T_PENDING.c.load_id == load_id)
    ).first()
    if exists is None:
        conn.execute(sa.insert(_T_PENDING).values(federation=federation, load_id=load_id))


def pending_publications(engine: Engine, federation: str | None = None) -> dict[str, list[int]]:
    """Loads whose publication did not finish: federation -> ``loads.id`` (0: derived rows only).

    Examples
    --------
    >>> from warehouse.db import get_engine
    >>> pending_publications(get_engine("sqlite://"))
    {}
    """
    query = sa.select(_T_PENDING.c.federation, _T_PENDING.c.load_id).order_by(
        _T_PENDING.c.federation, _T_PENDING.c.load_id
    )
    if federation is not None:
        query = query.where(_T_PENDING.c.federation == federation)
    out: dict[str, list[int]] = {}
    with engine.connect() as conn:
        for fed, load_id in conn.execute(query):
            out.setdefault(str(fed), []).append(int(load_id))
    return out


def published_by(engine: Engine, federation: str, load_ids: list[int]) -> tuple[list[str], pl.DataFrame]:
    """What loads ``load_ids`` bring to publish: their competitions (ids, in load order) and
    the findings of their files that no competition holds (FINDINGS_SCHEMA)."""
    ids = [i for i in load_ids if i]
    if not ids:
        return [], empty(FINDINGS_SCHEMA)
    comps, findings = _T_COMPETITIONS.c, _T_FINDINGS.c
    with engine.connect() as conn:
        competition_ids = [
            str(cid) for (cid,) in conn.execute(
                sa.select(comps.competition_id).where(comps.federation == federation, comps.load_id.in_(ids))
                .order_by(comps.id)
            )
        ]
        orphans = read_frame(
            conn,
            sa.select(*(findings[name] for name in FINDINGS_SCHEMA)).where(
                findings.federation == federation, findings.load_id.in_(ids),
                findings.competition_key.is_(None), findings.competition_id.is_(None),
            ).order_by(findings.id),
            FINDINGS_SCHEMA,
        )
    return list(dict.fromkeys(competition_ids)), orphans


def finish_publication(engine: Engine, federation: str, load_ids: list[int] | None = None) -> None:
    """Mark the publication of ``federation``'s loads (all, or ``load_ids``) as done."""
    with write_transaction(engine) as conn:
        query = sa.delete(_T_PENDING).where(_T_PENDING.c.federation == federation)
        if load_ids is not None:
            query = query.where(_T_PENDING.c.load_id.in_(load_ids))
        conn.execute(query)


