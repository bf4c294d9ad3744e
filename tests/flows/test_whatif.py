"""``ratings whatif`` and the ``whatif`` flow: the change, re-rated in memory,
equals a warehouse that really had it; the warehouse is left untouched.

The starting list ``data/sample.ratings.csv`` is invented (regression data, not a
federation's figures) for the invented sample season of ``examples/inbox``; 1009-1012
are not on it, so they start as newcomers.
"""

from __future__ import annotations

import json
import re
import shutil
from datetime import date
from pathlib import Path
from typing import Any

import polars as pl
import pytest
import sqlalchemy as sa
from polars.testing import assert_frame_equal
from typer.testing import CliRunner

import warehouse
from flows.cli import app
from flows.whatif import apply_changes, ripple
from formats.schema import (
    COMPETITIONS_SCHEMA,
    GAMES_SCHEMA,
    PLAYERS_SCHEMA,
    RATINGS_SCHEMA,
    conform,
)
from rating import rate
from tasks.ingest import FederationBatch
from tasks.whatif import as_published

SEED = Path(__file__).with_name("data") / "sample.ratings.csv"
AS_OF = "2026-02-01"
runner = CliRunner()


def dump(url: str) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every table of the database (whatever created it), sorted."""
    db = warehouse.get_engine(url, migrate_schema=False)
    out: dict[str, list[tuple[Any, ...]]] = {}
    meta = sa.MetaData()
    meta.reflect(db)
    with db.connect() as conn:
        for name, table in sorted(meta.tables.items()):
            out[name] = sorted((tuple(row) for row in conn.execute(sa.select(table))), key=repr)
    return out


def build(tmp_path: Path, name: str, inbox: Path, seed: Path = SEED, url: str | None = None) -> str:
    """A warehouse seeded with ``seed`` that ran ``inbox``, through the CLI."""
    url = url or f"sqlite:///{tmp_path / f'{name}.db'}"
    seeded = runner.invoke(app, ["seed", "--federation", "ajusc", str(seed), "--warehouse", url])
    assert seeded.exit_code == 0, seeded.output
    ran = runner.invoke(app, ["run", "--inbox", str(inbox), "--warehouse", url, "--as-of", AS_OF,
                              "--reports", str(tmp_path / f"reports-{name}")])
    assert ran.exit_code == 0, ran.output
    return url


def ask(url: str, *args: str) -> pl.DataFrame:
    result = runner.invoke(app, ["whatif", "--federation", "ajusc", "--warehouse", url, "--format", "json", *args])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)
    return pl.DataFrame(rows, schema={"player_id": pl.Utf8, "name": pl.Utf8, "rating_now": pl.Float64,
                                      "rating_whatif": pl.Float64, "delta": pl.Float64})


def expected_ripple(url_now: str, url_then: str) -> pl.DataFrame:
    db_now, db_then = warehouse.get_engine(url_now), warehouse.get_engine(url_then)
    return ripple(warehouse.current_ratings(db_now, "ajusc"), warehouse.current_ratings(db_then, "ajusc"))


def subset(inbox: Path, tmp_path: Path, name: str, leave_out: str) -> Path:
    target = tmp_path / name
    shutil.copytree(inbox, target)
    (target / leave_out).unlink()
    return target


@pytest.fixture
def rated(sample_inbox: Path, tmp_path: Path) -> str:
    return build(tmp_path, "now", sample_inbox)


def test_set_rating_equals_a_warehouse_seeded_with_it(rated: str, sample_inbox: Path, tmp_path: Path) -> None:
    before = dump(rated)
    result = ask(rated, "--set-rating", "1004=1290")
    assert dump(rated) == before, "whatif wrote to the warehouse"

    seed = tmp_path / "changed.ratings.csv"
    seed.write_text(SEED.read_text(encoding="utf-8").replace("1004,Pere Vilaró,1190", "1004,Pere Vilaró,1290"),
                    encoding="utf-8")
    expected = expected_ripple(rated, build(tmp_path, "then", sample_inbox, seed))
    assert_frame_equal(result, expected)
    assert result.height > 1                       # the ripple reaches other players
    assert result.get_column("player_id")[0] == "1004"   # largest |delta| first
    deltas = result.get_column("delta").abs().to_list()
    assert deltas == sorted(deltas, reverse=True)


#: The sample's four championships are four months: ``--block-games 1`` rates each in a block of its
#: own, going on from the state the block before left (``rating.blocks``); the answer is the same.
IN_BLOCKS = [pytest.param((), id="one-block"), pytest.param(("--block-games", "1"), id="in-blocks")]


@pytest.mark.parametrize("blocks", IN_BLOCKS)
def test_exclude_equals_a_warehouse_without_the_competition(
    rated: str, sample_inbox: Path, tmp_path: Path, blocks: tuple[str, ...],
) -> None:
    before = dump(rated)
    result = ask(rated, "--exclude", "CAT-2025-02", *blocks)
    assert dump(rated) == before, "whatif wrote to the warehouse"
    without = build(tmp_path, "without", subset(sample_inbox, tmp_path, "inbox-without", "CAT-2025-02.results.csv"))
    assert_frame_equal(result, expected_ripple(rated, without))
    assert result.height > 0


@pytest.mark.parametrize(("blocks", "added"), [
    pytest.param((), "CAT-2026-01.results.csv", id="one-block"),
    pytest.param(("--block-games", "1"), "CAT-2026-01.results.csv", id="in-blocks"),
    pytest.param(("--block-games", "1"), "CAT-2025-02.results.csv", id="in-blocks-between-the-stored"),
])
def test_add_equals_a_warehouse_that_got_the_file(
    sample_inbox: Path, tmp_path: Path, blocks: tuple[str, ...], added: str,
) -> None:
    partial = build(tmp_path, "partial", subset(sample_inbox, tmp_path, "inbox-partial", added))
    before = dump(partial)
    result = ask(partial, "--add", str(sample_inbox / added), *blocks)
    assert dump(partial) == before, "whatif wrote to the warehouse"
    full = build(tmp_path, "full", sample_inbox)
    assert_frame_equal(result, expected_ripple(partial, full))
    assert result.height > 0


@pytest.mark.parametrize("blocks", IN_BLOCKS)
def test_a_corrected_file_replaces_its_competition(
    rated: str, sample_inbox: Path, tmp_path: Path, blocks: tuple[str, ...],
) -> None:
    """``--add`` of a corrected version equals a warehouse whose inbox held the correction."""
    original = (sample_inbox / "CAT-2026-01.results.csv").read_text(encoding="utf-8")
    first_game = original.splitlines()[1]
    assert first_game.endswith(",1009,1012,0,played,,true,classic,")
    corrected_dir = tmp_path / "corrected"
    corrected_dir.mkdir()
    corrected = corrected_dir / "CAT-2026-01.results.csv"
    corrected.write_text(original.replace(first_game, first_game.replace(",1009,1012,0,", ",1009,1012,1,")),
                         encoding="utf-8")
    before = dump(rated)
    result = ask(rated, "--add", str(corrected), *blocks)
    assert dump(rated) == before, "whatif wrote to the warehouse"
    inbox = subset(sample_inbox, tmp_path, "inbox-corrected", "CAT-2026-01.results.csv")
    shutil.copy(corrected, inbox / corrected.name)
    assert_frame_equal(result, expected_ripple(rated, build(tmp_path, "corrected", inbox)))
    assert {"1009", "1012"} <= set(result.get_column("player_id").to_list())


def test_whatif_writes_nothing_on_either_database(warehouse_url: str, sample_inbox: Path, tmp_path: Path) -> None:
    url = build(tmp_path, "any", sample_inbox, url=warehouse_url)
    before = dump(url)
    result = ask(url, "--exclude", "CAT-2025-01", "--set-rating", "1001=1350")
    assert dump(url) == before, "whatif wrote to the warehouse"
    assert result.height > 0 and result.get_column("rating_now").null_count() == 0


def test_set_rank_sets_an_egf_newcomers_start() -> None:
    comps = conform(pl.DataFrame({"federation": ["egf"], "competition_id": ["T"], "start_date": [date(2022, 5, 1)],
                                  "end_date": [date(2022, 5, 1)], "event_class": ["A"],
                                  "status": ["accepted"]}), {**COMPETITIONS_SCHEMA, "status": pl.Utf8()})
    games = conform(pl.DataFrame({"federation": ["egf"], "competition_id": ["T"], "round": [1], "player_a": ["new"],
                                  "player_b": ["old"], "score_a": [1.0], "status": ["played"], "handicap": [0],
                                  "rated": [True]}), {**GAMES_SCHEMA, "rated": pl.Boolean()})
    players = conform(pl.DataFrame({"federation": ["egf"], "player_id": ["new"], "declared_rank": ["5k"]}), PLAYERS_SCHEMA)
    seed = conform(pl.DataFrame({"federation": ["egf"], "player_id": ["old"], "rating": [2000.0], "games": [50]}),
                   RATINGS_SCHEMA)
    history = warehouse.History(seed=seed, competitions=comps, games=games, players=players)
    config: dict[str, object] = {"system": "egf-gor", "rule_set": "egf-gor-2021"}
    batch = FederationBatch(federation="egf")

    def start_of_new(h: warehouse.History) -> float:
        changes = rate(h, batch, config).run.changes
        return float(changes.filter(pl.col("player_id") == "new").get_column("rating_before")[0])

    assert start_of_new(history) == 1600.0                       # 5k
    assert start_of_new(apply_changes(history, set_rank={"new": "1d"})) == 2100.0


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--set-rating", "9999=1200"), "--set-rating: unknown ajusc player '9999'"),
        (("--set-rating", "1004"), "--set-rating expects PLAYER=RATING, not '1004'"),
        (("--set-rating", "1004=high"), "'high' is not a rating"),
        (("--set-rank", "1009=strong"), "not a kyu/dan grade"),
        (("--set-rank", "1004=3k"), "is on the seeded list"),
        (("--exclude", "NO-SUCH"), "--exclude: unknown ajusc competition 'NO-SUCH'"),
        (("--add", "/definitely/not/here.results.csv"), "--add /definitely/not/here.results.csv: cannot read the file"),
        ((), "whatif needs a change"),
    ],
)
def test_mistakes_are_one_line(rated: str, args: tuple[str, ...], message: str, tmp_path: Path) -> None:
    result = runner.invoke(app, ["whatif", "--federation", "ajusc", "--warehouse", rated, *args])
    assert result.exit_code == (64 if not args else 1), result.output   # asking for no change is a usage error
    assert message in result.output and len(result.output.strip().splitlines()) == 1, result.output
    assert "Traceback" not in result.output


def test_an_unreadable_added_file_is_one_line(rated: str, tmp_path: Path) -> None:
    broken = tmp_path / "broken.results.csv"
    broken.write_text("federation,competition_id\najusc\n", encoding="utf-8")
    result = runner.invoke(app, ["whatif", "--federation", "ajusc", "--warehouse", rated, "--add", str(broken)])
    assert result.exit_code == 1, result.output
    assert "--add broken.results.csv" in result.output and len(result.output.strip().splitlines()) == 1, result.output


@pytest.mark.parametrize("name", ["tasks.whatif", "tasks.backfill", "flows.config"])
def test_docstring_examples(name: str) -> None:
    import doctest
    import importlib

    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0, f"{result.failed} docstring example(s) of {name} failed"


def test_the_table_prints_whole_ratings_as_the_lists_do(rated: str) -> None:
    import re

    result = runner.invoke(app, ["whatif", "--federation", "ajusc", "--warehouse", rated, "--set-rating", "1004=1290.4"])
    assert result.exit_code == 0, result.output
    row = next(line for line in result.output.splitlines() if " 1004 " in line)
    cells = [c.strip() for c in row.strip("│| ").split("│")]
    assert not re.search(r"\d\.\d", row), row
    now, then, delta = (c for c in cells[1:] if re.fullmatch(r"[+-]?\d+", c))
    assert int(then) - int(now) == int(delta), row   # the change is the difference of the whole figures


def test_an_added_rejected_file_says_why(rated: str, tmp_path: Path) -> None:
    """``--add`` of a file the rules refuse names the deciding finding: rule, file, line, field."""
    short = tmp_path / "SHORT-1.results.csv"
    short.write_text("federation,competition_id,start_date,end_date,round,player_a,player_b,score_a\n"
                     "ajusc,SHORT-1,2026-03-01,2026-03-01,1,1001,1004,1\n", encoding="utf-8")
    result = runner.invoke(app, ["whatif", "--federation", "ajusc", "--warehouse", rated, "--add", str(short)])
    assert result.exit_code == 0, result.output
    said = " ".join(result.stdout.split())
    assert re.search(r"added SHORT-1: rejected: ajusc\.min_players: .* \(SHORT-1\.results\.csv, field 'player_a'\)",
                     said), said


def test_the_table_rounds_half_away_from_zero_as_the_lists_do() -> None:
    shown = as_published(pl.DataFrame({"player_id": ["1"], "name": ["A"], "rating_now": [1100.5],
                                       "rating_whatif": [1102.5], "delta": [2.0]}), "ajusc", {})
    assert shown.row(0) == ("1", "A", 1101, 1103, 2)   # as `ratings list --format csv` rounds
