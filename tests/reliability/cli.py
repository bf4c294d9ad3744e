"""Run the installed ``ratings`` command in a child process, as a user (or cron) would."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

RATINGS = Path(sys.executable).with_name("ratings")


def ratings_env(tmp: Path, **extra: str) -> dict[str, str]:
    """An environment for a child ``ratings``: offline, its own Prefect home and log folder."""
    (tmp / "prefect-home").mkdir(parents=True, exist_ok=True)   # Prefect makes only the last folder
    env = {k: v for k, v in os.environ.items() if not k.startswith(("RATINGS_CRASH", "RATINGS_FAULT"))}
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


def ratings(tmp: Path, *args: str, timeout: float = 400, **env: str) -> subprocess.CompletedProcess[str]:
    """``ratings ARGS`` in ``tmp``; returns the finished process (stdout, stderr, returncode)."""
    return subprocess.run(
        [str(RATINGS), *args], cwd=tmp, env=ratings_env(tmp, **env), capture_output=True, text=True,
        timeout=timeout, check=False,
    )
