"""Seed a federation: load the starting rating list it brings to the pipeline.

One task, one IO step: read the ``*.ratings.csv`` (``formats``) and store it in the
warehouse exactly once per file (``warehouse.load_seed``). Run by the ``seed`` flow
(``flows/seed.py``, ``ratings seed``) under the warehouse's run guard.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import date
from pathlib import Path

import formats
import warehouse
from tasks.runtime import get_run_logger, task

__all__ = ["SeedLoaded", "load_seed_list"]


@dataclass(frozen=True)
class SeedLoaded:
    """What one seed did (returned by the ``seed`` flow, printed by ``ratings seed``)."""

    federation: str
    source: str                    #: the file's name
    players: int                   #: rows loaded (0: this file was already loaded)
    edition: int | None = None     #: the edition the list carried; the next ones follow it
    as_of: date | None = None      #: the earliest ``as_of`` of the list's rows
    competitions: int = 0          #: competitions of the federation already in the warehouse


@task(name="load_seed_list")
def load_seed_list(file: str, federation: str, warehouse_url: str | None) -> SeedLoaded:
    """Read the starting list ``file`` and load it into the warehouse for ``federation``.

    Parameters
    ----------
    file
        A starting rating list (interchange ``*.ratings.csv``, an EGD list), readable here.
    federation
        The federation it seeds.
    warehouse_url
        ``None``: ``$RATINGS_WAREHOUSE_URL`` (the CLI's ``--warehouse``) or the default.

    Returns
    -------
    SeedLoaded
        Players loaded, the list's edition and date, and how many competitions the
        warehouse already holds (those are not re-rated by a seed).

    Raises
    ------
    FileNotFoundError
        ``file`` is not a file.
    formats.RatingsFileError
        Not a rating list, or a row that cannot be read (file, line and field named).
    """
    path = Path(file)
    if not path.is_file():
        raise FileNotFoundError(f"no such file: {path}")
    ratings = formats.read_ratings(path, federation=federation)
    edition = formats.read(path, federation=federation).list_edition
    db = warehouse.get_engine(warehouse_url)
    count = warehouse.load_seed(
        db, federation, ratings, source=path.name,
        source_sha256=hashlib.sha256(path.read_bytes()).hexdigest(), edition=edition,
    )
    as_of = ratings.get_column("as_of").drop_nulls().min() if "as_of" in ratings.columns else None
    rated = warehouse.history(db, federation).competitions.height
    get_run_logger().info("%s: %d player(s) seeded from %s", federation, count, path.name)
    return SeedLoaded(federation=federation, source=path.name, players=count, edition=edition,
                      as_of=as_of if isinstance(as_of, date) else None, competitions=rated)
