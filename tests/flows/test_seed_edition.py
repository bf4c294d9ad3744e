"""The seeded list is an edition: listed, counted against, and charted from.

Source: ``../shared/data/ajusc/barruf_2025_26/`` (see tests/flows/test_official_season.py):
the AJUSC list before the season is edition 190, dated 2025-09-01; the federation's
per-player figures of edition 191 are in ``official_191_200.csv``.
"""

from __future__ import annotations

import io
import re
import shutil
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

import warehouse
from flows.cli import app
from website import page_name

runner = CliRunner()


def _list(url: str, *args: str) -> pl.DataFrame:
    listed = runner.invoke(app, ["list", "--federation", "ajusc", "--format", "csv", "--warehouse", url, *args])
    assert listed.exit_code == 0, listed.output
    return pl.read_csv(io.StringIO(listed.stdout), schema_overrides={"player_id": pl.Utf8})


@pytest.mark.slow
def test_the_seed_is_edition_190_and_191_counts_against_it(shared_data: Path, tmp_path: Path) -> None:
    season = shared_data / "ajusc" / "barruf_2025_26"
    inbox = tmp_path / "inbox"
    shutil.copytree(season / "results", inbox)
    shutil.copy(season / "season.players.csv", inbox)
    url = f"sqlite:///{tmp_path / 'ratings.db'}"
    seed_file = pl.read_csv(season / "season.ratings.csv", schema_overrides={"player_id": pl.Utf8})
    seeded = runner.invoke(app, ["seed", "--federation", "ajusc", str(season / "season.ratings.csv"),
                                 "--warehouse", url])
    assert seeded.exit_code == 0, seeded.output

    # Before any night: the seed is the list in force, by number and by its date.
    by_number = _list(url, "--edition", "190")
    assert by_number.get_column("edition").unique().to_list() == [190]
    assert by_number.get_column("as_of").unique().to_list() == ["2025-09-01"]
    assert dict(by_number.select("player_id", "rating").iter_rows()) == dict(
        seed_file.select("player_id", "rating").iter_rows())
    assert _list(url, "--as-of", "2025-09-01").equals(by_number)
    before = runner.invoke(app, ["list", "--federation", "ajusc", "--as-of", "2025-08-31", "--warehouse", url])
    assert before.exit_code == 1 and "no list published for ajusc on or before 2025-08-31" in before.output

    site = tmp_path / "site"
    ran = runner.invoke(app, ["run", "--inbox", str(inbox), "--warehouse", url, "--as-of", "2026-08-31",
                              "--reports", str(tmp_path / "reports"), "--site", str(site)])
    assert ran.exit_code == 0, ran.output
    # The night's summary counts its last edition against the seed, not against nothing.
    latest = _list(url)
    on_seed = latest.join(seed_file.select("player_id", pl.col("rating").alias("seeded")), on="player_id")
    changed = on_seed.filter(pl.col("rating") != pl.col("seeded")).height
    new = latest.height - on_seed.height
    assert (latest.height, new) == (630, 45)
    summary = " ".join(ran.output.split())
    assert f"ajusc: 630 player(s) listed, {changed} rating(s) changed, {new} new player(s), edition 210" in summary
    # The pipeline's own editions are still 191-210; the seed's is kept apart.
    assert warehouse.editions(warehouse.get_engine(url), "ajusc").get_column("edition").to_list() == list(range(191, 211))

    # Edition 191 on the site: the federation's 29 players rated, counted against the seed.
    official = pl.read_csv(season / "official_191_200.csv", schema_overrides={"player_id": pl.Utf8}).filter(
        pl.col("edition") == 191)
    assert official.height == 29
    known = official.join(seed_file.select("player_id", pl.col("rating").alias("seeded")), on="player_id")
    n_changed = known.filter(pl.col("rating_after") != pl.col("seeded")).height
    n_new = official.height - known.height
    assert (n_changed, n_new) == (21, 7)   # and one player whose figure stayed
    page = " ".join((site / "ajusc" / "editions" / "191.html").read_text(encoding="utf-8").split())
    assert re.search(rf"since edition <a [^>]*>190</a> \(2025-09-01\): {n_changed} rating\(s\) changed, "
                     rf"{n_new} new, 0 no longer listed", page), page[:2000]
    # Each card gives its change for 191: the federation's rating after less the seed's.
    for player_id, after, seeded_rating in known.select("player_id", "rating_after", "seeded").iter_rows():
        card = (site / "ajusc" / "players" / page_name(player_id)).read_text(encoding="utf-8")
        row = re.search(r'<a href="\.\./editions/191\.html">191</a></td><td>[^<]*</td>'
                        r'<td class="num rating">(\d+)</td><td class="num">([^<]*)</td>', card)
        assert row is not None, player_id
        delta = int(after) - int(seeded_rating)
        shown = "0" if delta == 0 else f"{'+' if delta > 0 else '−'}{abs(delta)}"
        assert (row.group(1), row.group(2)) == (str(after), shown), player_id
