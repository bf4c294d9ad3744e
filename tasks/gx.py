"""The Great Expectations project of a run: created before any validation, Data Docs built after.

Great Expectations is imported only when a run asks for a GX project (``--gx-root``).
"""

from __future__ import annotations

from pathlib import Path

from prefect import task
from prefect.cache_policies import NO_CACHE

from tasks.runtime import get_run_logger


@task(name="prepare_gx_project", cache_policy=NO_CACHE)
def prepare_gx_project(gx_root: str) -> str:
    """Create or update the file-based GX project under ``gx_root`` (idempotent).

    Run once, before any validation: concurrent writers corrupt a GX file project.
    """
    import validations

    root = validations.ensure_gx_project(Path(gx_root))
    get_run_logger().info("Great Expectations project ready in %s", root)
    return str(root)


@task(name="build_data_docs", cache_policy=NO_CACHE)
def build_data_docs(gx_root: str) -> str:
    """Rebuild the project's Data Docs (the newest validation results); return their folder."""
    import validations

    docs = validations.build_data_docs(Path(gx_root))
    get_run_logger().info("Data Docs built in %s", docs)
    return str(docs)
