"""Derived tables (rating changes, explanations, ratings) replaced block by block.

Private to :mod:`warehouse.load`: its ``DERIVED_BLOCK`` (rows per checksummed block)
is passed in as ``block`` at each call, so the setting has one home.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import polars as pl
import sqlalchemy as sa
from sqlalchemy.engine import Connection

from formats.schema import EXPLANATIONS_SCHEMA, RATING_CHANGES_SCHEMA, RATINGS_SCHEMA, empty
from warehouse._load_contract import _one_row_per_player, _own
from warehouse._model_types import table_of
from warehouse.bulk import frame_sha256, insert_frame, read_frame
from warehouse.errors import BatchError
from warehouse.models import DerivedState, Explanation, Rating, RatingChange

_T_CHANGES = table_of(RatingChange)
_T_EXPLANATIONS = table_of(Explanation)
_T_RATINGS = table_of(Rating)
_T_DERIVED_STATE = table_of(DerivedState)


def _block_digests(rows: pl.DataFrame, size: int) -> list[str]:
    return [frame_sha256(rows.slice(start, size)) for start in range(0, rows.height, size)]


def _record_blocks(conn: Connection, federation: str, table: str, rows: pl.DataFrame, first: int,
                   size: int, digests: Sequence[str] | None = None) -> None:
    """Record the checksums of ``rows`` (``digests``, when already made), the stored rows of ``table``
    from block ``first`` (of ``size`` rows) to the end, in place of those recorded from that block on."""
    state = _T_DERIVED_STATE
    digests = _block_digests(rows, size) if digests is None else digests
    conn.execute(sa.delete(state).where(state.c.federation == federation, state.c.table_name == table,
                                        state.c.block >= first))
    insert_frame(
        conn, state,
        pl.DataFrame({
            "federation": federation, "table_name": table,
            "block": pl.Series(range(first, first + len(digests)), dtype=pl.Int64),
            "content_sha256": pl.Series(list(digests), dtype=pl.Utf8),
            "n_rows": pl.Series([min(size, rows.height - i * size) for i in range(len(digests))], dtype=pl.Int64),
        }),
    )


def _replace_tail(
    conn: Connection, federation: str, rows: pl.DataFrame, table: sa.Table, offset: int, block: int
) -> None:
    """Keep the rows before ``offset``, replace the rest with ``rows`` (an incremental run).

    The checksums of the blocks from the first one touched are recomputed, over the
    rows kept in that block (read back) and the new ones: ``derived_state`` then
    describes the stored rows as a full write would, so a later full write rewrites
    only from the first block that differs, and the site can tell from which row the
    derived tables changed (``warehouse.site.site_derived_blocks``). Blocks recorded with
    another size than ``block`` (by an older version) are all recomputed, once.
    """
    first = offset // block
    state = _T_DERIVED_STATE
    recorded = conn.execute(
        sa.select(state.c.block, state.c.n_rows)
        .where(state.c.federation == federation, state.c.table_name == table.name, state.c.block < first)
        .order_by(state.c.block)
    ).all()
    if [tuple(r) for r in recorded] != [(b, block) for b in range(first)]:
        # The blocks before were recorded with another size (a version before the block size changed)
        # or not at all: recompute them all, once, from the rows kept.
        first = 0
    conn.execute(sa.delete(table).where(table.c.federation == federation, table.c.seq >= offset))
    new = rows.with_columns((pl.col("seq") + offset).alias("seq"))
    insert_frame(conn, table, new)
    kept = read_frame(
        conn,
        sa.select(*(table.c[c] for c in rows.columns))
        .where(table.c.federation == federation, table.c.seq >= first * block, table.c.seq < offset)
        .order_by(table.c.seq),
        dict(rows.schema),
    )
    _record_blocks(conn, federation, table.name, pl.concat([kept, new]), first, block)


def _record_basis(conn: Connection, federation: str, basis: str | None) -> None:
    """Record what the derived rows derive from besides the history (``rating_basis``); no write when unchanged."""
    state = _T_DERIVED_STATE
    where = (state.c.federation == federation) & (state.c.table_name == "basis")
    if conn.execute(sa.select(state.c.content_sha256).where(where)).scalar() == basis:
        return
    conn.execute(sa.delete(state).where(state.c.federation == federation, state.c.table_name == "basis"))
    if basis is not None:
        conn.execute(sa.insert(state).values(
            federation=federation, table_name="basis", block=0, content_sha256=basis, n_rows=0))


def _replace_from_files(conn: Connection, federation: str, files: Sequence[Path], block: int) -> None:
    """Replace the federation's explanations with the rows of ``files`` (Parquet, in order), read a
    file at a time: the result of :func:`_replace_derived` given their rows in one frame, without
    holding them all. Blocks are compared with ``derived_state`` as they come; from the first that
    differs, the stored rows are deleted and every later block written."""
    table, state = _T_EXPLANATIONS, _T_DERIVED_STATE
    old = [digest for (digest,) in conn.execute(
        sa.select(state.c.content_sha256).where(state.c.federation == federation, state.c.table_name == table.name)
        .order_by(state.c.block))]
    number, seq, writing = 0, 0, False
    digests: list[str] = []
    sizes: list[int] = []

    def blocks(frame: pl.DataFrame, last: bool) -> pl.DataFrame:
        """Write the whole blocks of ``frame`` (every row when ``last``); returns the rows left over."""
        nonlocal number, seq, writing
        whole = frame.height if last else frame.height // block * block
        for start in range(0, whole, block):
            # As _replace_derived numbers a whole frame's rows: ``seq`` first, and in the digest.
            rows = frame.slice(start, block).with_row_index("seq", offset=seq).with_columns(pl.col("seq").cast(pl.Int64))
            digest = frame_sha256(rows)
            if not writing and (number >= len(old) or old[number] != digest):
                writing = True
                conn.execute(sa.delete(table).where(table.c.federation == federation, table.c.seq >= seq))
            if writing:
                insert_frame(conn, table, rows)
            digests.append(digest)
            sizes.append(rows.height)
            number, seq = number + 1, seq + rows.height
        return frame.slice(whole)

    left = empty(EXPLANATIONS_SCHEMA)
    for path in files:
        part = _own(pl.read_parquet(path), EXPLANATIONS_SCHEMA, federation, "explanations")
        missing = part.filter(pl.col("competition_id").is_null() | pl.col("player_id").is_null())
        if missing.height:
            raise BatchError(f"explanations of {federation!r}: {missing.height} rows without competition_id or player_id")
        left = blocks(pl.concat([left, part]), last=False)
    blocks(left, last=True)
    if not writing and number < len(old):   # fewer rows than stored: the stored tail goes
        conn.execute(sa.delete(table).where(table.c.federation == federation, table.c.seq >= seq))
    first = next((i for i, (a, b) in enumerate(zip(digests, old, strict=False)) if a != b), min(len(digests), len(old)))
    if first == len(digests) == len(old):
        return
    conn.execute(sa.delete(state).where(state.c.federation == federation, state.c.table_name == table.name,
                                        state.c.block >= first))
    insert_frame(conn, state, pl.DataFrame({
        "federation": federation, "table_name": table.name,
        "block": pl.Series(range(first, len(digests)), dtype=pl.Int64),
        "content_sha256": pl.Series(digests[first:], dtype=pl.Utf8),
        "n_rows": pl.Series(sizes[first:], dtype=pl.Int64),
    }))


def _replace_derived(
    conn: Connection,
    federation: str,
    changes: pl.DataFrame | None,
    explanations: pl.DataFrame | None,
    ratings: pl.DataFrame | None,
    offset: tuple[int, int] | None,
    basis: str | None,
    block: int,
    explanation_files: Sequence[Path] = (),
) -> None:
    """Replace the federation's derived tables with the rating run's frames (``block`` rows per checksum).

    The result is the same as deleting the federation's rows and inserting the
    frames, but only blocks from the first one whose checksum differs from
    ``derived_state`` are rewritten: the nightly run re-rates the whole history,
    and most nights change nothing or only its end.
    """
    plans: list[tuple[pl.DataFrame, sa.Table, int]] = []
    for frame, schema, table, what in (
        (changes, RATING_CHANGES_SCHEMA, _T_CHANGES, "changes"),
        (explanations, EXPLANATIONS_SCHEMA, _T_EXPLANATIONS, "explanations"),
    ):
        if frame is None:
            continue
        rows = _own(frame, schema, federation, what)
        missing = rows.filter(pl.col("competition_id").is_null() | pl.col("player_id").is_null())
        if missing.height:
            raise BatchError(f"{what} of {federation!r}: {missing.height} rows without competition_id or player_id")
        rows = rows.with_row_index("seq").with_columns(pl.col("seq").cast(pl.Int64))
        if offset is not None:
            _replace_tail(conn, federation, rows, table, offset[0] if what == "changes" else offset[1], block)
            continue
        plans.append((rows, table, block))
    if explanation_files:
        if explanations is not None or offset is not None:
            raise BatchError(f"explanations of {federation!r}: given in files, and as a frame or from an offset")
        _replace_from_files(conn, federation, explanation_files, block)
    if changes is not None or explanations is not None or ratings is not None or explanation_files:
        _record_basis(conn, federation, basis)
    if ratings is not None:
        rows = _own(ratings, RATINGS_SCHEMA, federation, "ratings")
        _one_row_per_player(rows, f"ratings of {federation!r}")
        plans.append((rows, _T_RATINGS, max(rows.height, 1)))
    if not plans:
        return
    state = _T_DERIVED_STATE
    recorded: dict[str, list[str]] = {}
    for name, _, digest in conn.execute(
        sa.select(state.c.table_name, state.c.block, state.c.content_sha256)
        .where(state.c.federation == federation)
        .order_by(state.c.table_name, state.c.block)
    ):
        recorded.setdefault(name, []).append(digest)
    for rows, table, size in plans:
        digests = _block_digests(rows, size)
        old = recorded.get(table.name, [])
        first = next((i for i, (a, b) in enumerate(zip(digests, old, strict=False)) if a != b), min(len(digests), len(old)))
        if first == len(digests) == len(old):
            continue  # unchanged
        keep = first * size
        if "seq" in rows.columns:
            conn.execute(sa.delete(table).where(table.c.federation == federation, table.c.seq >= keep))
            insert_frame(conn, table, rows.slice(keep))
        else:
            conn.execute(sa.delete(table).where(table.c.federation == federation))
            insert_frame(conn, table, rows)
            first = 0
        _record_blocks(conn, federation, table.name, rows.slice(first * size), first, size, digests[first:])


