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
from warehouse import LoadBatch, load_batch, publish_edition, publish_list

README = Path(__file__).resolve().parents[2] / "warehouse" / "README.md"


def _examples() -> list[str]:
    return re.findall(r"```sql\n(.*?)```", README.read_text(), flags=re.DOTALL)


def test_readme_sql_answers(engine: Engine, tiny_batch: Callable[..., LoadBatch]) -> None:
    load_batch(engine, tiny_batch())
    batch = _derived(tiny_batch("ajusc-open-corrected.results.csv"))
    load_batch(engine, batch)
    assert batch.ratings is not None
    ranked = batch.ratings.select("federation", "player_id", "rating").with_columns(
        rank=pl.int_range(1, 7, dtype=pl.Int64)
    )
    publish_list(engine, "ajusc", ranked, as_of=dt.date(2025, 10, 1))
    # A later edition is not in force on 2025-10-15; its correction is what the diff query reads.
    later = ranked.with_columns(pl.col("rating") + 1.0)
    diff = pl.DataFrame({"edition": [1], "edition_as_of": [dt.date(2025, 10, 1)], "player_id": ["101"],
                         "name": ["x"], "published": [1.0], "now": [2.0]})
    publish_edition(engine, "ajusc", later.head(5), as_of=dt.date(2025, 11, 1), kind="correcting", corrections=diff,
                    reason="OPEN-2025-01")
    examples = _examples()
    assert len(examples) == 6
    answers = []
    with engine.connect() as conn:
        for sql in examples:
            answers.append(conn.execute(sa.text(sql)).all())
    history, explained, listed, corrections, games, versions = answers
    assert [(r.correcting_edition, r.edition, r.published, r.now) for r in corrections] == [(2, 1, 1.0, 2.0)]
    assert [r.competition_id for r in history] == ["OPEN-2025-01"]
    assert [r.round for r in explained] == [1, 2, 3]
    assert len(listed) == 6
    assert len(games) == 9 and games[0].source_line == 3
    assert [(r.version, r.status) for r in versions] == [(1, "superseded"), (2, "accepted")]
