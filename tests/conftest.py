"""Test-wide settings: offline, isolated Prefect home, shared-data location.

``PREFECT_HOME`` must point at a temporary folder *before* prefect is imported
(the test harness does not isolate it; results and transaction records land there).
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

_PREFECT_HOME = tempfile.mkdtemp(prefix="ratings-prefect-home-")
os.environ["PREFECT_HOME"] = _PREFECT_HOME
os.environ.pop("PREFECT_API_URL", None)
os.environ["PREFECT_SERVER_ANALYTICS_ENABLED"] = "false"
os.environ["GX_ANALYTICS_ENABLED"] = "false"
os.environ["DO_NOT_TRACK"] = "1"

import pytest  # noqa: E402

#: Real federation files (never copied into the project).
SHARED_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The ``../shared/data`` folder, or a clean skip where it is absent."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f"real federation data not available at {SHARED_DATA}")
    return SHARED_DATA
