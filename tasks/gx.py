"""The Great Expectations project of a run: created before any validation, Data Docs built after.

Both run in the Great Expectations process (:mod:`validations.gx_process`), where the
suites run: Great Expectations is never imported in the run's own process.
"""

from __future__ import annotations

import os
from pathlib import Path

from tasks.runtime import get_run_logger, task


@task(name="prepare_gx_project")
def prepare_gx_project(gx_root: str) -> str:
    """Create or update the file-based GX project under ``gx_root`` (idempotent).

    Run once, before any validation: concurrent writers corrupt a GX file project.
    """
    from validations import gx_process

    root = gx_process.call("ensure_gx_project", str(Path(gx_root)))
    get_run_logger().info("Great Expectations project ready in %s", root)
    return str(root)


@task(name="build_data_docs")
def build_data_docs(gx_root: str) -> str:
    """Rebuild the project's Data Docs (the newest validation results); return their folder."""
    from validations import gx_process

    docs = gx_process.call("build_data_docs", str(Path(gx_root)))
    get_run_logger().info("Data Docs built in %s", docs)
    return str(docs)


#: Set (not "" or "0"): keep the Great Expectations process between runs, for a process that runs
#: many small ones (the test suite), where starting it again (3-5 s) costs more than its memory.
KEEP_ENV = "RATINGS_GX_KEEP"


def end_great_expectations() -> None:
    """End the Great Expectations process (:mod:`validations.gx_process`) when a run has no more
    to validate: its memory (some 300 MB) goes before the rating, the load and the site. The
    next validation starts another. Kept when :data:`KEEP_ENV` is set. Not a task: it costs
    nothing a run needs to see."""
    if os.environ.get(KEEP_ENV, "") not in ("", "0"):
        return
    from validations import gx_process

    gx_process.stop()
