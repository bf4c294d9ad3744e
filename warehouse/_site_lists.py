"""The site's reads of published editions: the federations with a list, their editions, every
line of every edition and the corrections published (see :mod:`warehouse.site`)."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any, cast

import polars as pl
import sqlalchemy as sa
from sqlalchemy.engine import Engine

from formats.schema import RATING_LIST_SCHEMA
from warehouse._model_types import table_of
from warehouse.bulk import read_frame
from warehouse.editions import LINES_SCHEMA, edition_contents
from warehouse.models import Federation, RatingList, RatingListLine

__all__ = [
    "CORRECTION_TABLES",
    "EDITIONS_SCHEMA",
    "ENTRIES_SCHEMA",
    "SITE_LINES_SCHEMA",
    "site_corrections",
    "site_editions",
    "site_entries",
    "site_federations",
    "site_lines",
    "site_list_heads",
    "site_sizes",
]

_RATING_LISTS = table_of(RatingList)
_RATING_LIST_LINES = table_of(RatingListLine)
_RL = _RATING_LISTS.c
_RLL = _RATING_LIST_LINES.c
_FED = table_of(Federation).c

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
        .join_from(_RATING_LIST_LINES, _RATING_LISTS, _RL.id == _RLL.list_id)
        .where(_RL.federation == federation)
        .order_by(_RL.edition, _RLL.seq)
    )
    if lists is not None:
        query = query.where(_RLL.list_id > lists[0], _RLL.list_id <= lists[1])
    with engine.connect() as conn:
        return read_frame(conn, query, SITE_LINES_SCHEMA)

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
