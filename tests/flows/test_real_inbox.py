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


def _expected_outcomes(shared_data: Path) -> dict[str, str]:
    """The one outcome of every file of ``../shared/data``, with its reason."""
    expected = {
        # Rated.
        "opengotha_frioul_2018.xml": "accepted",
        "opengotha_toulouse_2024_handicap.xml": "accepted",
        "opengotha_veterans_2021.xml": "accepted",
        "pairgoth_paris_2021_online.tour.json": "accepted",
        "trf26_grandmommyscup_team_synthetic.trf": "accepted",
        "karl_mala_frankfurt_2005.trf": "accepted_with_exclusions (fide.unplayed_not_rated)",
        "san_viator_madrid_2018_B.trf": "accepted_with_exclusions (fide.unplayed_not_rated)",
        # Not rated, and why.
        "tsh_tourney_albany_2024-07-04_NWL.js": "rejected (ajusc.language)",       # English lexicon (NWL)
        "lichess_swiss_2020_06.trf": "rejected (fide.online)",                     # a lichess.org swiss
        "gros_open_donostia_2010.trf": "rejected (quality.rounds_missing)",        # 4 of 9 rounds
        "trf26_team_tiny_synthetic.trf": "rejected (quality.rounds_missing)",
        "bbp_issue15_rtg_synthetic_CR.trf": "rejected (format.trf.missing_date, quality.start_date_present)",
        "opengotha_bogazici_istanbul_2024_partial.xml": "rejected (quality.rounds_missing)",
        "opengotha_egc2024_main_open_partial.xml": "rejected (egf.results_known, quality.rounds_missing)",
        "ManaCup_25-26.ini": ("rejected (format.swissperfect.missing_date, quality.rounds_declared, "
                              "quality.start_date_present)"),
        # Not results files: quarantined with a report (to the subfolder's federation, else the officer).
        "README.md": "unreadable: rejected (format.unknown)",
        "SOURCES.tsv": "unreadable: rejected (format.unknown)",
        "official_191_200.csv": "unreadable: rejected (format.unknown)",
        "british_champ_2026_crosstable_chessresults.html": "unreadable: rejected (format.unknown)",
        "open_san_sebastian_33_chessresults.csv": "unreadable: rejected (format.unknown)",
        "ffg_ratings_20240412.json": "unreadable: rejected (format.unknown)",
        # Loaded without anything to rate, or left to `ratings seed`.
        "season.players.csv": "loaded: a players list (names, clubs and grades for the lists and reports)",
        "season.ratings.csv": "ignored: a rating list, imported with `ratings seed`",
        "seed.ratings.csv": "ignored: a rating list, imported with `ratings seed`",
        "egd_allworld_lp_excerpt_2018-02-22.txt": "ignored: a rating list, imported with `ratings seed`",
    }
    # The AJUSC 2025-26 season and the FIDE published periods (interchange CSV): all rated.
    for folder in ("ajusc/barruf_2025_26/results", "fide/published_periods/results"):
        expected.update({p.name: "accepted" for p in (shared_data / folder).glob("*.results.csv")})
    return expected


@pytest.mark.slow
def test_every_real_file_in_one_inbox_gets_exactly_one_outcome_with_its_reason(
    shared_data: Path, sqlite_url: str, tmp_path: Path
) -> None:
    """Source: every file of ``../shared/data``, dropped as it is (subfolders kept) in one inbox."""
    inbox = tmp_path / "inbox"
    shutil.copytree(shared_data, inbox)
    reports = tmp_path / "reports"

    night = nightly(inbox=str(inbox), warehouse_url=sqlite_url, as_of=date(2026, 11, 30), reports_dir=str(reports))

    # Every file has exactly one outcome (the Swiss Perfect set is one tournament, named by its .ini).
    names = {p.name for p in shared_data.rglob("*") if p.is_file() and not p.name.startswith("ManaCup_25-26.")}
    assert set(night.file_outcomes) == names | {"ManaCup_25-26.ini"}
    assert night.file_outcomes == _expected_outcomes(shared_data)
    # The English-language TSH export and the lichess swiss are not rated.
    db = warehouse.get_engine(sqlite_url)
    rated = set(warehouse.rating_changes(db, "fide").get_column("competition_id")) | set(
        warehouse.rating_changes(db, "ajusc").get_column("competition_id"))
    not_rated = {cid for fed in ("ajusc", "fide") for cid, status in night.competitions[fed].items()
                 if cid.startswith(("4th-of-july-albany", "mai-5-plus-0-turnier"))}
    assert len(not_rated) == 4 and not (not_rated & rated)
    # No file has a second, contradicting report under its own name.
    files_with_competitions = {n for n, o in night.file_outcomes.items() if not o.startswith(("unreadable", "loaded", "ignored"))}
    assert not files_with_competitions & {p.stem for p in reports.rglob("*.md")}
    # A file that declares no federation belongs to the inbox subfolder it was dropped in.
    assert "README.md" in night.competitions["ajusc"] and "README.md" in night.competitions["fide"]
    assert "SOURCES.tsv" in night.competitions["unknown"]
    # The nightly summary lists each file once, with its outcome.
    assert "| lichess_swiss_2020_06.trf | rejected (fide.online) |" in night.summary_markdown

    again = nightly(inbox=str(inbox), warehouse_url=sqlite_url, as_of=date(2026, 11, 30), reports_dir=str(reports))
    assert again.published == {}
    assert set(again.file_outcomes.values()) <= {
        "already loaded: identical re-send, nothing to do", "ignored: a rating list, imported with `ratings seed`"}
