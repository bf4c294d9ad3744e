"""Real OpenGotha files from ``../shared/data/go`` (unfinished tournaments must be rejected)."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from tests.validations.conftest import shared_file
from tests.validations.opengotha import read_opengotha
from validations import build_report, render_report, validate


def _validate_files(*paths: Path) -> tuple[dict[str, pl.DataFrame], object]:
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
        assert f"| {line} | result | egf.results\\_known |" in md
    assert md.count(r"Enter it \(white wins, black wins or jigo\)") == 16


@pytest.mark.parametrize("name", ["opengotha_frioul_2018.xml", "opengotha_toulouse_2024_handicap.xml",
                                  "opengotha_veterans_2021.xml"])
def test_finished_tournaments_are_accepted(name: str) -> None:
    path = shared_file("go", name)
    _, v = _validate_files(path)
    rejects = v.findings.filter(pl.col("severity") == "reject")
    assert rejects.is_empty(), rejects.get_column("message").to_list()
    assert v.competitions.get_column("status").to_list() == ["accepted"]
