"""What organisers uploaded through the desk, and what the desk's pages read of the pipeline's
record (see :mod:`warehouse.accounts`)."""

from __future__ import annotations

import datetime as dt
import secrets
from dataclasses import dataclass
from typing import Any

import polars as pl
import sqlalchemy as sa
from sqlalchemy import Engine

from warehouse._accounts_tables import _FL, _U, _next_id, _now, _utc
from warehouse._model_types import table_of
from warehouse.db import write_transaction

__all__ = [
    "COMPETITIONS_SCHEMA",
    "LOADS_SCHEMA",
    "Upload",
    "UploadFile",
    "confirm_file",
    "desk_competitions",
    "last_loads",
    "own_checksums",
    "record_upload",
    "upload",
    "upload_files",
    "uploads",
]


@dataclass(frozen=True)
class UploadFile:
    """One file of an upload."""

    name: str                    #: the safe file name
    sha256: str
    size: int
    inbox_path: str | None       #: relative to the inbox, once confirmed


@dataclass(frozen=True)
class Upload:
    """An upload: who, when, the pre-check's outcome, and whether it was confirmed."""

    id: str
    username: str
    federation: str
    created_at: dt.datetime
    outcome: str
    confirmed_at: dt.datetime | None
    files: tuple[UploadFile, ...]


def record_upload(engine: Engine, username: str, federation: str, outcome: str,
                  files: list[tuple[str, str, int]]) -> str:
    """Record an upload of ``files`` (name, sha256, size) and its pre-check outcome; its new id."""
    upload_id = secrets.token_urlsafe(18)
    with write_transaction(engine) as conn:
        conn.execute(sa.insert(_U).values(id=upload_id, username=username, federation=federation,
                                          created_at=_now(), outcome=outcome))
        first = _next_id(conn, _FL)
        for offset, (name, sha256, size) in enumerate(files):
            conn.execute(sa.insert(_FL).values(id=first + offset, upload_id=upload_id, username=username,
                                               name=name, sha256=sha256, size=size))
    return upload_id


def upload_files(engine: Engine, upload_id: str) -> tuple[UploadFile, ...]:
    """The files of an upload, in the order they were sent."""
    with engine.connect() as conn:
        rows = conn.execute(sa.select(_FL).where(_FL.c.upload_id == upload_id).order_by(_FL.c.id)).mappings().all()
    return tuple(UploadFile(name=str(r["name"]), sha256=str(r["sha256"]), size=int(r["size"]),
                            inbox_path=r["inbox_path"]) for r in rows)


def _upload(row: sa.RowMapping, files: tuple[UploadFile, ...]) -> Upload:
    confirmed = row["confirmed_at"]
    return Upload(id=str(row["id"]), username=str(row["username"]), federation=str(row["federation"]),
                  created_at=_utc(row["created_at"]), outcome=str(row["outcome"]),
                  confirmed_at=None if confirmed is None else _utc(confirmed), files=files)


def upload(engine: Engine, upload_id: str, username: str | None = None) -> Upload | None:
    """The upload ``upload_id`` (``username``: only when it is theirs); ``None`` otherwise."""
    query = sa.select(_U).where(_U.c.id == upload_id)
    if username is not None:
        query = query.where(_U.c.username == username)
    with engine.connect() as conn:
        row = conn.execute(query).mappings().first()
    return None if row is None else _upload(row, upload_files(engine, upload_id))


def uploads(engine: Engine, username: str | None = None, limit: int = 100) -> list[Upload]:
    """The latest uploads, newest first (``username``: only theirs)."""
    query = sa.select(_U).order_by(_U.c.created_at.desc()).limit(limit)
    if username is not None:
        query = query.where(_U.c.username == username)
    with engine.connect() as conn:
        rows = conn.execute(query).mappings().all()
    return [_upload(r, upload_files(engine, str(r["id"]))) for r in rows]


def confirm_file(engine: Engine, upload_id: str, name: str, inbox_path: str) -> None:
    """Record where a confirmed file went in the inbox (and that its upload is confirmed)."""
    with write_transaction(engine) as conn:
        conn.execute(sa.update(_FL).where((_FL.c.upload_id == upload_id) & (_FL.c.name == name))
                     .values(inbox_path=inbox_path))
        conn.execute(sa.update(_U).where((_U.c.id == upload_id) & _U.c.confirmed_at.is_(None))
                     .values(confirmed_at=_now()))


def own_checksums(engine: Engine, username: str) -> set[str]:
    """The checksums of the files ``username`` confirmed: their competitions are those loaded from them."""
    with engine.connect() as conn:
        rows = conn.execute(sa.select(_FL.c.sha256).where(
            (_FL.c.username == username) & _FL.c.inbox_path.is_not(None))).all()
    return {str(r[0]) for r in rows}


# --- what the desk's pages read -------------------------------------------------------------

#: ``desk_competitions()`` frame: the current version of each competition.
COMPETITIONS_SCHEMA: dict[str, pl.DataType] = {
    "federation": pl.Utf8(), "competition_id": pl.Utf8(), "name": pl.Utf8(), "end_date": pl.Date(),
    "status": pl.Utf8(), "source": pl.Utf8(), "source_sha256": pl.Utf8(), "load_id": pl.Int64(),
    "loaded_at": pl.Datetime(time_zone="UTC"),
}
#: ``last_loads()`` frame.
LOADS_SCHEMA: dict[str, pl.DataType] = {
    "id": pl.Int64(), "federation": pl.Utf8(), "kind": pl.Utf8(), "loaded_at": pl.Datetime(time_zone="UTC"),
    "games_loaded": pl.Int64(),
}


def _read(query: sa.Select[Any], engine: Engine, schema: dict[str, pl.DataType]) -> pl.DataFrame:
    with engine.connect() as conn:
        rows = [tuple(r) for r in conn.execute(query)]
    if not rows:
        return pl.DataFrame(schema=schema)
    frame = pl.DataFrame(rows, schema=list(schema), orient="row")
    return frame.with_columns(
        pl.col(c).dt.replace_time_zone("UTC") if frame.schema[c] == pl.Datetime else pl.col(c) for c in frame.columns
    ).cast(pl.Schema(schema))


def desk_competitions(
    engine: Engine, *, checksums: set[str] | None = None, status: str | None = None, limit: int = 500,
) -> pl.DataFrame:
    """The current version of competitions (``COMPETITIONS_SCHEMA``), the latest loaded first.

    ``checksums``: only those loaded from these files (an organiser's own); ``status``: only
    those with this status (``held``: waiting for the officer).
    """
    from warehouse.models import Competition, Load

    c = table_of(Competition).c
    lo = table_of(Load)
    query = (sa.select(c.federation, c.competition_id, c.name, c.end_date, c.status, c.source, c.source_sha256,
                       c.load_id, lo.c.loaded_at)
             .select_from(table_of(Competition).join(lo, lo.c.id == c.load_id))
             .where(c.status != "superseded").order_by(c.load_id.desc(), c.competition_id).limit(limit))
    if checksums is not None:
        if not checksums:
            return pl.DataFrame(schema=COMPETITIONS_SCHEMA)
        query = query.where(c.source_sha256.in_(sorted(checksums)))
    if status is not None:
        query = query.where(c.status == status)
    return _read(query, engine, COMPETITIONS_SCHEMA)


def last_loads(engine: Engine, limit: int = 10) -> pl.DataFrame:
    """The latest loads of the nightly runs and seeds (``LOADS_SCHEMA``), newest first."""
    from warehouse.models import Load

    lo = table_of(Load).c
    query = sa.select(lo.id, lo.federation, lo.kind, lo.loaded_at, lo.games_loaded).order_by(lo.id.desc()).limit(limit)
    return _read(query, engine, LOADS_SCHEMA)
