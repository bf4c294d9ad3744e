"""Site: generate the static publication site from the warehouse (``ratings site``).

Reads the warehouse and writes the site folder only: it takes no run lock (the nightly
and backfill runs regenerate the site themselves, inside theirs). Its one task is
:func:`tasks.site.build_site`.
"""

from __future__ import annotations

from datetime import date

from flows.config import federation_config, federations
from tasks.runtime import flow
from tasks.site import build_site
from website import SiteResult

__all__ = ["SiteResult", "site"]


@flow(name="site", description="Generate the static publication site from the warehouse.")
def site(
    out: str, federation: str | None = None, workers: int = 1, warehouse_url: str | None = None,
    as_of: date | None = None,
) -> SiteResult:
    """Generate the site in ``out`` (lists, editions, players, competitions).

    Parameters
    ----------
    out
        The site folder (created if missing).
    federation
        Only this federation's part; ``None``: every federation with a published list.
    workers
        Processes rendering the player cards (a large federation's).
    warehouse_url
        ``None`` (always, from the CLI): ``$RATINGS_WAREHOUSE_URL`` or the default warehouse.
    as_of
        The generation date shown on the pages (default: today).

    Returns
    -------
    SiteResult
        Pages generated, written and removed, by federation.
    """
    if federation is not None:
        federation_config(federation)
    return build_site(warehouse_url, out, federation, as_of, workers, configs=federations())
