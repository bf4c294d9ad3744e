"""Set-based reads and writes of polars frames (no ORM object per row).

PostgreSQL receives big tables through ``COPY ... FROM STDIN`` (psycopg 3),
SQLite through one ``executemany`` per chunk of rows. Both run on the caller's
connection, inside the caller's transaction.
"""

from __future__ import annotations

import gc
import hashlib
import io
from collections.abc import Mapping, Sequence
from typing import Any

import polars as pl
import sqlalchemy as sa
from sqlalchemy.engine import Connection

__all__ = ["frame_sha256", "insert_frame", "next_id", "read_frame"]

_CHUNK = 100_000
# COPY's NULL marker; polars writes nulls as this string (see ``_copy``).
_NULL = r"\N"


def frame_sha256(frame: pl.DataFrame) -> str:
    """Checksum of a frame's rows in order (its CSV text): equal frames, equal checksums.

    Examples
    --------
    >>> frame_sha256(pl.DataFrame({"a": [1]})) == frame_sha256(pl.DataFrame({"a": [1]}))
    True
    """
    return hashlib.sha256(frame.write_csv().encode()).hexdigest()


def next_id(conn: Connection, table: sa.Table, column: str = "id") -> int:
    """The next free key of ``table.column`` (``max + 1``; 1 for an empty table).

    Keys come from the serialised write transaction, not from a sequence, so a
    rolled-back load leaves no gap (PostgreSQL sequences are not transactional).
    """
    value = conn.execute(sa.select(sa.func.coalesce(sa.func.max(table.c[column]), 0))).scalar_one()
    return int(value) + 1


def _for_sqlite(frame: pl.DataFrame) -> pl.DataFrame:
    # Stored the way SQLAlchemy's SQLite Date type stores them (ISO text), without
    # relying on sqlite3's default date adapter (deprecated since Python 3.12).
    return frame.with_columns(
        pl.col(name).dt.to_string("%Y-%m-%d") for name, dtype in frame.schema.items() if dtype == pl.Date()
    )


def _copy(conn: Connection, table: sa.Table, frame: pl.DataFrame) -> None:
    driver = conn.connection.driver_connection
    columns = ", ".join(f'"{name}"' for name in frame.columns)
    sql = f"COPY {table.name} ({columns}) FROM STDIN (FORMAT csv, NULL '{_NULL}')"
    with driver.cursor() as cursor, cursor.copy(sql) as copy:  # type: ignore[union-attr]
        for start in range(0, frame.height, _CHUNK):
            chunk = frame.slice(start, _CHUNK)
            # Polars writes the shortest text that reads back to the same double, so
            # PostgreSQL holds exactly what SQLite holds. Text is always quoted: only an
            # unquoted \N is NULL to COPY, so a name that reads "\N" stays a name.
            text = chunk.write_csv(include_header=False, null_value=_NULL, quote_style="non_numeric")
            copy.write(text.encode())


def insert_frame(conn: Connection, table: sa.Table, frame: pl.DataFrame) -> int:
    """Insert every row of ``frame`` (columns named as ``table``'s) into ``table``.

    Parameters
    ----------
    conn
        An open connection inside a transaction.
    table
        The target table; ``frame`` holds a subset of its columns.
    frame
        Rows to insert.

    Returns
    -------
    int
        Rows inserted.
    """
    if frame.height == 0:
        return 0
    if conn.dialect.name == "postgresql":
        _copy(conn, table, frame)
        return frame.height
    frame = _for_sqlite(frame)
    columns = ", ".join(f'"{name}"' for name in frame.columns)
    marks = ", ".join("?" for _ in frame.columns)
    sql = f"INSERT INTO {table.name} ({columns}) VALUES ({marks})"
    cursor = conn.connection.driver_connection.cursor()  # type: ignore[union-attr]
    try:
        for start in range(0, frame.height, _CHUNK):
            cursor.executemany(sql, frame.slice(start, _CHUNK).iter_rows())
    finally:
        cursor.close()
    return frame.height


def _copy_out(
    conn: Connection, query: sa.Select[*tuple[Any, ...]], schema: Mapping[str, pl.DataType], names: list[str]
) -> pl.DataFrame:
    """PostgreSQL: ``COPY (query) TO STDOUT`` as CSV, parsed by polars in one go.

    Every non-null value is quoted, so polars tells an empty string (``""``)
    from NULL (nothing); booleans arrive as ``t``/``f``.
    """
    sql = query.compile(dialect=conn.dialect, compile_kwargs={"literal_binds": True})
    buffer = io.BytesIO()
    driver = conn.connection.driver_connection
    with driver.cursor() as cursor, cursor.copy(f"COPY ({sql}) TO STDOUT (FORMAT csv, FORCE_QUOTE *)") as copy:  # type: ignore[union-attr]
        for block in copy:
            buffer.write(block)
    read_as = {n: (pl.Utf8() if schema.get(n, pl.Utf8()) == pl.Boolean() else schema.get(n, pl.Utf8())) for n in names}
    if buffer.tell() == 0:
        frame = pl.DataFrame(schema=read_as)
    else:
        buffer.seek(0)
        frame = pl.read_csv(buffer, has_header=False, new_columns=names, schema=read_as)
    return frame.with_columns(
        (pl.col(n) == "t").alias(n) for n in names if schema.get(n) == pl.Boolean()
    )


def read_frame(
    conn: Connection, query: sa.Select[*tuple[Any, ...]], schema: Mapping[str, pl.DataType], *, names: Sequence[str] | None = None
) -> pl.DataFrame:
    """Run a Core ``select`` and return its rows as a frame with ``schema``.

    The select's columns are taken in order and named ``names`` (default: the
    schema's keys). Rows are fetched from the driver's cursor as plain tuples
    (SQLAlchemy's per-row processing costs more than the query on a million
    games); polars then converts whole columns: SQLite's ISO date text to
    dates, its 0/1 to booleans.
    """
    names = list(names or schema.keys())
    if conn.dialect.name == "postgresql":
        return _copy_out(conn, query, schema, names)
    result = conn.execute(query)
    cursor = result.cursor
    assert cursor is not None
    columns: list[list[Any]] = [[] for _ in names]
    # The cyclic garbage collector is paused while the rows arrive: each fetched row is a new tuple,
    # and with millions of them alive, its collections rescan them all again and again (1.5M
    # explanation rows: 11.4 s with it, 4.1 s without). Plain values and tuples make no cycle.
    collecting = gc.isenabled()
    gc.disable()
    try:
        while chunk := cursor.fetchmany(_CHUNK):
            for column, fetched in zip(columns, zip(*chunk, strict=True), strict=True):
                column.extend(fetched)
    finally:
        if collecting:
            gc.enable()
    result.close()
    series = []
    for name, values in zip(names, columns, strict=True):
        dtype = schema.get(name)
        raw = pl.Series(name, values, strict=False)
        if dtype == pl.Date() and raw.dtype == pl.Utf8():
            raw = raw.str.to_date("%Y-%m-%d")
        series.append(raw.cast(dtype, strict=False) if dtype is not None else raw)
    return pl.DataFrame(series)
