"""Who receives the reports, and what was sent to whom: the organiser registry and the
delivery record.

``organisers`` is the installation's registry of organisers' addresses, kept by
``ratings organiser add|list|remove``. A file whose format carries no address
(everything but the interchange CSV's ``organiser_email`` column) finds its organiser
here: by the inbox subfolder the file came from (``inbox/<federation>/<folder>/``) or by
a pattern over the competition id (``fnmatch``, ``CAT-2026-*``).

``deliveries`` is the record of every message: one row per version of a report (or
per digest) and recipient, with its status (``queued``, ``sent``, ``failed``,
``superseded``), the attempts, the last error and the ``Message-ID``. It is what makes
delivery exactly-once: a version is queued once (the key is unique), and a row that is
``sent`` is never sent again, by a rerun or by the run that resumes a killed one.
"""

from __future__ import annotations

import datetime as dt
import fnmatch
from dataclasses import dataclass

import polars as pl
import sqlalchemy as sa
from sqlalchemy import Engine
from sqlmodel import Field, SQLModel

from warehouse._model_types import table_of
from warehouse.db import write_transaction
from warehouse.errors import WarehouseError
from warehouse.models import Competition

__all__ = [
    "DELIVERIES_SCHEMA",
    "ORGANISERS_SCHEMA",
    "Delivery",
    "DeliveryError",
    "Organiser",
    "Queued",
    "add_organiser",
    "competition_addresses",
    "deliveries",
    "due_deliveries",
    "organiser_for",
    "organisers",
    "queue_delivery",
    "record_attempt",
    "remove_organiser",
]

_TEXT = sa.String()
_TS = sa.DateTime(timezone=True)


class DeliveryError(WarehouseError):
    """A registry entry the warehouse cannot record (a duplicate, an unknown entry)."""


class Organiser(SQLModel, table=True):
    """One organiser's address in the installation's registry."""

    __tablename__ = "organisers"
    __table_args__ = (sa.Index("ix_organisers_federation", "federation"),)

    id: int = Field(primary_key=True, sa_type=sa.BigInteger(), sa_column_kwargs={"autoincrement": False})
    federation: str = Field(sa_type=_TEXT)
    email: str = Field(sa_type=_TEXT)                        #: normalised by email-validator where it entered
    name: str | None = Field(default=None, sa_type=_TEXT)     #: the organiser's name, for the greeting
    competitions: str | None = Field(default=None, sa_type=_TEXT)  #: fnmatch pattern over competition ids
    folder: str | None = Field(default=None, sa_type=_TEXT)   #: the inbox subfolder ``inbox/<federation>/<folder>/``
    added_at: dt.datetime = Field(sa_type=_TS)


class Delivery(SQLModel, table=True):
    """One message to one recipient: a version of an organiser's report, or a digest."""

    __tablename__ = "deliveries"
    __table_args__ = (
        sa.UniqueConstraint("kind", "federation", "competition_id", "version", "recipient",
                            name="uq_deliveries_version"),
        sa.Index("ix_deliveries_status", "status"),
    )

    id: int = Field(primary_key=True, sa_type=sa.BigInteger(), sa_column_kwargs={"autoincrement": False})
    kind: str = Field(sa_type=_TEXT)                 #: report | digest
    federation: str = Field(sa_type=_TEXT)           #: ``""`` for a digest of every federation
    competition_id: str = Field(sa_type=_TEXT)       #: the report's competition (or file); a digest: its night
    version: str = Field(sa_type=_TEXT)              #: sha256 of the report's Markdown: a new version is a new row
    recipient: str = Field(sa_type=_TEXT)
    subject: str = Field(sa_type=_TEXT)
    report_path: str | None = Field(default=None, sa_type=_TEXT)   #: the Markdown file sent (HTML beside it)
    status: str = Field(sa_type=_TEXT)               #: queued | sent | failed | superseded
    attempts: int = 0
    last_error: str | None = Field(default=None, sa_type=_TEXT)     #: one line, never a credential
    message_id: str = Field(sa_type=_TEXT)           #: stable per row: a resent message is recognisable
    queued_at: dt.datetime = Field(sa_type=_TS)
    last_attempt_at: dt.datetime | None = Field(default=None, sa_type=_TS)
    next_attempt_at: dt.datetime | None = Field(default=None, sa_type=_TS)   #: a failed row's retry, with backoff
    sent_at: dt.datetime | None = Field(default=None, sa_type=_TS)


_O = table_of(Organiser)
_D = table_of(Delivery)

#: ``organisers()`` frame.
ORGANISERS_SCHEMA: dict[str, pl.DataType] = {
    "id": pl.Int64(), "federation": pl.Utf8(), "email": pl.Utf8(), "name": pl.Utf8(),
    "competitions": pl.Utf8(), "folder": pl.Utf8(), "added_at": pl.Datetime(time_zone="UTC"),
}
#: ``deliveries()`` frame.
DELIVERIES_SCHEMA: dict[str, pl.DataType] = {
    "id": pl.Int64(), "kind": pl.Utf8(), "federation": pl.Utf8(), "competition_id": pl.Utf8(),
    "version": pl.Utf8(), "recipient": pl.Utf8(), "subject": pl.Utf8(), "report_path": pl.Utf8(),
    "status": pl.Utf8(), "attempts": pl.Int64(), "last_error": pl.Utf8(), "message_id": pl.Utf8(),
    "queued_at": pl.Datetime(time_zone="UTC"), "last_attempt_at": pl.Datetime(time_zone="UTC"),
    "next_attempt_at": pl.Datetime(time_zone="UTC"), "sent_at": pl.Datetime(time_zone="UTC"),
}


def _frame(rows: list[tuple[object, ...]], schema: dict[str, pl.DataType]) -> pl.DataFrame:
    if not rows:
        return pl.DataFrame(schema=schema)
    frame = pl.DataFrame(rows, schema=list(schema), orient="row")
    return frame.with_columns(
        pl.col(c).dt.replace_time_zone("UTC") if frame.schema[c] == pl.Datetime else pl.col(c)
        for c in frame.columns
    ).cast(pl.Schema(schema))


def _utc(value: dt.datetime | None) -> dt.datetime | None:
    """SQLite hands timestamps back naive: they were written in UTC."""
    if value is None or value.tzinfo is not None:
        return value
    return value.replace(tzinfo=dt.UTC)


# --- the registry ---------------------------------------------------------------------


def add_organiser(
    engine: Engine, federation: str, email: str, *, name: str | None = None,
    competitions: str | None = None, folder: str | None = None, when: dt.datetime | None = None,
) -> int:
    """Add an organiser's address for ``federation``; return its registry id.

    ``email`` must already be validated and normalised (``delivery.address``). At most one
    of ``competitions`` (a pattern over competition ids) and ``folder`` (the inbox
    subfolder) is given; neither: the federation's default organiser.

    Raises
    ------
    DeliveryError
        The same entry (federation, address, pattern, folder) is already registered, or
        both a pattern and a folder were given.
    """
    if competitions and folder:
        raise DeliveryError("an organiser entry matches by --competitions or by --folder, not both")
    with write_transaction(engine) as conn:
        # The same mailbox, whatever the case of its letters: one entry.
        same = (_O.c.federation == federation) & (sa.func.lower(_O.c.email) == email.lower()) & (
            _O.c.competitions.is_(None) if competitions is None else _O.c.competitions == competitions) & (
            _O.c.folder.is_(None) if folder is None else _O.c.folder == folder)
        existing = conn.execute(sa.select(_O.c.id).where(same)).scalar()
        if existing is not None:
            raise DeliveryError(f"{email} is already registered for {federation} with these criteria (entry {existing})")
        next_id = (conn.execute(sa.select(sa.func.max(_O.c.id))).scalar() or 0) + 1
        conn.execute(sa.insert(_O).values(
            id=next_id, federation=federation, email=email, name=name or None, competitions=competitions or None,
            folder=folder or None, added_at=when or dt.datetime.now(dt.UTC),
        ))
    return int(next_id)


def remove_organiser(engine: Engine, entry: int) -> dict[str, object]:
    """Remove registry entry ``entry``; return what it held.

    Raises
    ------
    DeliveryError
        No such entry.
    """
    with write_transaction(engine) as conn:
        row = conn.execute(sa.select(*[_O.c[n] for n in ORGANISERS_SCHEMA]).where(_O.c.id == entry)).first()
        if row is None:
            raise DeliveryError(f"no organiser entry {entry} (ratings organiser list shows the entries)")
        conn.execute(sa.delete(_O).where(_O.c.id == entry))
    return dict(row._mapping)


def organisers(engine: Engine, federation: str | None = None) -> pl.DataFrame:
    """The registry (``ORGANISERS_SCHEMA``), of one federation or all, by id."""
    query = sa.select(*[_O.c[n] for n in ORGANISERS_SCHEMA]).order_by(_O.c.id)
    if federation is not None:
        query = query.where(_O.c.federation == federation)
    with engine.connect() as conn:
        rows = [tuple(r) for r in conn.execute(query)]
    return _frame(rows, ORGANISERS_SCHEMA)


def organiser_for(
    registry: pl.DataFrame, federation: str, competition_id: str, folder: str | None,
) -> str | None:
    """The registry's address for one report: the inbox subfolder's entry first, then the
    first pattern that matches the competition id, then the federation's default entry.

    Examples
    --------
    >>> import datetime as dt
    >>> registry = pl.DataFrame(
    ...     {"id": [1, 2, 3], "federation": ["ajusc"] * 3,
    ...      "email": ["club@example.org", "open@example.org", "office@example.org"],
    ...      "name": [None] * 3, "competitions": [None, "OPEN-*", None], "folder": ["club", None, None],
    ...      "added_at": [dt.datetime(2026, 1, 1, tzinfo=dt.UTC)] * 3}, schema=ORGANISERS_SCHEMA)
    >>> organiser_for(registry, "ajusc", "OPEN-3", "club")
    'club@example.org'
    >>> organiser_for(registry, "ajusc", "OPEN-3", None)
    'open@example.org'
    >>> organiser_for(registry, "ajusc", "CAT-1", None)
    'office@example.org'
    >>> organiser_for(registry, "fide", "CAT-1", None) is None
    True
    """
    rows = registry.filter(pl.col("federation") == federation).to_dicts()
    if folder:
        for row in rows:
            if row["folder"] == folder:
                return str(row["email"])
    for row in rows:
        if row["competitions"] and fnmatch.fnmatchcase(competition_id, str(row["competitions"])):
            return str(row["email"])
    for row in rows:
        if not row["competitions"] and not row["folder"]:
            return str(row["email"])
    return None


def competition_addresses(engine: Engine, federation: str, ids: list[str]) -> dict[str, str]:
    """The address the files gave (``competitions.organiser_email``) of the competitions
    ``ids`` that have one; the latest version's wins."""
    table = table_of(Competition)
    out: dict[str, str] = {}
    with engine.connect() as conn:
        for start in range(0, len(ids), 500):
            rows = conn.execute(
                sa.select(table.c.competition_id, table.c.organiser_email)
                .where(table.c.federation == federation, table.c.competition_id.in_(ids[start:start + 500]),
                       table.c.organiser_email.is_not(None))
                .order_by(table.c.version)
            )
            out.update({cid: email for cid, email in rows})
    return out


# --- the record -------------------------------------------------------------------------


@dataclass(frozen=True)
class Queued:
    """A delivery to attempt (a row of ``deliveries`` that is queued or failed and due)."""

    id: int
    kind: str
    federation: str
    competition_id: str
    version: str
    recipient: str
    subject: str
    report_path: str | None
    message_id: str
    attempts: int


def queue_delivery(
    engine: Engine, *, kind: str, federation: str, competition_id: str, version: str, recipient: str,
    subject: str, report_path: str | None, message_id: str, when: dt.datetime | None = None,
) -> bool:
    """Queue one version of a report (or a digest) for one recipient; ``False`` when that
    version was already queued for them (sent or not: it is never queued twice).

    Older versions of the same report for the same recipient that were not sent yet
    become ``superseded``: the organiser receives the report as it stands.
    """
    when = when or dt.datetime.now(dt.UTC)
    with write_transaction(engine) as conn:
        key = ((_D.c.kind == kind) & (_D.c.federation == federation) & (_D.c.competition_id == competition_id)
               & (_D.c.recipient == recipient))
        if conn.execute(sa.select(_D.c.id).where(key & (_D.c.version == version))).first() is not None:
            return False
        conn.execute(sa.update(_D).where(key & _D.c.status.in_(("queued", "failed")))
                     .values(status="superseded", next_attempt_at=None))
        next_id = (conn.execute(sa.select(sa.func.max(_D.c.id))).scalar() or 0) + 1
        conn.execute(sa.insert(_D).values(
            id=next_id, kind=kind, federation=federation, competition_id=competition_id, version=version,
            recipient=recipient, subject=subject, report_path=report_path, status="queued", attempts=0,
            message_id=message_id, queued_at=when, next_attempt_at=when,
        ))
    return True


def due_deliveries(engine: Engine, now: dt.datetime | None = None, federation: str | None = None) -> list[Queued]:
    """The rows to attempt now: queued, or failed with their retry due, oldest first."""
    now = now or dt.datetime.now(dt.UTC)
    query = sa.select(
        _D.c.id, _D.c.kind, _D.c.federation, _D.c.competition_id, _D.c.version, _D.c.recipient, _D.c.subject,
        _D.c.report_path, _D.c.message_id, _D.c.attempts, _D.c.next_attempt_at, _D.c.status,
    ).where(_D.c.status.in_(("queued", "failed"))).order_by(_D.c.id)
    if federation is not None:
        query = query.where(_D.c.federation == federation)
    with engine.connect() as conn:
        rows = conn.execute(query).all()
    due = []
    for row in rows:
        at = _utc(row.next_attempt_at)
        # A failed row without a next try has spent its tries: it waits for the officer.
        if (at is None and row.status == "queued") or (at is not None and at <= now):
            due.append(Queued(int(row.id), row.kind, row.federation, row.competition_id, row.version,
                              row.recipient, row.subject, row.report_path, row.message_id, int(row.attempts)))
    return due


def record_attempt(
    engine: Engine, delivery_id: int, *, sent: bool, error: str | None = None,
    retry_at: dt.datetime | None = None, when: dt.datetime | None = None, superseded: bool = False,
) -> None:
    """Record one attempt: ``sent``, or failed with its one-line ``error`` and the time of
    the next try (``retry_at``; ``None``: no retry), or ``superseded`` (the report changed
    on disk since it was queued: the newer version has its own row)."""
    when = when or dt.datetime.now(dt.UTC)
    values: dict[str, object]
    if superseded:
        values = {"status": "superseded", "next_attempt_at": None}
    elif sent:
        values = {"status": "sent", "sent_at": when, "last_attempt_at": when, "next_attempt_at": None,
                  "attempts": _D.c.attempts + 1}
    else:
        values = {"status": "failed", "last_error": error, "last_attempt_at": when, "next_attempt_at": retry_at,
                  "attempts": _D.c.attempts + 1}
    with write_transaction(engine) as conn:
        conn.execute(sa.update(_D).where(_D.c.id == delivery_id).values(**values))


def deliveries(engine: Engine, *, failed: bool = False, federation: str | None = None) -> pl.DataFrame:
    """The delivery record (``DELIVERIES_SCHEMA``), newest first; ``failed``: only the rows
    not delivered yet (failed or still queued)."""
    query = sa.select(*[_D.c[n] for n in DELIVERIES_SCHEMA]).order_by(_D.c.id.desc())
    if failed:
        query = query.where(_D.c.status.in_(("failed", "queued")))
    if federation is not None:
        query = query.where(_D.c.federation == federation)
    with engine.connect() as conn:
        rows = [tuple(r) for r in conn.execute(query)]
    return _frame(rows, DELIVERIES_SCHEMA)
