"""Crash safety of `ratings run` killed with SIGKILL, then run again.

The harness, its budget (``RATINGS_CRASH_POINTS``) and the test are in :mod:`tests.reliability.crash`.
"""

import pytest

from tests.reliability.crash import crash_test

pytestmark = [pytest.mark.crash, pytest.mark.slow, pytest.mark.minutes]

test_run_killed_anywhere_then_rerun_equals_a_clean_run = crash_test("run")
