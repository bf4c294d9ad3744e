"""Loads: exactly-once, supersession, contract checks, derived tables, seeds (SQLite and PostgreSQL)."""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Callable
from pathlib import Path

import polars as pl
import pytest
import sqlalchemy as sa
from polars.testing import assert_frame_equal
from sqlalchemy.engine import Engine

from formats.schema import EXPLANATIONS_SCHEMA, RATING_CHANGES_SCHEMA, RATINGS_SCHEMA, conform
from tests.conftest import shared_path
from tests.warehouse.conftest import FIXTURES, count, sha
from warehouse import (
    BatchError,
    LoadBatch,
    competition_report,
    current_ratings,
    get_engine,
    history,
    load_batch,
    load_seed,
    player_history,
    seen_checksums,
)
from warehouse.testing import table_rows


def test_load_real_fide_files(engine: Engine, fide_batch: LoadBatch) -> None:
    result = load_batch(engine, fide_batch)
    assert (result.files_loaded, result.files_skipped) == (89, 0)
    assert result.competitions_loaded == 89
    assert result.competitions_superseded == 0
    assert result.games_loaded == 621  # the README of the data set: 89 tournaments, 621 games

    h = history(engine, "fide")
    assert h.competitions.height == 89
    assert set(h.competitions["status"]) == {"accepted"}
    assert h.competitions["end_date"].is_sorted()
    assert h.games.height == 621
    expected = fide_batch.games.sort("competition_id", "source_line")
    result_games = h.games.sort("competition_id", "source_line")
    assert_frame_equal(result_games, expected.select(result_games.columns))
    assert seen_checksums(engine, "fide") == set(fide_batch.files["source_sha256"])
    assert seen_checksums(engine, "ajusc") == set()


def test_double_load_is_single_load(engine: Engine, own_batch: LoadBatch) -> None:
    first = load_batch(engine, own_batch)
    assert (first.files_loaded, first.competitions_loaded, first.games_loaded) == (40, 40, 480)
    once = table_rows(engine)
    assert len(once["findings"]) == 480 // 9  # every ninth game is a forfeit
    again = load_batch(engine, own_batch)
    assert again == type(again)(0, 40, 0, 0, 0)
    assert table_rows(engine) == once


def test_double_load_of_real_files_is_single_load(engine: Engine, fide_batch: LoadBatch) -> None:
    load_batch(engine, fide_batch)
    once = table_rows(engine)
    again = load_batch(engine, fide_batch)
    assert again == type(again)(0, 89, 0, 0, 0)
    assert table_rows(engine) == once


def test_corrected_file_supersedes_and_keeps_old_version(
    engine: Engine, tiny_batch: Callable[..., LoadBatch]
) -> None:
    first = load_batch(engine, tiny_batch())
    assert (first.competitions_loaded, first.games_loaded) == (1, 9)
    second = load_batch(engine, tiny_batch("ajusc-open-corrected.results.csv"))
    assert (second.competitions_loaded, second.competitions_superseded, second.games_loaded) == (1, 1, 9)

    h = history(engine, "ajusc")
    assert h.competitions.height == 1
    assert h.competitions["source"].to_list() == ["ajusc-open-corrected.results.csv"]
    last_round = h.games.filter(pl.col("round") == 3, pl.col("player_a") == "104")
    assert last_round["score_a"].to_list() == [0.5]
    assert h.games["status"].to_list().count("forfeit") == 0

    with engine.connect() as conn:
        rows = conn.execute(
            sa.text("SELECT version, status, outcome, source FROM competitions ORDER BY version")
        ).all()
    assert [tuple(r) for r in rows] == [
        (1, "superseded", "accepted", "ajusc-open.results.csv"),
        (2, "accepted", "accepted", "ajusc-open-corrected.results.csv"),
    ]
    assert count(engine, "games") == 18  # nothing is lost: the old version keeps its games

    report = competition_report(engine, "OPEN-2025-01")
    assert report.competition["version"] == 2
    assert report.competition["source"] == "ajusc-open-corrected.results.csv"
    assert report.versions["status"].to_list() == ["superseded", "accepted"]
    assert report.findings.height == 0  # the forfeit finding belonged to version 1

    # The old file arriving again (a re-send) changes nothing: its key is in the ledger.
    before = table_rows(engine)
    assert load_batch(engine, tiny_batch()).files_skipped == 1
    assert table_rows(engine) == before


def test_findings_and_report(engine: Engine, tiny_batch: Callable[..., LoadBatch]) -> None:
    load_batch(engine, tiny_batch())
    report = competition_report(engine, "OPEN-2025-01", federation="ajusc")
    assert report.competition["status"] == "accepted"
    assert report.competition["source_sha256"] == sha((FIXTURES / "ajusc-open.results.csv").read_bytes())
    assert report.findings.select("rule", "severity", "source", "line", "field").rows() == [
        ("test.forfeit", "exclude", "ajusc-open.results.csv", 7, "status")
    ]
    assert report.games.height == 9
    assert report.games.filter(pl.col("status") == "forfeit")["rated"].to_list() == [False]
    assert report.changes.height == 0


def _file_level(batch: LoadBatch, name: str, digest: str, message: str) -> LoadBatch:
    finding = conform(
        pl.DataFrame({"federation": ["ajusc"], "rule": ["format.unreadable"], "severity": ["reject"],
                      "message": [message], "source": [name], "line": [3], "field": ["score_a"]}),
        batch.findings.schema,
    )
    files = pl.concat([batch.files, pl.DataFrame({"source": [name], "source_sha256": [digest],
                                                  "format": [None], "n_findings": [1]})], how="diagonal_relaxed")
    return dataclasses.replace(batch, files=files, findings=pl.concat([batch.findings, finding]))


def test_unreadable_file_is_kept_once(engine: Engine, tiny_batch: Callable[..., LoadBatch]) -> None:
    batch = _file_level(tiny_batch(), "broken.results.csv", "f" * 64, "score 'x' is not 1, 0.5 or 0")
    result = load_batch(engine, batch)
    assert (result.files_loaded, result.competitions_loaded) == (2, 1)
    with engine.connect() as conn:
        rows = conn.execute(sa.text(
            "SELECT source, line, field, competition_key FROM findings WHERE rule = 'format.unreadable'"
        )).all()
        ledger = conn.execute(sa.text(
            "SELECT competition_id, kind FROM load_ledger WHERE source = 'broken.results.csv'"
        )).all()
    assert [tuple(r) for r in rows] == [("broken.results.csv", 3, "score_a", None)]
    assert [tuple(r) for r in ledger] == [("", "file")]
    assert "f" * 64 in seen_checksums(engine, "ajusc")
    before = table_rows(engine)
    assert load_batch(engine, batch).files_skipped == 2
    assert table_rows(engine) == before


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda b: dataclasses.replace(b, games=b.games.with_columns(federation=pl.lit("fide"))),
         "games of a 'ajusc' batch holds rows of federation 'fide'"),
        (lambda b: dataclasses.replace(b, games=b.games.with_columns(competition_id=pl.lit("NOPE"))),
         "belong to competition 'NOPE', which the batch does not hold (source line 3)"),
        (lambda b: dataclasses.replace(b, competitions=b.competitions.drop("status")),
         "has status None; expected one of accepted, rejected"),
        (lambda b: dataclasses.replace(b, competitions=b.competitions.with_columns(status=pl.lit("ok"))),
         "has status 'ok'"),
        (lambda b: dataclasses.replace(b, competitions=pl.concat([
            b.competitions, b.competitions.with_columns(source_sha256=pl.lit("0" * 64), source=pl.lit("copy.csv"))])),
         "comes from two different files in one batch (ajusc-open.results.csv, copy.csv)"),
    ],
)
def test_bad_batch_is_refused_whole(
    sqlite_engine: Engine, tiny_batch: Callable[..., LoadBatch], edit: Callable[[LoadBatch], LoadBatch], message: str
) -> None:
    with pytest.raises(BatchError) as info:
        load_batch(sqlite_engine, edit(tiny_batch()))
    assert message in str(info.value)
    assert count(sqlite_engine, "competitions") == 0
    assert count(sqlite_engine, "load_ledger") == 0


def _derived(batch: LoadBatch, bump: float = 0.0) -> LoadBatch:
    """Hand-made derived state (one change and its explanations per player of the tiny event)."""
    players = sorted(set(batch.games["player_a"]) | set(batch.games["player_b"]))
    changes = conform(pl.DataFrame({
        "federation": "ajusc", "competition_id": "OPEN-2025-01", "player_id": players,
        "rating_before": 950.0, "games": 3, "score": 1.5, "expected": 1.5, "k": 20.0,
        "change": [0.1 * i + bump for i in range(len(players))], "rule_set": "barruf",
    }).with_columns(rating_after=pl.col("rating_before") + pl.col("change")), RATING_CHANGES_SCHEMA)
    explanations = conform(batch.games.select(
        "federation", "competition_id", "round", pl.col("player_a").alias("player_id"),
        pl.col("player_b").alias("opponent_id"), "score_a", "source_line",
    ).rename({"score_a": "score"}).with_columns(contribution=pl.lit(0.25 + bump)), EXPLANATIONS_SCHEMA)
    ratings = conform(changes.select(
        "federation", "player_id", pl.col("rating_after").alias("rating"), pl.col("games").cast(pl.Int64),
        pl.lit(dt.date(2025, 9, 14)).alias("as_of"), pl.lit("active").alias("status"),
    ), RATINGS_SCHEMA)
    return dataclasses.replace(batch, changes=changes, explanations=explanations, ratings=ratings)


def test_derived_tables_replaced_per_federation(engine: Engine, tiny_batch: Callable[..., LoadBatch],
                                                fide_batch: LoadBatch) -> None:
    load_batch(engine, fide_batch)
    fide_before = table_rows(engine)
    batch = _derived(tiny_batch())
    load_batch(engine, batch)
    assert count(engine, "rating_changes") == 6
    assert count(engine, "explanations") == 9
    once = table_rows(engine)
    load_batch(engine, batch)  # a re-run with the same rating run: identical rows, keys included
    again = table_rows(engine)
    # ... and a pending publication for the re-rate (load 0), which the publish step clears
    # at its end (tasks/recover.py): no other row differs.
    assert again.pop("pending_publications") == sorted([*once.pop("pending_publications"), ("ajusc", 0)])
    assert again == once

    rerated = _derived(tiny_batch(), bump=1.0)
    result = load_batch(engine, rerated)
    assert result.files_skipped == 1
    ratings = current_ratings(engine, "ajusc")
    assert ratings["rating"].to_list() == pytest.approx([951.0 + 0.1 * i for i in range(6)], abs=1e-9)
    report = competition_report(engine, "OPEN-2025-01")
    assert report.changes["change"].to_list() == pytest.approx([1.0 + 0.1 * i for i in range(6)], abs=1e-9)
    assert report.changes.columns[-1] == "name"
    hist = player_history(engine, "ajusc", "101")
    assert hist.select("competition_id", "name", "end_date").rows() == [
        ("OPEN-2025-01", "Obert de Prova", dt.date(2025, 9, 14))
    ]
    # Replacing ajusc's derived state left fide's rows untouched.
    after = table_rows(engine)
    for table in ("competitions", "games"):
        assert [r for r in after[table] if "fide" in r] == [r for r in fide_before[table] if "fide" in r]


def test_players_upsert_keeps_values_and_aliases(engine: Engine, tiny_batch: Callable[..., LoadBatch]) -> None:
    batch = tiny_batch()
    named = batch.players.with_columns(
        name=pl.format("Player {}", "player_id"), country=pl.lit("AND"), birth_year=pl.lit(1980, pl.Int32)
    )
    load_batch(engine, dataclasses.replace(batch, players=named))
    renamed = batch.players.filter(pl.col("player_id") == "101").with_columns(
        name=pl.lit("Player One Hundred One"), club=pl.lit("Club Lletres")
    )
    load_batch(engine, dataclasses.replace(tiny_batch("ajusc-open-corrected.results.csv"), players=renamed))
    players = history(engine, "ajusc").players.filter(pl.col("player_id") == "101")
    assert players.select("name", "country", "club", "birth_year").row(0) == (
        "Player One Hundred One", "AND", "Club Lletres", 1980
    )
    with engine.connect() as conn:
        aliases = conn.execute(sa.text("SELECT player_id, alias FROM player_aliases")).all()
    assert [tuple(a) for a in aliases] == [("101", "Player 101")]


def test_seed_from_real_fide_list(engine: Engine) -> None:
    path = shared_path("data", "fide", "published_periods", "seed.ratings.csv")
    data = path.read_bytes()
    seed = pl.read_csv(data, schema_overrides={"player_id": pl.Utf8}).with_columns(pl.col("as_of").str.to_date())
    assert load_seed(engine, "fide", seed, source=path.name, source_sha256=sha(data)) == 661
    assert load_seed(engine, "fide", seed, source=path.name, source_sha256=sha(data)) == 0
    h = history(engine, "fide")
    assert h.seed.height == 661
    assert h.seed.schema == pl.Schema(RATINGS_SCHEMA)
    row = h.seed.filter(pl.col("player_id") == "P4317874-2025-11").row(0, named=True)
    assert (row["rating"], row["games"], row["k"], row["as_of"]) == (1617.0, 100, 20, dt.date(2025, 10, 1))
    assert h.players.filter(pl.col("player_id") == "P4317874-2025-11")["name"].to_list() == [
        "Player 4317874 (2025-11)"
    ]
    # A newer seed file replaces the federation's seed; the old rows stay in seed_list.
    newer = seed.head(10).with_columns(rating=pl.col("rating") + 1)
    assert load_seed(engine, "fide", newer, source="newer.ratings.csv", source_sha256="e" * 64) == 10
    assert history(engine, "fide").seed.height == 10
    assert count(engine, "seed_list") == 671


def test_seed_refuses_duplicate_ids(sqlite_engine: Engine) -> None:
    seed = pl.DataFrame({"player_id": ["7", "7"], "rating": [1500.0, 1400.0]})
    with pytest.raises(BatchError, match=r"seed list s\.csv: player id '7' is missing or listed twice"):
        load_seed(sqlite_engine, "ajusc", seed, source="s.csv", source_sha256="a" * 64)
    assert count(sqlite_engine, "seed_list") == 0


def test_history_of_empty_federation(engine: Engine) -> None:
    h = history(engine, "egf")
    assert (h.seed.height, h.competitions.height, h.games.height, h.players.height) == (0, 0, 0, 0)
    assert "rated" in h.games.columns and "source_line" in h.games.columns



def test_unchanged_rating_run_rewrites_nothing(engine: Engine, tiny_batch: Callable[..., LoadBatch]) -> None:
    batch = _derived(tiny_batch())
    load_batch(engine, batch)
    statements: list[str] = []

    def record(conn: object, cursor: object, statement: str, *_: object) -> None:
        statements.append(statement)

    sa.event.listen(engine, "before_cursor_execute", record)
    try:
        load_batch(engine, batch)
        assert not [s for s in statements if s.startswith("DELETE FROM")]
        load_batch(engine, _derived(tiny_batch(), bump=0.5))
    finally:
        sa.event.remove(engine, "before_cursor_execute", record)
    deleted = {s.split()[2] for s in statements if s.startswith("DELETE FROM")}
    assert {"rating_changes", "explanations", "ratings"} <= deleted


def test_concurrent_loads_of_one_batch_load_it_once(engine: Engine, own_batch: LoadBatch) -> None:
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=3) as pool:
        results = list(pool.map(lambda _: load_batch(engine, own_batch), range(3)))
    assert sorted(r.files_loaded for r in results) == [0, 0, 40]
    assert sorted(r.files_skipped for r in results) == [0, 40, 40]
    assert count(engine, "games") == 480


def test_batch_larger_than_an_in_list(sqlite_engine: Engine, monkeypatch: pytest.MonkeyPatch,
                                      own_batch: LoadBatch) -> None:
    """Lookups go in slices: a backfill of more files than one IN (...) may hold still loads."""
    import warehouse.load

    monkeypatch.setattr(warehouse.load, "_IN_LIST", 7)
    load_batch(sqlite_engine, own_batch)
    once = table_rows(sqlite_engine)
    assert load_batch(sqlite_engine, own_batch).files_skipped == 40
    assert table_rows(sqlite_engine) == once
    assert len(once["competitions"]) == 40


def test_rating_state_with_a_player_twice_is_refused_whole(
    sqlite_engine: Engine, tiny_batch: Callable[..., LoadBatch]
) -> None:
    batch = _derived(tiny_batch())
    assert batch.ratings is not None
    twice = pl.concat([batch.ratings, batch.ratings.head(1)])
    with pytest.raises(BatchError, match=r"ratings of 'ajusc': player id '101' is missing or listed twice"):
        load_batch(sqlite_engine, dataclasses.replace(batch, ratings=twice))
    # The check runs inside the transaction, after the games: all of it rolled back.
    assert count(sqlite_engine, "games") == 0
    assert seen_checksums(sqlite_engine) == set()


def _with_changes(batch: LoadBatch, changes: pl.DataFrame) -> LoadBatch:
    return dataclasses.replace(batch, changes=changes, explanations=None, ratings=None)


@pytest.mark.parametrize(
    ("edit", "kept"),
    [
        pytest.param(lambda c: pl.concat([c, c.tail(3).with_columns(competition_id=pl.lit("NEXT"))]), 16, id="append"),
        pytest.param(lambda c: c.with_columns(
            change=pl.when(pl.int_range(pl.len()) == 7).then(99.0).otherwise(pl.col("change"))), 4, id="middle"),
        pytest.param(lambda c: c.head(c.height - 4), 12, id="shrink"),
        pytest.param(lambda c: c.head(0), 0, id="empty"),
    ],
)
def test_derived_rewrite_from_first_change_equals_full_replace(
    engine: Engine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, tiny_batch: Callable[..., LoadBatch],
    edit: Callable[[pl.DataFrame], pl.DataFrame], kept: int,
) -> None:
    """Blocks of 4 rows over 18: only rows from the first changed block on are rewritten."""
    import warehouse.load

    monkeypatch.setattr(warehouse.load, "DERIVED_BLOCK", 4)
    base = tiny_batch()
    # 18 rows: three copies of the hand-made changes, so there are several blocks.
    one = _derived(base).changes
    assert one is not None
    changes = pl.concat([one] * 3)
    load_batch(engine, _with_changes(base, changes))
    deletes: list[list[object]] = []

    def record(conn: object, cursor: object, statement: str, parameters: object, *_: object) -> None:
        if statement.startswith("DELETE FROM rating_changes"):
            deletes.append(list(parameters.values()) if isinstance(parameters, dict) else list(parameters))  # type: ignore[call-overload]

    sa.event.listen(engine, "before_cursor_execute", record)
    try:
        load_batch(engine, _with_changes(base, edit(changes)))
    finally:
        sa.event.remove(engine, "before_cursor_execute", record)

    clean = get_engine(f"sqlite:///{tmp_path / 'clean.db'}")
    load_batch(clean, _with_changes(base, edit(changes)))
    assert table_rows(engine)["rating_changes"] == table_rows(clean)["rating_changes"]
    assert table_rows(engine)["derived_state"] == table_rows(clean)["derived_state"]
    clean.dispose()
    assert deletes == [["ajusc", kept]]


@pytest.mark.parametrize("recorded_with", [4, 5, 3], ids=["same-size", "older-larger", "older-smaller"])
@pytest.mark.parametrize("offset", [0, 5, 8, 12, 18])
def test_a_tail_write_records_the_checksums_a_full_write_would(
    engine: Engine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, tiny_batch: Callable[..., LoadBatch],
    offset: int, recorded_with: int,
) -> None:
    """An incremental run keeps the rows before ``offset`` and writes the rest: the block checksums it
    records (blocks of 4 rows, the first one touched read back) are those of a full write of the same
    rows, so derived_state always describes the stored rows (the site reads what changed by them).
    Also when the rows before were recorded in blocks of another size (a version with another
    DERIVED_BLOCK): those are recomputed."""
    import warehouse.load

    monkeypatch.setattr(warehouse.load, "DERIVED_BLOCK", recorded_with)
    base = tiny_batch()
    one = _derived(base).changes
    assert one is not None
    before = pl.concat([one] * 3)                                           # 18 rows
    after = pl.concat([before.head(offset), one.with_columns(change=pl.col("change") + 1.0), one.head(2)])
    load_batch(engine, _with_changes(base, before))
    monkeypatch.setattr(warehouse.load, "DERIVED_BLOCK", 4)
    load_batch(engine, dataclasses.replace(_with_changes(base, after.slice(offset)), derived_offset=(offset, 0)))
    clean = get_engine(f"sqlite:///{tmp_path / 'clean.db'}")
    load_batch(clean, _with_changes(base, after))
    assert table_rows(engine)["rating_changes"] == table_rows(clean)["rating_changes"]
    assert table_rows(engine)["derived_state"] == table_rows(clean)["derived_state"]
    clean.dispose()
