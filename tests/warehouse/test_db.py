"""Engine factory, redaction, published lists and the read API's errors."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from pathlib import Path

import polars as pl
import pytest
import sqlalchemy as sa
from hypothesis import given
from hypothesis import strategies as st
from polars.testing import assert_frame_equal
from sqlalchemy.engine import Engine

from formats.schema import RATING_LIST_SCHEMA, conform
from tests.warehouse.conftest import count
from warehouse import (
    LoadBatch,
    UnknownCompetitionError,
    WarehouseUnavailableError,
    competition_report,
    get_engine,
    load_batch,
    publish_list,
    rating_list,
    redact,
)


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("postgresql+psycopg://ratings:s3cr3t@db:5432/w", "postgresql+psycopg://ratings:***@db:5432/w"),
        ("postgresql://u:p%40ss@h/w", "postgresql://u:***@h/w"),
        ("sqlite:///ratings.db", "sqlite:///ratings.db"),
        ("postgresql+psycopg://postgres@127.0.0.1:5432/postgres", "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"),
        ("garbage://user:hunter2@host", "garbage://user:***@host"),
    ],
)
def test_redact(url: str, expected: str) -> None:
    assert redact(url) == expected


@given(st.text(alphabet=st.characters(blacklist_characters="@/:?#[] \n\r\t%", blacklist_categories=["Cs"]),
               min_size=1, max_size=30))
def test_redact_never_shows_a_password(password: str) -> None:
    url = f"postgresql+psycopg://ratings:{password}xQz@db.example:5432/ratings"
    assert f"{password}xQz" not in redact(url)


def test_unreachable_server_message_has_no_password() -> None:
    url = "postgresql+psycopg://ratings:TopSecret99@127.0.0.1:1/ratings"
    with pytest.raises(WarehouseUnavailableError) as info:
        get_engine(url)
    message = str(info.value)
    assert "TopSecret99" not in message
    assert message.startswith("cannot connect to warehouse postgresql+psycopg://ratings:***@127.0.0.1:1/ratings: ")
    assert "\n" not in message


@pytest.mark.parametrize(
    ("url", "start"),
    [
        ("nodriver+x://a:b@c/d", "cannot open warehouse nodriver+x://a:***@c/d"),
        ("::::", "not a database URL: ::::"),
    ],
)
def test_bad_urls_are_one_line_errors(url: str, start: str) -> None:
    with pytest.raises(WarehouseUnavailableError) as info:
        get_engine(url)
    assert str(info.value).startswith(start)


def test_sqlite_missing_folder(tmp_path: Path) -> None:
    with pytest.raises(WarehouseUnavailableError, match=r"cannot connect to warehouse sqlite:///.*nowhere/w\.db: "):
        get_engine(f"sqlite:///{tmp_path / 'nowhere' / 'w.db'}")


def test_env_url_is_the_default(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RATINGS_WAREHOUSE_URL", f"sqlite:///{tmp_path / 'env.db'}")
    get_engine().dispose()
    assert (tmp_path / "env.db").is_file()


def test_sqlite_wal_and_foreign_keys(sqlite_engine: Engine) -> None:
    with sqlite_engine.connect() as conn:
        assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
        assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
    with pytest.raises(sa.exc.IntegrityError, match="FOREIGN KEY"), sqlite_engine.begin() as conn:
        conn.exec_driver_sql(
            "INSERT INTO games (id, competition_key, federation, competition_id) VALUES (1, 999, 'x', 'y')"
        )


def _list(ratings: list[float]) -> pl.DataFrame:
    return conform(
        pl.DataFrame({
            "player_id": [str(100 + i) for i in range(len(ratings))],
            "name": [f"Player {i}" for i in range(len(ratings))],
            "rating": ratings, "games": [10] * len(ratings), "status": ["active"] * len(ratings),
            "rank": list(range(1, len(ratings) + 1)),
        }).with_columns(federation=pl.lit("ajusc")),
        RATING_LIST_SCHEMA,
    )


def test_lists_as_of_a_date(engine: Engine) -> None:
    september, october = _list([1600.0, 1500.0]), _list([1612.5, 1490.0, 950.0])
    assert publish_list(engine, "ajusc", september, as_of=dt.date(2025, 9, 1)) == 1
    assert publish_list(engine, "ajusc", september, as_of=dt.date(2025, 9, 15)) is None  # unchanged
    assert publish_list(engine, "ajusc", october, as_of=dt.date(2025, 10, 1)) == 2
    assert publish_list(engine, "fide", september.with_columns(federation=pl.lit("fide")),
                        as_of=dt.date(2025, 10, 1)) == 1  # editions count per federation

    assert rating_list(engine, "ajusc", as_of=dt.date(2025, 8, 31)).height == 0
    assert_frame_equal(rating_list(engine, "ajusc", as_of=dt.date(2025, 9, 30)), september)
    assert_frame_equal(rating_list(engine, "ajusc", as_of=dt.date(2025, 10, 1)), october)
    assert_frame_equal(rating_list(engine, "ajusc"), october)
    assert rating_list(engine, "egf").schema == pl.Schema(RATING_LIST_SCHEMA)
    # Going back to September's figures is a change too: a third edition.
    assert publish_list(engine, "ajusc", september, as_of=dt.date(2025, 11, 1)) == 3


def test_published_lists_are_immutable(engine: Engine) -> None:
    publish_list(engine, "ajusc", _list([1600.0]), as_of=dt.date(2025, 9, 1))
    for statement in (
        "UPDATE rating_list_entries SET rating = 2000",
        "DELETE FROM rating_list_entries",
        "UPDATE rating_lists SET as_of = '2020-01-01'",
        "DELETE FROM rating_lists",
    ):
        with pytest.raises(sa.exc.DatabaseError, match="published rating lists are immutable"), engine.begin() as conn:
            conn.exec_driver_sql(statement)
    assert count(engine, "rating_list_entries") == 1


def test_report_errors(engine: Engine, tiny_batch: Callable[..., LoadBatch]) -> None:
    with pytest.raises(UnknownCompetitionError, match=r"no competition 'OPEN-2025-01' in the warehouse"):
        competition_report(engine, "OPEN-2025-01")
    batch = tiny_batch()
    load_batch(engine, batch)
    load_batch(engine, LoadBatch(
        "egf", batch.files, batch.competitions.with_columns(federation=pl.lit("egf")),
        batch.players.with_columns(federation=pl.lit("egf")), batch.games.with_columns(federation=pl.lit("egf")),
        batch.byes, batch.findings.with_columns(federation=pl.lit("egf")),
    ))
    with pytest.raises(UnknownCompetitionError, match=r"exists in federations ajusc, egf: give --federation"):
        competition_report(engine, "OPEN-2025-01")
    assert competition_report(engine, "OPEN-2025-01", federation="egf").competition["federation"] == "egf"
    with pytest.raises(UnknownCompetitionError, match=r"in federation 'fide'"):
        competition_report(engine, "OPEN-2025-01", federation="fide")


@pytest.mark.postgres
def test_temporary_database_is_dropped(pg_server_url: str) -> None:
    from warehouse.testing import temporary_postgres_database

    with temporary_postgres_database(pg_server_url, prefix="ratings_drop_") as url:
        name = sa.engine.make_url(url).database
        engine = get_engine(url)  # a held connection must not stop the drop
        with engine.connect() as conn:
            assert conn.execute(sa.text("SELECT current_database()")).scalar() == name
    admin = sa.create_engine(pg_server_url)
    with admin.connect() as conn:
        left = conn.execute(sa.text("SELECT count(*) FROM pg_database WHERE datname = :n"), {"n": name}).scalar()
    admin.dispose()
    engine.dispose()
    assert left == 0


def test_truncate_refuses_sqlite(sqlite_engine: Engine) -> None:
    from warehouse.testing import truncate_postgres

    with pytest.raises(ValueError, match="needs a PostgreSQL engine, not sqlite"):
        truncate_postgres(sqlite_engine)


@pytest.mark.postgres
def test_password_never_logged(pg_database_url: str, caplog: pytest.LogCaptureFixture,
                               tiny_batch: Callable[..., LoadBatch]) -> None:
    """The local server trusts any password, so a URL with one really connects."""
    import logging

    from warehouse.testing import truncate_postgres

    url = sa.engine.make_url(pg_database_url).set(password="Hunter2Secret").render_as_string(hide_password=False)
    with caplog.at_level(logging.DEBUG):
        engine = get_engine(url)
        truncate_postgres(engine)  # the session database: other tests' rows may be there
        load_batch(engine, tiny_batch())
        competition_report(engine, "OPEN-2025-01")
    assert "Hunter2Secret" not in caplog.text
    assert "Hunter2Secret" not in repr(engine) and "Hunter2Secret" not in str(engine.url)
    assert redact(url).count("***") == 1
    engine.dispose()
