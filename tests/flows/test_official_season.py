"""The real AJUSC season 2025-26 through the whole pipeline reproduces the federation.

Source: ``../shared/data/ajusc/barruf_2025_26/`` (AJUSC's own computation, as published
by the public AJUSC management app moominot/gestioAjusc): the official list before the
season (edition 190), its 20 championships, and the federation's per-player figures
of editions 191-200.
"""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest
import sqlalchemy as sa
from polars.testing import assert_frame_equal

import warehouse
from flows.cli import app
from tests import canonical


@pytest.fixture(scope="module")
def season_run(shared_data: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """The season seeded (edition 190) and its 20 championships run in one night, with the site:
    one run that every test of this module reads (none of them writes)."""
    tmp = tmp_path_factory.mktemp("season")
    return tmp, canonical.season_run(shared_data, tmp)


@pytest.mark.slow
def test_the_season_leaves_the_canonical_dump(season_run: tuple[Path, str]) -> None:
    """Warehouse, reports and site of the season, table for table and file for file, as the golden
    digests of ``tests/golden`` (taken before the pipeline's layers were redrawn): a refactoring
    that moves one figure, one report line or one byte of a page names that entry."""
    tmp, url = season_run
    ours = canonical.dump(url, reports=tmp / "reports", site=tmp / "site", tmp=tmp)
    golden = json.loads((canonical.GOLDEN / "canonical_season.json").read_text(encoding="utf-8"))
    assert canonical.differences(ours, golden) == []


@pytest.mark.slow
def test_seed_and_run_reproduce_editions_191_to_200(shared_data: Path, season_run: tuple[Path, str]) -> None:
    from typer.testing import CliRunner

    season = shared_data / "ajusc" / "barruf_2025_26"
    _, url = season_run
    runner = CliRunner()

    official = pl.read_csv(season / "official_191_200.csv", schema_overrides={"player_id": pl.Utf8})
    ours = warehouse.rating_changes(warehouse.get_engine(url), "ajusc")
    joined = official.join(ours, on=["competition_id", "player_id"], how="left", suffix="_ours")
    assert joined.get_column("rating_after_ours").null_count() == 0, "a published player was not rated"
    for column in ("rating_before", "k", "rating_after", "games"):
        mismatches = joined.filter(pl.col(column) != pl.col(f"{column}_ours"))
        assert mismatches.height == 0, f"{column} differs:\n{mismatches.select('competition_id', 'player_id', column, f'{column}_ours')}"
    assert ((joined.get_column("expected") - joined.get_column("expected_ours")).abs() < 5e-6).all()
    # Editions 191-200 are every rated player of those championships, nobody more.
    ten = ours.filter(pl.col("competition_id").is_in(official.get_column("competition_id").unique().to_list()))
    assert ten.height == official.height

    listed = runner.invoke(app, ["list", "--federation", "ajusc", "--format", "csv", "--warehouse", url])
    assert listed.exit_code == 0, listed.output
    header = listed.output.splitlines()[0]
    # DESIGN.md's columns, then the edition and its date (which list a row is from); BARRUF ratings are integers.
    assert header == "federation,player_id,name,rating,games,status,category,rank,edition,as_of"
    assert ".0," not in listed.output.splitlines()[1]


@pytest.mark.slow
def test_editions_191_to_210_as_the_federation_published_them(shared_data: Path, season_run: tuple[Path, str]) -> None:
    """One edition per championship, numbered on from the seed's 190, dated at its end;
    ``--as-of`` each championship's date gives that edition, whose figures are the federation's."""
    from typer.testing import CliRunner

    season = shared_data / "ajusc" / "barruf_2025_26"
    _, url = season_run
    runner = CliRunner()

    db = warehouse.get_engine(url)
    published = warehouse.editions(db, "ajusc")
    assert published.get_column("edition").to_list() == list(range(191, 211))
    assert set(published.get_column("kind").to_list()) == {"ordinary"}
    ends = (
        warehouse.history(db, "ajusc").competitions.sort("end_date", "start_date", "competition_id")
        .get_column("end_date").to_list()
    )
    assert published.get_column("as_of").to_list() == ends

    official = pl.read_csv(season / "official_191_200.csv", schema_overrides={"player_id": pl.Utf8})
    for (edition,), rows in official.group_by(["edition"], maintain_order=True):
        day = published.filter(pl.col("edition") == edition).get_column("as_of")[0]
        listed = runner.invoke(app, ["list", "--federation", "ajusc", "--as-of", day.isoformat(),
                                     "--format", "csv", "--warehouse", url])
        assert listed.exit_code == 0, listed.output
        ours = pl.read_csv(listed.output.encode(), schema_overrides={"player_id": pl.Utf8})
        joined = rows.select("player_id", "rating_after").join(ours, on="player_id", how="left")
        wrong = joined.filter(pl.col("rating").ne_missing(pl.col("rating_after").cast(pl.Float64)))
        assert wrong.height == 0, f"edition {edition}:\n{wrong}"
        by_number = runner.invoke(app, ["list", "--federation", "ajusc", "--edition", str(edition),
                                        "--format", "csv", "--warehouse", url])
        assert by_number.output == listed.output
    # The seeded list is edition 190, in force from its date (2025-09-01); before it, nothing.
    before = runner.invoke(app, ["list", "--federation", "ajusc", "--as-of", "2025-08-31", "--warehouse", url])
    assert before.exit_code == 1 and "no list published for ajusc on or before 2025-08-31" in before.output


# ------------------------------------------------------------------ the season taken in blocks
#: What a run taken in blocks leaves otherwise than the one batch, by design: a load record per
#: block and federation (``loads``, the ledger's and competitions' load ids, the home page's "last
#: load" line), and each edition's stored lines in the order of the edition they were computed
#: against (the one read back from the warehouse, as on any later night), with their chained
#: checksum. Every edition reads back the same (below).
BLOCKS_DIFFER = ["changed: site/index.html", "changed: warehouse/competitions", "changed: warehouse/load_ledger",
                 "changed: warehouse/loads", "changed: warehouse/rating_list_lines", "changed: warehouse/rating_lists"]


@pytest.fixture(scope="module")
def blocked_season_run(shared_data: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """The same season with ``--block-games 1``: every month its own block, each rated, loaded and
    published before the next is read (tasks/_inbox_blocks.py)."""
    tmp = tmp_path_factory.mktemp("season-blocks")
    return tmp, canonical.season_run(shared_data, tmp, "--block-games", "1")


@pytest.mark.slow
def test_the_season_in_blocks_leaves_what_one_batch_leaves(
    season_run: tuple[Path, str], blocked_season_run: tuple[Path, str],
) -> None:
    """Ratings, explanations, reports, every player, edition and competition page: the same."""
    (one_tmp, one_url), (blocks_tmp, blocks_url) = season_run, blocked_season_run
    one = canonical.dump(one_url, reports=one_tmp / "reports", site=one_tmp / "site", tmp=one_tmp)
    blocks = canonical.dump(blocks_url, reports=blocks_tmp / "reports", site=blocks_tmp / "site", tmp=blocks_tmp)
    assert canonical.differences(blocks, one) == BLOCKS_DIFFER
    # The run really went by blocks: a load per block, and a month never split.
    loads = warehouse.get_engine(blocks_url)
    with loads.connect() as conn:
        n_loads = conn.execute(sa.text("SELECT count(*) FROM loads WHERE federation = 'ajusc'")).scalar_one()
    assert n_loads >= 10


@pytest.mark.slow
def test_every_edition_of_the_season_in_blocks_reads_back_as_one_batchs(
    season_run: tuple[Path, str], blocked_season_run: tuple[Path, str],
) -> None:
    (_, one_url), (_, blocks_url) = season_run, blocked_season_run
    one, blocks = warehouse.get_engine(one_url), warehouse.get_engine(blocks_url)
    numbers = warehouse.editions(one, "ajusc", with_seed=True).get_column("edition").to_list()
    assert numbers == warehouse.editions(blocks, "ajusc", with_seed=True).get_column("edition").to_list()
    assert numbers == list(range(190, 211))
    for (n, ours), (m, theirs) in zip(warehouse.edition_contents(blocks, "ajusc", numbers),
                                      warehouse.edition_contents(one, "ajusc", numbers), strict=True):
        assert n == m
        assert_frame_equal(ours, theirs)


@pytest.mark.slow
def test_a_whatif_in_blocks_answers_as_one_run(season_run: tuple[Path, str]) -> None:
    """The what-if re-rates the stored season from its seed in blocks of months (``rating.blocks``):
    with one player's entry rating changed and one championship left out, the ripple is the one
    run's over every game at once, player for player and figure for figure."""
    from datetime import date

    from flows.whatif import whatif
    from rating.blocks import plan_history

    _, url = season_run
    db = warehouse.get_engine(url)
    meta = warehouse.history(db, "ajusc", games_from=date.max)
    budget = 400
    blocks = plan_history(meta.competitions, warehouse.games_per_competition(db, "ajusc"), budget)
    assert len(blocks) >= 4, blocks
    player = meta.seed.filter(pl.col("rating").is_not_null()).get_column("player_id")[0]
    left_out = meta.competitions.get_column("competition_id")[3]
    one, blocked = (whatif("ajusc", set_rating={player: 1500.0}, exclude=[left_out], warehouse_url=url,
                           block_games=games) for games in (0, budget))
    assert one.ripple.height > 50
    assert_frame_equal(blocked.ripple, one.ripple)
    assert blocked.competitions_rated == one.competitions_rated == meta.competitions.height - 1
