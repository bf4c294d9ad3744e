"""Migrations: an empty database upgraded to head matches the models exactly."""

from __future__ import annotations

from pathlib import Path

import pytest
import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext

from warehouse import MigrationError, get_engine
from warehouse.db import current_revision, head_revision
from warehouse.models import metadata
from warehouse.testing import temporary_postgres_database


def _drift(engine: sa.Engine) -> list[object]:
    with engine.connect() as conn:
        context = MigrationContext.configure(conn, opts={"compare_type": True})
        return list(compare_metadata(context, metadata))


def test_sqlite_empty_to_head_matches_models(tmp_path: Path) -> None:
    engine = get_engine(f"sqlite:///{tmp_path / 'empty.db'}")
    with engine.connect() as conn:
        assert current_revision(conn) == head_revision()
    assert _drift(engine) == []
    assert set(metadata.tables) <= set(sa.inspect(engine).get_table_names())
    engine.dispose()


@pytest.mark.postgres
def test_postgres_empty_to_head_matches_models(pg_server_url: str) -> None:
    with temporary_postgres_database(pg_server_url, prefix="ratings_migrate_") as url:
        engine = get_engine(url)
        try:
            with engine.connect() as conn:
                assert current_revision(conn) == head_revision()
            assert _drift(engine) == []
        finally:
            engine.dispose()


def test_downgrade_to_base_and_up_again(tmp_path: Path) -> None:
    from alembic import command

    from warehouse.db import alembic_config

    engine = get_engine(f"sqlite:///{tmp_path / 'w.db'}")
    with engine.begin() as conn:
        command.downgrade(alembic_config(conn), "base")
    assert set(sa.inspect(engine).get_table_names()) == {"alembic_version"}
    engine.dispose()
    engine = get_engine(f"sqlite:///{tmp_path / 'w.db'}")  # applies the pending migration again
    assert _drift(engine) == []
    engine.dispose()


def _by_hand(url: str, statement: str) -> None:
    """Change the database behind the program's back (a plain engine, no migration)."""
    raw = sa.create_engine(url)
    with raw.begin() as conn:
        conn.execute(sa.text(statement))
    raw.dispose()


def test_refuses_a_revision_it_does_not_know(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'future.db'}"
    get_engine(url).dispose()
    _by_hand(url, "UPDATE alembic_version SET version_num = '9999_from_the_future'")
    with pytest.raises(MigrationError, match=r"revision '9999_from_the_future', unknown to this program"):
        get_engine(url)


def test_refuses_tables_made_by_hand(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'hand.db'}"
    _by_hand(url, "CREATE TABLE games (id INTEGER PRIMARY KEY)")
    with pytest.raises(MigrationError, match=r"has tables \['games'\] but no migration record"):
        get_engine(url)


def test_read_only_open_refuses_pending_migrations(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'new.db'}"
    with pytest.raises(MigrationError, match=r"is at schema revision None, this program needs"):
        get_engine(url, migrate_schema=False)
    get_engine(url).dispose()
    get_engine(url, migrate_schema=False).dispose()


def _open_at_once(url: str, n: int = 4) -> list[str | None]:
    from concurrent.futures import ThreadPoolExecutor

    def open_one(_: int) -> str | None:
        engine = get_engine(url)
        with engine.connect() as conn:
            revision = current_revision(conn)
        engine.dispose()
        return revision

    with ThreadPoolExecutor(max_workers=n) as pool:
        return list(pool.map(open_one, range(n)))


def test_concurrent_first_opens_migrate_once_sqlite(tmp_path: Path) -> None:
    assert _open_at_once(f"sqlite:///{tmp_path / 'race.db'}") == [head_revision()] * 4


@pytest.mark.postgres
def test_concurrent_first_opens_migrate_once_postgres(pg_server_url: str) -> None:
    with temporary_postgres_database(pg_server_url, prefix="ratings_race_") as url:
        assert _open_at_once(url) == [head_revision()] * 4


def test_failed_migration_is_one_line_and_rolls_back(tmp_path: Path) -> None:
    """A migration the database refuses leaves it untouched and says why, in one line."""
    url = f"sqlite:///{tmp_path / 'readonly.db'}"
    # A view is not a table, so the hand-made check lets it through; CREATE TABLE then fails.
    _by_hand(url, "CREATE VIEW federations AS SELECT 1 AS id")
    with pytest.raises(MigrationError) as info:
        get_engine(url)
    message = str(info.value)
    assert message.startswith(f"migrating warehouse {url} from None to '{head_revision()}' failed: ")
    assert "\n" not in message
    raw = sa.create_engine(url)
    assert sa.inspect(raw).get_table_names() == []
    raw.dispose()
