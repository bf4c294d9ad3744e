"""The real AJUSC season 2025-26 through the whole pipeline reproduces the federation.

Source: ``../shared/data/ajusc/barruf_2025_26/`` (AJUSC's own computation, as published
by the public AJUSC management app moominot/gestioAjusc): the official list before the
season (edition 190), its 20 championships, and the federation's per-player figures
of editions 191-200.
"""

from __future__ import annotations

import shutil
from datetime import date
from pathlib import Path

import polars as pl
import pytest

import warehouse
from flows.cli import app


@pytest.mark.slow
def test_seed_and_run_reproduce_editions_191_to_200(shared_data: Path, tmp_path: Path) -> None:
    from typer.testing import CliRunner

    season = shared_data / "ajusc" / "barruf_2025_26"
    inbox = tmp_path / "inbox"
    shutil.copytree(season / "results", inbox)
    shutil.copy(season / "season.players.csv", inbox)
    url = f"sqlite:///{tmp_path / 'ratings.db'}"
    runner = CliRunner()

    seeded = runner.invoke(app, ["seed", "--federation", "ajusc", str(season / "season.ratings.csv"), "--warehouse", url])
    assert seeded.exit_code == 0, seeded.output
    ran = runner.invoke(app, ["run", "--inbox", str(inbox), "--warehouse", url, "--as-of", "2026-06-30",
                              "--reports", str(tmp_path / "reports")])
    assert ran.exit_code == 0, ran.output

    official = pl.read_csv(season / "official_191_200.csv", schema_overrides={"player_id": pl.Utf8})
    ours = warehouse.rating_changes(warehouse.get_engine(url), "ajusc")
    joined = official.join(ours, on=["competition_id", "player_id"], how="left", suffix="_ours")
    assert joined.get_column("rating_after_ours").null_count() == 0, "a published player was not rated"
    for column in ("rating_before", "k", "rating_after", "games"):
        mismatches = joined.filter(pl.col(column) != pl.col(f"{column}_ours"))
        assert mismatches.height == 0, f"{column} differs:\n{mismatches.select('competition_id', 'player_id', column, f'{column}_ours')}"
    assert (joined.get_column("expected") - joined.get_column("expected_ours")).abs().max() < 5e-6
    # Editions 191-200 are every rated player of those championships, nobody more.
    ten = ours.filter(pl.col("competition_id").is_in(official.get_column("competition_id").unique().to_list()))
    assert ten.height == official.height

    listed = runner.invoke(app, ["list", "--federation", "ajusc", "--format", "csv", "--warehouse", url])
    assert listed.exit_code == 0, listed.output
    header = listed.output.splitlines()[0]
    # DESIGN.md's columns, then (issue 14) the edition and its date; BARRUF ratings are integers.
    assert header == "federation,player_id,name,rating,games,status,category,rank,edition,as_of"
    assert ".0," not in listed.output.splitlines()[1]
