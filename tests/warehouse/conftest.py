"""Warehouse fixtures: a fresh SQLite file and a fresh PostgreSQL database per test.

PostgreSQL: one throwaway database per test session (``warehouse.testing``),
emptied with TRUNCATE before each test that asks for it. The server URL is
``RATINGS_TEST_POSTGRES_URL``; an unreachable server skips those tests with the
reason, unless ``RATINGS_REQUIRE_POSTGRES=1`` (CI), where it fails them.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator
from pathlib import Path

import polars as pl
import pytest
import sqlalchemy as sa
from sqlalchemy.engine import Engine

from formats.schema import (
    BYES_SCHEMA,
    COMPETITIONS_SCHEMA,
    FINDINGS_SCHEMA,
    GAMES_SCHEMA,
    PLAYERS_SCHEMA,
    conform,
    empty,
)
from tests.conftest import SHARED, require_postgres, shared_path
from warehouse import LoadBatch, get_engine
from warehouse.testing import (
    postgres_server_url,
    temporary_postgres_database,
    truncate_postgres,
)

HERE = Path(__file__).resolve().parent
FIXTURES = HERE / "data"
#: Real federation files (never copied into the project).
SHARED_DATA = SHARED / "data"
FIDE_PERIODS = SHARED_DATA / "fide" / "published_periods"


@pytest.fixture(scope="session")
def pg_server_url() -> str:
    """The PostgreSQL server URL, or a skip (a failure under RATINGS_REQUIRE_POSTGRES=1)."""
    require_postgres()
    return postgres_server_url()


@pytest.fixture(scope="session")
def pg_database_url(pg_server_url: str) -> Iterator[str]:
    """A throwaway database for this test session (dropped at the end)."""
    with temporary_postgres_database(pg_server_url) as url:
        yield url


@pytest.fixture
def pg_engine(pg_database_url: str) -> Iterator[Engine]:
    """The session database, migrated and emptied."""
    engine = get_engine(pg_database_url)
    truncate_postgres(engine)
    yield engine
    engine.dispose()


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'warehouse.db'}"


@pytest.fixture
def sqlite_engine(sqlite_url: str) -> Iterator[Engine]:
    engine = get_engine(sqlite_url)
    yield engine
    engine.dispose()


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def engine(request: pytest.FixtureRequest) -> Engine:
    """The same test on both databases."""
    name = "sqlite_engine" if request.param == "sqlite" else "pg_engine"
    return request.getfixturevalue(name)  # type: ignore[no-any-return]


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def batch_from_interchange(paths: list[Path], federation: str) -> LoadBatch:
    """A LoadBatch from interchange ``*.results.csv`` files (a minimal reader for tests).

    Every competition is ``accepted``; each game keeps its 1-based ``source_line``
    (the header is line 1). Findings flag forfeits, so findings get loaded too.
    """
    files, comps, games, findings = [], [], [], []
    for path in paths:
        data = path.read_bytes()
        lines = data.decode().splitlines()
        skip = sum(1 for line in lines if line.startswith("#"))
        frame = pl.read_csv(data, skip_rows=skip, infer_schema_length=0).with_row_index("idx")
        digest = sha(data)
        files.append({"source": path.name, "source_sha256": digest, "format": "interchange-results", "n_findings": 0})
        frame = frame.with_columns(
            (pl.col("idx").cast(pl.Int32) + 2 + skip).alias("source_line"),
            pl.col("score_a").cast(pl.Float64),
            pl.col("round").cast(pl.Int32),
            pl.col("handicap").cast(pl.Int32, strict=False) if "handicap" in frame.columns else pl.lit(None, pl.Int32).alias("handicap"),
        )
        games.append(conform(frame, GAMES_SCHEMA))
        first = frame.row(0, named=True)
        comps.append(
            conform(
                pl.DataFrame(
                    {
                        "federation": [federation],
                        "competition_id": [first["competition_id"]],
                        "name": [first.get("competition_name")],
                        "start_date": [first["start_date"]],
                        "end_date": [first["end_date"] or first["start_date"]],
                        "rounds": [int(frame["round"].max())],  # type: ignore[arg-type]
                        "modality": [first.get("modality")],
                        "results_public": [first.get("results_public") != "false"],
                        "event_class": [first.get("event_class")],
                        "source": [path.name],
                        "source_sha256": [digest],
                    }
                ).with_columns(pl.col("start_date", "end_date").str.to_date()),
                COMPETITIONS_SCHEMA,
            ).with_columns(pl.lit("accepted").alias("status"))
        )
        forfeits = frame.filter(pl.col("status") == "forfeit")
        findings.append(
            conform(
                forfeits.select(
                    pl.lit(federation).alias("federation"),
                    "competition_id",
                    pl.lit("test.forfeit").alias("rule"),
                    pl.lit("exclude").alias("severity"),
                    pl.lit("forfeited game is not rated").alias("message"),
                    pl.lit(path.name).alias("source"),
                    pl.col("source_line").alias("line"),
                    pl.lit("status").alias("field"),
                ),
                FINDINGS_SCHEMA,
            )
        )
    all_games = pl.concat(games)
    ids = pl.concat([all_games["player_a"], all_games["player_b"]]).unique().sort()
    players = conform(pl.DataFrame({"federation": federation, "player_id": ids}), PLAYERS_SCHEMA)
    return LoadBatch(
        federation=federation,
        files=pl.DataFrame(files),
        competitions=pl.concat(comps),
        players=players,
        games=all_games.with_columns(rated=pl.col("status") == "played"),
        byes=empty(BYES_SCHEMA),
        findings=pl.concat(findings),
    )


@pytest.fixture(scope="session")
def fide_batch() -> LoadBatch:
    """The real FIDE published-periods files (89 tournaments) as one batch."""
    shared_path("data", "fide", "published_periods")
    return batch_from_interchange(sorted((FIDE_PERIODS / "results").glob("*.results.csv")), "fide")


@pytest.fixture(scope="session")
def own_batch(tmp_path_factory: pytest.TempPathFactory) -> LoadBatch:
    """Forty generated competitions (480 games) written as interchange files: never skips.

    Deterministic: competition ``k`` pairs players ``k % 7 ... k % 7 + 7`` over
    three rounds; every ninth game is a forfeit (a finding); names carry
    accents. The acceptance tests use it so that they run where the real
    federation data is absent.
    """
    folder = tmp_path_factory.mktemp("own-batch")
    header = ("federation,competition_id,competition_name,start_date,end_date,round,player_a,player_b,"
              "score_a,status,handicap,results_public,modality,event_class")
    paths = []
    serial = 0
    for k in range(40):
        day = f"2025-{1 + k // 4:02d}-{1 + (k % 4) * 7:02d}"
        lines = [f"# Source: generated by tests/warehouse/conftest.py (own_batch), competition {k}", header]
        players = [f"{200 + (k % 7) + i}" for i in range(8)]
        for rnd in range(1, 4):
            for table in range(4):
                a, b = players[(table + rnd) % 8], players[(7 - table + rnd) % 8]
                if a == b:
                    b = players[(table + rnd + 4) % 8]
                serial += 1
                status = "forfeit" if serial % 9 == 0 else "played"
                score = ("1", "0.5", "0")[serial % 3]
                lines.append(f"ajusc,GEN-{k:03d},Torneig {k} d'Olèrdola,{day},{day},{rnd},{a},{b},{score},{status},,"
                             "true,classic,")
        path = folder / f"gen-{k:03d}.results.csv"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        paths.append(path)
    return batch_from_interchange(paths, "ajusc")


@pytest.fixture
def tiny_batch() -> Callable[..., LoadBatch]:
    """Our own small AJUSC fixture (``data/ajusc-open.results.csv``), optionally edited."""

    def make(name: str = "ajusc-open.results.csv") -> LoadBatch:
        return batch_from_interchange([FIXTURES / name], "ajusc")

    return make


def count(engine: Engine, table: str) -> int:
    with engine.connect() as conn:
        return int(conn.execute(sa.text(f"SELECT count(*) FROM {table}")).scalar_one())
