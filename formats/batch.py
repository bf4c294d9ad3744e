"""What ingest hands to the later stages for one federation: tonight's new frames."""

from __future__ import annotations

from dataclasses import dataclass, field

import polars as pl

from formats.schema import (
    BYES_SCHEMA,
    COMPETITIONS_SCHEMA,
    FINDINGS_SCHEMA,
    GAMES_SCHEMA,
    PLAYERS_SCHEMA,
)

__all__ = ["FILES_SCHEMA", "FederationBatch"]

#: One row per file read tonight.
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
    #: Competitions already in the warehouse to re-rate tonight although no file brought
    #: them (the rating officer approved them since the last run).
    rerate: list[str] = field(default_factory=list)
