"""The night's summary adds up: a night that publishes nothing still says what is listed."""

from __future__ import annotations

import io
import re
import sys
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

from flows.cli import app

runner = CliRunner()


def test_a_night_of_rejections_only_reports_the_list_in_force(sample_inbox: Path, sqlite_url: str,
                                                              tmp_path: Path) -> None:
    first = runner.invoke(app, ["run", "--inbox", str(sample_inbox), "--warehouse", sqlite_url,
                                "--as-of", "2026-02-01", "--reports", str(tmp_path / "reports"), "--no-site"])
    assert first.exit_code == 0, first.output
    listed = runner.invoke(app, ["list", "--federation", "ajusc", "--format", "csv", "--warehouse", sqlite_url])
    size = pl.read_csv(io.StringIO(listed.stdout)).height
    assert size > 0

    night = tmp_path / "night-2"
    night.mkdir()
    (night / "SHORT-2.results.csv").write_text(
        "federation,competition_id,start_date,end_date,round,player_a,player_b,score_a\n"
        "ajusc,SHORT-2,2026-03-01,2026-03-01,1,1001,1004,1\n", encoding="utf-8")
    second = runner.invoke(app, ["run", "--inbox", str(night), "--warehouse", sqlite_url, "--as-of", "2026-03-02",
                                 "--reports", str(tmp_path / "reports"), "--no-site"])
    assert second.exit_code == 0, second.output
    said = " ".join(second.stdout.split())
    assert "SHORT-2 │ rejected" in said or "SHORT-2 | rejected" in said, said
    assert f"ajusc: list unchanged (no new edition tonight), {size} player(s) listed" in said, said
    assert "0 player(s) listed" not in said


def test_an_outcome_s_log_path_is_never_cut_in_an_80_column_terminal(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    from types import SimpleNamespace

    from flows.present import print_summary

    monkeypatch.setenv("COLUMNS", "80")
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True, raising=False)
    log = "/srv/ratings/home/logs/ratings-error-20261203T125501Z-4242.log"
    summary = SimpleNamespace(
        as_of="2026-02-01", files_seen=1, files_skipped=[], competitions={}, published={}, report_paths=[],
        file_outcomes={"CAT-2026-02.results.csv": f"not finished: internal error (KeyError: 'x') in the load "
                                                  f"stage of ajusc; details in {log}"},
    )
    print_summary(summary)
    out = re.sub(r"\x1b\[[0-9;]*m", "", capsys.readouterr().out)   # a terminal's colours aside
    assert max(len(line) for line in out.splitlines()) <= 80, out
    assert "…" not in out and "..." not in out, out
    assert log in re.sub(r"[│\s]", "", out), out


def test_a_piped_list_keeps_each_name_on_its_line(sample_inbox: Path, sqlite_url: str, tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    ran = runner.invoke(app, ["run", "--inbox", str(sample_inbox), "--warehouse", sqlite_url,
                              "--as-of", "2026-02-01", "--reports", str(tmp_path / "reports"), "--no-site"])
    assert ran.exit_code == 0, ran.output
    monkeypatch.setenv("COLUMNS", "40")   # a narrow terminal's setting must not wrap a pipe
    table = runner.invoke(app, ["list", "--federation", "ajusc", "--warehouse", sqlite_url])
    csv_ = runner.invoke(app, ["list", "--federation", "ajusc", "--format", "csv", "--warehouse", sqlite_url])
    names = pl.read_csv(io.StringIO(csv_.stdout)).get_column("name").to_list()
    rows = [line for line in table.stdout.splitlines() if line.startswith("│")]
    assert len(rows) == len(names), table.stdout     # one line per player: no name wrapped
    for name in names:
        assert any(f" {name} " in row for row in rows), name


def test_a_superseded_file_s_name_still_finds_its_report(sample_inbox: Path, sqlite_url: str, tmp_path: Path) -> None:
    ran = runner.invoke(app, ["run", "--inbox", str(sample_inbox), "--warehouse", sqlite_url,
                              "--as-of", "2026-02-01", "--reports", str(tmp_path / "reports"), "--no-site"])
    assert ran.exit_code == 0, ran.output
    original = (sample_inbox / "CAT-2026-01.results.csv").read_text(encoding="utf-8")
    first_game = original.splitlines()[1]
    night = tmp_path / "night-2"
    night.mkdir()
    (night / "CAT-2026-01-corrected.results.csv").write_text(
        original.replace(first_game, first_game.replace(",1009,1012,0,", ",1009,1012,1,")), encoding="utf-8")
    again = runner.invoke(app, ["run", "--inbox", str(night), "--warehouse", sqlite_url, "--as-of", "2026-02-02",
                                "--reports", str(tmp_path / "reports"), "--no-site"])
    assert again.exit_code == 0, again.output
    for name in ("CAT-2026-01.results.csv", "CAT-2026-01-corrected.results.csv"):
        report = runner.invoke(app, ["report", name, "--warehouse", sqlite_url])
        assert report.exit_code == 0, report.output
        assert "CAT-2026-01" in report.stdout and "CAT-2026-01-corrected.results.csv" in report.stdout, report.stdout


def test_the_terminal_outcome_names_the_deciding_finding_s_line_and_field(sqlite_url: str, tmp_path: Path) -> None:
    """A refused file's row in the night's table says where to look: the rule that decided it,
    at the file's line and field, as the organiser's report lists it first."""
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    (inbox / "BAD-1.results.csv").write_text(
        "federation,competition_id,start_date,end_date,round,player_a,player_b,score_a\n"
        "ajusc,BAD-1,2026-03-01,2026-03-01,1,1001,1004,1\n"
        "ajusc,BAD-1,2026-03-01,2026-03-01,1,1002,1003,7\n", encoding="utf-8")
    ran = runner.invoke(app, ["run", "--inbox", str(inbox), "--warehouse", sqlite_url, "--as-of", "2026-03-02",
                              "--reports", str(tmp_path / "reports"), "--no-site"])
    assert ran.exit_code == 0, ran.output
    said = " ".join(ran.stdout.split())
    assert "first finding" in said
    assert re.search(r"BAD-1\.results\.csv │ rejected \([^)]*\) │ format\.csv\.bad_score at line 3, field 'score_a'",
                     said), said


def _named_files(report: str) -> tuple[str, set[str]]:
    """The report's header ``File`` and the files its findings' rows name."""
    header = re.search(r"^- File: (.+)$", report, flags=re.MULTILINE)
    assert header is not None, report
    rows = {line.split("|")[2].strip() for line in report.splitlines()
            if line.startswith(("| reject |", "| warning |", "| exclude |"))}
    return header.group(1).strip(), rows


@pytest.mark.parametrize("resend", ["identical", "corrected"])
def test_the_report_of_a_file_sent_twice_names_one_file(sample_inbox: Path, sqlite_url: str, tmp_path: Path,
                                                        resend: str) -> None:
    """A competition's file sent again under another name (the same bytes, or corrected and
    still refused): the report's header and every row of its findings name the same file,
    the one whose findings they are."""
    reports = tmp_path / "reports"
    ran = runner.invoke(app, ["run", "--inbox", str(sample_inbox), "--warehouse", sqlite_url,
                              "--as-of", "2026-02-01", "--reports", str(reports), "--no-site"])
    assert ran.exit_code == 0, ran.output
    original = (sample_inbox / "CAT-2025-03.results.csv").read_text(encoding="utf-8")
    if resend == "corrected":   # a score changed, still two rounds: refused again by ajusc.min_rounds
        first = original.splitlines()[1]
        original = original.replace(first, first.replace(",1005,1009,0,", ",1005,1009,1,"))
    night = tmp_path / "night-2"
    night.mkdir()
    (night / "CAT-2025-03 (sent again).results.csv").write_text(original, encoding="utf-8")
    again = runner.invoke(app, ["run", "--inbox", str(night), "--warehouse", sqlite_url, "--as-of", "2026-02-02",
                                "--reports", str(reports), "--no-site"])
    assert again.exit_code == 0, again.output
    expected = "CAT-2025-03 (sent again).results.csv" if resend == "corrected" else "CAT-2025-03.results.csv"
    written = (reports / "ajusc" / "CAT-2025-03.md").read_text(encoding="utf-8").replace("\\", "")
    shown = runner.invoke(app, ["report", "CAT-2025-03", "--federation", "ajusc", "--warehouse", sqlite_url])
    assert shown.exit_code == 0, shown.output
    for report in (written, shown.stdout.replace("\\", "")):
        header, rows = _named_files(report)
        assert header == expected, report
        assert rows == {expected}, report
