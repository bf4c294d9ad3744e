"""Explanations loaded from Parquet files a file at a time (a backfill in blocks wrote them aside)
leave the rows and the block checksums the same frame loaded whole leaves, and rewrite only from
the first block that differs."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest
import sqlalchemy as sa
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import warehouse
from formats.schema import EXPLANATIONS_SCHEMA, conform
from warehouse._load_derived import _replace_derived
from warehouse.db import write_transaction

BLOCK = 7   # rows per checksummed block here (DERIVED_BLOCK is 5,000)


def _rows(n: int, salt: int = 0) -> pl.DataFrame:
    return conform(pl.DataFrame({
        "federation": "fide", "competition_id": [f"C{i // 10}" for i in range(n)],
        "player_id": [str(i % 13) for i in range(n)], "round": [i % 9 + 1 for i in range(n)],
        "contribution": [float(i * 3 + salt) for i in range(n)],
    }), EXPLANATIONS_SCHEMA)


def _stored(db: sa.Engine) -> tuple[list[tuple[object, ...]], list[tuple[object, ...]]]:
    with db.connect() as conn:
        rows = conn.execute(sa.text("SELECT seq, competition_id, player_id, round, contribution FROM explanations "
                                    "WHERE federation = 'fide' ORDER BY seq")).all()
        state = conn.execute(sa.text("SELECT table_name, block, content_sha256, n_rows FROM derived_state "
                                     "WHERE federation = 'fide' ORDER BY table_name, block")).all()
    return [tuple(r) for r in rows], [tuple(r) for r in state]


def _files(frame: pl.DataFrame, cuts: list[int], folder: Path) -> list[Path]:
    paths = []
    for i, (a, b) in enumerate(zip([0, *cuts], [*cuts, frame.height], strict=True)):
        path = folder / f"part-{i}.parquet"
        frame.slice(a, b - a).write_parquet(path)
        paths.append(path)
    return paths


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(before=st.integers(0, 40), after=st.integers(0, 40), same=st.integers(0, 40),
       cuts=st.lists(st.integers(0, 40), max_size=3))
def test_files_load_as_the_frame_does(tmp_path_factory: pytest.TempPathFactory, before: int, after: int, same: int,
                                      cuts: list[int]) -> None:
    folder = tmp_path_factory.mktemp("parts")
    old = _rows(before)
    # The new rows: the first ``same`` as before, then others.
    new = pl.concat([old.head(min(same, after)), _rows(after, salt=1).slice(min(same, after))])
    whole, from_files = warehouse.get_engine("sqlite://"), warehouse.get_engine("sqlite://")
    for db in (whole, from_files):
        with write_transaction(db) as conn:
            _replace_derived(conn, "fide", None, old, None, None, "basis", BLOCK)
    with write_transaction(whole) as conn:
        _replace_derived(conn, "fide", None, new, None, None, "basis", BLOCK)
    parts = _files(new, sorted(c for c in cuts if c <= new.height), folder)
    with write_transaction(from_files) as conn:
        _replace_derived(conn, "fide", None, None, None, None, "basis", BLOCK, parts)
    assert _stored(from_files) == _stored(whole)


def test_an_unchanged_head_is_not_written_again(engine: sa.Engine, tmp_path: Path) -> None:
    """Rows of blocks whose checksum is unchanged stay as they are (a backfill that changes the
    last months rewrites those only): the stored rows before the first differing block are kept.
    On SQLite and PostgreSQL (COPY)."""
    db = engine
    old = _rows(30)
    with write_transaction(db) as conn:
        _replace_derived(conn, "fide", None, old, None, None, "basis", BLOCK)
        conn.execute(sa.text("UPDATE explanations SET rule_set = 'kept' WHERE seq < 14"))  # a mark a rewrite clears
    new = pl.concat([old.head(16), _rows(30, salt=5).slice(16)])
    with write_transaction(db) as conn:
        _replace_derived(conn, "fide", None, None, None, None, "basis", BLOCK, _files(new, [5, 20], tmp_path))
    with db.connect() as conn:
        kept = conn.execute(sa.text("SELECT count(*) FROM explanations WHERE rule_set = 'kept'")).scalar()
    assert kept == 14   # blocks 0 and 1 (rows 0-13) unchanged; block 2 (rows 14-20) differs from row 16
    whole = warehouse.get_engine("sqlite://")
    with write_transaction(whole) as conn:
        _replace_derived(conn, "fide", None, new, None, None, "basis", BLOCK)
    ours, expected = _stored(db), _stored(whole)
    assert [r[:3] + (float(str(r[4])),) for r in ours[0]] == [r[:3] + (float(str(r[4])),) for r in expected[0]]
    assert ours[1] == expected[1]
