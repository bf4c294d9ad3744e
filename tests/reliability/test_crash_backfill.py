"""Crash safety of `ratings backfill` killed with SIGKILL, then run again (issue 9).

The harness and its budget (``RATINGS_CRASH_POINTS``) are in :mod:`tests.reliability.crash`.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.reliability.crash import killed_anywhere_then_rerun_equals_a_clean_run

pytestmark = [pytest.mark.crash, pytest.mark.slow, pytest.mark.minutes]


def test_backfill_killed_anywhere_then_rerun_equals_a_clean_run(
    tmp_path: Path, prefect_api: str, fresh_url: object,
) -> None:
    killed_anywhere_then_rerun_equals_a_clean_run("backfill", tmp_path, prefect_api, fresh_url)
