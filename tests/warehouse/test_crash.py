"""A load killed mid-transaction, then rerun, leaves the warehouse equal to one clean load."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.warehouse.conftest import FIXTURES
from warehouse import LoadBatch, get_engine, load_batch
from warehouse.testing import table_rows, temporary_postgres_database

ROOT = Path(__file__).resolve().parents[2]


def _killed_load(url: str, files: list[Path]) -> str:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run(
        [sys.executable, "-m", "tests.warehouse.crash_loader", url, *map(str, files)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=False,
    )
    assert proc.returncode == -signal.SIGKILL, proc.stdout + proc.stderr
    return proc.stdout


@contextmanager
def _fresh(kind: str, tmp_path: Path, name: str, pg_server_url: str | None) -> Iterator[str]:
    if kind == "sqlite":
        yield f"sqlite:///{tmp_path / name}"
    else:
        assert pg_server_url is not None
        with temporary_postgres_database(pg_server_url, prefix="ratings_crash_") as url:
            yield url


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def test_killed_load_then_rerun_equals_clean_load(
    kind: str, tmp_path: Path, request: pytest.FixtureRequest, own_batch: LoadBatch,
    tiny_batch: Callable[..., LoadBatch],
) -> None:
    server = request.getfixturevalue("pg_server_url") if kind == "postgresql" else None
    with _fresh(kind, tmp_path, "crashed.db", server) as crashed_url, \
            _fresh(kind, tmp_path, "clean.db", server) as clean_url:
        crashed = get_engine(crashed_url)
        load_batch(crashed, own_batch)
        before = table_rows(crashed)
        crashed.dispose()

        out = _killed_load(crashed_url, [FIXTURES / "ajusc-open.results.csv"])
        assert f"games visible in the doomed transaction: {480 + 9}" in out

        crashed = get_engine(crashed_url)
        assert table_rows(crashed) == before  # the kill left the old state, whole
        result = load_batch(crashed, tiny_batch())
        assert (result.files_loaded, result.games_loaded) == (1, 9)

        clean = get_engine(clean_url)
        load_batch(clean, own_batch)
        load_batch(clean, tiny_batch())
        assert table_rows(crashed) == table_rows(clean)
        crashed.dispose()
        clean.dispose()
