"""Publish the static site: every list, edition, player and competition as pages.

One coarse task (the whole site, or one federation's part of it): the site is
generated from the warehouse after the night's publication, so it always shows
what the warehouse holds. Pages whose content did not change are not rewritten.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from datetime import date
from pathlib import Path
from typing import Any

import warehouse
import website
from tasks import site_process
from tasks.runtime import get_run_logger, task
from tasks.site_pages import generate_site, site_names
from warehouse.site import site_federations

__all__ = ["build_site", "generate", "generate_site", "publish_site", "site_names", "site_workers",
           "write_list_downloads"]

#: The federations' configuration (``flows.config.federations()``), which the flow passes in.
Configs = Mapping[str, Mapping[str, Any]]


def site_workers() -> int:
    """Processes that render the pages: one per CPU this process may run on.

    ``website.build_site`` forks them only for a federation of at least
    ``website.build.PARALLEL_FROM`` cards; a smaller site renders in the calling process.
    """
    try:
        return max(len(os.sched_getaffinity(0)), 1)
    except AttributeError:  # no sched_getaffinity (macOS, Windows)
        return os.cpu_count() or 1


def generate(
    warehouse_url: str | None, site_dir: str | Path, federation: str | None = None, as_of: date | None = None,
    *, workers: int = 1, configs: Configs | None = None,
) -> website.SiteResult:
    """:func:`generate_site`, in a process of its own when the site is large (``tasks.site_process``).
    ``configs``: the federations' configuration, for their names."""
    names = site_names(configs or {})
    url = site_process.apart(warehouse_url, federation)
    if url is not None:
        return site_process.generate_in_child(url, site_dir, federation, as_of, workers, names)   # type: ignore[no-any-return]
    return generate_site(warehouse_url, site_dir, federation, as_of, workers=workers, names=names)


def write_list_downloads(
    warehouse_url: str | None, site_dir: str | Path, federation: str | None = None, configs: Configs | None = None,
) -> int:
    """Beside each edition's page, the edition in the federation's own list formats
    (``<fed>/downloads/``, ``formats.list_exports.SITE_DOWNLOADS``): the files
    ``ratings list --format`` writes, byte for byte. A published edition never changes, so a
    file already there is kept; only the editions published since are written. Returns
    how many files were written."""
    from formats.list_exports import SITE_DOWNLOADS, ListHeader, export_file_name
    from formats.safety import atomic_write_bytes, path_inside
    from tasks.lookup import LIST_COLUMNS, Edition, export_entries, list_file
    from website.safe import folder_name

    db = warehouse.get_engine(warehouse_url)
    written = 0
    known = configs or {}
    feds = [federation] if federation else site_federations(db).get_column("federation").to_list()
    for fed in feds:
        config = dict(known.get(fed, {}))
        formats_ = SITE_DOWNLOADS.get(str(config.get("system")), ())
        if not formats_:
            continue
        folder = path_inside(Path(site_dir), folder_name(fed), "downloads")
        todo: dict[int, Edition] = {}
        for row in warehouse.editions(db, fed).iter_rows(named=True):
            edition = Edition(fed, int(row["list_id"]), int(row["edition"]), str(row["kind"]), row["as_of"],
                              row["list_name"])
            header = ListHeader(fed, edition.edition, edition.as_of, edition.list_name)
            if not all((folder / export_file_name(header, fmt)).is_file() for fmt in formats_):
                todo[edition.edition] = edition
        # The list's editions replayed in order, each line read once (one edition read on its own
        # replays every line of the list since its last full edition: 1.4 s an edition at 5M games).
        for number, rows in warehouse.edition_contents(db, fed, sorted(todo)):
            edition = todo[number]
            entries = export_entries.fn(rows.select([c for c in LIST_COLUMNS if c in rows.columns]), edition, config)
            for fmt in formats_:
                name = export_file_name(ListHeader(fed, edition.edition, edition.as_of, edition.list_name), fmt)
                if (folder / name).is_file():
                    continue
                name, data = list_file.fn(entries, edition, fmt)
                atomic_write_bytes(folder / name, data)
                written += 1
    return written


@task(name="publish_site")
def publish_site(
    warehouse_url: str | None, site_dir: str, federation: str | None = None, as_of: date | None = None,
    configs: Configs | None = None,
) -> website.SiteResult | None:
    """Regenerate ``site_dir`` from the warehouse; None when no federation has a list yet.
    ``configs``: the federations' configuration (``flows.config.federations()``)."""
    logger = get_run_logger()
    db = warehouse.get_engine(warehouse_url)
    if federation is not None and federation not in site_federations(db).get_column("federation").to_list():
        logger.info("site: %s has no published edition yet, nothing to publish", federation)
        return None
    result = generate(warehouse_url, site_dir, federation, as_of, workers=site_workers(), configs=configs)
    downloads = write_list_downloads(warehouse_url, site_dir, federation, configs)
    if downloads:
        logger.info("site: %d list file(s) for download written beside the editions", downloads)
    logger.info(
        "site %s: %d page(s), %d written, %d removed in %.1f s (CPU by phase: %s)",
        result.out, result.pages, result.written, result.removed, result.seconds,
        ", ".join(f"{phase} {cpu:.1f} s" for phase, cpu in result.phases.items()) or "no phase",
    )
    return result


@task(name="build_site")
def build_site(
    warehouse_url: str | None, site_dir: str, federation: str | None = None, as_of: date | None = None,
    workers: int = 1, configs: Configs | None = None,
) -> website.SiteResult:
    """The whole generation ``ratings site`` asks for, with the workers it was given: unlike
    :func:`publish_site` (the nightly's), also when no federation has a list yet."""
    result = generate(warehouse_url, site_dir, federation, as_of, workers=workers, configs=configs)
    get_run_logger().info("site %s: %d page(s), %d written, %d removed in %.1f s",
                          result.out, result.pages, result.written, result.removed, result.seconds)
    return result
