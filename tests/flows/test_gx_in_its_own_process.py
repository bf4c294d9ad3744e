"""A night validates with Great Expectations in a process of its own (its memory is given back when it ends): the run's
process never imports it, the suites still find what is wrong, Data Docs are still built, and the
Great Expectations process has ended before the rest of the night."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.reliability.cli import ratings_env


@pytest.mark.slow
@pytest.mark.parametrize("gx_root", [False, True])
def test_a_night_never_imports_great_expectations_in_its_own_process(
    sample_inbox: Path, tmp_path: Path, gx_root: bool,
) -> None:
    probe = (
        "import atexit, sys\n"
        "from flows import cli\n"
        "from validations import gx_process\n"
        "atexit.register(lambda: print('imported here:', 'great_expectations' in sys.modules,\n"
        "                              '| still running:', gx_process.running()))\n"
        f"sys.argv = ['ratings', 'run', '--inbox', {str(sample_inbox)!r}, '--warehouse', 'sqlite:///w.db',\n"
        "            '--as-of', '2026-02-01', '--no-site', '--reports', 'reports'"
        + (", '--gx-root', 'gx']\n" if gx_root else "]\n")
        + "cli.main()\n"
    )
    env = ratings_env(tmp_path)
    env.pop("RATINGS_GX_KEEP", None)   # the tests' setting (tests/conftest.py); a night has none
    done = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "imported here: False | still running: False" in done.stdout, done.stdout[-2000:]
    # The suites ran there: the sample championship of two rounds is rejected by its rule.
    report = next((tmp_path / "reports").rglob("CAT-2025-03.md")).read_text(encoding="utf-8")
    assert "ajusc.min_rounds" in report.replace("\\", ""), report[:2000]
    if gx_root:
        docs = tmp_path / "gx" / "gx" / "uncommitted" / "data_docs" / "local_site" / "index.html"
        assert docs.is_file(), sorted(str(p) for p in (tmp_path / "gx").rglob("*"))[:50]
        assert "ajusc." in docs.read_text(encoding="utf-8")


def test_the_tests_setting_keeps_the_process_between_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    from tasks.gx import KEEP_ENV, end_great_expectations
    from validations import gx_process

    gx_process.start()
    monkeypatch.setenv(KEEP_ENV, "1")
    end_great_expectations()
    assert gx_process.running()
    monkeypatch.setenv(KEEP_ENV, "0")
    end_great_expectations()
    assert not gx_process.running()
