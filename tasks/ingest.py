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
from dataclasses import replace
from pathlib import Path
from typing import Any

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
from tasks._inbox_blocks import BLOCK_GAMES, UnitSpan, blocks_of, span_of, unit_key
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
    "BLOCK_GAMES",
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
    "plan_inbox",
    "read_inbox",
    "survey_inbox",
]


def read_inbox(
    inbox: Path, seen: set[str], federation: str | None = None,
    known: AbstractSet[str] = KNOWN_FEDERATIONS, folders: Mapping[tuple[str, str], str] | None = None,
    again: Mapping[str, str] | None = None, only: AbstractSet[str] | None = None,
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

    ``only``: the units of one block of a large inbox (their :func:`unit_key`, from
    :func:`survey_inbox`); the others are left to their blocks. ``None``: every unit.
    """
    night, units, left_out = _night(inbox, seen, federation, known, folders, again)
    for unit in units:
        if only is None or unit_key(unit) in only:
            _read_unit(night, unit)
    reads = {fed: keep_latest_versions(results, night.sent) for fed, results in night.reads.items()}
    reads = _with_night_aliases(reads)
    batches = {fed: _federation_batch(fed, results) for fed, results in reads.items()}
    return Ingested(batches=batches, files_seen=len(units) + left_out, files_skipped=night.skipped,
                    files_ignored=night.ignored, file_outcomes=night.outcomes)


def survey_inbox(
    inbox: Path, seen: set[str], federation: str | None = None,
    known: AbstractSet[str] = KNOWN_FEDERATIONS, folders: Mapping[tuple[str, str], str] | None = None,
    again: Mapping[str, str] | None = None,
) -> list[UnitSpan]:
    """The span of every unit of the inbox, each file read and dropped in turn (what
    :func:`tasks._inbox_blocks.blocks_of` cuts a large inbox by). A request to process a file
    again makes the night one block (its span says it applies to the whole night)."""
    night, units, _ = _night(inbox, seen, federation, known, folders, again)
    spans: list[UnitSpan] = []
    for unit in units:
        _read_unit(night, unit)
        read = [result for results in night.reads.values() for result in results]
        night.reads.clear()   # one file's frames at a time
        # A unit not read (already loaded, a copy, a list left to `ratings seed`) goes with the
        # first block, which reports it.
        span = span_of(unit_key(unit), read[0]) if read else UnitSpan(unit_key(unit), 0)
        spans.append(replace(span, whole_night=span.whole_night or bool(again)))
    return spans


def _night(
    inbox: Path, seen: set[str], federation: str | None, known: AbstractSet[str],
    folders: Mapping[tuple[str, str], str] | None, again: Mapping[str, str] | None,
) -> tuple[_Night, list[Path | list[Path]], int]:
    """What the night knows before it reads a file: the inbox's units, their checksums and the
    original of each set of identical copies; and how many entries were left out."""
    units, outcomes = inbox_entries(inbox)
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
    return night, units, len(outcomes)


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
def ingest_inbox(
    inbox: str, warehouse_url: str | None, federation: str | None = None, only: list[str] | None = None,
) -> Ingested:
    """Read tonight's new files; identical re-sends (checksum in the ledger) are skipped.

    ``only``: the units of one block of a large inbox (:func:`plan_inbox`); ``None``: every unit.
    """
    logger = get_run_logger()
    engine = warehouse.get_engine(warehouse_url)
    folder = Path(inbox)
    if not folder.is_dir():
        # A deployment's inbox that was never made: say so, not "0 file(s)" as on a quiet night.
        logger.warning("inbox folder %s does not exist: no file read tonight", folder.resolve())
        return Ingested(batches={}, files_seen=0, files_skipped=[], files_ignored=[])
    folders, again = _registry(engine)
    ingested = read_inbox(folder, warehouse.seen_checksums(engine), federation, folders=folders, again=again,
                          only=None if only is None else set(only))
    logger.info(
        "inbox folder %s: %s, %d already loaded, %d new batch(es): %s",
        inbox, f"{ingested.files_seen} file(s)" if only is None else f"a block of {len(only)} of its {ingested.files_seen} file(s)",
        len(ingested.files_skipped), len(ingested.batches),
        ", ".join(f"{f} ({b.files.height} file(s), {b.games.height} games)" for f, b in ingested.batches.items()) or "none",
    )
    for name in ingested.files_ignored:
        logger.info("ignored %s (starting lists are imported with `ratings seed`)", name)
    return ingested


@task(name="plan_inbox")
def plan_inbox(inbox: str, warehouse_url: str | None, federation: str | None, block_games: int) -> list[list[str]]:
    """The inbox's units in the blocks the night takes them in (``tasks/_inbox_blocks.py``): one
    block, without reading a file, when the inbox holds at most ``block_games`` games' worth of
    bytes (``0``: always one block)."""
    folder = Path(inbox)
    units = inbox_units(folder) if folder.is_dir() else []
    if block_games <= 0 or _bytes(units) <= block_games * _MIN_BYTES_PER_GAME:
        return [[unit_key(unit) for unit in units]]
    engine = warehouse.get_engine(warehouse_url)
    folders, again = _registry(engine)
    spans = survey_inbox(folder, warehouse.seen_checksums(engine), federation, folders=folders, again=again)
    blocks = blocks_of(spans, block_games)
    if len(blocks) > 1:
        get_run_logger().info(
            "inbox folder %s: %d games in %d file(s), taken in %d blocks of at most %d games where months allow",
            inbox, sum(s.games for s in spans), len(spans), len(blocks), block_games)
    return blocks


#: Fewer bytes than any reader needs for a game (an interchange row is over 20): an inbox of
#: fewer bytes than the budget's games cannot exceed the budget, and is not surveyed.
_MIN_BYTES_PER_GAME = 8


def _bytes(units: list[Path | list[Path]]) -> int:
    paths = [p for unit in units for p in (unit if isinstance(unit, list) else [unit])]
    total = 0
    for path in paths:
        try:
            total += path.stat().st_size
        except OSError:   # gone since it was listed: the night's reading reports it
            continue
    return total


def _registry(engine: Any) -> tuple[dict[tuple[str, str], str], dict[str, str]]:
    """The organisers' folders ((federation, folder) -> address) and the open requests to
    process a file again (checksum -> version)."""
    from warehouse.deliveries import organisers
    from warehouse.reprocess import open_reprocessing

    registry = organisers(engine).filter(pl.col("folder").is_not_null())
    folders = {(fed, sub): email for fed, sub, email in registry.select("federation", "folder", "email").rows()}
    return folders, open_reprocessing(engine)
