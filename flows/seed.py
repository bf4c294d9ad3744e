"""Seed: load the starting rating list a federation brings to the pipeline.

A writing run: it takes the warehouse's run lock like ``nightly`` and ``backfill``
(``warehouse.guard``), so a seed never interleaves with a run rating the same
history. Run by ``ratings seed``; its one task is :func:`tasks.seed.load_seed_list`.
"""

from __future__ import annotations

from flows.config import federation_config
from tasks.runtime import flow
from tasks.seed import SeedLoaded, load_seed_list
from warehouse.guard import exclusive

__all__ = ["SeedLoaded", "seed"]


@flow(name="seed", description="Load a federation's starting rating list into the warehouse.")
@exclusive   # one writing run at a time per warehouse (warehouse/guard.py)
def seed(file: str, federation: str, warehouse_url: str | None = None) -> SeedLoaded:
    """Load the starting list ``file`` for ``federation`` (exactly once per file).

    Parameters
    ----------
    file
        The starting rating list (``*.ratings.csv``), a path readable by the worker.
    federation
        The federation it seeds (``ajusc``, ``fide``, ``egf``).
    warehouse_url
        ``None`` (always, from the CLI and deployments): ``$RATINGS_WAREHOUSE_URL`` or
        the default warehouse; the URL is never stored as a parameter.

    Raises
    ------
    flows.config.ConfigError
        An unknown federation.
    FileNotFoundError, formats.RatingsFileError
        A missing file, or a list refused with its file, line and field.
    """
    config = federation_config(federation)   # fail fast, with the known ids, on a typo
    return load_seed_list(file, federation, warehouse_url, config)
