"""What the engineer on call reads: log lines in words, not objects or internal keys."""

from __future__ import annotations

import logging
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from flows.cli import app
from tasks.ingest import ingest_inbox

runner = CliRunner()


def _ours(result: Result) -> str:
    """The command's own output: stdout and its progress lines (``[  1.2s] stage: ...``), without
    what Prefect's console handler adds when a Prefect server runs the flow."""
    progress = [line for line in result.stderr.splitlines() if line.startswith("[")]
    return "\n".join([result.stdout, *progress])

#: A Python object's repr, or a history point's internal key, in a log line.
OBJECTS = re.compile(r"\w+\(\w+=|datetime\.date\(|\d{4}-\d\d-\d\d\|")


def test_a_night_and_a_backfill_log_in_words(sample_inbox: Path, sqlite_url: str, tmp_path: Path) -> None:
    night = runner.invoke(app, ["run", "--inbox", str(sample_inbox), "--warehouse", sqlite_url,
                                "--as-of", "2026-02-01", "--reports", str(tmp_path / "reports"),
                                "--site", str(tmp_path / "site")])
    assert night.exit_code == 0, night.output
    log = _ours(night)
    assert OBJECTS.search(log) is None, log
    # No seed was loaded: the line says so, not "seed list or config changed".
    assert "rated from the start, without a seed list (nothing was rated before)" in log
    assert re.search(r"\] load: ajusc: loaded \d+ file\(s\), 4 competition\(s\), \d+ game\(s\)", log), log
    assert re.search(r"\] site: site .*: \d+ page\(s\)", log), log      # the site stage has its line
    # The night's summary once, on stdout; the log keeps it for deployments, not twice on a terminal.
    assert len([line for line in log.splitlines() if "nightly as of 2026-02-01" in line]) == 1, log

    back = runner.invoke(app, ["backfill", "--federation", "ajusc", "--from", "2026-01-01", "--warehouse", sqlite_url,
                               "--no-site"])
    assert back.exit_code == 0, back.output
    said = _ours(back)
    assert OBJECTS.search(said) is None, said
    assert "ajusc: re-rating from 2026-01-01 (replayed from the seed): " in said
    assert "full re-rate requested" not in said
    assert "ajusc: 1 competition(s) re-rated from 2026-01-01, 0 rating change(s) differ" in said


def test_a_missing_inbox_is_one_warning_naming_it(tmp_path: Path, sqlite_url: str,
                                                  caplog: pytest.LogCaptureFixture) -> None:
    missing = tmp_path / "home" / "inbox"
    with caplog.at_level(logging.INFO):
        got = ingest_inbox.fn(str(missing), sqlite_url)
    assert got.files_seen == 0 and got.batches == {}
    warnings = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert [r.getMessage() for r in warnings] == [f"inbox folder {missing} does not exist: no file read tonight"]
    assert not any("0 file(s)" in r.getMessage() for r in caplog.records)
    assert not missing.exists()   # a run reads the inbox, it never makes one
