"""The README's Deployment section, run for real: scripts/deployment-smoke.

A Prefect server, the process work pool, `prefect deploy --all`, a worker whose
RATINGS_HOME is a data folder, and the nightly, backfill and whatif deployments run to
Completed with their effect on the warehouse checked. A file-path entrypoint would make
every deployed run crash with ``FileNotFoundError: <RATINGS_HOME>/flows/nightly.py``.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "scripts" / "deployment-smoke"
README = REPO / "README.md"


@pytest.mark.deployment
@pytest.mark.slow
@pytest.mark.minutes
def test_deployment_smoke_script_passes() -> None:
    done = subprocess.run([sys.executable, str(SCRIPT)], cwd=REPO, capture_output=True, text=True, timeout=600,
                          check=False)
    print(done.stdout)
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-6000:]
    for line in ("nightly/nightly-ajusc: Completed", "backfill/backfill: Completed", "whatif/whatif: Completed",
                 "the warehouse is unchanged", "deployment smoke passed"):
        assert line in done.stdout


#: The steps of the README's Deployment section, as the script runs (and prints) them.
STEPS = [
    "prefect server start --host 127.0.0.1 --port",
    "prefect work-pool create ratings-process --type process",
    "prefect --no-prompt deploy --all",
    "prefect worker start --pool ratings-process",
    "prefect deployment run nightly/nightly-ajusc --watch",
    "ratings seed --federation ajusc",
    "prefect deployment run backfill/backfill --watch",
    "prefect deployment run whatif/whatif --watch",
]


def test_readme_deployment_section_is_what_the_script_runs() -> None:
    section = README.read_text(encoding="utf-8").split("## Deployment", 1)[1].split("\n## ", 1)[0]
    positions = [section.find(step) for step in STEPS]
    assert -1 not in positions, [s for s, p in zip(STEPS, positions) if p == -1]
    assert positions == sorted(positions), "the README lists the steps in another order than the script"
    assert "RATINGS_HOME=" in section and "PREFECT_API_URL=" in section and "PREFECT_HOME=" in section
    script = SCRIPT.read_text(encoding="utf-8")
    for words in (['"server", "start", "--host", "127.0.0.1", "--port"'], ['"work-pool", "create", "ratings-process"'],
                  ['"--no-prompt", "deploy", "--all"'], ['"worker", "start", "--pool", "ratings-process"'],
                  ['"nightly/nightly-ajusc"', '"backfill/backfill"', '"whatif/whatif"', '"deployment", "run"']):
        for phrase in words:
            assert phrase in script, phrase
