"""Read queries for the publication site (``website``): whole tables per federation, once.

The site renders thousands of pages from a few frames, so every function here
reads one federation's rows in one query (a per-player query would cost more
than the rendering). Everything returned is a polars frame with a fixed schema;
SQLAlchemy stays in this package.

Tables that another part of the warehouse may add later (a correction diff of
published editions, extra columns on ``rating_lists``) are read when they exist
and are otherwise empty, so the site shows them as soon as they land.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any, cast

import polars as pl
import sqlalchemy as sa
from sqlalchemy.engine import Engine

from formats.schema import FINDINGS_SCHEMA, RATING_CHANGES_SCHEMA, RATING_LIST_SCHEMA
from warehouse.bulk import read_frame
from warehouse.editions import LINES_SCHEMA, edition_contents
from warehouse.models import (
    Competition,
    DerivedState,
    Explanation,
    Federation,
    Finding,
    Game,
    Load,
    Player,
    RatingChange,
    RatingList,
    RatingListLine,
)

__all__ = [
    "CORRECTION_TABLES",
    "EDITIONS_SCHEMA",
    "ENTRIES_SCHEMA",
    "SITE_CHANGES_SCHEMA",
    "SITE_LINES_SCHEMA",
    "site_changes",
    "site_competitions",
    "site_corrections",
    "site_derived_blocks",
    "site_editions",
    "site_entries",
    "site_explained_from",
    "site_explanations",
    "site_federations",
    "site_findings",
    "site_last_load",
    "site_lines",
    "site_list_heads",
    "site_players",
    "site_sizes",
]

_C = Competition.__table__.c  # type: ignore[attr-defined]
_G = Game.__table__.c  # type: ignore[attr-defined]
_F = Finding.__table__.c  # type: ignore[attr-defined]
_P = Player.__table__.c  # type: ignore[attr-defined]
_RC = RatingChange.__table__.c  # type: ignore[attr-defined]
_X = Explanation.__table__.c  # type: ignore[attr-defined]
_DS = DerivedState.__table__.c  # type: ignore[attr-defined]
_RL = RatingList.__table__.c  # type: ignore[attr-defined]
_RLL = RatingListLine.__table__.c  # type: ignore[attr-defined]
_FED = Federation.__table__.c  # type: ignore[attr-defined]
_LOAD = Load.__table__.c  # type: ignore[attr-defined]

#: One row per published edition, in publication order (``as_of``, then ``edition``).
EDITIONS_SCHEMA: dict[str, pl.DataType] = {
    "list_id": pl.Int64(),
    "edition": pl.Int64(),
    "as_of": pl.Date(),
    "published_at": pl.Utf8(),
    "n_players": pl.Int64(),
}

#: Every line of every edition: the edition's ``list_id`` and ``position``, then RATING_LIST_SCHEMA.
ENTRIES_SCHEMA: dict[str, pl.DataType] = {
    "list_id": pl.Int64(),
    "position": pl.Int64(),
    **{k: v for k, v in RATING_LIST_SCHEMA.items() if k != "federation"},
}

#: Every stored line of a federation's editions (:func:`site_lines`): the edition's ``list_id`` and number,
#: then LINES_SCHEMA.
SITE_LINES_SCHEMA: dict[str, pl.DataType] = {"list_id": pl.Int64(), "edition": pl.Int64(), **LINES_SCHEMA}

#: Tables where a correcting edition's diff (player, figure published, figure now) may be kept.
CORRECTION_TABLES: tuple[str, ...] = (
    "rating_list_corrections",
    "edition_corrections",
    "list_corrections",
    "correction_diffs",
)


def site_federations(engine: Engine) -> pl.DataFrame:
    """Federations that have at least one published edition: id, name, game, system."""
    schema: dict[str, pl.DataType] = {"federation": pl.Utf8(), "name": pl.Utf8(), "game": pl.Utf8(),
                                      "system": pl.Utf8()}
    query = (
        sa.select(_FED.id, _FED.name, _FED.game, _FED.system)
        .where(sa.exists(sa.select(_RL.id).where(_RL.federation == _FED.id)))
        .order_by(_FED.id)
    )
    with engine.connect() as conn:
        return read_frame(conn, query, schema)


def site_sizes(engine: Engine) -> dict[str, int]:
    """Federation -> the most players one of its editions listed (how large its site is).

    Examples
    --------
    >>> import datetime as dt
    >>> from warehouse import get_engine, publish_list
    >>> engine = get_engine("sqlite://")
    >>> site_sizes(engine)
    {}
    >>> lst = pl.DataFrame({"player_id": ["7", "8"], "name": ["Anna", "Bo"], "rating": [1510.0, 1490.0],
    ...                     "rank": [1, 2]})
    >>> publish_list(engine, "ajusc", lst, as_of=dt.date(2025, 9, 1))
    1
    >>> site_sizes(engine)
    {'ajusc': 2}
    """
    query = sa.select(_RL.federation, sa.func.max(_RL.n_players)).group_by(_RL.federation)
    with engine.connect() as conn:
        return {federation: int(n or 0) for federation, n in conn.execute(query)}


def site_editions(engine: Engine, federation: str) -> pl.DataFrame:
    """Every published edition of ``federation`` (EDITIONS_SCHEMA plus any column added later).

    Columns of ``rating_lists`` beyond EDITIONS_SCHEMA and the checksum (say, the
    edition a correcting edition corrects) are returned too, as text, after the
    fixed ones.

    Examples
    --------
    >>> import datetime as dt
    >>> from warehouse import get_engine, publish_list
    >>> engine = get_engine("sqlite://")
    >>> lst = pl.DataFrame({"player_id": ["7"], "name": ["Anna"], "rating": [1510.0], "rank": [1]})
    >>> publish_list(engine, "ajusc", lst, as_of=dt.date(2025, 9, 1))
    1
    >>> site_editions(engine, "ajusc").select("edition", "as_of", "n_players").rows()
    [(1, datetime.date(2025, 9, 1), 1)]
    """
    with engine.connect() as conn:
        table = sa.Table("rating_lists", sa.MetaData(), autoload_with=conn)
        known = {*EDITIONS_SCHEMA, "id", "federation", "content_sha256", "lines", "base_edition"}
        extra = [c.name for c in table.columns if c.name not in known]
        schema = {**EDITIONS_SCHEMA, **{name: pl.Utf8() for name in extra}}
        query = (
            sa.select(table.c.id, table.c.edition, table.c.as_of,
                      sa.cast(table.c.published_at, sa.String), table.c.n_players,
                      *(sa.cast(table.c[name], sa.String) for name in extra))
            .where(table.c.federation == federation)
            .order_by(table.c.as_of, table.c.edition)
        )
        return read_frame(conn, query, schema)


def site_entries(
    engine: Engine, federation: str, *, editions: Collection[int] | None = None, lines: pl.DataFrame | None = None,
) -> pl.DataFrame:
    """Every line of every edition of ``federation`` (ENTRIES_SCHEMA), by edition and position;
    ``editions``: those editions only.

    Editions store their changes (:mod:`warehouse.editions`): each list's lines are read
    once and its editions replayed in order. ``lines``: every line the federation's editions
    stored, already read (:func:`site_lines`), which are then not read again.
    """
    query = sa.select(_RL.id, _RL.edition, _RL.list_name).where(_RL.federation == federation)
    with engine.connect() as conn:
        every = read_frame(conn, query, {"list_id": pl.Int64(), "edition": pl.Int64(), "list_name": pl.Utf8()})
    heads = every if editions is None else every.filter(pl.col("edition").is_in(sorted(editions)))
    ids = dict(heads.select("edition", "list_id").iter_rows())
    parts: list[pl.DataFrame] = []
    for stored_name, numbers in heads.group_by("list_name").agg("edition").iter_rows():
        # The list as stored: null names the federation's first list.
        stored = None if lines is None else lines.filter(pl.col("list_id").is_in(
            every.filter(pl.col("list_name").eq_missing(stored_name)).get_column("list_id").to_list()))
        for edition, rows in edition_contents(engine, federation, numbers, list_name=stored_name, stored=stored):
            parts.append(rows.with_columns(
                pl.lit(ids[edition], pl.Int64).alias("list_id"),
                pl.int_range(1, rows.height + 1, dtype=pl.Int64).alias("position"),
            ))
    if not parts:
        return pl.DataFrame(schema=ENTRIES_SCHEMA)
    return pl.concat(parts, how="vertical_relaxed").select(list(ENTRIES_SCHEMA)).sort("list_id", "position")


def site_list_heads(engine: Engine, federation: str) -> pl.DataFrame:
    """Each published edition's ``list_id``, ``edition`` and ``content_sha256``, by ``list_id``.

    A published edition is never changed (triggers refuse it), so lines read once for a
    ``list_id`` with that checksum stay true: the site keeps them between generations
    (``website.frames``).
    """
    query = (sa.select(_RL.id, _RL.edition, _RL.content_sha256)
             .where(_RL.federation == federation).order_by(_RL.id))
    with engine.connect() as conn:
        return read_frame(conn, query, {"list_id": pl.Int64(), "edition": pl.Int64(), "content_sha256": pl.Utf8()})


def site_lines(engine: Engine, federation: str, *, lists: tuple[int, int] | None = None) -> pl.DataFrame:
    """Every line the federation's editions stored (SITE_LINES_SCHEMA), by edition and ``seq``;
    ``lists``: ``(after, upto)``, the lines of the editions whose ``list_id`` is in ``after < id <= upto`` only.

    A large archive's site cannot replay every edition in full (12,700 editions of
    50,000 players: 3x10^8 lines); what changed on each edition is exactly what was
    stored, so one query reads it all. A ``full`` edition's lines carry their
    ``position``; a ``changes`` edition's do not.

    Examples
    --------
    >>> import datetime as dt
    >>> from warehouse import get_engine, publish_list
    >>> engine = get_engine("sqlite://")
    >>> lst = pl.DataFrame({"player_id": ["7"], "name": ["Anna"], "rating": [1510.0], "rank": [1]})
    >>> publish_list(engine, "ajusc", lst, as_of=dt.date(2025, 9, 1))
    1
    >>> site_lines(engine, "ajusc").select("edition", "player_id", "rating", "removed").rows()
    [(1, '7', 1510.0, False)]
    """
    query = (
        sa.select(_RLL.list_id, _RL.edition, *(_RLL[k] for k in LINES_SCHEMA))
        .join_from(RatingListLine.__table__, RatingList.__table__, _RL.id == _RLL.list_id)  # type: ignore[attr-defined]
        .where(_RL.federation == federation)
        .order_by(_RL.edition, _RLL.seq)
    )
    if lists is not None:
        query = query.where(_RLL.list_id > lists[0], _RLL.list_id <= lists[1])
    with engine.connect() as conn:
        return read_frame(conn, query, SITE_LINES_SCHEMA)


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
        .select_from(Competition.__table__)  # type: ignore[attr-defined]
        .outerjoin(games, games.c.key == _C.id)
        .where(_C.federation == federation, _C.status != "superseded")
        .order_by(_C.end_date, _C.start_date, _C.competition_id)
    )
    with engine.connect() as conn:
        return read_frame(conn, query, _COMPETITIONS_SCHEMA)


def site_findings(engine: Engine, federation: str) -> pl.DataFrame:
    """Findings of the current competition versions (FINDINGS_SCHEMA), in the order found."""
    query = (
        sa.select(*(_F[k] for k in FINDINGS_SCHEMA))
        .select_from(Finding.__table__)  # type: ignore[attr-defined]
        .join(Competition.__table__, _C.id == _F.competition_key)  # type: ignore[attr-defined]
        .where(_F.federation == federation, _C.status != "superseded")
        .order_by(_F.id)
    )
    with engine.connect() as conn:
        return read_frame(conn, query, FINDINGS_SCHEMA)


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


#: Player ids per query when explanations are read for some players (an ``IN`` list; SQLite allows
#: 32,766 parameters).
_IDS_PER_QUERY = 10_000


def site_explanations(engine: Engine, federation: str, players: Collection[str] | None = None) -> pl.DataFrame:
    """The game-by-game explanations of ``federation`` (of ``players`` only, when given), in rating
    order (``seq``)."""
    query = sa.select(*(_X[k] for k in _EXPLANATIONS_SCHEMA)).where(_X.federation == federation)
    with engine.connect() as conn:
        if players is None:
            return read_frame(conn, query.order_by(_X.seq), _EXPLANATIONS_SCHEMA)
        # Sorted here, not by the query: with ORDER BY seq, SQLite walks the whole table in key order
        # instead of looking the players up (ix_explanations_player): 2.9 s against 0.2 s for the
        # 1,100 cards of a 1M-game night.
        ids = sorted(players)
        parts = [read_frame(conn, query.where(_X.player_id.in_(ids[i:i + _IDS_PER_QUERY])), _EXPLANATIONS_SCHEMA)
                 for i in range(0, len(ids), _IDS_PER_QUERY)]
    return pl.concat(parts).sort("seq") if parts else pl.DataFrame(schema=_EXPLANATIONS_SCHEMA)


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


def site_corrections(engine: Engine, federation: str) -> pl.DataFrame | None:
    """The correction diffs of published editions, when the warehouse keeps them (else None).

    Reads the first of :data:`CORRECTION_TABLES` that exists, every column as text
    (its shape belongs to the publication code), rows of ``federation`` only when
    the table has a ``federation`` column.
    """
    with engine.connect() as conn:
        names = set(sa.inspect(conn).get_table_names())
        found = next((name for name in CORRECTION_TABLES if name in names), None)
        if found is None:
            return None
        table = sa.Table(found, sa.MetaData(), autoload_with=conn)
        columns = [c.name for c in table.columns]
        query = cast("sa.Select[Any]", sa.select(*(sa.cast(table.c[name], sa.String) for name in columns)))
        if "federation" in columns:
            query = query.where(table.c.federation == federation)
        order = [table.c[name] for name in ("id", "seq", "edition", "position", "player_id") if name in columns]
        if order:
            query = query.order_by(*order)
        return read_frame(conn, query, {name: pl.Utf8() for name in columns})
