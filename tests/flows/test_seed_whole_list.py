"""A federation's own starting list seeds whole, whatever its real size: FIDE's holds
350,000+ players, far past the 50,000 an organiser's file may hold, and an organiser's
file of that size is still refused at the organiser's limit."""

from __future__ import annotations

import io
import random
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

import formats
from flows.cli import app
from formats import limits

runner = CliRunner()
PLAYERS = limits.MAX_PLAYERS + 5_000


def _fide_list(path: Path, players: int) -> Path:
    """A FIDE-shaped starting list: ids of seven digits, ratings 1400-2800, edition 1."""
    rnd = random.Random(7)
    lines = ["federation,player_id,name,rating,games,as_of,k,edition"]
    lines += [f"fide,{1_000_000 + i},Player {i},{rnd.randint(1400, 2800)},{rnd.randint(0, 400)},2026-01-01,"
              f"{rnd.choice((10, 20, 40))},1" for i in range(players)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_a_list_past_an_organiser_s_limit_seeds_whole_and_is_listed(tmp_path: Path) -> None:
    seed = _fide_list(tmp_path / "fide.ratings.csv", PLAYERS)
    url = f"sqlite:///{tmp_path / 'ratings.db'}"
    seeded = runner.invoke(app, ["seed", "--federation", "fide", str(seed), "--warehouse", url])
    assert seeded.exit_code == 0, seeded.output
    assert f"fide: {PLAYERS} player(s) seeded from fide.ratings.csv" in seeded.stdout, seeded.stdout
    listed = runner.invoke(app, ["list", "--federation", "fide", "--edition", "1", "--format", "csv",
                                 "--warehouse", url])
    assert listed.exit_code == 0, listed.output
    rows = pl.read_csv(io.StringIO(listed.stdout), schema_overrides={"player_id": pl.Utf8})
    assert rows.height == PLAYERS
    assert rows.get_column("player_id").n_unique() == PLAYERS


def test_an_organiser_s_file_of_that_size_is_still_refused_at_its_limit(tmp_path: Path) -> None:
    """Only the federation's own list reads at the list's limit: the same rows read as an
    organiser's file are refused, with the limit named."""
    seed = _fide_list(tmp_path / "fide.ratings.csv", PLAYERS)
    refused = formats.read(seed, federation="fide")
    assert refused.findings.select("rule", "severity").rows() == [("limits.too_many", "reject")]
    assert f"more than {limits.MAX_PLAYERS} rows" in refused.findings.get_column("message").item()
    whole = formats.read_list(seed, federation="fide")
    assert (whole.ratings.height, whole.list_edition) == (PLAYERS, 1)


def test_a_list_past_its_own_limit_is_refused_with_the_limit_named(monkeypatch: pytest.MonkeyPatch) -> None:
    data = b"federation,player_id,rating\n" + b"fide,1,1500\n" * 3
    assert limits.too_many_rows(data, "interchange-ratings", own_list=True) is None
    monkeypatch.setattr(limits, "MAX_LIST_PLAYERS", 2)
    refused = limits.too_many_rows(data, "interchange-ratings", own_list=True)
    assert refused == "the file holds more than 2 rows (3 lines), more than the limit: split it"
