"""Progress of ``ratings run`` / ``backfill``: a bar per stage on a terminal,
plain log lines otherwise, and a summary rather than a thousand-row table."""

from __future__ import annotations

import io
import sys
from datetime import date
from pathlib import Path

import pytest
from prefect import flow, task
from typer.testing import CliRunner

from flows import present, progress
from flows.cli import app
from flows.nightly import NightlyRun
from tasks.publish import Published

runner = CliRunner()


@task(name="ingest_inbox")
def fake_ingest() -> int:
    from prefect import get_run_logger

    get_run_logger().info("inbox x: 3 file(s)")
    return 3


@task(name="rate_federation")
def fake_rate(n: int) -> int:
    return n


@flow
def two_stages() -> int:
    return fake_rate(fake_ingest())


def test_plain_lines_when_stdout_is_not_a_terminal(sample_inbox: Path, sqlite_url: str, tmp_path: Path) -> None:
    result = runner.invoke(app, ["run", "--inbox", str(sample_inbox), "--warehouse", sqlite_url, "--as-of", "2026-02-01",
                                 "--reports", str(tmp_path / "reports")])
    assert result.exit_code == 0, result.output
    lines = [line for line in result.stderr.splitlines() if line.startswith("[")]
    stages = [line.split("] ", 1)[1].split(":", 1)[0] for line in lines]
    assert stages[:1] == ["ingest"] and "validate" in stages and "publish" in stages
    assert any("ajusc: 3 accepted, 1 rejected" in line for line in lines)
    assert "ingest:" not in result.stdout          # progress stays off the command's own output


def test_a_bar_per_stage_on_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    screen = io.StringIO()
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True, raising=False)
    monkeypatch.setattr(sys, "stderr", screen)
    with progress.progress(["ingest_inbox", "validate_batch", "rate_federation"]):
        assert two_stages() == 3
    shown = screen.getvalue()
    for stage, count in (("ingest", "1/1"), ("validate", "0/0"), ("rate", "1/1")):
        assert any(stage in line and count in line for line in shown.splitlines()), shown
    assert "inbox x: 3 file(s)" in shown


def test_a_thousand_competitions_print_counts_and_only_the_refused(capsys: pytest.CaptureFixture[str]) -> None:
    competitions = {f"C{i:04d}": "accepted" for i in range(1000)}
    competitions |= {"C0007": "rejected", "C0500": "accepted_with_exclusions", "C0999": "rejected"}
    summary = NightlyRun(as_of=date(2026, 2, 1), files_seen=1000, competitions={"fide": competitions},
                         published={"fide": Published("fide", 12, 5000, 4000)})
    present.print_summary(summary)
    out = capsys.readouterr().out
    assert "fide: 997 accepted" in out and "fide: 1 accepted_with_exclusions" in out and "fide: 2 rejected" in out
    for shown in ("C0007", "C0500", "C0999"):
        assert shown in out
    assert "C0001" not in out and len(out.splitlines()) < 30
