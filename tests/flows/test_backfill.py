"""The backfill flow: re-rate a federation from a date after a correction, and say what changed."""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any

import polars as pl
import sqlalchemy as sa
from typer.testing import CliRunner

import warehouse
from flows.backfill import backfill
from flows.cli import app
from flows.nightly import nightly

AS_OF = date(2026, 2, 1)


def test_backfill_without_correction_changes_nothing(sample_inbox: Path, sqlite_url: str, tmp_path: Path) -> None:
    nightly(inbox=str(sample_inbox), warehouse_url=sqlite_url, as_of=AS_OF, reports_dir=str(tmp_path / "r"))
    db = warehouse.get_engine(sqlite_url)
    before = warehouse.rating_changes(db, "ajusc")

    result = backfill(federation="ajusc", from_date=date(2025, 11, 1), warehouse_url=sqlite_url, as_of=AS_OF,
                      reports_dir=str(tmp_path / "r"))

    assert result.competitions_rerated == 2          # CAT-2025-02 and CAT-2026-01 end on/after Nov 1
    assert result.changes_differing == 0
    assert result.edition is None                    # the published list is identical
    assert warehouse.rating_changes(db, "ajusc").equals(before)
    # What the backfill compares: the changes of the competitions in its window, three columns of them.
    window = warehouse.rating_changes(db, "ajusc", ended_from=date(2025, 11, 1), ended_until=date(2025, 12, 31),
                                      columns=["competition_id", "player_id", "rating_after"])
    assert window.columns == ["competition_id", "player_id", "rating_after"]
    assert set(window.get_column("competition_id")) == {"CAT-2025-02"}
    assert window.equals(before.filter(pl.col("competition_id") == "CAT-2025-02").select(window.columns))


def test_new_starting_list_then_backfill_rerates_and_republishes(
    sample_inbox: Path, sqlite_url: str, tmp_path: Path
) -> None:
    nightly(inbox=str(sample_inbox), warehouse_url=sqlite_url, as_of=AS_OF, reports_dir=str(tmp_path / "r"))
    db = warehouse.get_engine(sqlite_url)
    before = warehouse.rating_changes(db, "ajusc")
    # The federation brings its real list late: two of the players were already rated.
    seed = tmp_path / "ajusc.ratings.csv"
    seed.write_text(
        "federation,player_id,name,rating,games,as_of\n"
        "ajusc,1001,Núria Puigdomènech,1320,140,2025-09-01\n"
        "ajusc,1002,Jordi Casals,1180,75,2025-09-01\n",
        encoding="utf-8",
    )
    runner = CliRunner()
    seeded = runner.invoke(app, ["seed", "--federation", "ajusc", str(seed), "--warehouse", sqlite_url])
    assert seeded.exit_code == 0, seeded.output
    assert "ratings backfill" in seeded.output

    ran = runner.invoke(app, ["backfill", "--federation", "ajusc", "--from", "2025-09-01", "--warehouse", sqlite_url,
                              "--as-of", "2026-03-15"])
    assert ran.exit_code == 0, ran.output

    after = warehouse.rating_changes(db, "ajusc")
    first = after.filter((pl.col("competition_id") == "CAT-2025-01") & (pl.col("player_id") == "1001"))
    # 1001 played the first championship: now rated from the seeded 1320, not from 950.
    assert first.get_column("rating_before").to_list() == [1320.0]
    assert not after.equals(before)
    # Editions 1-3 were published; the new figures come as correcting edition 4.
    assert "edition 4" in ran.output
    assert set(warehouse.edition_corrections(db, "ajusc").get_column("correcting_edition").to_list()) == {4}
    # Dated as the backfill was told (--as-of), not the day it ran.
    fourth = warehouse.editions(db, "ajusc").filter(pl.col("edition") == 4)
    assert fourth.get_column("as_of").to_list() == [date(2026, 3, 15)]
    listed = warehouse.rating_list(db, "ajusc")
    assert listed.filter(pl.col("player_id") == "1001").get_column("rating").item() != 950.0


def _derived(url: str) -> dict[str, Any]:
    """What a backfill writes: the derived rows, their checksums, the editions and corrections."""
    db = warehouse.get_engine(url)
    with db.connect() as conn:
        tables = {name: sorted(tuple(r) for r in conn.execute(sa.text(f"SELECT * FROM {name} WHERE federation = 'ajusc'")))
                  for name in ("explanations", "derived_state", "edition_corrections")}
    editions = warehouse.editions(db, "ajusc")
    return {
        **tables, "changes": warehouse.rating_changes(db, "ajusc").rows(),
        "ratings": warehouse.current_ratings(db, "ajusc").rows(),
        "editions": editions.drop("list_id").rows(),
        "entries": [warehouse.edition_entries(db, i).rows() for i in editions.get_column("list_id")],
    }


def test_a_backfill_in_blocks_writes_what_one_block_writes(sample_inbox: Path, tmp_path: Path) -> None:
    """The sample's four championships, four months: ``--block-games 1`` re-rates each in a block of
    its own (``rating.blocks``), its explanations written aside and loaded at the end; after a new
    starting list, the warehouse holds what the backfill in one block leaves, row for row, and the
    same correcting edition."""
    runner = CliRunner()
    seed = tmp_path / "ajusc.ratings.csv"
    seed.write_text("federation,player_id,name,rating,games,as_of\n"
                    "ajusc,1001,Núria Puigdomènech,1320,140,2025-09-01\n", encoding="utf-8")
    outputs = {}
    for blocks in ("0", "1"):
        url = f"sqlite:///{tmp_path / f'blocks-{blocks}.db'}"
        nightly(inbox=str(sample_inbox), warehouse_url=url, as_of=AS_OF, reports_dir=str(tmp_path / f"r{blocks}"))
        assert runner.invoke(app, ["seed", "--federation", "ajusc", str(seed), "--warehouse", url]).exit_code == 0
        ran = runner.invoke(app, ["backfill", "--federation", "ajusc", "--from", "2025-09-01", "--warehouse", url,
                                  "--as-of", "2026-03-15", "--block-games", blocks, "--no-site"])
        assert ran.exit_code == 0, ran.output
        outputs[blocks] = (ran.output.strip().splitlines()[-1], ran.output, _derived(url))
    assert outputs["0"][0].endswith("edition 4") and outputs["1"][0] == outputs["0"][0]
    assert "in 4 blocks of months" in outputs["1"][1]
    assert outputs["1"][2] == outputs["0"][2]
