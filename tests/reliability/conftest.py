"""Reliability tests: error logs of the CLI go to a temporary folder, not the working directory."""

from __future__ import annotations

import os
import tempfile

os.environ.setdefault("RATINGS_LOG_DIR", tempfile.mkdtemp(prefix="ratings-test-logs-"))
