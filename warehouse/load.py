"""Exactly-once, atomic loads into the warehouse.

``load_batch`` writes one batch of files in ONE transaction: the ledger key
``(federation, competition_id, source_sha256)`` makes a re-sent file a no-op,
and a different checksum for a known competition supersedes the old version
(kept, status ``superseded``). Derived tables are replaced per federation in
the same transaction, so a crash leaves either the old state or the new one.

This module is the public face: the batch contract lives in ``_load_contract``,
players and seed lists in ``_load_players``, derived tables in ``_load_derived``
and the publication ledger in ``_load_pending``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TypeVar

import polars as pl
import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from warehouse._load_contract import (
    FILES_SCHEMA,
    LoadBatch,
    LoadResult,
    _conform_batch,
    _Conformed,
)
from warehouse._load_derived import _replace_derived
from warehouse._load_pending import (
    PendingPublication,
    _mark_pending,
    finish_publication,
    pending_publications,
    published_by,
)
from warehouse._load_players import (
    _now,
    _stage_players,
    load_seed,
    register_federation,
    seen_checksums,
)
from warehouse._model_types import table_of
from warehouse.bulk import insert_frame, next_id
from warehouse.checkpoints import replace_checkpoints
from warehouse.db import write_transaction
from warehouse.models import Bye, Competition, Finding, Game, LedgerEntry, Load

__all__ = [
    "DERIVED_BLOCK",
    "FILES_SCHEMA",
    "LoadBatch",
    "LoadResult",
    "PendingPublication",
    "finish_publication",
    "load_batch",
    "load_seed",
    "pending_publications",
    "published_by",
    "register_federation",
    "seen_checksums",
]

_T_COMPETITIONS = table_of(Competition)
_T_GAMES = table_of(Game)
_T_BYES = table_of(Bye)
_T_FINDINGS = table_of(Finding)
_T_LEDGER = table_of(LedgerEntry)
_T_LOADS = table_of(Load)

T = TypeVar("T")

#: Rows per checksummed block of a derived table (see ``DerivedState``). The block a night's re-rate
#: starts in is read back and every card with a row from its start is looked at again, so a block
#: is small: 5,000 rows (1.5M explanations: 300 blocks). 50,000 before; blocks recorded with
#: another size are recomputed by the next tail write (``_replace_tail``) or rewritten by the next
#: full one.
DERIVED_BLOCK = 5_000

#: Bound parameters per IN list: SQLite allows 32,766 per statement, PostgreSQL 65,535.
_IN_LIST = 5_000


def _parts(values: list[T]) -> Iterator[list[T]]:
    """``values`` in slices short enough for one ``IN (...)`` on either database."""
    for start in range(0, len(values), _IN_LIST):
        yield values[start : start + _IN_LIST]


def load_batch(engine: Engine, batch: LoadBatch) -> LoadResult:
    """Load one batch in one transaction, exactly once per file version.

    Parameters
    ----------
    engine
        From :func:`warehouse.get_engine`.
    batch
        What the flow read and validated; see :class:`LoadBatch`.

    Returns
    -------
    LoadResult
        Counts of what was loaded, skipped and superseded.

    Raises
    ------
    BatchError
        The batch breaks the contract (rows of another federation, a
        competition without status or checksum, games of a competition the
        batch does not hold, one competition from two files). Nothing is written.

    Notes
    -----
    Identity of a file version is ``(federation, competition_id, source_sha256)``
    in ``load_ledger`` (``competition_id = ''`` for a file without
    competitions). Findings and byes of a skipped file are not written again;
    players are upserted only when at least one file is new. Derived tables are
    replaced whenever the batch carries them.

    Examples
    --------
    >>> import datetime as dt
    >>> from warehouse.db import get_engine
    >>> from formats.schema import empty, FINDINGS_SCHEMA, BYES_SCHEMA, PLAYERS_SCHEMA
    >>> engine = get_engine("sqlite://")
    >>> comps = pl.DataFrame({"competition_id": ["open-1"], "name": ["Open"],
    ...     "end_date": [dt.date(2025, 3, 2)], "source": ["open.results.csv"],
    ...     "source_sha256": ["ab12"], "status": ["accepted"]})
    >>> games = pl.DataFrame({"competition_id": ["open-1"], "round": [1], "player_a": ["7"],
    ...     "player_b": ["9"], "score_a": [1.0], "status": ["played"], "source_line": [2]})
    >>> batch = LoadBatch("ajusc", pl.DataFrame({"source": ["open.results.csv"], "source_sha256": ["ab12"]}),
    ...     comps, empty(PLAYERS_SCHEMA), games, empty(BYES_SCHEMA), empty(FINDINGS_SCHEMA))
    >>> load_batch(engine, batch)
    LoadResult(files_loaded=1, files_skipped=0, competitions_loaded=1, competitions_superseded=0, games_loaded=1, load_id=1)
    >>> load_batch(engine, batch).files_skipped
    1
    """
    rows = _conform_batch(batch)
    fed = batch.federation
    with write_transaction(engine) as conn:
        register_federation(conn, fed)
        new_comps, files_loaded = _new_versions(conn, fed, rows)
        files_skipped = rows.files.height - files_loaded.height
        if files_loaded.height == 0:
            _replace_batch_derived(conn, batch)
            if batch.changes is not None:
                _mark_pending(conn, fed, 0)
            return LoadResult(0, files_skipped, 0, 0, 0)
        return _load_new(conn, batch, rows, new_comps, files_loaded)


def _load_new(conn: Connection, batch: LoadBatch, rows: _Conformed, new_comps: pl.DataFrame,
              files_loaded: pl.DataFrame) -> LoadResult:
    """:func:`load_batch` once it holds new files: number the new competition versions, supersede
    the old, write the load, its ledger, rows and players, the derived tables and the pending
    publication, inside the caller's transaction."""
    fed = batch.federation
    files_skipped = rows.files.height - files_loaded.height
    prior = _prior_versions(conn, fed, new_comps["competition_id"].to_list())
    superseded = [key for _, key in prior.values() if key is not None]
    load_id = next_id(conn, _T_LOADS)
    new_comps = _numbered(conn, new_comps, prior, load_id)
    new_games, new_byes, new_findings = _rows_of(new_comps, rows, files_loaded)
    conn.execute(
        sa.insert(_T_LOADS).values(
            id=load_id, federation=fed, kind="results", loaded_at=_now(),
            files_loaded=files_loaded.height, files_skipped=files_skipped,
            competitions_loaded=new_comps.height, competitions_superseded=len(superseded),
            games_loaded=new_games.height,
        )
    )
    for part in _parts(superseded):
        conn.execute(
            sa.update(_T_COMPETITIONS).where(_T_COMPETITIONS.c.id.in_(part)).values(status="superseded")
        )
    insert_frame(conn, _T_COMPETITIONS, new_comps)
    _write_ledger(conn, fed, load_id, new_comps, rows, files_loaded)
    _write_rows(conn, load_id, new_games, new_byes, new_findings)
    _stage_players(conn, fed, rows.players)
    _replace_batch_derived(conn, batch)
    _mark_pending(conn, fed, load_id)
    return LoadResult(
        files_loaded=files_loaded.height,
        files_skipped=files_skipped,
        competitions_loaded=new_comps.height,
        competitions_superseded=len(superseded),
        games_loaded=new_games.height,
        load_id=load_id,
    )


def _replace_batch_derived(conn: Connection, batch: LoadBatch) -> None:
    """Replace the derived tables with the batch's, when it carries them (blocks of DERIVED_BLOCK rows)."""
    _replace_derived(conn, batch.federation, batch.changes, batch.explanations, batch.ratings,
                     batch.derived_offset, batch.derived_basis, DERIVED_BLOCK, batch.explanation_files)
    if batch.changes is not None:
        # A checkpoint describes the rows it comes with: new rows, new checkpoints (or none).
        replace_checkpoints(conn, batch.federation, batch.checkpoints)


def _new_versions(conn: Connection, fed: str, rows: _Conformed) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The batch's competition versions and files not yet in the ledger."""
    comps, files = rows.competitions, rows.files
    shas = files["source_sha256"].to_list()
    seen = {
        (cid, sha)
        for part in _parts(shas)
        for cid, sha in conn.execute(
            sa.select(_T_LEDGER.c.competition_id, _T_LEDGER.c.source_sha256).where(
                _T_LEDGER.c.federation == fed, _T_LEDGER.c.source_sha256.in_(part)
            )
        )
    }
    comp_keys = list(zip(comps["competition_id"].to_list(), comps["source_sha256"].to_list(), strict=True))
    new_comps = comps.filter(pl.Series([key not in seen for key in comp_keys], dtype=pl.Boolean))
    shas_with_comps = set(comps["source_sha256"].to_list())
    loaded_shas = set(new_comps["source_sha256"].to_list()) | {
        sha for sha in shas if sha not in shas_with_comps and ("", sha) not in seen
    }
    return new_comps, files.filter(pl.col("source_sha256").is_in(list(loaded_shas)))


def _prior_versions(conn: Connection, fed: str, new_ids: list[str]) -> dict[str, tuple[int, int | None]]:
    """Versions already in the warehouse for the competitions arriving now:
    competition id -> (highest version, key of the current one or None)."""
    prior: dict[str, tuple[int, int | None]] = {}
    current = sa.case((_T_COMPETITIONS.c.status != "superseded", _T_COMPETITIONS.c.id))
    for part in _parts(new_ids):
        query = (
            sa.select(_T_COMPETITIONS.c.competition_id, sa.func.max(_T_COMPETITIONS.c.version), sa.func.max(current))
            .where(_T_COMPETITIONS.c.federation == fed, _T_COMPETITIONS.c.competition_id.in_(part))
            .group_by(_T_COMPETITIONS.c.competition_id)
        )
        prior.update({cid: (int(version), key) for cid, version, key in conn.execute(query)})
    return prior


def _numbered(
    conn: Connection, new_comps: pl.DataFrame, prior: dict[str, tuple[int, int | None]], load_id: int
) -> pl.DataFrame:
    """The new competition versions with their keys, version numbers, outcome and load."""
    first_comp = next_id(conn, _T_COMPETITIONS)
    versions = [prior.get(cid, (0, None))[0] + 1 for cid in new_comps["competition_id"].to_list()]
    return new_comps.with_columns(
        pl.int_range(first_comp, first_comp + new_comps.height, dtype=pl.Int64).alias("id"),
        pl.Series("version", versions, dtype=pl.Int64),
        pl.col("status").alias("outcome"),
        pl.lit(load_id, pl.Int64).alias("load_id"),
    )


def _rows_of(
    new_comps: pl.DataFrame, rows: _Conformed, files_loaded: pl.DataFrame
) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    """The games, byes and findings of the new versions (findings of no competition: of the new files)."""
    key_of = new_comps.select("competition_id", pl.col("id").alias("competition_key"))
    new_games = rows.games.join(key_of, on="competition_id", how="inner", maintain_order="left")
    new_byes = rows.byes.join(key_of, on="competition_id", how="inner", maintain_order="left")
    known = set(rows.competitions["competition_id"].to_list())
    loaded_sources = files_loaded["source"].drop_nulls().to_list()
    tied = rows.findings.join(key_of, on="competition_id", how="left", maintain_order="left")
    new_findings = tied.filter(
        pl.col("competition_key").is_not_null()
        | (~pl.col("competition_id").is_in(list(known)).fill_null(False) & pl.col("source").is_in(loaded_sources))
    )
    return new_games, new_byes, new_findings


def _write_ledger(
    conn: Connection, fed: str, load_id: int, new_comps: pl.DataFrame, rows: _Conformed, files_loaded: pl.DataFrame
) -> None:
    """One ledger row per new competition version and per new file without competitions."""
    shas_with_comps = set(rows.competitions["source_sha256"].to_list())
    file_info = rows.files.select("source_sha256", "format", "n_findings")
    ledger = pl.concat(
        [
            new_comps.select("competition_id", "source_sha256", "source"),
            files_loaded.filter(~pl.col("source_sha256").is_in(list(shas_with_comps))).select(
                pl.lit("").alias("competition_id"), "source_sha256", "source"
            ),
        ]
    ).join(file_info, on="source_sha256", how="left", maintain_order="left")
    first_ledger = next_id(conn, _T_LEDGER)
    ledger = ledger.with_columns(
        pl.int_range(first_ledger, first_ledger + ledger.height, dtype=pl.Int64).alias("id"),
        pl.lit(fed).alias("federation"),
        pl.when(pl.col("competition_id") == "").then(pl.lit("file")).otherwise(pl.lit("results")).alias("kind"),
        pl.lit(load_id, pl.Int64).alias("load_id"),
    )
    insert_frame(conn, _T_LEDGER, ledger)


def _write_rows(
    conn: Connection, load_id: int, new_games: pl.DataFrame, new_byes: pl.DataFrame, new_findings: pl.DataFrame
) -> None:
    """Insert the games, byes and findings with fresh keys."""
    for frame, table in ((new_games, _T_GAMES), (new_byes, _T_BYES)):
        first = next_id(conn, table)
        insert_frame(
            conn, table,
            frame.with_columns(pl.int_range(first, first + frame.height, dtype=pl.Int64).alias("id")),
        )
    first = next_id(conn, _T_FINDINGS)
    insert_frame(
        conn, _T_FINDINGS,
        new_findings.with_columns(
            pl.int_range(first, first + new_findings.height, dtype=pl.Int64).alias("id"),
            pl.lit(load_id, pl.Int64).alias("load_id"),
        ),
    )
