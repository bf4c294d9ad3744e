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


@pytest.mark.parametrize(
    ("args", "names"),
    [
        (("list",), "--federation"),                                   # a missing option
        (("no-such-command",), "no-such-command"),                     # an unknown command
        (("site", "--out", "s", "--workers", "0"), "--workers"),       # a value out of range
        (("list", "--federation", "ajusc", "--as-of", "03/04/2026"), "--as-of"),  # a bad date
        (("run", "--config"), "--config"),                             # an option without its value
        (("whatif", "--federation", "ajusc"), "--exclude"),              # no change asked for
    ],
)
def test_usage_errors_exit_64_with_one_line_and_no_log(tmp_path: Path, args: tuple[str, ...], names: str) -> None:
    done = ratings(tmp_path, *args)
    assert done.returncode == errors.EXIT_USAGE == 64, done.stderr[-2000:]
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and names in lines[0] and "Traceback" not in done.stderr, done.stderr
    assert not (tmp_path / "logs").exists() or not any((tmp_path / "logs").iterdir())   # no internal-error log
    assert not list(tmp_path.glob("*.db"))   # nothing created


def test_version_is_a_flag_in_help(tmp_path: Path) -> None:
    shown = ratings(tmp_path, "--help")
    line = next(x for x in shown.stdout.splitlines() if "--version" in x)
    assert "<bool>" not in line and "BOOLEAN" not in line, line
    assert ratings(tmp_path, "--version").stdout.startswith("ratings ")


@pytest.mark.parametrize("command", [(), ("run",), ("list",), ("account", "add"), ("organiser", "add")])
def test_no_flag_shows_a_type_as_if_it_took_a_value(tmp_path: Path, command: tuple[str, ...]) -> None:
    """``--help`` and ``--no-site`` are flags: the help shows no ``<bool>`` beside them."""
    shown = ratings(tmp_path, *command, "--help")
    assert shown.returncode == 0, shown.stderr
    flags = [x for x in shown.stdout.splitlines() if "--help" in x or "--no-" in x]
    assert flags and not [x for x in flags if "<bool>" in x], flags


@pytest.mark.parametrize(
    "args",
    [("list", "--federation", "ajusc"), ("report", "X"), ("whatif", "--federation", "ajusc", "--exclude", "X"), ("site", "--out", "s")],
)
def test_read_only_commands_never_create_a_warehouse(tmp_path: Path, args: tuple[str, ...]) -> None:
    done = ratings(tmp_path, *args, "--warehouse", "sqlite:///typo.db")
    assert done.returncode == errors.EXIT_USER, done.stderr[-2000:]
    assert done.stderr.strip().splitlines() == [done.stderr.strip()], done.stderr
    assert "sqlite:///typo.db" in done.stderr and "does not exist" in done.stderr, done.stderr
    assert not (tmp_path / "typo.db").exists()
    bare = ratings(tmp_path, *args)   # the default warehouse, named in the line
    assert bare.returncode == errors.EXIT_USER and "sqlite:///ratings.db" in bare.stderr, bare.stderr
    assert not (tmp_path / "ratings.db").exists()
