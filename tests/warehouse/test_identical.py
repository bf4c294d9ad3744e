"""The same run on SQLite and on PostgreSQL gives identical tables, row for row."""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Callable

import polars as pl
import pytest
from sqlalchemy.engine import Engine

from tests.warehouse.test_load import _derived
from warehouse import LoadBatch, load_batch, load_seed, publish_list
from warehouse.testing import table_rows


def _run(engine: Engine, generated: LoadBatch, tiny: Callable[..., LoadBatch]) -> None:
    """A realistic sequence: seed, two batches, a correction with a rating run, two lists."""
    seed = pl.DataFrame({"player_id": ["101", "102", "103"], "name": ["Àngel", "Berta", "Ça"],
                         "rating": [1510.25, 1320.0, None], "games": [40, 12, 0],
                         "as_of": [dt.date(2025, 9, 1)] * 3, "last_played": ["2024-25", None, None]})
    load_seed(engine, "ajusc", seed, source="ajusc.ratings.csv", source_sha256="c" * 64)
    load_batch(engine, generated)
    load_batch(engine, tiny())
    corrected = _derived(tiny("ajusc-open-corrected.results.csv"))
    # Awkward doubles and text: full precision, quotes, commas and newlines must survive COPY.
    assert corrected.changes is not None
    changes = corrected.changes.with_columns(
        expected=pl.Series([1 / 3, 2 / 3, 0.1 + 0.2, 1e-300, -0.0, 123456789.123456789]),
    )
    players = corrected.players.with_columns(
        name=pl.Series(['Joan "Xic", Puig', "Maria\nRosa", "", None, "Ñúñez", "\\N"]),
    )
    load_batch(engine, dataclasses.replace(corrected, changes=changes, players=players))
    ranked = changes.select("federation", "player_id", pl.col("rating_after").alias("rating")).with_columns(
        rank=pl.int_range(1, 7, dtype=pl.Int64)
    )
    publish_list(engine, "ajusc", ranked, as_of=dt.date(2025, 10, 1))
    publish_list(engine, "ajusc", ranked.head(3), as_of=dt.date(2025, 11, 1))


@pytest.mark.postgres
def test_sqlite_and_postgres_tables_identical(
    sqlite_engine: Engine, pg_engine: Engine, own_batch: LoadBatch, tiny_batch: Callable[..., LoadBatch]
) -> None:
    _run(sqlite_engine, own_batch, tiny_batch)
    _run(pg_engine, own_batch, tiny_batch)
    on_sqlite = table_rows(sqlite_engine)
    on_postgres = table_rows(pg_engine)
    assert on_sqlite.keys() == on_postgres.keys()
    for table in on_sqlite:
        assert on_sqlite[table] == on_postgres[table], f"table {table} differs"
    assert len(on_sqlite["games"]) == 480 + 18
    assert len(on_sqlite["rating_list_entries"]) == 9
    assert on_sqlite["rating_changes"][2][8] == 0.1 + 0.2  # bit for bit, not approximately


@pytest.mark.postgres
def test_read_api_answers_identically(
    sqlite_engine: Engine, pg_engine: Engine, own_batch: LoadBatch, tiny_batch: Callable[..., LoadBatch]
) -> None:
    """history, lists and reports read back the same frames (PostgreSQL reads through COPY TO)."""
    from polars.testing import assert_frame_equal

    from warehouse import competition_report, current_ratings, history, player_history, rating_list

    _run(sqlite_engine, own_batch, tiny_batch)
    _run(pg_engine, own_batch, tiny_batch)
    a, b = history(sqlite_engine, "ajusc"), history(pg_engine, "ajusc")
    assert a.competitions.height == 41
    for part in ("seed", "competitions", "games", "players"):
        assert_frame_equal(getattr(a, part), getattr(b, part))
    players = history(pg_engine, "ajusc").players
    assert players.filter(pl.col("player_id") == "101")["name"].to_list() == ['Joan "Xic", Puig']
    assert set(players["name"].to_list()) >= {"", "\\N", "Maria\nRosa"}
    assert None in players["name"].to_list()
    for as_of in (None, dt.date(2025, 10, 15), dt.date(2025, 9, 1)):
        assert_frame_equal(rating_list(sqlite_engine, "ajusc", as_of=as_of), rating_list(pg_engine, "ajusc", as_of=as_of))
    assert_frame_equal(current_ratings(sqlite_engine, "ajusc"), current_ratings(pg_engine, "ajusc"))
    assert_frame_equal(player_history(sqlite_engine, "ajusc", "101"), player_history(pg_engine, "ajusc", "101"))
    ra, rb = competition_report(sqlite_engine, "OPEN-2025-01"), competition_report(pg_engine, "OPEN-2025-01")
    assert ra.competition == rb.competition
    for part in ("findings", "changes", "games", "byes", "versions"):
        assert_frame_equal(getattr(ra, part), getattr(rb, part))
