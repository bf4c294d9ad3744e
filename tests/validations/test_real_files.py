"""Real OpenGotha files from ``../shared/data/go`` (unfinished tournaments must be rejected)."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from tests.validations.conftest import shared_file
from tests.validations.opengotha import read_opengotha
from validations import Validation, build_report, render_report, validate


def _validate_files(*paths: Path) -> tuple[dict[str, pl.DataFrame], Validation]:
    frames = [read_opengotha(p) for p in paths]
    batch = {k: pl.concat([f[k] for f in frames], how="vertical") for k in frames[0]}
    v = validate(batch["competitions"], batch["games"], federation="egf", byes=batch["byes"],
                 players=batch["players"])
    return batch, v


def test_unfinished_bogazici_is_rejected_and_frioul_is_not_held_up() -> None:
    """4th Bogazici 2024 stops after round 2 of 5: rejected; Frioul 2018 in the same batch passes."""
    bogazici = shared_file("go", "opengotha_bogazici_istanbul_2024_partial.xml")
    frioul = shared_file("go", "opengotha_frioul_2018.xml")
    _, v = _validate_files(bogazici, frioul)
    status = dict(v.competitions.select("competition_id", "status").iter_rows())
    assert status["bosp2024"] == "rejected"
    assert status["Frioul"] == "accepted"
    mine = v.findings.filter(pl.col("competition_id") == "bosp2024")
    rejects = mine.filter(pl.col("severity") == "reject")
    assert rejects.get_column("rule").to_list() == ["quality.rounds_missing"]
    message = rejects.item(0, "message")
    assert "declares 5 rounds but only rounds 1, 2 have games" in message
    assert rejects.item(0, "source") == bogazici.name
    # Its clock (45 min + Canadian 300 s / 25 moves = 57 min adjusted) makes it class B: no class finding.
    assert "egf.event_class" not in mine.get_column("rule").to_list()


def test_unknown_results_of_egc_snapshot_are_named_by_line() -> None:
    """EGC 2024 Main Open, early snapshot: every RESULT_UNKNOWN game is named with its XML line."""
    egc = shared_file("go", "opengotha_egc2024_main_open_partial.xml")
    _, v = _validate_files(egc)
    unknown = v.findings.filter(pl.col("rule") == "egf.results_known")
    lines = egc.read_text(encoding="utf-8-sig").splitlines()
    expected = [i for i, text in enumerate(lines, start=1) if "<Game " in text and "RESULT_UNKNOWN" in text]
    assert len(expected) == 16
    assert sorted(unknown.get_column("line").to_list()) == expected
    assert set(unknown.get_column("severity")) == {"reject"}
    assert v.competitions.get_column("status").to_list() == ["rejected"]
    # A person can act on the report: each unknown game appears with its line and the fix.
    report = build_report(v.competitions, v.findings, v.competitions.item(0, "competition_id"),
                          federation="egf", games=v.games)
    md = render_report(report, fmt="markdown")
    for line in expected:
        assert f"| {line} | result | egf.results_known |" in md
    assert md.count("Enter it (white wins, black wins or jigo)") == 16


@pytest.mark.parametrize("name", ["opengotha_frioul_2018.xml", "opengotha_toulouse_2024_handicap.xml",
                                  "opengotha_veterans_2021.xml"])
def test_finished_tournaments_are_accepted(name: str) -> None:
    path = shared_file("go", name)
    _, v = _validate_files(path)
    rejects = v.findings.filter(pl.col("severity") == "reject")
    assert rejects.is_empty(), rejects.get_column("message").to_list()
    assert v.competitions.get_column("status").to_list() == ["accepted"]


def _read_interchange(path: Path) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Competitions and games of an interchange ``*.results.csv`` (line 1 is the header)."""
    raw = pl.read_csv(path, infer_schema=False).with_row_index("source_line", offset=2)
    comps = raw.group_by("competition_id", maintain_order=True).agg(
        pl.col("federation").first(), pl.col("competition_name").first().alias("name"),
        pl.col("start_date").first().str.to_date(), pl.col("end_date").first().str.to_date(),
        pl.col("modality").first(), (pl.col("results_public").first() == "true").alias("results_public"),
    ).with_columns(pl.lit(path.name).alias("source"))
    games = raw.select(
        "federation", "competition_id", pl.col("round").cast(pl.Int32), "player_a", "player_b",
        pl.col("score_a").cast(pl.Float64), "status", pl.col("source_line").cast(pl.Int32),
    )
    return comps, games


def test_every_barruf_championship_of_2025_26_is_eligible() -> None:
    """The federation rated all 20 championships of the season: none may be rejected.

    Four draws were recorded 0-0 by the federation; they are ordinary draws here.
    """
    folder = shared_file("ajusc", "barruf_2025_26", "results")
    parts = [_read_interchange(p) for p in sorted(folder.glob("BARRUF-*.results.csv"))]
    comps = pl.concat([c for c, _ in parts])
    games = pl.concat([g for _, g in parts])
    players = pl.read_csv(folder.parent / "season.players.csv", infer_schema=False)
    v = validate(comps, games, federation="ajusc", players=players)
    assert comps.height == 20 and games.height == 2505
    assert v.findings.filter(pl.col("severity") != "warn").is_empty(), v.findings.to_dicts()[:5]
    assert set(v.competitions.get_column("status")) == {"accepted"}
    assert v.games.get_column("rated").all()


def test_a_broken_barruf_file_names_file_line_and_player() -> None:
    """Corrupt one real championship: a self-pairing and an unknown result, with names."""
    path = shared_file("ajusc", "barruf_2025_26", "results", "BARRUF-191.results.csv")
    comps, games = _read_interchange(path)
    players = pl.read_csv(path.parent.parent / "season.players.csv", infer_schema=False)
    games = games.with_columns(
        pl.when(pl.col("source_line") == 5).then(pl.lit("unknown")).otherwise("status").alias("status"),
        pl.when(pl.col("source_line") == 5).then(None).otherwise("score_a").alias("score_a"),
    )
    v = validate(comps, games, federation="ajusc", players=players)
    f = v.findings.row(0, named=True)
    assert (f["rule"], f["source"], f["line"], f["field"]) == (
        "ajusc.results_known", "BARRUF-191.results.csv", 5, "score_a")
    row = games.filter(pl.col("source_line") == 5).row(0, named=True)
    name_a = players.filter(pl.col("player_id") == row["player_a"]).item(0, "name")
    assert f"{name_a} ({row['player_a']})" in f["message"]
    assert v.competitions.item(0, "status") == "rejected"


def test_trf_forfeits_are_excluded_by_line_and_the_rest_rated() -> None:
    """San Viator 2018 (B): every forfeit (+/-) is an excluded game named by its player line."""
    from tests.validations.trf import read_trf

    path = shared_file("chess", "san_viator_madrid_2018_B.trf")
    f = read_trf(path)
    v = validate(f["competitions"], f["games"], federation="fide", byes=f["byes"], players=f["players"])
    assert v.competitions.get_column("status").to_list() == ["accepted"]
    excluded = v.findings.filter(pl.col("rule") == "fide.unplayed_not_rated")
    text = path.read_bytes().decode("latin-1").splitlines()
    for line, message in excluded.select("line", "message").iter_rows():
        rnd = int(message.split("(round ")[1].split(")")[0])
        assert text[line - 1][91 + 10 * (rnd - 1) + 7].upper() in "+-WDL", (line, rnd)
    assert excluded.height == f["games"].filter(pl.col("status") == "forfeit").height == 15
    rated = v.games.get_column("rated")
    assert int(rated.sum()) == f["games"].height - 15
    assert v.findings.filter(pl.col("severity") == "reject").is_empty()


def test_unfinished_trf_is_rejected() -> None:
    """XX Open de Gros 2010 declares 9 rounds (XXR 9); the file stops after round 4."""
    from tests.validations.trf import read_trf

    f = read_trf(shared_file("chess", "gros_open_donostia_2010.trf"))
    v = validate(f["competitions"], f["games"], federation="fide", byes=f["byes"], players=f["players"])
    rejects = v.findings.filter(pl.col("severity") == "reject")
    assert rejects.get_column("rule").to_list() == ["quality.rounds_missing"]
    assert "only rounds 1, 2, 3, 4 have games" in rejects.item(0, "message")


def test_fide_report_of_a_real_open_lists_unrated_progress(tmp_path: Path) -> None:
    """San Viator 2018 (B): the report lists each unrated player's progress with their name."""
    from datetime import date

    from tests.validations.trf import read_trf
    from validations import initial_rating_progress, write_report

    f = read_trf(shared_file("chess", "san_viator_madrid_2018_B.trf"))
    v = validate(f["competitions"], f["games"], federation="fide", byes=f["byes"], players=f["players"])
    progress = initial_rating_progress(v.games, None, date(2018, 7, 1), competitions=f["competitions"],
                                       players=f["players"])
    unrated = f["players"].filter(pl.col("declared_rating").is_null()).get_column("player_id").to_list()
    assert sorted(progress.get_column("player_id").to_list()) == sorted(
        p for p in unrated if p in set(f["games"]["player_a"]) | set(f["games"]["player_b"]))
    cid = v.competitions.item(0, "competition_id")
    report = build_report(v.competitions, v.findings, cid, federation="fide", games=v.games,
                          players=f["players"], progress=progress)
    assert report.progress is not None and report.progress.height == progress.height
    md, _page = write_report(report, tmp_path)
    text = md.read_text(encoding="utf-8")
    assert "## Unrated players: progress toward an initial rating" in text
    assert "fide-2014" in text


def test_great_expectations_checks_a_sample_of_a_big_table_with_the_same_findings(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A table of more than ``SAMPLE_ROWS`` rows is checked by Great Expectations on a sample of
    whole competitions, and its findings come whole from the row checks: a duplicated pairing
    and unknown results in several championships of the real season are found exactly as when
    Great Expectations checks the whole table, and it saw fewer rows than the table holds."""
    import importlib

    module = importlib.import_module("validations.row_checks")
    process = importlib.import_module("validations.gx_process")

    folder = shared_file("ajusc", "barruf_2025_26", "results")
    parts = [_read_interchange(p) for p in sorted(folder.glob("BARRUF-*.results.csv"))]
    comps = pl.concat([c for c, _ in parts])
    games = pl.concat([g for _, g in parts])
    broken = pl.col("source_line").is_in([5, 9, 40])
    games = pl.concat([games.with_columns(
        pl.when(broken).then(pl.lit("unknown")).otherwise("status").alias("status"),
        pl.when(broken).then(None).otherwise("score_a").alias("score_a"),
    ), games.filter(pl.col("source_line") == 12)])
    players = pl.read_csv(folder.parent / "season.players.csv", infer_schema=False)
    whole = validate(comps, games, federation="ajusc", players=players)
    checked: list[int] = []
    real_call = process.call

    def counting(operation: str, *args: object) -> object:
        frame = args[-1]
        if isinstance(frame, pl.DataFrame) and "round" in frame.columns:
            checked.append(frame.height)
        return real_call(operation, *args)

    monkeypatch.setattr(module, "SAMPLE_ROWS", 300)
    monkeypatch.setattr(module, "PER_RULE", 2)
    monkeypatch.setattr(process, "call", counting)
    sampled = validate(comps, games, federation="ajusc", players=players)
    assert whole.findings.height > 40
    assert checked and max(checked) < games.height
    assert sampled.findings.sort(pl.all()).equals(whole.findings.sort(pl.all()))
    assert sampled.competitions.equals(whole.competitions) and sampled.games.equals(whole.games)
