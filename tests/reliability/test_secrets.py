"""Database credentials never appear in logs, artifacts, reports or errors.

A whole night runs against PostgreSQL with a password-bearing URL given the three ways
a user gives it (``RATINGS_WAREHOUSE_URL``, ``--warehouse`` and a Prefect Secret block
named by ``RATINGS_WAREHOUSE_SECRET``), in-process and under the Prefect engine, then
once more with an injected internal error; the password is looked for in every byte the runs left:
stdout, stderr, the reports, the error logs, and the Prefect server's own database
(flow-run parameters, logs, artifacts).
"""

from __future__ import annotations

import secrets
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import make_url

from tests.conftest import require_postgres
from tests.reliability.cli import ratings

SAMPLE = Path(__file__).resolve().parents[2] / "examples" / "inbox"

pytestmark = [pytest.mark.postgres, pytest.mark.slow]


@pytest.fixture
def secret_url() -> Iterator[tuple[str, str]]:
    """(URL with a password, the password) of a throwaway database and login role."""
    from warehouse.testing import (
        postgres_server_url,
        temporary_postgres_database,
    )

    require_postgres()
    role, password = f"ratings_secret_{secrets.token_hex(4)}", f"Pw{secrets.token_hex(12)}"
    admin = sa.create_engine(postgres_server_url(), isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        # The test server trusts local connections: any password works, so it can be real-looking.
        conn.exec_driver_sql(f"CREATE ROLE {role} LOGIN SUPERUSER PASSWORD '{password}'")
    try:
        with temporary_postgres_database(postgres_server_url(), prefix="ratings_secret_") as url:
            yield make_url(url).set(username=role, password=password).render_as_string(hide_password=False), password
    finally:
        with admin.connect() as conn:
            conn.exec_driver_sql(f"DROP ROLE IF EXISTS {role}")
        admin.dispose()


def _everything(tmp: Path) -> dict[str, bytes]:
    return {str(p): p.read_bytes() for p in tmp.rglob("*") if p.is_file() and p.stat().st_size < 200_000_000}


def test_a_password_appears_nowhere_after_a_night(tmp_path: Path, secret_url: tuple[str, str]) -> None:
    url, password = secret_url
    shutil.copytree(SAMPLE, tmp_path / "inbox")
    base = ("run", "--inbox", "inbox", "--as-of", "2026-02-01")
    outputs = []
    by_env = ratings(tmp_path, *base, RATINGS_WAREHOUSE_URL=url)
    assert by_env.returncode == 0, by_env.stderr[-3000:]
    (tmp_path / "inbox" / "late.results.csv").write_text(
        (tmp_path / "inbox" / "CAT-2025-01.results.csv").read_text(encoding="utf-8").replace("CAT-2025-01", "LATE-1"),
        encoding="utf-8",
    )
    # Under the Prefect engine (a temporary server in PREFECT_HOME, grepped below with the rest).
    by_flag = ratings(tmp_path, *base, "--warehouse", url, RATINGS_ORCHESTRATOR="prefect")
    assert by_flag.returncode == 0, by_flag.stderr[-3000:]
    (tmp_path / "inbox" / "later.results.csv").write_text(
        (tmp_path / "inbox" / "CAT-2025-01.results.csv").read_text(encoding="utf-8").replace("CAT-2025-01", "LATE-2"),
        encoding="utf-8",
    )
    failed = ratings(tmp_path, *base, "--warehouse", url, RATINGS_FAULT_AT="rate:1")
    assert failed.returncode == 2 and "details in" in failed.stderr
    for run in (by_env, by_flag, failed):
        outputs.append(run.stdout + run.stderr)
    assert password not in "\n".join(outputs)
    leaks = [path for path, data in _everything(tmp_path).items() if password.encode() in data]
    assert leaks == []


@pytest.fixture
def secret_block(secret_url: tuple[str, str], prefect_harness: None, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A Prefect Secret block holding the password-bearing URL, named by ``RATINGS_WAREHOUSE_SECRET``."""
    from prefect.blocks.system import Secret
    from pydantic import SecretStr

    from warehouse import db

    name = f"ratings-warehouse-{secrets.token_hex(4)}"
    Secret(value=SecretStr(secret_url[0])).save(name)
    monkeypatch.delenv("RATINGS_WAREHOUSE_URL", raising=False)
    monkeypatch.setenv("RATINGS_WAREHOUSE_SECRET", name)
    monkeypatch.setattr(db, "_secret_urls", {})
    yield name


def test_the_warehouse_url_comes_from_a_secret_block_and_never_shows(
    tmp_path: Path, secret_url: tuple[str, str], secret_block: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A night under the Prefect engine (the test harness) whose only warehouse setting is the
    Secret block's name: it lands in that database, and the password is in no output,
    report, log or error; an unreadable block is one line naming the block."""
    from typer.testing import CliRunner

    import warehouse
    from flows.cli import app

    url, password = secret_url
    shutil.copytree(SAMPLE, tmp_path / "inbox")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("RATINGS_LOG_DIR", str(tmp_path / "logs"))
    runner = CliRunner()
    done = runner.invoke(app, ["run", "--inbox", "inbox", "--as-of", "2026-02-01", "--no-site"])
    assert done.exit_code == 0, done.output
    assert warehouse.history(warehouse.get_engine(url), "ajusc").competitions.height == 4   # the block's database
    (tmp_path / "inbox" / "late.results.csv").write_text(
        (tmp_path / "inbox" / "CAT-2025-01.results.csv").read_text(encoding="utf-8").replace("CAT-2025-01", "LATE-3"),
        encoding="utf-8",
    )
    from tests import faults

    with faults.armed(fault="rate:1"):   # an unexpected error: its log holds a traceback
        failed = runner.invoke(app, ["run", "--inbox", "inbox", "--as-of", "2026-02-01", "--no-site"])
    assert failed.exit_code == 2 and "details in" in failed.output, failed.output
    monkeypatch.setenv("RATINGS_WAREHOUSE_SECRET", "no-such-block")
    missing = runner.invoke(app, ["list", "--federation", "ajusc"])
    assert missing.exit_code == 1
    assert "Prefect Secret block 'no-such-block'" in missing.output and len(missing.output.strip().splitlines()) == 1
    for run in (done, failed, missing):
        assert password not in run.output
    leaks = [path for path, data in _everything(tmp_path).items() if password.encode() in data]
    assert leaks == []
