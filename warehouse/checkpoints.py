"""Where a federation's next rating run continues from: one checkpoint per list (``derived_checkpoints``).

A checkpoint is written with the derived rows it describes, in the load's transaction
(:func:`replace_checkpoints`), and read by the next run (:func:`checkpoints`). The frames
travel as Parquet: they are the engine's own state, read whole by the next run, never
queried row by row.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import polars as pl
import sqlalchemy as sa

from formats.schema import EXPLANATIONS_SCHEMA, RATINGS_SCHEMA, conform
from warehouse._model_types import table_of
from warehouse.models import DerivedCheckpoint

if TYPE_CHECKING:
    from sqlalchemy.engine import Connection, Engine

__all__ = ["Checkpoint", "checkpoints", "replace_checkpoints"]

_T = table_of(DerivedCheckpoint)


@dataclass(frozen=True)
class Checkpoint:
    """One list's state at the start of a rating period, and what goes with it."""

    list_name: str           #: the federation's list (FIDE: standard, rapid, blitz)
    point: str               #: the period's list day (``2026-02-01``)
    n_changes: int           #: stored rows of ``rating_changes`` before the period (every list's)
    n_explanations: int      #: stored rows of ``explanations`` before it
    state: pl.DataFrame      #: RATINGS_SCHEMA: the engine's state, as a seed to go on from
    pooled: pl.DataFrame     #: EXPLANATIONS_SCHEMA: games unrated players pooled before it (in the window)
    start: pl.DataFrame      #: RATINGS_SCHEMA: the state publication rebuilds editions from


def _to_bytes(frame: pl.DataFrame) -> bytes:
    out = io.BytesIO()
    frame.write_parquet(out, statistics=False)
    return out.getvalue()


def _from_bytes(data: bytes, schema: dict[str, pl.DataType]) -> pl.DataFrame:
    return conform(pl.read_parquet(io.BytesIO(data)), schema)


def checkpoints(engine: Engine, federation: str) -> dict[str, Checkpoint]:
    """The federation's checkpoints, by list (empty: none stored).

    Examples
    --------
    >>> from warehouse.db import get_engine
    >>> checkpoints(get_engine("sqlite://"), "fide")
    {}
    """
    with engine.connect() as conn:
        rows = conn.execute(sa.select(_T).where(_T.c.federation == federation).order_by(_T.c.list_name)).all()
    return {
        r.list_name: Checkpoint(
            list_name=r.list_name, point=r.point, n_changes=r.n_changes, n_explanations=r.n_explanations,
            state=_from_bytes(r.state, RATINGS_SCHEMA), pooled=_from_bytes(r.pooled, EXPLANATIONS_SCHEMA),
            start=_from_bytes(r.start, RATINGS_SCHEMA),
        )
        for r in rows
    }


def replace_checkpoints(conn: Connection, federation: str, new: Sequence[Checkpoint]) -> None:
    """Put ``new`` in place of the federation's checkpoints (none: the next run starts from the seed),
    inside the caller's transaction; no write when they are the stored ones (a night that changes
    nothing writes nothing)."""
    rows = [
        {"federation": federation, "list_name": c.list_name, "point": c.point, "n_changes": c.n_changes,
         "n_explanations": c.n_explanations, "state": _to_bytes(conform(c.state, RATINGS_SCHEMA)),
         "pooled": _to_bytes(conform(c.pooled, EXPLANATIONS_SCHEMA)),
         "start": _to_bytes(conform(c.start, RATINGS_SCHEMA))}
        for c in sorted(new, key=lambda c: c.list_name)
    ]
    stored = conn.execute(sa.select(_T).where(_T.c.federation == federation).order_by(_T.c.list_name)).all()
    if [{k: (bytes(v) if isinstance(v, memoryview) else v) for k, v in r._mapping.items()} for r in stored] == rows:
        return
    if stored:
        conn.execute(sa.delete(_T).where(_T.c.federation == federation))
    for row in rows:
        conn.execute(sa.insert(_T).values(**row))
