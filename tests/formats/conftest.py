"""Shared fixtures of the reader tests: where the real data lives."""

from __future__ import annotations

from pathlib import Path

import pytest

#: ``../shared/data`` relative to the repository root (never copied into the project).
SHARED_DATA = (Path(__file__).resolve().parents[2] / ".." / "shared" / "data").resolve()


def shared(*parts: str) -> Path:
    """A path under the shared real data; skips the test when it is absent."""
    path = SHARED_DATA.joinpath(*parts)
    if not path.exists():
        pytest.skip(
            f"real data not available: {path} (the shared data folder is not beside the repository)"
        )
    return path


@pytest.fixture
def data_dir() -> Path:
    """The shared real data folder (skips when absent)."""
    return shared()
