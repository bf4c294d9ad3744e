"""Real federations' files dropped in the inbox, through the whole nightly flow.

Source: ``../shared/data/go/`` (OpenGotha saves of real EGF tournaments, see SOURCES.tsv)
and ``../shared/data/chess/`` (real TRF16 reports).
"""

from __future__ import annotations

import shutil
from datetime import date
from pathlib import Path

import polars as pl
import pytest

import warehouse
from flows.nightly import nightly


@pytest.mark.slow
def test_unfinished_go_tournaments_are_rejected_without_holding_up_the_batch(
    shared_data: Path, sqlite_url: str, tmp_path: Path
) -> None:
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    for name in ("opengotha_frioul_2018.xml", "opengotha_egc2024_main_open_partial.xml",
                 "opengotha_bogazici_istanbul_2024_partial.xml"):
        shutil.copy(shared_data / "go" / name, inbox)

    summary = nightly(inbox=str(inbox), warehouse_url=sqlite_url, as_of=date(2024, 12, 31),
                      reports_dir=str(tmp_path / "reports"))

    statuses = summary.competitions["egf"]
    assert len(statuses) == 3
    by_source = {}
    db = warehouse.get_engine(sqlite_url)
    for cid, status in statuses.items():
        detail = warehouse.competition_report(db, cid, federation="egf")
        by_source[detail.competition["source"]] = (cid, status, detail)
    frioul = by_source["opengotha_frioul_2018.xml"]
    egc = by_source["opengotha_egc2024_main_open_partial.xml"]
    bogazici = by_source["opengotha_bogazici_istanbul_2024_partial.xml"]
    assert frioul[1].startswith("accepted") and frioul[2].changes.height > 0
    assert egc[1] == "rejected" and bogazici[1] == "rejected"

    # The report of the unfinished EGC names every game whose result is unknown, by its XML line.
    unknown_lines = egc[2].games.filter(pl.col("status") == "unknown").get_column("source_line").to_list()
    assert unknown_lines
    report = (tmp_path / "reports" / "egf" / f"{egc[0]}.md").read_text(encoding="utf-8").replace("\\", "")
    for line in unknown_lines:
        assert str(line) in report
    bogazici_report = (tmp_path / "reports" / "egf" / f"{bogazici[0]}.md").read_text(encoding="utf-8")
    assert "quality.rounds_missing" in bogazici_report.replace("\\", "")


@pytest.mark.slow
def test_real_trf_files_are_rated_for_fide(shared_data: Path, sqlite_url: str, tmp_path: Path) -> None:
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    for name in ("san_viator_madrid_2018_B.trf", "karl_mala_frankfurt_2005.trf"):
        shutil.copy(shared_data / "chess" / name, inbox)

    summary = nightly(inbox=str(inbox), warehouse_url=sqlite_url, as_of=date(2018, 12, 31),
                      reports_dir=str(tmp_path / "reports"))

    statuses = summary.competitions["fide"]
    assert len(statuses) == 2
    db = warehouse.get_engine(sqlite_url)
    changes = warehouse.rating_changes(db, "fide")
    rated = set(changes.get_column("competition_id"))
    accepted = {cid for cid, status in statuses.items() if status.startswith("accepted")}
    # Both tournaments have games between rated players: each accepted one moved ratings.
    assert accepted and accepted <= rated
    # Forfeits are never rated: every explained game of San Viator was played over the board.
    for cid in accepted:
        detail = warehouse.competition_report(db, cid, federation="fide")
        forfeits = detail.games.filter(pl.col("status") == "forfeit")
        assert not forfeits.get_column("rated").fill_null(False).any()


@pytest.mark.slow
def test_fide_report_lists_unrated_players_progress(shared_data: Path, sqlite_url: str, tmp_path: Path) -> None:
    """Karl Mala 2005 had 138 unrated players: the report says how far each is from a rating."""
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    shutil.copy(shared_data / "chess" / "karl_mala_frankfurt_2005.trf", inbox)

    summary = nightly(inbox=str(inbox), warehouse_url=sqlite_url, as_of=date(2005, 8, 31),
                      reports_dir=str(tmp_path / "reports"))

    (karl,) = summary.competitions["fide"]
    report = (tmp_path / "reports" / "fide" / f"{karl}.md").read_text(encoding="utf-8")
    section = report.split("## Unrated players: progress toward an initial rating", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| ") and not line.startswith("| Player")]
    assert len(rows) == 137     # every player of the file the run left unrated


@pytest.mark.slow
def test_every_real_native_file_goes_through_and_is_accounted_for(
    shared_data: Path, sqlite_url: str, tmp_path: Path
) -> None:
    """Source: every native-format file of ``../shared/data`` (chess, go, scrabble, the
    Swiss Perfect ManaCup set): each is rated, rejected with a report, or quarantined with
    one, and none stops the others; a second night finds them all already loaded."""
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    for folder in ("chess", "go", "scrabble"):
        for path in (shared_data / folder).rglob("*"):
            if path.is_file():
                shutil.copy(path, inbox / path.name)
    shutil.copytree(shared_data / "ajusc" / "manacup_2025_26", inbox / "manacup_2025_26")
    reports = tmp_path / "reports"

    first = nightly(inbox=str(inbox), warehouse_url=sqlite_url, as_of=date(2026, 11, 30), reports_dir=str(reports))

    statuses = {cid: status for comps in first.competitions.values() for cid, status in comps.items()}
    # Every competition or unreadable file has its organiser's report, nothing more.
    assert len(list(reports.rglob("*.md"))) == len(statuses)
    # Files in formats no federation sends (chess-results exports, the FFG's JSON list) are
    # quarantined with a report under their file name.
    assert set(first.competitions["unknown"]) == {
        "british_champ_2026_crosstable_chessresults.html", "ffg_ratings_20240412.json",
        "open_san_sebastian_33_chessresults.csv"}
    assert set(first.competitions["unknown"].values()) == {"rejected"}
    # The EGD world list is a rating list: left to `ratings seed`, not loaded as results.
    assert first.files_ignored == ["egd_allworld_lp_excerpt_2018-02-22.txt"]
    egf = first.competitions["egf"]
    assert egf["frioul-2018-2018-09-07"] == "accepted" and egf["toulouse-2024-2024-05-18"] == "accepted"
    assert egf["egc-2024-main-open-2024-07-28"] == "rejected" and egf["4th-bogazici-go-tournament-2024-07-06"] == "rejected"
    fide = first.competitions["fide"]
    assert fide["xxx-torneo-san-viator-memorial-pepe-domaica-b-2018-04-08"] == "accepted_with_exclusions"
    assert fide["xx-open-internacional-de-gros-2010-09-24"] == "rejected"      # 4 of 9 rounds
    assert first.competitions["ajusc"]["xii-manacup"] == "rejected"              # Swiss Perfect dump has no date

    second = nightly(inbox=str(inbox), warehouse_url=sqlite_url, as_of=date(2026, 11, 30), reports_dir=str(reports))
    assert second.published == {}
    assert len(second.files_skipped) == first.files_seen - len(first.files_ignored)
