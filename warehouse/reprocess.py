"""The rating officer's requests to read a kept file again (``ratings reprocess FILE``).

A file is read once: its checksum in the load ledger makes every later copy an
identical re-send, skipped before it is parsed. When the file itself is right and
what read it has changed (a federation's table, a corrected reader, a decision to
take it after all), the officer asks for it to be processed again. Each request is a
row here (who, when, why), kept for good, like a decision on a held competition.

The request names the file by the checksum of its bytes and gives it a *version*
checksum of its own (the sha256 of the file's checksum and the request's number).
The next run reads the file again as that version: a new version of each of its
competitions, which supersedes the one loaded before, is validated, rated and
reported like a corrected file. A request is open until its version is in the
ledger, so a run killed before its load reads the file again on the next one.
"""

from __future__ import annotations

import datetime as dt
import hashlib

import polars as pl
import sqlalchemy as sa
from sqlalchemy import Engine
from sqlmodel import Field, SQLModel

from warehouse._model_types import table_of
from warehouse.db import write_transaction
from warehouse.decisions import officer
from warehouse.models import LedgerEntry

__all__ = ["REPROCESS_SCHEMA", "Reprocessing", "open_reprocessing", "reprocessing", "request_reprocessing",
           "version_sha256"]

_TEXT = sa.String()
_TS = sa.DateTime(timezone=True)


class Reprocessing(SQLModel, table=True):
    """One request of the rating officer to process a kept file again (never rewritten)."""

    __tablename__ = "file_reprocessing"
    __table_args__ = (sa.Index("ix_file_reprocessing_sha", "source_sha256"),)

    id: int = Field(primary_key=True, sa_type=sa.BigInteger(), sa_column_kwargs={"autoincrement": False})
    federation: str = Field(sa_type=_TEXT)      #: the federation the file was loaded under
    source: str = Field(sa_type=_TEXT)          #: the file's name
    source_sha256: str = Field(sa_type=_TEXT)   #: sha256 of the file's bytes
    version_sha256: str = Field(sa_type=_TEXT)  #: the version the next run loads it as
    requested_by: str = Field(sa_type=_TEXT)    #: $RATINGS_OFFICER, else the login name
    requested_at: dt.datetime = Field(sa_type=_TS)
    note: str | None = Field(default=None, sa_type=_TEXT)  #: why, in the officer's words


_T = table_of(Reprocessing)
_L = table_of(LedgerEntry)

#: ``reprocessing()`` frame.
REPROCESS_SCHEMA: dict[str, pl.DataType] = {
    "id": pl.Int64(), "federation": pl.Utf8(), "source": pl.Utf8(), "source_sha256": pl.Utf8(),
    "version_sha256": pl.Utf8(), "requested_by": pl.Utf8(), "requested_at": pl.Datetime(time_zone="UTC"),
    "note": pl.Utf8(), "done": pl.Boolean(),
}


def version_sha256(source_sha256: str, request: int) -> str:
    """The checksum request number ``request`` gives the file ``source_sha256``.

    Examples
    --------
    >>> version_sha256("ab" * 32, 1) == version_sha256("ab" * 32, 1) != version_sha256("ab" * 32, 2)
    True
    """
    return hashlib.sha256(f"{source_sha256}:reprocess:{request}".encode()).hexdigest()


def _loaded(conn: sa.Connection, sha: str) -> str | None:
    """The federation a file version is loaded under, or None when the ledger lacks it."""
    return conn.execute(sa.select(_L.c.federation).where(_L.c.source_sha256 == sha).limit(1)).scalar()


def request_reprocessing(
    engine: Engine, source: str, source_sha256: str, *, note: str | None = None, who: str | None = None,
    when: dt.datetime | None = None,
) -> tuple[str, int, bool]:
    """Record that the next run reads the file ``source_sha256`` again.

    Returns ``(federation, request, new)``: ``federation`` is ``''`` when no version
    of the file is loaded (the next run reads it anyway, nothing is recorded);
    ``new`` is False when an open request for the file already exists (it is
    returned, not repeated).
    """
    with write_transaction(engine) as conn:
        open_ = conn.execute(sa.select(_T.c.id, _T.c.federation, _T.c.version_sha256).where(
            _T.c.source_sha256 == source_sha256).order_by(_T.c.id.desc())).first()
        if open_ is not None and _loaded(conn, open_.version_sha256) is None:
            return open_.federation, int(open_.id), False
        federation = _loaded(conn, source_sha256)
        if federation is None and open_ is not None:
            federation = _loaded(conn, open_.version_sha256)
        if federation is None:
            return "", 0, False
        request = (conn.execute(sa.select(sa.func.max(_T.c.id))).scalar() or 0) + 1
        conn.execute(sa.insert(_T).values(
            id=request, federation=federation, source=source, source_sha256=source_sha256,
            version_sha256=version_sha256(source_sha256, request), requested_by=who or officer(),
            requested_at=when or dt.datetime.now(dt.UTC), note=(note or "").strip() or None,
        ))
    return federation, request, True


def _version_loaded() -> sa.Exists:
    """Whether a request's version is in the load ledger (the request is done)."""
    return sa.select(_L.c.source_sha256).where(_L.c.source_sha256 == _T.c.version_sha256).exists()


def open_reprocessing(engine: Engine) -> dict[str, str]:
    """The files to read again tonight: file checksum -> the version it is loaded as."""
    query = sa.select(_T.c.source_sha256, _T.c.version_sha256).where(~_version_loaded()).order_by(_T.c.id)
    with engine.connect() as conn:
        return {row.source_sha256: row.version_sha256 for row in conn.execute(query)}


def reprocessing(engine: Engine) -> pl.DataFrame:
    """Every request, oldest first, with ``done`` (its version is loaded)."""
    query = sa.select(*[_T.c[name] for name in REPROCESS_SCHEMA if name != "done"],
                      _version_loaded().label("done")).order_by(_T.c.id)
    with engine.connect() as conn:
        rows = [dict(row._mapping) for row in conn.execute(query)]
    return pl.DataFrame(rows, schema=REPROCESS_SCHEMA, orient="row") if rows else pl.DataFrame(schema=REPROCESS_SCHEMA)
