"""Reliability tests: error logs of the CLI go to a temporary folder, not the working directory."""

from __future__ import annotations

import os
import tempfile

os.environ.setdefault("RATINGS_LOG_DIR", tempfile.mkdtemp(prefix="ratings-test-logs-"))

from collections.abc import Iterator

import pytest


@pytest.fixture(scope="session")
def prefect_harness() -> Iterator[None]:
    """One Prefect test harness for the tests that run flows in this process."""
    from prefect.testing.utilities import prefect_test_harness

    with prefect_test_harness(server_startup_timeout=90):
        yield
