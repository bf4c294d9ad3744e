"""The Great Expectations project of a run: created before any validation, Data Docs built after.

Great Expectations is imported only when a run asks for a GX project (``--gx-root``).
"""

from __future__ import annotations

from pathlib import Path

from tasks.runtime import get_run_logger, task


@task(name="prepare_gx_project")
def prepare_gx_project(gx_root: str) -> str:
    """Create or update the file-based GX project under ``gx_root`` (idempotent).

    Run once, before any validation: concurrent writers corrupt a GX file project.
    """
    import validations

    root = validations.ensure_gx_project(Path(gx_root))
    get_run_logger().info("Great Expectations project ready in %s", root)
    return str(root)


@task(name="build_data_docs")
def build_data_docs(gx_root: str) -> str:
    """Rebuild the project's Data Docs (the newest validation results); return their folder."""
    import validations

    docs = validations.build_data_docs(Path(gx_root))
    get_run_logger().info("Data Docs built in %s", docs)
    return str(docs)
