"""The example SQL in warehouse/README.md runs on both databases and answers."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable
from pathlib import Path

import polars as pl
import sqlalchemy as sa
from sqlalchemy.engine import Engine

from tests.warehouse.test_load import _derived
from warehouse import LoadBatch, load_batch, publish_list

README = Path(__file__).resolve().parents[2] / "warehouse" / "README.md"


def _examples() -> list[str]:
    return re.findall(r"```sql\n(.*?)```", README.read_text(), flags=re.DOTALL)


def test_readme_sql_answers(engine: Engine, tiny_batch: Callable[..., LoadBatch]) -> None:
    load_batch(engine, tiny_batch())
    batch = _derived(tiny_batch("ajusc-open-corrected.results.csv"))
    load_batch(engine, batch)
    ranked = batch.ratings.select("federation", "player_id", "rating").with_columns(  # type: ignore[union-attr]
        rank=pl.int_range(1, 7, dtype=pl.Int64)
    )
    publish_list(engine, "ajusc", ranked, as_of=dt.date(2025, 10, 1))
    examples = _examples()
    assert len(examples) == 5
    answers = []
    with engine.connect() as conn:
        for sql in examples:
            answers.append(conn.execute(sa.text(sql)).all())
    history, explained, listed, games, versions = answers
    assert [r.competition_id for r in history] == ["OPEN-2025-01"]
    assert [r.round for r in explained] == [1, 2, 3]
    assert len(listed) == 6
    assert len(games) == 9 and games[0].source_line == 3
    assert [(r.version, r.status) for r in versions] == [(1, "superseded"), (2, "accepted")]
