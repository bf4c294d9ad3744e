"""End-to-end fidelity: the AJUSC's published figures of editions 191-200, player by player.

Source: ``../shared/data/ajusc/barruf_2025_26/`` (moominot/gestioAjusc, season 2025-26
migration): the list of edition 190 as seed, the championships game by game, and the
federation's own per-player figures ``official_191_200.csv``.
"""

from __future__ import annotations

import polars as pl
import pytest

import engine
from tests.engine.conftest import competitions_of, read_games, shared_path


@pytest.fixture(scope="module")
def season() -> tuple[engine.RatingRun, pl.DataFrame]:
    folder = shared_path("data", "ajusc", "barruf_2025_26")
    games = read_games(sorted((folder / "results").glob("BARRUF-*.results.csv")))
    start = pl.read_csv(folder / "season.ratings.csv", try_parse_dates=True, schema_overrides={"player_id": pl.Utf8})
    official = pl.read_csv(folder / "official_191_200.csv", schema_overrides={"player_id": pl.Utf8})
    run = engine.rate_history("ajusc", competitions_of(games), games, start, config={"system": "barruf"})
    return run, official


def test_official_figures_191_200_player_by_player(season: tuple[engine.RatingRun, pl.DataFrame]) -> None:
    run, official = season
    joined = official.join(run.changes, on=["competition_id", "player_id"], how="left", suffix="_engine")
    assert joined.height == official.height == 308
    for row in joined.iter_rows(named=True):
        who = f"{row['competition_id']} player {row['player_id']} ({row['name']})"
        assert row["rating_before_engine"] == row["rating_before"], who
        assert row["games_engine"] == row["games"], who
        assert row["score"] == row["wins"], who
        # The official file prints 6 decimals of E and 4 of the change.
        assert row["expected_engine"] == pytest.approx(row["expected"], abs=5e-7), who
        assert row["k_engine"] == row["k"], who
        assert row["change_engine"] == pytest.approx(row["change"], abs=5e-5), who
        assert row["rating_after_engine"] == row["rating_after"], who


def test_every_official_player_is_rated_and_no_one_else(season: tuple[engine.RatingRun, pl.DataFrame]) -> None:
    run, official = season
    ours = run.changes.filter(pl.col("competition_id").is_in(official["competition_id"].unique().implode()))
    assert sorted(ours.select("competition_id", "player_id").rows()) == sorted(
        official.select("competition_id", "player_id").rows()
    )


def test_explanations_sum_to_changes(season: tuple[engine.RatingRun, pl.DataFrame]) -> None:
    run, _ = season
    sums = run.explanations.group_by("competition_id", "player_id").agg(pl.col("contribution").sum(), pl.len())
    joined = run.changes.join(sums, on=["competition_id", "player_id"])
    assert joined.height == run.changes.height
    assert (joined["games"] == joined["len"]).all()
    assert joined["contribution"].to_numpy() == pytest.approx(joined["change"].to_numpy(), abs=1e-9)
    # 2,505 games, two explanation rows each.
    assert run.explanations.height == 2 * 2505


def test_season_list_is_consistent(season: tuple[engine.RatingRun, pl.DataFrame]) -> None:
    run, _ = season
    listed = engine.rating_list("ajusc", run.ratings, as_of=run.ratings["as_of"].max())  # type: ignore[arg-type]
    assert listed.height == run.ratings.height
    active = listed.filter(pl.col("status") == "active")
    assert active["rank"].null_count() == 0
    assert listed.filter(pl.col("status") != "active")["rank"].null_count() == listed.height - active.height
    assert active["rating"].is_sorted(descending=True)
