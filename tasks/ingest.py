"""Ingest: read every new file of the inbox into the canonical frames.

Thin: the reading is :func:`formats.read`; this task lists the inbox, skips what
the load ledger already holds (a re-sent identical file is a no-op) and groups
what is left by federation.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path

import polars as pl
from prefect import get_run_logger, task
from prefect.cache_policies import NO_CACHE

import formats
import warehouse
from formats.schema import (
    ALIASES_SCHEMA,
    BYES_SCHEMA,
    COMPETITIONS_SCHEMA,
    FINDINGS_SCHEMA,
    GAMES_SCHEMA,
    PLAYERS_SCHEMA,
)
from tasks.frames import concat

#: Starting lists are imported with ``ratings seed``, never by the nightly run.
SEED_SUFFIX = ".ratings.csv"

FILES_SCHEMA: dict[str, pl.DataType] = {
    "federation": pl.Utf8(),
    "source": pl.Utf8(),
    "source_sha256": pl.Utf8(),
    "format": pl.Utf8(),
    "n_findings": pl.Int64(),
}


@dataclass
class FederationBatch:
    """Everything new for one federation in tonight's inbox."""

    federation: str
    files: pl.DataFrame = field(default_factory=lambda: pl.DataFrame(schema=FILES_SCHEMA))
    competitions: pl.DataFrame = field(default_factory=lambda: pl.DataFrame(schema=COMPETITIONS_SCHEMA))
    players: pl.DataFrame = field(default_factory=lambda: pl.DataFrame(schema=PLAYERS_SCHEMA))
    games: pl.DataFrame = field(default_factory=lambda: pl.DataFrame(schema=GAMES_SCHEMA))
    byes: pl.DataFrame = field(default_factory=lambda: pl.DataFrame(schema=BYES_SCHEMA))
    findings: pl.DataFrame = field(default_factory=lambda: pl.DataFrame(schema=FINDINGS_SCHEMA))


@dataclass
class Ingested:
    """What the inbox held tonight."""

    batches: dict[str, FederationBatch]
    files_seen: int
    files_skipped: list[str]
    files_ignored: list[str]


def inbox_units(inbox: Path) -> list[Path | list[Path]]:
    """The files (or file groups, as folders) of ``inbox`` that the readers take, sorted.

    Hidden files are ignored; starting lists (``*.ratings.csv``) are left to ``ratings seed``.
    """
    if not inbox.is_dir():
        return []
    paths = sorted(
        p for p in inbox.rglob("*")
        if p.is_file() and not any(part.startswith(".") for part in p.relative_to(inbox).parts)
    )
    return formats.group_inbox(paths)


def _file_sha256(path: Path) -> str:
    """The checksum the readers record for a single file (sha256 of its bytes)."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _federation_of(result: formats.ReadResult, default: str | None) -> str:
    for frame in (result.competitions, result.players, result.findings, result.games):
        if frame.height and "federation" in frame.columns:
            values = frame.get_column("federation").drop_nulls()
            if values.len():
                return str(values[0])
    return default or "unknown"


def read_inbox(inbox: Path, seen: set[str], federation: str | None = None) -> Ingested:
    """Read every unit of ``inbox`` whose checksum is not in ``seen``; group them by federation."""
    batches: dict[str, FederationBatch] = {}
    skipped: list[str] = []
    ignored: list[str] = []
    units = inbox_units(inbox)
    reads: dict[str, list[formats.ReadResult]] = {}
    for unit in units:
        first = unit[0] if isinstance(unit, list) else unit
        if Path(first).name.endswith(SEED_SUFFIX):
            ignored.append(Path(first).name)
            continue
        if isinstance(unit, Path) and unit.is_file() and _file_sha256(unit) in seen:
            skipped.append(unit.name)   # an identical re-send: not even parsed again
            continue
        result = formats.read(unit, federation=federation)
        if result.source_sha256 in seen:
            skipped.append(result.source)
            continue
        if result.ratings.height and not result.competitions.height and not result.findings.height:
            ignored.append(result.source)   # a published rating list: `ratings seed` imports it
            continue
        fed = _federation_of(result, federation)
        if federation is not None and fed != federation:
            ignored.append(result.source)
            continue
        reads.setdefault(fed, []).append(result)
    # The same person under another id or spelling (``*.aliases.csv`` dropped by the
    # rating officer) becomes one player in every file of the night.
    aliases = concat([r.aliases for results in reads.values() for r in results], ALIASES_SCHEMA)
    if aliases.height:
        reads = {fed: [r.with_aliases(aliases) for r in results] for fed, results in reads.items()}
    for fed, results in reads.items():
        files = pl.DataFrame(
            {
                "federation": [fed] * len(results),
                "source": [r.source for r in results],
                "source_sha256": [r.source_sha256 for r in results],
                "format": [r.format for r in results],
                "n_findings": [r.findings.height for r in results],
            },
            schema=FILES_SCHEMA,
        )
        findings = concat([r.findings for r in results], FINDINGS_SCHEMA).with_columns(
            pl.col("federation").fill_null(fed)
        )
        batches[fed] = FederationBatch(
            federation=fed,
            files=files,
            competitions=concat([r.competitions for r in results], COMPETITIONS_SCHEMA),
            players=concat([r.players for r in results], PLAYERS_SCHEMA).unique(
                subset=["federation", "player_id"], keep="last", maintain_order=True
            ),
            games=concat([r.games for r in results], GAMES_SCHEMA),
            byes=concat([r.byes for r in results], BYES_SCHEMA),
            findings=findings,
        )
    return Ingested(batches=batches, files_seen=len(units), files_skipped=skipped, files_ignored=ignored)


@task(name="ingest_inbox", cache_policy=NO_CACHE, retries=2, retry_delay_seconds=[5, 30])
def ingest_inbox(inbox: str, warehouse_url: str | None, federation: str | None = None) -> Ingested:
    """Read tonight's new files; identical re-sends (checksum in the ledger) are skipped."""
    logger = get_run_logger()
    engine = warehouse.get_engine(warehouse_url)
    ingested = read_inbox(Path(inbox), warehouse.seen_checksums(engine), federation)
    logger.info(
        "inbox %s: %d file(s), %d already loaded, %d new batch(es): %s",
        inbox, ingested.files_seen, len(ingested.files_skipped), len(ingested.batches),
        ", ".join(f"{f} ({b.files.height} file(s), {b.games.height} games)" for f, b in ingested.batches.items()) or "none",
    )
    for name in ingested.files_ignored:
        logger.info("ignored %s (starting lists are imported with `ratings seed`)", name)
    return ingested
