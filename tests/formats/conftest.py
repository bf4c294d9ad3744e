"""Shared fixtures of the reader tests: where the real data lives."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import SHARED, shared_path

#: ``../shared/data`` relative to the repository root (never copied into the project).
SHARED_DATA = SHARED / "data"


def shared(*parts: str) -> Path:
    """A path under the shared real data (``tests.conftest.shared_path``: skip or CI failure)."""
    return shared_path("data", *parts)


@pytest.fixture
def data_dir() -> Path:
    """The shared real data folder (skips when absent)."""
    return shared()
