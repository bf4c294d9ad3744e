"""Invariants of the load ledger, checked on random sequences of (re-)sent files."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path

import polars as pl
import pytest
import sqlalchemy as sa
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from formats.schema import (
    BYES_SCHEMA,
    COMPETITIONS_SCHEMA,
    FINDINGS_SCHEMA,
    GAMES_SCHEMA,
    PLAYERS_SCHEMA,
    RATING_CHANGES_SCHEMA,
    conform,
    empty,
)
from tests.warehouse.conftest import FIXTURES, batch_from_interchange
from warehouse import LoadBatch, get_engine, load_batch
from warehouse.testing import table_rows


@pytest.fixture(scope="module")
def monkeypatch_block() -> Iterator[None]:
    """Blocks of 4 rows, so short runs span several blocks (module-scoped for Hypothesis)."""
    mp = pytest.MonkeyPatch()
    mp.setattr("warehouse.load.DERIVED_BLOCK", 4)
    yield
    mp.undo()

#: Our own fixtures: two versions of one competition, and a second competition.
FILES = ["ajusc-open.results.csv", "ajusc-open-corrected.results.csv", "ajusc-lliga.results.csv"]


def _load_all(sequence: list[str]) -> dict[str, list[tuple[object, ...]]]:
    with tempfile.TemporaryDirectory() as tmp:
        engine = get_engine(f"sqlite:///{Path(tmp) / 'w.db'}")
        for name in sequence:
            load_batch(engine, batch_from_interchange([FIXTURES / name], "ajusc"))
        rows = table_rows(engine)
        engine.dispose()
    return rows


@pytest.mark.slow
@pytest.mark.hypothesis
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(FILES), min_size=1, max_size=6))
def test_resending_files_is_a_noop(sequence: list[str]) -> None:
    """Any sequence of sends equals sending each distinct file once, in first-seen order."""
    first_seen = list(dict.fromkeys(sequence))
    assert _load_all(sequence) == _load_all(first_seen)


def _changes(values: list[float]) -> pl.DataFrame:
    return conform(pl.DataFrame({
        "federation": "ajusc", "competition_id": [f"C{i // 3}" for i in range(len(values))],
        "player_id": [str(100 + i % 3) for i in range(len(values))],
        "change": pl.Series(values, dtype=pl.Float64),
    }), RATING_CHANGES_SCHEMA)


def _derived_rows(runs: list[list[float]]) -> tuple[list[tuple[object, ...]], list[tuple[object, ...]]]:
    """Load each run in turn; return (seq, competition_id, player_id, change) rows and the block state."""
    with tempfile.TemporaryDirectory() as tmp:
        engine = get_engine(f"sqlite:///{Path(tmp) / 'w.db'}")
        for values in runs:
            load_batch(engine, LoadBatch("ajusc", pl.DataFrame(schema={"source": pl.Utf8, "source_sha256": pl.Utf8}),
                                         empty(COMPETITIONS_SCHEMA), empty(PLAYERS_SCHEMA), empty(GAMES_SCHEMA),
                                         empty(BYES_SCHEMA), empty(FINDINGS_SCHEMA), changes=_changes(values)))
        with engine.connect() as conn:
            rows = conn.execute(sa.text(
                "SELECT seq, competition_id, player_id, change FROM rating_changes ORDER BY seq")).all()
            state = conn.execute(sa.text(
                "SELECT block, content_sha256, n_rows FROM derived_state ORDER BY block")).all()
        engine.dispose()
    return [tuple(r) for r in rows], [tuple(r) for r in state]


_RUN = st.lists(st.sampled_from([-1.0, 0.0, 0.5, 2.25]), max_size=14)


@pytest.mark.slow
@pytest.mark.hypothesis
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(first=_RUN, second=_RUN)
def test_block_rewrite_leaves_exactly_the_new_run(monkeypatch_block: None, first: list[float], second: list[float]) -> None:
    """After run A then run B the table holds B's rows, whatever A was (blocks of 4 rows)."""
    rows, state = _derived_rows([first, second])
    assert rows == [(i, f"C{i // 3}", str(100 + i % 3), value) for i, value in enumerate(second)]
    assert [n for _, _, n in state] == [min(4, len(second) - start) for start in range(0, len(second), 4)]
    assert state == _derived_rows([second])[1]
