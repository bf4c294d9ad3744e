"""Ingest: read every new file of the inbox into the canonical frames.

Thin: the reading is :func:`formats.read`; this task lists the inbox, skips what
the load ledger already holds (a re-sent identical file is a no-op) and groups
what is left by federation.

The policy is Prefect-free and lives beside the task: listing the inbox in
``tasks/_inbox.py``, reading one file of it in ``tasks/_inbox_read.py``. This module is their
public face: :func:`read_inbox` (the night's reading, top to bottom) and the task.
"""

from __future__ import annotations

from collections.abc import Mapping
from collections.abc import Set as AbstractSet
from pathlib import Path

import polars as pl

import formats
import warehouse
from formats._common import KNOWN_FEDERATIONS
from formats.batch import FILES_SCHEMA, FederationBatch
from formats.schema import ALIASES_SCHEMA, concat
from tasks._inbox import (
    SEED_SUFFIX,
    _original_first,
    copy_to_inbox,
    file_sha256,
    inbox_entries,
    inbox_units,
)
from tasks._inbox_read import (
    SUPERSEDED_SAME_NIGHT,
    Ingested,
    _alias_keys,
    _federation_batch,
    _Night,
    _read_unit,
    _touched_by,  # looked up here by _with_night_aliases: a test swaps it for "every file"
    keep_latest_versions,
)
from tasks.runtime import get_run_logger, task

__all__ = [
    "FILES_SCHEMA",
    "SEED_SUFFIX",
    "SUPERSEDED_SAME_NIGHT",
    "FederationBatch",
    "Ingested",
    "copy_to_inbox",
    "file_sha256",
    "inbox_entries",
    "inbox_units",
    "ingest_inbox",
    "keep_latest_versions",
    "read_inbox",
]


def read_inbox(
    inbox: Path, seen: set[str], federation: str | None = None,
    known: AbstractSet[str] = KNOWN_FEDERATIONS, folders: Mapping[tuple[str, str], str] | None = None,
    again: Mapping[str, str] | None = None,
) -> Ingested:
    """Read every unit of ``inbox`` whose checksum is not in ``seen``; group them by federation.

    A file the officer asked to process again (``again``: its checksum -> the version
    checksum of the request, ``warehouse.reprocess``) is read although it is in ``seen``,
    as that version: a new version of its competitions.

    A file belongs to the federation its rows (or its format) declare; when it
    declares none, to the ``inbox/<federation>/`` subfolder it was dropped in (one
    of ``known``); only then to ``unknown``, whose reports go to the rating officer.
    A file in ``inbox/<federation>/<folder>/`` whose competitions give no
    ``organiser_email`` takes the registry's address of that folder (``folders``:
    (federation, folder) -> address).
    """
    units, outcomes = inbox_entries(inbox)
    left_out = len(outcomes)
    digests = {unit: file_sha256(unit) for unit in units
               if isinstance(unit, Path) and not unit.name.endswith(SEED_SUFFIX)}
    # Two copies of one file (a browser's ``name (1).csv``) are one file, read once: the
    # original is the one not named as a copy, then the older, then the first by name.
    originals: dict[str, Path] = {}
    for path, digest in sorted(digests.items(), key=lambda item: _original_first(item[0])):
        if digest is not None:
            originals.setdefault(digest, path)
    night = _Night(inbox=inbox, seen=seen, federation=federation, known=known, folders=folders or {},
                   again=again or {}, digests=digests, originals=originals, outcomes=outcomes)
    for unit in units:
        _read_unit(night, unit)
    reads = {fed: keep_latest_versions(results, night.sent) for fed, results in night.reads.items()}
    reads = _with_night_aliases(reads)
    batches = {fed: _federation_batch(fed, results) for fed, results in reads.items()}
    return Ingested(batches=batches, files_seen=len(units) + left_out, files_skipped=night.skipped,
                    files_ignored=night.ignored, file_outcomes=outcomes)


def _with_night_aliases(reads: dict[str, list[formats.ReadResult]]) -> dict[str, list[formats.ReadResult]]:
    """The same person under another id or spelling (``*.aliases.csv`` dropped by the
    rating officer) becomes one player in every file of the night."""
    aliases = concat([r.aliases for results in reads.values() for r in results], ALIASES_SCHEMA)
    if not aliases.height:
        return reads
    keys = _alias_keys(aliases)
    return {fed: [r.with_aliases(aliases) if _touched_by(r, keys) else r for r in results]
            for fed, results in reads.items()}



@task(name="ingest_inbox", retries=2, retry_delay_seconds=[5, 30])
def ingest_inbox(inbox: str, warehouse_url: str | None, federation: str | None = None) -> Ingested:
    """Read tonight's new files; identical re-sends (checksum in the ledger) are skipped."""
    logger = get_run_logger()
    engine = warehouse.get_engine(warehouse_url)
    folder = Path(inbox)
    if not folder.is_dir():
        # A deployment's inbox that was never made: say so, not "0 file(s)" as on a quiet night.
        logger.warning("inbox folder %s does not exist: no file read tonight", folder.resolve())
        return Ingested(batches={}, files_seen=0, files_skipped=[], files_ignored=[])
    from warehouse.deliveries import organisers
    from warehouse.reprocess import open_reprocessing

    registry = organisers(engine).filter(pl.col("folder").is_not_null())
    folders = {(fed, sub): email for fed, sub, email in registry.select("federation", "folder", "email").rows()}
    again = open_reprocessing(engine)
    ingested = read_inbox(folder, warehouse.seen_checksums(engine), federation, folders=folders, again=again)
    logger.info(
        "inbox folder %s: %d file(s), %d already loaded, %d new batch(es): %s",
        inbox, ingested.files_seen, len(ingested.files_skipped), len(ingested.batches),
        ", ".join(f"{f} ({b.files.height} file(s), {b.games.height} games)" for f, b in ingested.batches.items()) or "none",
    )
    for name in ingested.files_ignored:
        logger.info("ignored %s (starting lists are imported with `ratings seed`)", name)
    return ingested
