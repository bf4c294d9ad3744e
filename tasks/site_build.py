"""Generate the static publication site on request (``ratings site``).

The nightly run regenerates the site with :func:`tasks.site.publish_site` (which skips a
federation without a published edition and sizes its workers itself); ``ratings site``
asks for the whole generation with the workers it was given, even when no federation
has a list yet. This task wraps :func:`tasks.site.generate_site` for the ``site`` flow.
"""

from __future__ import annotations

from datetime import date

from tasks.runtime import get_run_logger, task
from tasks.site import generate_site
from website import SiteResult

__all__ = ["SiteResult", "build_site"]


@task(name="build_site")
def build_site(
    warehouse_url: str | None, site_dir: str, federation: str | None = None, as_of: date | None = None,
    workers: int = 1,
) -> SiteResult:
    """Generate ``site_dir`` from the warehouse (every federation with an edition, or ``federation``'s)
    with ``workers`` rendering processes; pages whose content did not change are not rewritten."""
    result = generate_site(warehouse_url, site_dir, federation, as_of, workers=workers)
    get_run_logger().info("site %s: %d page(s), %d written, %d removed in %.1f s",
                          result.out, result.pages, result.written, result.removed, result.seconds)
    return result
