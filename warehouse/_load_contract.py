"""What a load batch must hold, and the checks that run before anything is written.

Private to :mod:`warehouse.load`, which re-exports the public names.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import polars as pl

from formats.schema import (
    BYES_SCHEMA,
    COMPETITIONS_SCHEMA,
    FINDINGS_SCHEMA,
    GAMES_SCHEMA,
    PLAYERS_SCHEMA,
    conform,
    empty,
)
from warehouse.checkpoints import Checkpoint
from warehouse.errors import BatchError

#: ``LoadBatch.files``: one row per file read.
FILES_SCHEMA: dict[str, pl.DataType] = {
    "source": pl.Utf8(),
    "source_sha256": pl.Utf8(),
    "format": pl.Utf8(),
    "n_findings": pl.Int64(),
}

_VALIDATION_STATUSES = ("accepted", "rejected", "held")  # held: waits for the rating officer's decision


@dataclass(frozen=True)
class LoadBatch:
    """Everything one flow run read, validated (and optionally rated) for one federation."""

    federation: str  #: federation id; every frame's ``federation`` must match (nulls are filled)
    files: pl.DataFrame  #: FILES_SCHEMA: one row per file read (source, source_sha256, format, n_findings)
    competitions: pl.DataFrame  #: COMPETITIONS_SCHEMA + ``status`` (accepted | rejected)
    players: pl.DataFrame  #: PLAYERS_SCHEMA
    games: pl.DataFrame  #: GAMES_SCHEMA + optional bool ``rated`` (absent: played games are rated)
    byes: pl.DataFrame  #: BYES_SCHEMA
    findings: pl.DataFrame  #: FINDINGS_SCHEMA
    changes: pl.DataFrame | None = None  #: RATING_CHANGES_SCHEMA over the whole history (replaces)
    explanations: pl.DataFrame | None = None  #: EXPLANATIONS_SCHEMA (replaces)
    ratings: pl.DataFrame | None = None  #: RATINGS_SCHEMA, the state after the last competition (replaces)
    #: ``(changes, explanations)``: the frames above are only the rows from these positions
    #: on (an incremental run); the rows before them are kept. None: the frames are whole.
    derived_offset: tuple[int, int] | None = None
    #: checksum of the seed list and config the derived rows come from (``rating_basis``)
    derived_basis: str | None = None
    #: where the next run can continue from (FIDE), replacing the stored ones whenever the
    #: derived rows are written (none given: the next run starts from the seed)
    checkpoints: tuple[Checkpoint, ...] = ()
    #: Parquet files that hold the explanation rows, in order, instead of ``explanations`` (whole,
    #: never with ``derived_offset``): a run in blocks wrote them aside, and the load reads them a
    #: file at a time (``rating.blocks.BlockRows``).
    explanation_files: tuple[Path, ...] = ()


@dataclass(frozen=True)
class LoadResult:
    """What a load did."""

    files_loaded: int  #: files with at least one new ledger key
    files_skipped: int  #: already in the ledger (identical re-send)
    competitions_loaded: int  #: new competition versions
    competitions_superseded: int  #: older versions marked ``superseded``
    games_loaded: int  #: game rows inserted
    load_id: int | None = field(default=None)  #: row in ``loads`` (None: nothing new)


@dataclass(frozen=True)
class _Conformed:
    """A batch's frames conformed to their schemas and checked against each other."""

    competitions: pl.DataFrame  #: one row per competition version, with ``status``
    games: pl.DataFrame  #: with ``rated`` filled
    byes: pl.DataFrame
    findings: pl.DataFrame
    players: pl.DataFrame
    files: pl.DataFrame  #: FILES_SCHEMA: every file, including ones known only through a competition


def _own(frame: pl.DataFrame | None, schema: dict[str, pl.DataType], federation: str, what: str) -> pl.DataFrame:
    """Conform ``frame`` and check it belongs to ``federation`` (nulls are filled)."""
    if frame is None:
        return empty(schema)
    out = conform(frame, schema)
    if "federation" in schema:
        out = out.with_columns(pl.col("federation").fill_null(federation))
        other = out.filter(pl.col("federation") != federation)
        if other.height:
            raise BatchError(
                f"{what} of a {federation!r} batch holds rows of federation "
                f"{other['federation'][0]!r} (first of {other.height})"
            )
    return out


def _one_row_per_player(rows: pl.DataFrame, what: str) -> None:
    """A rating state has exactly one row per player id."""
    dup = rows.filter(pl.col("player_id").is_duplicated() | pl.col("player_id").is_null())
    if dup.height:
        raise BatchError(f"{what}: player id {dup['player_id'][0]!r} is missing or listed twice")


def _with_extra(frame: pl.DataFrame, base: pl.DataFrame, column: str, dtype: pl.DataType) -> pl.DataFrame:
    if column in frame.columns:
        return base.with_columns(frame[column].cast(dtype, strict=False).alias(column))
    return base.with_columns(pl.lit(None, dtype).alias(column))


def _check_competitions(federation: str, competitions: pl.DataFrame, statuses: pl.Series) -> pl.DataFrame:
    comps = competitions.with_columns(statuses.alias("status"))
    for column in ("competition_id", "source_sha256"):
        bad = comps.filter(pl.col(column).is_null())
        if bad.height:
            raise BatchError(
                f"competition {bad['competition_id'][0]!r} from {bad['source'][0]!r} has no {column}"
            )
    bad = comps.filter(~pl.col("status").is_in(_VALIDATION_STATUSES) | pl.col("status").is_null())
    if bad.height:
        raise BatchError(
            f"competition {bad['competition_id'][0]!r} from {bad['source'][0]!r} has status "
            f"{bad['status'][0]!r}; expected one of {', '.join(_VALIDATION_STATUSES)}"
        )
    comps = comps.unique(subset=["competition_id", "source_sha256"], keep="first", maintain_order=True)
    twice = comps.filter(pl.col("competition_id").is_duplicated())
    if twice.height:
        cid = twice["competition_id"][0]
        sources = ", ".join(str(s) for s in twice.filter(pl.col("competition_id") == cid)["source"])
        raise BatchError(
            f"competition {cid!r} of {federation!r} comes from two different files in one batch "
            f"({sources}): load each version in its own batch"
        )
    return comps


def _batch_files(files: pl.DataFrame, comps: pl.DataFrame) -> pl.DataFrame:
    """Every file of the batch, including ones only known through their competitions."""
    listed = conform(files, FILES_SCHEMA).filter(pl.col("source_sha256").is_not_null())
    return pl.concat(
        [listed, comps.select("source", "source_sha256").with_columns(
            pl.lit(None, pl.Utf8).alias("format"), pl.lit(None, pl.Int64).alias("n_findings"))],
        how="vertical",
    ).unique(subset=["source_sha256"], keep="first", maintain_order=True)


def _conform_batch(batch: LoadBatch) -> _Conformed:
    """Conform the batch's frames and check the contract; raise BatchError before any write."""
    fed = batch.federation
    if not fed:
        raise BatchError("a load batch needs a federation id")
    raw_comps = batch.competitions
    statuses = (
        raw_comps["status"].cast(pl.Utf8, strict=False)
        if "status" in raw_comps.columns
        else pl.Series("status", [None] * raw_comps.height, dtype=pl.Utf8)
    )
    comps = _check_competitions(fed, _own(raw_comps, COMPETITIONS_SCHEMA, fed, "competitions"), statuses)
    games = _own(batch.games, GAMES_SCHEMA, fed, "games")
    games = _with_extra(batch.games, games, "rated", pl.Boolean()).with_columns(
        pl.col("rated").fill_null(pl.col("status") == "played")
    )
    byes = _own(batch.byes, BYES_SCHEMA, fed, "byes")
    findings = _own(batch.findings, FINDINGS_SCHEMA, fed, "findings")
    players = _own(batch.players, PLAYERS_SCHEMA, fed, "players")
    known = set(comps["competition_id"].to_list())
    for frame, what in ((games, "games"), (byes, "byes")):
        stray = frame.filter(~pl.col("competition_id").is_in(list(known)) | pl.col("competition_id").is_null())
        if stray.height:
            raise BatchError(
                f"{what} of a {fed!r} batch belong to competition {stray['competition_id'][0]!r}, "
                f"which the batch does not hold (source line {stray['source_line'][0]})"
            )
    return _Conformed(comps, games, byes, findings, players, _batch_files(batch.files, comps))
