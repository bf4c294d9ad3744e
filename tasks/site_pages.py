"""The site generated from the warehouse, without a task or a process around it.

Both the site's task (:mod:`tasks.site`) and the site's child process
(:mod:`tasks.site_process`) call :func:`generate_site`; it lives here so that neither of those
two modules imports the other's (the task starts the child, the child generates the pages).
The federations' configuration comes in as a parameter, from the flow that runs the site.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date
from pathlib import Path
from typing import Any

import warehouse
import website

__all__ = ["generate_site", "site_names"]


def site_names(configs: Mapping[str, Mapping[str, Any]]) -> dict[str, dict[str, object]]:
    """Name, game and system of each configured federation (shown where the warehouse has none)."""
    return {fed: {k: table[k] for k in ("name", "game", "system") if k in table}
            for fed, table in configs.items()}


def generate_site(
    warehouse_url: str | None, site_dir: str | Path, federation: str | None = None, as_of: date | None = None,
    *, workers: int = 1, names: Mapping[str, dict[str, object]] | None = None,
) -> website.SiteResult:
    """Generate the site (pure; the task adds logging). Only federations with an edition get pages.
    ``names``: :func:`site_names` of the configured federations."""
    db = warehouse.get_engine(warehouse_url)
    return website.build_site(
        db, Path(site_dir), federations=[federation] if federation else None,
        names=dict(names or {}), generated=as_of, workers=workers,
    )
