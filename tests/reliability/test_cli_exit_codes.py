"""The CLI never prints a traceback; its exit code says what happened (README "Exit codes")."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from flows import errors
from tests.reliability.cli import ratings

SAMPLE = Path(__file__).resolve().parents[2] / "examples" / "inbox"


@pytest.mark.slow
def test_an_unexpected_error_is_one_line_and_a_log_then_the_next_run_completes(tmp_path: Path) -> None:
    shutil.copytree(SAMPLE, tmp_path / "inbox")
    args = ("run", "--inbox", "inbox", "--warehouse", f"sqlite:///{tmp_path / 'w.db'}", "--as-of", "2026-02-01")
    failed = ratings(tmp_path, *args, RATINGS_FAULT_AT="rate:1")
    assert failed.returncode == errors.EXIT_INTERNAL, failed.stderr[-3000:]
    assert "Traceback" not in failed.stderr + failed.stdout
    ours = [line for line in failed.stderr.splitlines() if line.startswith("ratings:")]
    assert len(ours) == 1 and "internal error (RuntimeError: fault injected" in ours[0]
    log = Path(ours[0].rsplit("details in ", 1)[1].strip())
    assert log.parent == tmp_path / "logs"
    assert "Traceback" in log.read_text(encoding="utf-8")

    again = ratings(tmp_path, *args)
    assert again.returncode == errors.EXIT_OK, again.stderr[-3000:]
    assert "CAT-2025-01" in again.stdout


def test_user_errors_exit_1_without_traceback(tmp_path: Path) -> None:
    missing = ratings(tmp_path, "run", "--inbox", "nowhere", "--warehouse", f"sqlite:///{tmp_path / 'w.db'}")
    assert missing.returncode == errors.EXIT_USER
    assert missing.stderr.strip() == "ratings: inbox folder 'nowhere' does not exist"


def test_secrets_are_masked_in_messages() -> None:
    assert errors.mask_secrets("x postgresql+psycopg://u:hunter2@h/db y") == "x postgresql+psycopg://u:***@h/db y"
