"""The rating officer's decisions on held competitions.

A competition the eligibility rules could not settle (a Scrabble file that names
no lexicon, a chess time control that cannot be read, a championship of mostly
unknown players) is loaded with status ``held``: it is not rated. The officer
decides with ``ratings approve`` or ``ratings decline``; each decision is a row of
``officer_decisions`` (who, when, why), kept for good, and moves the current
version of the competition to ``accepted`` (rated by the next run) or
``rejected``. ``applied_at`` says when a run rated an approved competition: until
then it is pending, and the nightly run re-rates its federation even when no new
file arrived (:func:`pending_approvals`, :func:`mark_applied`).
"""

from __future__ import annotations

import datetime as dt
import getpass
import os

import polars as pl
import sqlalchemy as sa
from sqlalchemy import Engine
from sqlmodel import Field, SQLModel

from warehouse._model_types import table_of
from warehouse.db import write_transaction
from warehouse.errors import UnknownCompetitionError, WarehouseError
from warehouse.models import Competition

__all__ = [
    "DECISIONS_SCHEMA",
    "DecisionError",
    "OfficerDecision",
    "decide",
    "decisions",
    "mark_applied",
    "officer",
    "pending_approvals",
]

_TEXT = sa.String()
_TS = sa.DateTime(timezone=True)


class DecisionError(WarehouseError):
    """A decision the warehouse cannot record (the competition is not held, no reason given)."""


class OfficerDecision(SQLModel, table=True):
    """One decision of the rating officer on a held competition (never rewritten)."""

    __tablename__ = "officer_decisions"
    __table_args__ = (sa.Index("ix_officer_decisions_competition", "federation", "competition_id"),)

    id: int = Field(primary_key=True, sa_type=sa.BigInteger(), sa_column_kwargs={"autoincrement": False})
    federation: str = Field(sa_type=_TEXT)
    competition_id: str = Field(sa_type=_TEXT)
    decision: str = Field(sa_type=_TEXT)             #: approve | decline
    decided_by: str = Field(sa_type=_TEXT)           #: $RATINGS_OFFICER, else the login name
    decided_at: dt.datetime = Field(sa_type=_TS)
    note: str | None = Field(default=None, sa_type=_TEXT)   #: the officer's note (approve) or reason (decline)
    applied_at: dt.datetime | None = Field(default=None, sa_type=_TS)  #: when a run rated it (approve)


_T = table_of(OfficerDecision)
_C = table_of(Competition)

#: ``decisions()`` frame.
DECISIONS_SCHEMA: dict[str, pl.DataType] = {
    "federation": pl.Utf8(), "competition_id": pl.Utf8(), "decision": pl.Utf8(), "decided_by": pl.Utf8(),
    "decided_at": pl.Datetime(time_zone="UTC"), "note": pl.Utf8(), "applied_at": pl.Datetime(time_zone="UTC"),
}


def officer() -> str:
    """Who decides: ``$RATINGS_OFFICER``, else the login name of the user running the command."""
    name = os.environ.get("RATINGS_OFFICER", "").strip()
    if name:
        return name
    try:
        return getpass.getuser()
    except (KeyError, OSError):   # no passwd entry (a container)
        return "unknown"


def decide(
    engine: Engine, federation: str, competition_id: str, decision: str, *,
    note: str | None = None, who: str | None = None, when: dt.datetime | None = None,
) -> str:
    """Record ``approve`` or ``decline`` for a held competition; return its new status.

    ``approve``: the competition becomes ``accepted`` and the next run rates it;
    ``decline``: ``rejected`` (a reason is required). Both in one transaction with
    the decision row.

    Raises
    ------
    UnknownCompetitionError
        No current competition ``competition_id`` in ``federation``.
    DecisionError
        The competition is not held (already decided, rejected by the rules ...),
        or a decline without a reason.
    """
    if decision not in ("approve", "decline"):
        raise DecisionError(f"a decision is 'approve' or 'decline', not {decision!r}")
    if decision == "decline" and not (note or "").strip():
        raise DecisionError("a decline needs a reason (--reason TEXT): the organiser reads it in the report")
    when = when or dt.datetime.now(dt.UTC)
    with write_transaction(engine) as conn:
        current = (_C.c.federation == federation) & (_C.c.competition_id == competition_id) & (
            _C.c.status != "superseded")
        status = conn.execute(sa.select(_C.c.status).where(current)).scalar()
        if status is None:
            raise UnknownCompetitionError(f"no competition {competition_id!r} for {federation} in the warehouse")
        if status != "held":
            raise DecisionError(
                f"competition {competition_id!r} ({federation}) is {status}, not held: only held competitions "
                "wait for the officer's decision"
            )
        new = "accepted" if decision == "approve" else "rejected"
        conn.execute(sa.update(_C).where(current).values(status=new))
        next_id = (conn.execute(sa.select(sa.func.max(_T.c.id))).scalar() or 0) + 1
        conn.execute(sa.insert(_T).values(
            id=next_id, federation=federation, competition_id=competition_id, decision=decision,
            decided_by=who or officer(), decided_at=when, note=(note or None),
        ))
    return new


def decisions(engine: Engine, federation: str, competition_id: str | None = None) -> pl.DataFrame:
    """The officer's decisions (oldest first), of one competition or of the whole federation."""
    query = sa.select(*[_T.c[name] for name in DECISIONS_SCHEMA]).where(_T.c.federation == federation)
    if competition_id is not None:
        query = query.where(_T.c.competition_id == competition_id)
    with engine.connect() as conn:
        rows = conn.execute(query.order_by(_T.c.id)).all()
    frame = pl.DataFrame([tuple(r) for r in rows], schema=list(DECISIONS_SCHEMA), orient="row")
    return frame.with_columns(
        pl.col(c).dt.replace_time_zone("UTC") if frame.schema[c] == pl.Datetime else pl.col(c)
        for c in frame.columns
    ).cast(pl.Schema(DECISIONS_SCHEMA)) if frame.height else pl.DataFrame(schema=DECISIONS_SCHEMA)


def pending_approvals(engine: Engine, federation: str | None = None) -> dict[str, list[str]]:
    """Approved competitions that no run has rated yet, by federation: the nightly run must
    re-rate these federations even when the inbox holds nothing new for them."""
    query = sa.select(_T.c.federation, _T.c.competition_id).where(
        (_T.c.decision == "approve") & _T.c.applied_at.is_(None))
    if federation is not None:
        query = query.where(_T.c.federation == federation)
    out: dict[str, list[str]] = {}
    with engine.connect() as conn:
        for fed, cid in conn.execute(query.order_by(_T.c.id)):
            out.setdefault(fed, []).append(cid)
    return out


def mark_applied(engine: Engine, federation: str, when: dt.datetime | None = None) -> int:
    """Record that a run rated the federation's pending approvals; return how many."""
    with write_transaction(engine) as conn:
        result = conn.execute(
            sa.update(_T).where((_T.c.federation == federation) & (_T.c.decision == "approve")
                                & _T.c.applied_at.is_(None))
            .values(applied_at=when or dt.datetime.now(dt.UTC))
        )
    return int(result.rowcount or 0)
