"""The site's reads of the record: players, competitions, findings, rating changes, explanations,
the derived blocks' checksums and the last load (see :mod:`warehouse.site`)."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

import polars as pl
import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from formats.schema import FINDINGS_SCHEMA, RATING_CHANGES_SCHEMA
from warehouse._model_types import table_of
from warehouse.bulk import read_frame
from warehouse.models import (
    Competition,
    DerivedState,
    Explanation,
    Finding,
    Game,
    Load,
    Player,
    RatingChange,
)

__all__ = [
    "SITE_CHANGES_SCHEMA",
    "site_changes",
    "site_competitions",
    "site_derived_blocks",
    "site_explained_from",
    "site_explanations",
    "site_finding_keys",
    "site_findings",
    "site_last_load",
    "site_players",
]

_COMPETITIONS = table_of(Competition)
_FINDINGS = table_of(Finding)
_C = _COMPETITIONS.c
_G = table_of(Game).c
_F = _FINDINGS.c
_P = table_of(Player).c
_RC = table_of(RatingChange).c
_X = table_of(Explanation).c
_DS = table_of(DerivedState).c
_LOAD = table_of(Load).c

def site_players(engine: Engine, federation: str) -> pl.DataFrame:
    """The federation's players: player_id, name, country, club."""
    schema: dict[str, pl.DataType] = {"player_id": pl.Utf8(), "name": pl.Utf8(), "country": pl.Utf8(),
                                      "club": pl.Utf8()}
    query = sa.select(_P.player_id, _P.name, _P.country, _P.club).where(_P.federation == federation)
    with engine.connect() as conn:
        return read_frame(conn, query, schema)


_COMPETITIONS_SCHEMA: dict[str, pl.DataType] = {
    "competition_id": pl.Utf8(),
    "name": pl.Utf8(),
    "start_date": pl.Date(),
    "end_date": pl.Date(),
    "rounds": pl.Int64(),
    "modality": pl.Utf8(),
    "source": pl.Utf8(),
    "version": pl.Int64(),
    "status": pl.Utf8(),
    "games": pl.Int64(),
    "games_rated": pl.Int64(),
    "load_id": pl.Int64(),
}


def site_competitions(engine: Engine, federation: str) -> pl.DataFrame:
    """The current version of each competition, with its game counts, by end date.

    Columns: competition_id, name, start_date, end_date, rounds, modality, source,
    version, status (accepted | rejected | any status added later), games,
    games_rated, load_id.
    """
    games = (
        sa.select(
            _G.competition_key.label("key"),
            sa.func.count().label("games"),
            sa.func.sum(sa.case((_G.rated.is_(False), 0), else_=1)).label("games_rated"),
        )
        # By the federation's competition keys: the count reads the index (competition_key, rated) only.
        .where(_G.competition_key.in_(sa.select(_C.id).where(_C.federation == federation)))
        .group_by(_G.competition_key)
        .subquery()
    )
    query = (
        sa.select(_C.competition_id, _C.name, _C.start_date, _C.end_date, _C.rounds, _C.modality, _C.source,
                  _C.version, _C.status, sa.func.coalesce(games.c.games, 0),
                  sa.func.coalesce(games.c.games_rated, 0), _C.load_id)
        .select_from(_COMPETITIONS)
        .outerjoin(games, games.c.key == _C.id)
        .where(_C.federation == federation, _C.status != "superseded")
        .order_by(_C.end_date, _C.start_date, _C.competition_id)
    )
    with engine.connect() as conn:
        return read_frame(conn, query, _COMPETITIONS_SCHEMA)


def site_findings(engine: Engine, federation: str, competitions: Collection[str] | None = None) -> pl.DataFrame:
    """Findings of the current competition versions (FINDINGS_SCHEMA), in the order found
    (``competitions``: of those only)."""
    query = (
        sa.select(*(_F[k] for k in FINDINGS_SCHEMA), _F.id)
        .select_from(_FINDINGS)
        .join(_COMPETITIONS, _C.id == _F.competition_key)
        .where(_F.federation == federation, _C.status != "superseded")
    )
    schema = {**FINDINGS_SCHEMA, "id": pl.Int64()}
    with engine.connect() as conn:
        return _read_of(conn, query, _F.id, _C.competition_id, competitions, schema).drop("id")


#: What identifies the findings of a competition's current version (:func:`site_finding_keys`).
FINDING_KEYS_SCHEMA: dict[str, pl.DataType] = {
    "competition_id": pl.Utf8(), "findings": pl.Int64(), "first_id": pl.Int64(), "last_id": pl.Int64(),
}


def site_finding_keys(engine: Engine, federation: str) -> pl.DataFrame:
    """Per current competition version with findings: how many, and their first and last ``id``
    (FINDING_KEYS_SCHEMA).

    A version's findings are written once, with it, and never change; their ids are given out in
    one serialised load: the three numbers tell whether a competition page's findings changed,
    without reading them (a FIDE archive has hundreds of thousands: every forfeit).
    """
    query = (
        sa.select(_C.competition_id, sa.func.count(), sa.func.min(_F.id), sa.func.max(_F.id))
        .select_from(_FINDINGS)
        .join(_COMPETITIONS, _C.id == _F.competition_key)
        .where(_F.federation == federation, _C.status != "superseded")
        .group_by(_C.competition_id)
    )
    with engine.connect() as conn:
        return read_frame(conn, query, FINDING_KEYS_SCHEMA).sort("competition_id")


#: Every rating change of a federation (:func:`site_changes`): ``seq``, then RATING_CHANGES_SCHEMA
#: less ``federation``.
SITE_CHANGES_SCHEMA: dict[str, pl.DataType] = {
    "seq": pl.Int64(),
    **{k: v for k, v in RATING_CHANGES_SCHEMA.items() if k != "federation"},
}


def site_changes(engine: Engine, federation: str, *, from_seq: int = 0) -> pl.DataFrame:
    """Every rating change of ``federation`` in rating order (``seq``, then RATING_CHANGES_SCHEMA less
    federation); ``from_seq``: those at that ``seq`` or later only."""
    query = sa.select(*(_RC[k] for k in SITE_CHANGES_SCHEMA)).where(_RC.federation == federation).order_by(_RC.seq)
    if from_seq:
        query = query.where(_RC.seq >= from_seq)
    with engine.connect() as conn:
        return read_frame(conn, query, SITE_CHANGES_SCHEMA)


_EXPLANATIONS_SCHEMA: dict[str, pl.DataType] = {
    "seq": pl.Int64(),
    "competition_id": pl.Utf8(),
    "period": pl.Utf8(),
    "player_id": pl.Utf8(),
    "round": pl.Int64(),
    "opponent_id": pl.Utf8(),
    "rating": pl.Float64(),
    "opponent_rating": pl.Float64(),
    "handicap": pl.Int64(),
    "score": pl.Float64(),
    "expected": pl.Float64(),
    "k": pl.Float64(),
    "contribution": pl.Float64(),
    "rule_set": pl.Utf8(),
}


#: Values per query when rows are read for some players or competitions (an ``IN`` list; SQLite
#: allows 32,766 parameters).
_IDS_PER_QUERY = 10_000


def site_explanations(engine: Engine, federation: str, players: Collection[str] | None = None) -> pl.DataFrame:
    """The game-by-game explanations of ``federation`` (of ``players`` only, when given), in rating
    order (``seq``)."""
    query = sa.select(*(_X[k] for k in _EXPLANATIONS_SCHEMA)).where(_X.federation == federation)
    with engine.connect() as conn:
        return _read_of(conn, query, _X.seq, _X.player_id, players, _EXPLANATIONS_SCHEMA)


def _read_of(conn: Connection, query: sa.Select[Any], order: sa.ColumnElement[Any], key: sa.ColumnElement[Any],
             wanted: Collection[str] | None, schema: dict[str, pl.DataType]) -> pl.DataFrame:
    """``query``'s rows in ``order`` (a column of ``schema``), of the ``wanted`` values of ``key``
    only (None: all), read :data:`_IDS_PER_QUERY` values at a time.

    Sorted here, not by the query: with ORDER BY, SQLite walks the whole table in key order instead
    of looking the values up in their index (explanations: 2.9 s against 0.2 s for the 1,100 cards of
    a 1M-game night).
    """
    if wanted is None:
        return read_frame(conn, query.order_by(order), schema)
    ids = sorted(wanted)
    parts = [read_frame(conn, query.where(key.in_(ids[i:i + _IDS_PER_QUERY])), schema)
             for i in range(0, len(ids), _IDS_PER_QUERY)]
    return pl.concat(parts).sort(str(order.key)) if parts else pl.DataFrame(schema=schema)


def site_derived_blocks(engine: Engine, federation: str, table: str = "explanations") -> list[tuple[str, int]] | None:
    """The checksum and row count of each block of ``table`` (``explanations`` or ``rating_changes``)
    of ``federation`` (``derived_state``, in block order), when they describe every stored row:
    blocks 0..n-1, as many rows as the table holds. Else None (a warehouse written before the
    loader recorded them for incremental runs)."""
    stored = {Explanation.__tablename__: _X, RatingChange.__tablename__: _RC}[table]
    with engine.connect() as conn:
        blocks = conn.execute(
            sa.select(_DS.block, _DS.content_sha256, _DS.n_rows)
            .where(_DS.federation == federation, _DS.table_name == table)
            .order_by(_DS.block)
        ).all()
        rows = conn.execute(sa.select(sa.func.count()).where(stored.federation == federation)).scalar_one()
    if [b for b, _, _ in blocks] != list(range(len(blocks))) or sum(n for _, _, n in blocks) != rows:
        return None
    return [(digest, n) for _, digest, n in blocks]


def site_explained_from(engine: Engine, federation: str, seq: int) -> set[str]:
    """The players with an explanation row at ``seq`` or later."""
    with engine.connect() as conn:
        return set(conn.execute(sa.select(_X.player_id).distinct()
                                .where(_X.federation == federation, _X.seq >= seq)).scalars())


def site_last_load(engine: Engine, federation: str) -> dict[str, Any] | None:
    """The federation's latest results load (the last night that brought files), or None.

    Keys: load_id, loaded_at (ISO text), files_loaded, files_skipped,
    competitions_loaded, competitions_superseded, games_loaded.
    """
    query = (
        sa.select(_LOAD.id.label("load_id"), sa.cast(_LOAD.loaded_at, sa.String).label("loaded_at"),
                  _LOAD.files_loaded, _LOAD.files_skipped, _LOAD.competitions_loaded,
                  _LOAD.competitions_superseded, _LOAD.games_loaded)
        .where(_LOAD.federation == federation, _LOAD.kind == "results")
        .order_by(_LOAD.id.desc())
        .limit(1)
    )
    with engine.connect() as conn:
        row = conn.execute(query).mappings().first()
    return dict(row) if row is not None else None

