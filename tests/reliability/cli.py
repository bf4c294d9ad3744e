"""Run the installed ``ratings`` command in a child process, as a user (or cron) would.

Given one of the fault variables (:data:`tests.faults.VARIABLES`), the child is ``python -P -m
tests.faults ARGS``: the same command with those faults armed (the installed one reads none).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.faults import VARIABLES

ROOT = Path(__file__).resolve().parents[2]
RATINGS = Path(sys.executable).with_name("ratings")
#: Seconds a child ``ratings`` may run before it is killed. A caller that passes ``**env``
#: names it too, so that no environment variable can be taken for the ``timeout`` keyword.
TIMEOUT_S = 400


def ratings_env(tmp: Path, **extra: str) -> dict[str, str]:
    """An environment for a child ``ratings``: offline, its own Prefect home and log folder."""
    (tmp / "prefect-home").mkdir(parents=True, exist_ok=True)   # Prefect makes only the last folder
    env = {k: v for k, v in os.environ.items() if k not in VARIABLES}
    env.pop("PREFECT_API_URL", None)
    env.update({
        "PREFECT_HOME": str(tmp / "prefect-home"),
        "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
        "PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS": "180",
        "GX_ANALYTICS_ENABLED": "false",
        "DO_NOT_TRACK": "1",
        "RATINGS_LOG_DIR": str(tmp / "logs"),
        "COLUMNS": "200",
    })
    env.update(extra)
    return env


def ratings(tmp: Path, *args: str, timeout: float = TIMEOUT_S, **env: str) -> subprocess.CompletedProcess[str]:
    """``ratings ARGS`` in ``tmp``; returns the finished process (stdout, stderr, returncode)."""
    child_env = ratings_env(tmp, **env)
    command = [str(RATINGS), *args]
    if any(name in env for name in VARIABLES):
        # This checkout first: the child imports its packages and ``tests`` from here.
        child_env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), child_env.get("PYTHONPATH")) if p)
        command = [sys.executable, "-P", "-m", "tests.faults", *args]
    return subprocess.run(command, cwd=tmp, env=child_env, capture_output=True, text=True, timeout=timeout,
                          check=False)
