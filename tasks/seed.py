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
from typing import Any

import engine
import formats
import warehouse
from formats.schema import RATINGS_SCHEMA
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
def load_seed_list(file: str, federation: str, warehouse_url: str | None,
                   config: dict[str, Any] | None = None) -> SeedLoaded:
    """Read the starting list ``file`` and load it into the warehouse for ``federation``.

    A list that carries its edition number (``edition``) is that edition, published as
    the federation lists it (``config``: its table) on the list's date: ``ratings list
    --edition N`` shows it, and the first night's edition is counted against it.

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
    read = formats.read_list(path, federation=federation)
    ratings, edition = read.ratings.select(list(RATINGS_SCHEMA)), read.list_edition
    db = warehouse.get_engine(warehouse_url)
    count = warehouse.load_seed(
        db, federation, ratings, source=path.name,
        source_sha256=hashlib.sha256(path.read_bytes()).hexdigest(), edition=edition,
    )
    as_of = ratings.get_column("as_of").drop_nulls().min() if "as_of" in ratings.columns else None
    history = warehouse.history(db, federation)
    rated = history.competitions.height
    logger = get_run_logger()
    logger.info("%s: %d player(s) seeded from %s", federation, count, path.name)
    if edition is not None and isinstance(as_of, date) and history.seed.height:
        listed = engine.rating_list(federation, engine.state_from_seed(history.seed), as_of=as_of, config=config)
        if warehouse.publish_seed_edition(db, federation, listed, as_of=as_of) is not None:
            logger.info("%s: the seeded list is edition %d, in force from %s", federation, edition, as_of)
    return SeedLoaded(federation=federation, source=path.name, players=count, edition=edition,
                      as_of=as_of if isinstance(as_of, date) else None, competitions=rated)
