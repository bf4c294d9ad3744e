"""Invariants of the load ledger, checked on random sequences of (re-)sent files."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.warehouse.conftest import FIXTURES, batch_from_interchange
from warehouse import get_engine, load_batch
from warehouse.testing import table_rows

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
