"""``ratings run`` without a Prefect API runs the flows in-process (no temporary
server per call), and ends exactly as under the Prefect engine."""

from __future__ import annotations

import time
from datetime import date
from pathlib import Path

import polars as pl
import pytest

import warehouse
from flows.nightly import nightly
from flows.orchestration import run_flow
from tests.reliability.cli import ratings

AS_OF = date(2026, 2, 1)


def _tables(url: str) -> dict[str, pl.DataFrame]:
    db = warehouse.get_engine(url)
    return {
        "changes": warehouse.rating_changes(db, "ajusc").drop("load_id", strict=False).sort("competition_id", "player_id"),
        "list": warehouse.current_ratings(db, "ajusc").sort("player_id"),
    }


def test_in_process_and_under_the_engine_end_the_same(
    sample_inbox: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    urls = {}
    runs = {}
    for mode in ("prefect", "local"):
        monkeypatch.setenv("RATINGS_ORCHESTRATOR", mode)
        urls[mode] = f"sqlite:///{tmp_path / f'{mode}.db'}"
        runs[mode] = run_flow(nightly, inbox=str(sample_inbox), warehouse_url=urls[mode], as_of=AS_OF,
                              reports_dir=str(tmp_path / f"reports-{mode}"), site_dir=None)
    assert runs["local"].competitions == runs["prefect"].competitions
    assert runs["local"].file_outcomes == runs["prefect"].file_outcomes
    assert runs["local"].summary_markdown == runs["prefect"].summary_markdown
    assert runs["local"].internal_errors == runs["prefect"].internal_errors == {}
    local, engine = _tables(urls["local"]), _tables(urls["prefect"])
    for name in local:
        assert local[name].equals(engine[name]), name
    reports = {p.name: p.read_text(encoding="utf-8") for p in (tmp_path / "reports-local").rglob("*.md")}
    assert reports == {p.name: p.read_text(encoding="utf-8") for p in (tmp_path / "reports-prefect").rglob("*.md")}


@pytest.mark.slow
def test_ratings_run_starts_no_prefect_server(tmp_path: Path) -> None:
    (tmp_path / "inbox").mkdir()
    started = time.monotonic()
    done = ratings(tmp_path, "run", "--inbox", "inbox", "--warehouse", f"sqlite:///{tmp_path / 'w.db'}", "--no-site")
    seconds = time.monotonic() - started
    assert done.returncode == 0, done.stderr[-3000:]
    assert "temporary server" not in done.stderr
    # A temporary server would have made its database in PREFECT_HOME.
    assert not list((tmp_path / "prefect-home").rglob("*.db")), list((tmp_path / "prefect-home").rglob("*"))
    print(f"empty-inbox `ratings run`, in-process: {seconds:.1f} s")


@pytest.mark.slow
def test_an_in_process_run_does_not_import_prefect(tmp_path: Path) -> None:
    """Importing Prefect is most of a short run's fixed cost, and an in-process run needs
    none of it (tasks and flows are declared with ``tasks.runtime``'s deferred
    decorators; the API check reads the profiles file)."""
    import subprocess
    import sys

    from tests.reliability.cli import ratings_env

    (tmp_path / "inbox").mkdir()
    probe = (
        "import atexit, sys\n"
        "from flows import cli\n"
        "atexit.register(lambda: print('prefect imported:', sorted(m for m in sys.modules\n"
        "                                                       if m.split('.')[0] == 'prefect')[:3]))\n"
        "sys.argv = ['ratings', 'run', '--inbox', 'inbox', '--warehouse', 'sqlite:///w.db', '--no-site']\n"
        "cli.main()\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, env=ratings_env(tmp_path),
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "prefect imported: []" in done.stdout, done.stdout[-2000:]


def test_the_profile_decides_without_prefect(tmp_path: Path) -> None:
    from flows.orchestration import api_url_in_profile

    home = tmp_path / "home"
    home.mkdir()
    env = {"PREFECT_HOME": str(home)}
    assert api_url_in_profile(tmp_path, env) is False
    (home / "profiles.toml").write_text('active = "ephemeral"\n[profiles.ephemeral]\n', encoding="utf-8")
    assert api_url_in_profile(tmp_path, env) is False
    (home / "profiles.toml").write_text('active = "local"\n', encoding="utf-8")   # Prefect's own "local"
    assert api_url_in_profile(tmp_path, env) is None
    (home / "profiles.toml").write_text(
        'active = "prod"\n[profiles.prod]\nPREFECT_API_URL = "http://10.1.2.3:4200/api"\n', encoding="utf-8")
    assert api_url_in_profile(tmp_path, env) is True
    (tmp_path / "prefect.toml").write_text('[api]\nurl = "http://x/api"\n', encoding="utf-8")
    assert api_url_in_profile(tmp_path, env) is None   # another source: Prefect decides
    other = tmp_path / "other"
    other.mkdir()
    (other / "pyproject.toml").write_text('[tool.prefect.api]\nurl = "http://x/api"\n', encoding="utf-8")
    assert api_url_in_profile(other, env) is None


@pytest.mark.slow
def test_the_command_ends_like_a_normal_exit_without_the_teardown(sample_inbox: Path, tmp_path: Path) -> None:
    """``flows.exits.leave`` ends through the interpreter's own shutdown, and so does what
    it does that matters: the SQLite WAL is checked back into the warehouse file (a copy of the
    file alone holds the night), stdout arrives whole through a pipe, and the exit codes stand."""
    import shutil
    import sqlite3

    url = f"sqlite:///{tmp_path / 'w.db'}"
    done = ratings(tmp_path, "run", "--inbox", str(sample_inbox), "--warehouse", url, "--as-of", "2026-02-01",
                   "--no-site", "--reports", str(tmp_path / "reports"))
    assert done.returncode == 0, done.stderr[-3000:]
    assert "reports written to" in done.stdout    # the summary's last line, after the tables
    assert not (tmp_path / "w.db-wal").exists(), "the WAL was not checked back into the warehouse file"
    shutil.copyfile(tmp_path / "w.db", tmp_path / "copy.db")
    with sqlite3.connect(tmp_path / "copy.db") as copy:
        assert copy.execute("SELECT count(*) FROM games").fetchone()[0] > 0
    listed = ratings(tmp_path, "list", "--federation", "ajusc", "--format", "csv", "--warehouse", url)
    assert listed.returncode == 0 and listed.stdout.count("\n") == 13, listed.stdout[-2000:]   # 12 players
    mistake = ratings(tmp_path, "list", "--federation", "nope", "--warehouse", url)
    assert mistake.returncode == 1 and mistake.stderr.startswith("ratings: "), mistake.stderr[-2000:]


@pytest.mark.slow
def test_a_temporary_prefect_server_writes_to_a_log_not_the_terminal(tmp_path: Path) -> None:
    """Forced onto the Prefect engine without an API, Prefect starts a temporary server; its own
    output (here made talkative with DEBUG) goes to a file beside the error logs, and the
    terminal shows only the command's line: no server lines, no "Error logging to API" after it
    stopped (``flows.orchestration.temporary_server_output_to_log``; a CI run once printed the
    server's traceback of a cancelled rollback after the command's line)."""
    url = f"sqlite:///{tmp_path / 'w.db'}"
    (tmp_path / "empty").mkdir()   # a warehouse with nothing published (a read-only command makes none)
    made = ratings(tmp_path, "run", "--inbox", "empty", "--warehouse", url, "--no-site")
    assert made.returncode == 0, made.stderr[-3000:]
    done = ratings(tmp_path, "list", "--federation", "ajusc", "--warehouse", url,
                   RATINGS_ORCHESTRATOR="prefect", PREFECT_SERVER_LOGGING_LEVEL="DEBUG")
    assert done.returncode == 1, done.stderr[-3000:]
    assert done.stderr.splitlines() == ["ratings: no list published for ajusc: run `ratings run` first"], \
        done.stderr[-3000:]
    assert done.stdout == ""
    logs = list((tmp_path / "logs").glob("prefect-server-*.log"))
    assert len(logs) == 1, logs
    assert "Started server process" in logs[0].read_text(encoding="utf-8")
