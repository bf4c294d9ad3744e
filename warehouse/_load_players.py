"""Federations, players and starting lists: the rows a load upserts besides its results.

Private to :mod:`warehouse.load`, which re-exports the public names.
"""

from __future__ import annotations

import datetime as dt

import polars as pl
import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from formats.schema import PLAYERS_SCHEMA, RATINGS_SCHEMA, conform
from warehouse._load_contract import _one_row_per_player, _own
from warehouse._model_types import table_of
from warehouse.bulk import insert_frame, next_id
from warehouse.db import write_transaction
from warehouse.models import Federation, LedgerEntry, Load, SeedEntry

_T_LEDGER = table_of(LedgerEntry)
_T_LOADS = table_of(Load)
_T_FEDERATIONS = table_of(Federation)
_T_SEED = table_of(SeedEntry)


def _now() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


def register_federation(
    engine_or_conn: Engine | Connection,
    federation: str,
    *,
    name: str | None = None,
    game: str | None = None,
    system: str | None = None,
) -> None:
    """Make sure ``federations`` has a row for ``federation``; fill the given details.

    Examples
    --------
    >>> from warehouse.db import get_engine
    >>> engine = get_engine("sqlite://")
    >>> register_federation(engine, "fide", name="Fédération Internationale des Échecs", system="fide-elo")
    """
    if isinstance(engine_or_conn, Engine):
        with write_transaction(engine_or_conn) as conn:
            register_federation(conn, federation, name=name, game=game, system=system)
        return
    conn = engine_or_conn
    exists = conn.execute(sa.select(_T_FEDERATIONS.c.id).where(_T_FEDERATIONS.c.id == federation)).first()
    if exists is None:
        conn.execute(sa.insert(_T_FEDERATIONS).values(id=federation, name=name, game=game, system=system))
        return
    details = {k: v for k, v in {"name": name, "game": game, "system": system}.items() if v is not None}
    if details:
        conn.execute(sa.update(_T_FEDERATIONS).where(_T_FEDERATIONS.c.id == federation).values(**details))


def seen_checksums(engine: Engine, federation: str | None = None) -> set[str]:
    """Checksums of the files already in the load ledger (the flow skips them early).

    Examples
    --------
    >>> from warehouse.db import get_engine
    >>> seen_checksums(get_engine("sqlite://"), "fide")
    set()
    """
    query = sa.select(_T_LEDGER.c.source_sha256).distinct()
    if federation is not None:
        query = query.where(_T_LEDGER.c.federation == federation)
    with engine.connect() as conn:
        return {row[0] for row in conn.execute(query)}


def _stage_players(conn: Connection, federation: str, players: pl.DataFrame) -> None:
    """Upsert players set-based; a changed name keeps the old one as an alias.

    A staging table and two ``INSERT ... SELECT ... ON CONFLICT`` statements
    (the same SQL on SQLite and PostgreSQL): known values are never erased by
    a file that lacks them.
    """
    players = players.filter(pl.col("player_id").is_not_null()).unique(
        subset=["federation", "player_id"], keep="last", maintain_order=True
    )
    if players.height == 0:
        return
    cols = list(PLAYERS_SCHEMA)
    ddl_cols = ", ".join(
        f'"{c}" {"DOUBLE PRECISION" if c == "declared_rating" else "INTEGER" if c == "birth_year" else "TEXT"}'
        for c in cols
    )
    if conn.dialect.name == "postgresql":
        conn.exec_driver_sql(f"CREATE TEMP TABLE stage_players ({ddl_cols}) ON COMMIT DROP")
    else:
        conn.exec_driver_sql(f"CREATE TEMP TABLE IF NOT EXISTS stage_players ({ddl_cols})")
        conn.exec_driver_sql("DELETE FROM temp.stage_players")
    stage = sa.Table("stage_players", sa.MetaData(), *(sa.Column(c) for c in cols))
    insert_frame(conn, stage, players)
    conn.exec_driver_sql(
        "INSERT INTO player_aliases (federation, player_id, alias) "
        "SELECT p.federation, p.player_id, p.name FROM players p JOIN stage_players s "
        "ON p.federation = s.federation AND p.player_id = s.player_id "
        "WHERE s.name IS NOT NULL AND p.name IS NOT NULL AND p.name <> s.name "
        "ON CONFLICT DO NOTHING"
    )
    names = ", ".join(f'"{c}"' for c in cols)
    updates = ", ".join(f'"{c}" = COALESCE(excluded."{c}", players."{c}")' for c in cols[2:])
    # "WHERE true": SQLite's parser needs it between INSERT ... SELECT and ON CONFLICT.
    conn.exec_driver_sql(
        f"INSERT INTO players ({names}) SELECT {names} FROM stage_players WHERE true "
        f"ON CONFLICT (federation, player_id) DO UPDATE SET {updates}"
    )
    if conn.dialect.name != "postgresql":
        conn.exec_driver_sql("DELETE FROM temp.stage_players")



def load_seed(
    engine: Engine, federation: str, ratings: pl.DataFrame, *, source: str, source_sha256: str,
    edition: int | None = None,
) -> int:
    """Store a federation's starting list (exactly once per file); return the rows loaded.

    The list's players are upserted into ``players`` too, so reports have names.
    A seed file already in the ledger loads nothing (returns 0). ``edition`` is the
    edition number the list carried (``ReadResult.list_edition``): the federation's
    next editions are numbered from it.

    Raises
    ------
    BatchError
        Rows of another federation, or a player id missing or listed twice.

    Examples
    --------
    >>> from warehouse.db import get_engine
    >>> engine = get_engine("sqlite://")
    >>> seed = pl.DataFrame({"player_id": ["7", "9"], "name": ["Anna", "Berta"], "rating": [1510.0, 1320.0]})
    >>> load_seed(engine, "ajusc", seed, source="ajusc.ratings.csv", source_sha256="cd34")
    2
    >>> load_seed(engine, "ajusc", seed, source="ajusc.ratings.csv", source_sha256="cd34")
    0
    """
    rows = _own(ratings, RATINGS_SCHEMA, federation, "seed list")
    _one_row_per_player(rows, f"seed list {source}")
    with write_transaction(engine) as conn:
        register_federation(conn, federation)
        done = conn.execute(
            sa.select(_T_LEDGER.c.id).where(
                _T_LEDGER.c.federation == federation,
                _T_LEDGER.c.competition_id == "",
                _T_LEDGER.c.source_sha256 == source_sha256,
            )
        ).first()
        if done is not None:
            return 0
        load_id = next_id(conn, _T_LOADS)
        conn.execute(
            sa.insert(_T_LOADS).values(
                id=load_id, federation=federation, kind="seed", loaded_at=_now(), files_loaded=1
            )
        )
        ledger_id = next_id(conn, _T_LEDGER)
        conn.execute(
            sa.insert(_T_LEDGER).values(
                id=ledger_id, federation=federation, competition_id="", source_sha256=source_sha256,
                source=source, format="ratings", kind="seed", n_findings=None, load_id=load_id,
            )
        )
        insert_frame(conn, _T_SEED, rows.with_columns(
            pl.lit(ledger_id, pl.Int64).alias("ledger_id"), pl.lit(edition, pl.Int64).alias("edition")))
        _stage_players(conn, federation, conform(rows, PLAYERS_SCHEMA))
        return rows.height
