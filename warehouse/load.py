"""Exactly-once, atomic loads into the warehouse.

``load_batch`` writes one batch of files in ONE transaction: the ledger key
``(federation, competition_id, source_sha256)`` makes a re-sent file a no-op,
and a different checksum for a known competition supersedes the old version
(kept, status ``superseded``). Derived tables are replaced per federation in
the same transaction, so a crash leaves either the old state or the new one.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

import polars as pl
import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine
from sqlmodel import Field, SQLModel

from formats.schema import (
    BYES_SCHEMA,
    COMPETITIONS_SCHEMA,
    EXPLANATIONS_SCHEMA,
    FINDINGS_SCHEMA,
    GAMES_SCHEMA,
    PLAYERS_SCHEMA,
    RATING_CHANGES_SCHEMA,
    RATINGS_SCHEMA,
    conform,
    empty,
)
from warehouse.bulk import frame_sha256, insert_frame, next_id, read_frame
from warehouse.db import write_transaction
from warehouse.errors import BatchError
from warehouse.models import (
    Bye,
    Competition,
    DerivedState,
    Explanation,
    Federation,
    Finding,
    Game,
    LedgerEntry,
    Load,
    Player,
    PlayerAlias,
    Rating,
    RatingChange,
    SeedEntry,
)

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

#: ``LoadBatch.files``: one row per file read.
FILES_SCHEMA: dict[str, pl.DataType] = {
    "source": pl.Utf8(),
    "source_sha256": pl.Utf8(),
    "format": pl.Utf8(),
    "n_findings": pl.Int64(),
}

_T_COMPETITIONS = Competition.__table__  # type: ignore[attr-defined]
_T_GAMES = Game.__table__  # type: ignore[attr-defined]
_T_BYES = Bye.__table__  # type: ignore[attr-defined]
_T_FINDINGS = Finding.__table__  # type: ignore[attr-defined]
_T_LEDGER = LedgerEntry.__table__  # type: ignore[attr-defined]
_T_LOADS = Load.__table__  # type: ignore[attr-defined]
_T_FEDERATIONS = Federation.__table__  # type: ignore[attr-defined]
_T_PLAYERS = Player.__table__  # type: ignore[attr-defined]
_T_ALIASES = PlayerAlias.__table__  # type: ignore[attr-defined]
_T_CHANGES = RatingChange.__table__  # type: ignore[attr-defined]
_T_EXPLANATIONS = Explanation.__table__  # type: ignore[attr-defined]
_T_RATINGS = Rating.__table__  # type: ignore[attr-defined]
_T_SEED = SeedEntry.__table__  # type: ignore[attr-defined]
_T_DERIVED_STATE = DerivedState.__table__  # type: ignore[attr-defined]



class PendingPublication(SQLModel, table=True):
    """A load whose publication (editions, reports) has not finished yet (issue 9).

    :func:`load_batch` writes the row in the load's own transaction; the publish step
    deletes it once every edition and report of the load is out. A run killed in
    between leaves the row, and the next run finishes that publication first
    (``tasks/recover.py``), so nothing committed stays unpublished.
    """

    __tablename__ = "pending_publications"

    federation: str = Field(primary_key=True, sa_type=sa.String())
    #: ``loads.id`` of the load; 0: a load that only replaced derived rows (a backfill)
    load_id: int = Field(primary_key=True, sa_type=sa.BigInteger(), sa_column_kwargs={"autoincrement": False})


_T_PENDING = PendingPublication.__table__  # type: ignore[attr-defined]

_VALIDATION_STATUSES = ("accepted", "rejected", "held")  # held: waits for the rating officer (issue 14)

T = TypeVar("T")


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


@dataclass(frozen=True)
class LoadResult:
    """What a load did."""

    files_loaded: int  #: files with at least one new ledger key
    files_skipped: int  #: already in the ledger (identical re-send)
    competitions_loaded: int  #: new competition versions
    competitions_superseded: int  #: older versions marked ``superseded``
    games_loaded: int  #: game rows inserted
    load_id: int | None = field(default=None)  #: row in ``loads`` (None: nothing new)


#: Bound parameters per IN list: SQLite allows 32,766 per statement, PostgreSQL 65,535.
_IN_LIST = 5_000


def _parts(values: list[T]) -> Iterator[list[T]]:
    """``values`` in slices short enough for one ``IN (...)`` on either database."""
    for start in range(0, len(values), _IN_LIST):
        yield values[start : start + _IN_LIST]


def _now() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


def register_federation(
    engine_or_conn: Engine | Connection,
    federation: str,
    *,
    name: str | None = None,
    game: str | None = None,
    system: str | None = None,
) -> None:
    """Make sure ``federations`` has a row for ``federation``; fill the given details.

    Examples
    --------
    >>> from warehouse.db import get_engine
    >>> engine = get_engine("sqlite://")
    >>> register_federation(engine, "fide", name="Fédération Internationale des Échecs", system="fide-elo")
    """
    if isinstance(engine_or_conn, Engine):
        with write_transaction(engine_or_conn) as conn:
            register_federation(conn, federation, name=name, game=game, system=system)
        return
    conn = engine_or_conn
    exists = conn.execute(sa.select(_T_FEDERATIONS.c.id).where(_T_FEDERATIONS.c.id == federation)).first()
    if exists is None:
        conn.execute(sa.insert(_T_FEDERATIONS).values(id=federation, name=name, game=game, system=system))
        return
    details = {k: v for k, v in {"name": name, "game": game, "system": system}.items() if v is not None}
    if details:
        conn.execute(sa.update(_T_FEDERATIONS).where(_T_FEDERATIONS.c.id == federation).values(**details))


def seen_checksums(engine: Engine, federation: str | None = None) -> set[str]:
    """Checksums of the files already in the load ledger (the flow skips them early).

    Examples
    --------
    >>> from warehouse.db import get_engine
    >>> seen_checksums(get_engine("sqlite://"), "fide")
    set()
    """
    query = sa.select(_T_LEDGER.c.source_sha256).distinct()
    if federation is not None:
        query = query.where(_T_LEDGER.c.federation == federation)
    with engine.connect() as conn:
        return {row[0] for row in conn.execute(query)}


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


def _stage_players(conn: Connection, federation: str, players: pl.DataFrame) -> None:
    """Upsert players set-based; a changed name keeps the old one as an alias.

    A staging table and two ``INSERT ... SELECT ... ON CONFLICT`` statements
    (the same SQL on SQLite and PostgreSQL): known values are never erased by
    a file that lacks them.
    """
    players = players.filter(pl.col("player_id").is_not_null()).unique(
        subset=["federation", "player_id"], keep="last", maintain_order=True
    )
    if players.height == 0:
        return
    cols = list(PLAYERS_SCHEMA)
    ddl_cols = ", ".join(
        f'"{c}" {"DOUBLE PRECISION" if c == "declared_rating" else "INTEGER" if c == "birth_year" else "TEXT"}'
        for c in cols
    )
    if conn.dialect.name == "postgresql":
        conn.exec_driver_sql(f"CREATE TEMP TABLE stage_players ({ddl_cols}) ON COMMIT DROP")
    else:
        conn.exec_driver_sql(f"CREATE TEMP TABLE IF NOT EXISTS stage_players ({ddl_cols})")
        conn.exec_driver_sql("DELETE FROM temp.stage_players")
    stage = sa.Table("stage_players", sa.MetaData(), *(sa.Column(c) for c in cols))
    insert_frame(conn, stage, players)
    conn.exec_driver_sql(
        "INSERT INTO player_aliases (federation, player_id, alias) "
        "SELECT p.federation, p.player_id, p.name FROM players p JOIN stage_players s "
        "ON p.federation = s.federation AND p.player_id = s.player_id "
        "WHERE s.name IS NOT NULL AND p.name IS NOT NULL AND p.name <> s.name "
        "ON CONFLICT DO NOTHING"
    )
    names = ", ".join(f'"{c}"' for c in cols)
    updates = ", ".join(f'"{c}" = COALESCE(excluded."{c}", players."{c}")' for c in cols[2:])
    # "WHERE true": SQLite's parser needs it between INSERT ... SELECT and ON CONFLICT.
    conn.exec_driver_sql(
        f"INSERT INTO players ({names}) SELECT {names} FROM stage_players WHERE true "
        f"ON CONFLICT (federation, player_id) DO UPDATE SET {updates}"
    )
    if conn.dialect.name != "postgresql":
        conn.exec_driver_sql("DELETE FROM temp.stage_players")


#: Rows per checksummed block of a derived table (see ``DerivedState``). The block a night's re-rate
#: starts in is read back and every card with a row from its start is looked at again, so a block
#: is small: 5,000 rows (1.5M explanations: 300 blocks). 50,000 before; blocks recorded with
#: another size are recomputed by the next tail write (``_replace_tail``) or rewritten by the next
#: full one.
DERIVED_BLOCK = 5_000


def _block_digests(rows: pl.DataFrame, size: int) -> list[str]:
    return [frame_sha256(rows.slice(start, size)) for start in range(0, rows.height, size)]


def _record_blocks(conn: Connection, federation: str, table: str, rows: pl.DataFrame, first: int,
                   size: int | None = None, digests: Sequence[str] | None = None) -> None:
    """Record the checksums of ``rows`` (``digests``, when already made), the stored rows of ``table``
    from block ``first`` (of ``size`` rows, default DERIVED_BLOCK) to the end, in place of those
    recorded from that block on."""
    state = _T_DERIVED_STATE
    size = DERIVED_BLOCK if size is None else size
    digests = _block_digests(rows, size) if digests is None else digests
    conn.execute(sa.delete(state).where(state.c.federation == federation, state.c.table_name == table,
                                        state.c.block >= first))
    insert_frame(
        conn, state,
        pl.DataFrame({
            "federation": federation, "table_name": table,
            "block": pl.Series(range(first, first + len(digests)), dtype=pl.Int64),
            "content_sha256": pl.Series(list(digests), dtype=pl.Utf8),
            "n_rows": pl.Series([min(size, rows.height - i * size) for i in range(len(digests))], dtype=pl.Int64),
        }),
    )


def _replace_tail(
    conn: Connection, federation: str, rows: pl.DataFrame, table: sa.Table, offset: int
) -> None:
    """Keep the rows before ``offset``, replace the rest with ``rows`` (an incremental run).

    The checksums of the blocks from the first one touched are recomputed, over the
    rows kept in that block (read back) and the new ones: ``derived_state`` then
    describes the stored rows as a full write would, so a later full write rewrites
    only from the first block that differs, and the site can tell from which row the
    derived tables changed (``warehouse.site.site_derived_blocks``). Blocks recorded with
    another size than DERIVED_BLOCK (by an older version) are all recomputed, once.
    """
    first = offset // DERIVED_BLOCK
    state = _T_DERIVED_STATE
    recorded = conn.execute(
        sa.select(state.c.block, state.c.n_rows)
        .where(state.c.federation == federation, state.c.table_name == table.name, state.c.block < first)
        .order_by(state.c.block)
    ).all()
    if [tuple(r) for r in recorded] != [(b, DERIVED_BLOCK) for b in range(first)]:
        # The blocks before were recorded with another size (a version before DERIVED_BLOCK changed)
        # or not at all: recompute them all, once, from the rows kept.
        first = 0
    conn.execute(sa.delete(table).where(table.c.federation == federation, table.c.seq >= offset))
    new = rows.with_columns((pl.col("seq") + offset).alias("seq"))
    insert_frame(conn, table, new)
    kept = read_frame(
        conn,
        sa.select(*(table.c[c] for c in rows.columns))
        .where(table.c.federation == federation, table.c.seq >= first * DERIVED_BLOCK, table.c.seq < offset)
        .order_by(table.c.seq),
        dict(rows.schema),
    )
    _record_blocks(conn, federation, table.name, pl.concat([kept, new]), first)


def _record_basis(conn: Connection, federation: str, basis: str | None) -> None:
    """Record what the derived rows derive from besides the history (``rating_basis``); no write when unchanged."""
    state = _T_DERIVED_STATE
    where = (state.c.federation == federation) & (state.c.table_name == "basis")
    if conn.execute(sa.select(state.c.content_sha256).where(where)).scalar() == basis:
        return
    conn.execute(sa.delete(state).where(state.c.federation == federation, state.c.table_name == "basis"))
    if basis is not None:
        conn.execute(sa.insert(state).values(
            federation=federation, table_name="basis", block=0, content_sha256=basis, n_rows=0))


def _replace_derived(
    conn: Connection,
    federation: str,
    changes: pl.DataFrame | None,
    explanations: pl.DataFrame | None,
    ratings: pl.DataFrame | None,
    offset: tuple[int, int] | None = None,
    basis: str | None = None,
) -> None:
    """Replace the federation's derived tables with the rating run's frames.

    The result is the same as deleting the federation's rows and inserting the
    frames, but only blocks from the first one whose checksum differs from
    ``derived_state`` are rewritten: the nightly run re-rates the whole history,
    and most nights change nothing or only its end.
    """
    plans: list[tuple[pl.DataFrame, sa.Table, int]] = []
    for frame, schema, table, what in (
        (changes, RATING_CHANGES_SCHEMA, _T_CHANGES, "changes"),
        (explanations, EXPLANATIONS_SCHEMA, _T_EXPLANATIONS, "explanations"),
    ):
        if frame is None:
            continue
        rows = _own(frame, schema, federation, what)
        missing = rows.filter(pl.col("competition_id").is_null() | pl.col("player_id").is_null())
        if missing.height:
            raise BatchError(f"{what} of {federation!r}: {missing.height} rows without competition_id or player_id")
        rows = rows.with_row_index("seq").with_columns(pl.col("seq").cast(pl.Int64))
        if offset is not None:
            _replace_tail(conn, federation, rows, table, offset[0] if what == "changes" else offset[1])
            continue
        plans.append((rows, table, DERIVED_BLOCK))
    if changes is not None or explanations is not None or ratings is not None:
        _record_basis(conn, federation, basis)
    if ratings is not None:
        rows = _own(ratings, RATINGS_SCHEMA, federation, "ratings")
        _one_row_per_player(rows, f"ratings of {federation!r}")
        plans.append((rows, _T_RATINGS, max(rows.height, 1)))
    if not plans:
        return
    state = _T_DERIVED_STATE
    recorded: dict[str, list[str]] = {}
    for name, _, digest in conn.execute(
        sa.select(state.c.table_name, state.c.block, state.c.content_sha256)
        .where(state.c.federation == federation)
        .order_by(state.c.table_name, state.c.block)
    ):
        recorded.setdefault(name, []).append(digest)
    for rows, table, size in plans:
        digests = _block_digests(rows, size)
        old = recorded.get(table.name, [])
        first = next((i for i, (a, b) in enumerate(zip(digests, old, strict=False)) if a != b), min(len(digests), len(old)))
        if first == len(digests) == len(old):
            continue  # unchanged
        keep = first * size
        if "seq" in rows.columns:
            conn.execute(sa.delete(table).where(table.c.federation == federation, table.c.seq >= keep))
            insert_frame(conn, table, rows.slice(keep))
        else:
            conn.execute(sa.delete(table).where(table.c.federation == federation))
            insert_frame(conn, table, rows)
            first = 0
        _record_blocks(conn, federation, table.name, rows.slice(first * size), first, size, digests[first:])


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

    # Every file of the batch, including ones only known through their competitions.
    files = conform(batch.files, FILES_SCHEMA).filter(pl.col("source_sha256").is_not_null())
    files = pl.concat(
        [files, comps.select("source", "source_sha256").with_columns(
            pl.lit(None, pl.Utf8).alias("format"), pl.lit(None, pl.Int64).alias("n_findings"))],
        how="vertical",
    ).unique(subset=["source_sha256"], keep="first", maintain_order=True)

    with write_transaction(engine) as conn:
        register_federation(conn, fed)
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
        files_loaded = files.filter(pl.col("source_sha256").is_in(list(loaded_shas)))
        files_skipped = files.height - files_loaded.height

        if files_loaded.height == 0:
            _replace_derived(conn, fed, batch.changes, batch.explanations, batch.ratings,
                             batch.derived_offset, batch.derived_basis)
            if batch.changes is not None:
                _mark_pending(conn, fed, 0)
            return LoadResult(0, files_skipped, 0, 0, 0)

        # Versions already in the warehouse for the competitions arriving now.
        new_ids = new_comps["competition_id"].to_list()
        prior: dict[str, tuple[int, int | None]] = {}
        current = sa.case((_T_COMPETITIONS.c.status != "superseded", _T_COMPETITIONS.c.id))
        for part in _parts(new_ids):
            query = (
                sa.select(_T_COMPETITIONS.c.competition_id, sa.func.max(_T_COMPETITIONS.c.version), sa.func.max(current))
                .where(_T_COMPETITIONS.c.federation == fed, _T_COMPETITIONS.c.competition_id.in_(part))
                .group_by(_T_COMPETITIONS.c.competition_id)
            )
            prior.update({cid: (int(version), key) for cid, version, key in conn.execute(query)})
        superseded = [key for _, key in prior.values() if key is not None]

        load_id = next_id(conn, _T_LOADS)
        first_comp = next_id(conn, _T_COMPETITIONS)
        versions = [prior.get(cid, (0, None))[0] + 1 for cid in new_ids]
        new_comps = new_comps.with_columns(
            pl.int_range(first_comp, first_comp + new_comps.height, dtype=pl.Int64).alias("id"),
            pl.Series("version", versions, dtype=pl.Int64),
            pl.col("status").alias("outcome"),
            pl.lit(load_id, pl.Int64).alias("load_id"),
        )
        key_of = new_comps.select("competition_id", pl.col("id").alias("competition_key"))

        new_games = games.join(key_of, on="competition_id", how="inner", maintain_order="left")
        new_byes = byes.join(key_of, on="competition_id", how="inner", maintain_order="left")
        loaded_sources = files_loaded["source"].drop_nulls().to_list()
        tied = findings.join(key_of, on="competition_id", how="left", maintain_order="left")
        new_findings = tied.filter(
            pl.col("competition_key").is_not_null()
            | (~pl.col("competition_id").is_in(list(known)).fill_null(False) & pl.col("source").is_in(loaded_sources))
        )

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

        file_info = files.select("source_sha256", "format", "n_findings")
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
        _stage_players(conn, fed, players)
        _replace_derived(conn, fed, batch.changes, batch.explanations, batch.ratings,
                         batch.derived_offset, batch.derived_basis)
        _mark_pending(conn, fed, load_id)
        return LoadResult(
            files_loaded=files_loaded.height,
            files_skipped=files_skipped,
            competitions_loaded=new_comps.height,
            competitions_superseded=len(superseded),
            games_loaded=new_games.height,
            load_id=load_id,
        )


def _mark_pending(conn: Connection, federation: str, load_id: int) -> None:
    """Record, in the load's transaction, that this load still has to be published."""
    exists = conn.execute(
        sa.select(_T_PENDING.c.load_id).where(_T_PENDING.c.federation == federation, _T_PENDING.c.load_id == load_id)
    ).first()
    if exists is None:
        conn.execute(sa.insert(_T_PENDING).values(federation=federation, load_id=load_id))


def pending_publications(engine: Engine, federation: str | None = None) -> dict[str, list[int]]:
    """Loads whose publication did not finish: federation -> ``loads.id`` (0: derived rows only).

    Examples
    --------
    >>> from warehouse.db import get_engine
    >>> pending_publications(get_engine("sqlite://"))
    {}
    """
    query = sa.select(_T_PENDING.c.federation, _T_PENDING.c.load_id).order_by(
        _T_PENDING.c.federation, _T_PENDING.c.load_id
    )
    if federation is not None:
        query = query.where(_T_PENDING.c.federation == federation)
    out: dict[str, list[int]] = {}
    with engine.connect() as conn:
        for fed, load_id in conn.execute(query):
            out.setdefault(str(fed), []).append(int(load_id))
    return out


def published_by(engine: Engine, federation: str, load_ids: list[int]) -> tuple[list[str], pl.DataFrame]:
    """What loads ``load_ids`` bring to publish: their competitions (ids, in load order) and
    the findings of their files that no competition holds (FINDINGS_SCHEMA)."""
    ids = [i for i in load_ids if i]
    if not ids:
        return [], empty(FINDINGS_SCHEMA)
    comps, findings = _T_COMPETITIONS.c, _T_FINDINGS.c
    with engine.connect() as conn:
        competition_ids = [
            str(cid) for (cid,) in conn.execute(
                sa.select(comps.competition_id).where(comps.federation == federation, comps.load_id.in_(ids))
                .order_by(comps.id)
            )
        ]
        orphans = read_frame(
            conn,
            sa.select(*(findings[name] for name in FINDINGS_SCHEMA)).where(
                findings.federation == federation, findings.load_id.in_(ids),
                findings.competition_key.is_(None), findings.competition_id.is_(None),
            ).order_by(findings.id),
            FINDINGS_SCHEMA,
        )
    return list(dict.fromkeys(competition_ids)), orphans


def finish_publication(engine: Engine, federation: str, load_ids: list[int] | None = None) -> None:
    """Mark the publication of ``federation``'s loads (all, or ``load_ids``) as done."""
    with write_transaction(engine) as conn:
        query = sa.delete(_T_PENDING).where(_T_PENDING.c.federation == federation)
        if load_ids is not None:
            query = query.where(_T_PENDING.c.load_id.in_(load_ids))
        conn.execute(query)


def load_seed(
    engine: Engine, federation: str, ratings: pl.DataFrame, *, source: str, source_sha256: str,
    edition: int | None = None,
) -> int:
    """Store a federation's starting list (exactly once per file); return the rows loaded.

    The list's players are upserted into ``players`` too, so reports have names.
    A seed file already in the ledger loads nothing (returns 0). ``edition`` is the
    edition number the list carried (``ReadResult.list_edition``): the federation's
    next editions are numbered from it.

    Raises
    ------
    BatchError
        Rows of another federation, or a player id missing or listed twice.

    Examples
    --------
    >>> from warehouse.db import get_engine
    >>> engine = get_engine("sqlite://")
    >>> seed = pl.DataFrame({"player_id": ["7", "9"], "name": ["Anna", "Berta"], "rating": [1510.0, 1320.0]})
    >>> load_seed(engine, "ajusc", seed, source="ajusc.ratings.csv", source_sha256="cd34")
    2
    >>> load_seed(engine, "ajusc", seed, source="ajusc.ratings.csv", source_sha256="cd34")
    0
    """
    rows = _own(ratings, RATINGS_SCHEMA, federation, "seed list")
    _one_row_per_player(rows, f"seed list {source}")
    with write_transaction(engine) as conn:
        register_federation(conn, federation)
        done = conn.execute(
            sa.select(_T_LEDGER.c.id).where(
                _T_LEDGER.c.federation == federation,
                _T_LEDGER.c.competition_id == "",
                _T_LEDGER.c.source_sha256 == source_sha256,
            )
        ).first()
        if done is not None:
            return 0
        load_id = next_id(conn, _T_LOADS)
        conn.execute(
            sa.insert(_T_LOADS).values(
                id=load_id, federation=federation, kind="seed", loaded_at=_now(), files_loaded=1
            )
        )
        ledger_id = next_id(conn, _T_LEDGER)
        conn.execute(
            sa.insert(_T_LEDGER).values(
                id=ledger_id, federation=federation, competition_id="", source_sha256=source_sha256,
                source=source, format="ratings", kind="seed", n_findings=None, load_id=load_id,
            )
        )
        insert_frame(conn, _T_SEED, rows.with_columns(
            pl.lit(ledger_id, pl.Int64).alias("ledger_id"), pl.lit(edition, pl.Int64).alias("edition")))
        _stage_players(conn, federation, conform(rows, PLAYERS_SCHEMA))
        return rows.height
