"""Reading published editions back: one edition in full, a list's editions replayed in order,
the editions published and the corrections they made. See :mod:`warehouse.editions`."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator, Sequence
from typing import Any

import polars as pl
import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from formats.schema import RATING_LIST_SCHEMA, empty
from warehouse._editions_lines import (
    _EC,
    _RL,
    _RLL,
    CORRECTIONS_SCHEMA,
    EDITIONS_SCHEMA,
    LINES_SCHEMA,
    _content,
    _list_filter,
    _same_list,
    _starts_at,
)
from warehouse.bulk import read_frame

__all__ = [
    "edition_contents",
    "edition_corrections",
    "edition_entries",
    "editions",
    "latest_edition",
    "rating_list",
    "stored_lines",
]


def _lines(conn: Connection, where: Any, first: int, last: int) -> pl.DataFrame:
    """The lines of the editions ``first`` to ``last`` of the list ``where`` selects (on
    ``rating_lists``): LINES_SCHEMA + ``edition``, oldest first."""
    schema = {**LINES_SCHEMA, "edition": pl.Int64()}
    query = _editions_lines(where, first, last).add_columns(*(_RLL.c[k] for k in LINES_SCHEMA), _RL.c.edition)
    return read_frame(conn, query.order_by(_RL.c.edition, _RLL.c.seq), schema)


def _editions_lines(where: Any, first: int, last: int) -> sa.Select[Any]:
    """A select, without columns yet, of the lines of the editions ``first`` to ``last`` of the
    list ``where`` selects (on ``rating_lists``)."""
    return sa.select().join_from(_RLL, _RL, _RL.c.id == _RLL.c.list_id).where(where, _RL.c.edition.between(first, last))


def _newest_lines(conn: Connection, where: Any, first: int, last: int) -> pl.DataFrame:
    """Each player's newest line of the editions ``first`` to ``last`` of the list ``where``
    selects: the rows of :func:`_lines` that :func:`_content` keeps of a ``changes`` edition,
    chosen by the database (the last by edition, then ``seq``), in the same order.

    An edition of a list that is never stored in full replays every line since the list's first
    edition: on a 1M-game archive, a night's read of the last edition turned 283,000 lines into
    Python objects to keep 44,000 (1.1-1.6 s). SQLite takes the other columns of a ``max()``
    group from the row holding the maximum; PostgreSQL numbers each player's lines.
    """
    schema = {**LINES_SCHEMA, "edition": pl.Int64(), "seq": pl.Int64(), "_key": pl.Int64()}
    columns = [*(_RLL.c[k] for k in LINES_SCHEMA), _RL.c.edition, _RLL.c.seq]
    base = _editions_lines(where, first, last)
    if conn.dialect.name == "sqlite":
        # Edition and seq in one integer (seq < 2^32): one max() picks the row.
        query = base.add_columns(*columns, sa.func.max(_RL.c.edition * 4294967296 + _RLL.c.seq)).group_by(_RLL.c.player_id)
    else:
        newest = sa.func.row_number().over(partition_by=_RLL.c.player_id,
                                           order_by=(_RL.c.edition.desc(), _RLL.c.seq.desc()))
        ranked = base.add_columns(*columns, newest.label("_key")).subquery()
        query = sa.select(*(ranked.c[k] for k in schema)).where(ranked.c["_key"] == 1)
    return read_frame(conn, query, schema).sort("edition", "seq").drop("seq", "_key")


def _read_edition(conn: Connection, federation: str, stored_name: str | None, edition: int) -> pl.DataFrame:
    """One edition of one list in full (RATING_LIST_SCHEMA), in the published order."""
    head = conn.execute(
        sa.select(_RL.c.lines, _RL.c.base_edition)
        .where(_RL.c.federation == federation, _RL.c.edition == edition)
    ).one()
    full, first = _starts_at(edition, head.lines, head.base_edition)
    where = (_RL.c.federation == federation) & _same_list(stored_name)
    lines = _lines(conn, where, first, edition) if full else _newest_lines(conn, where, first, edition)
    return _content(lines, full, federation)


#: Editions whose lines one read of :func:`edition_contents` takes (a list's lines are read a few
#: editions at a time, not all at once: memory follows the list and a few editions' changes).
_EDITIONS_PER_READ = 12


def edition_contents(
    engine: Engine, federation: str, wanted: Sequence[int], *, list_name: str | None = None,
    first_list: str | None = None, stored: pl.DataFrame | None = None,
) -> Iterator[tuple[int, pl.DataFrame]]:
    """Editions ``wanted`` of one list in full, in edition order: ``(edition, RATING_LIST_SCHEMA)``.

    The list's lines are read once and its editions replayed in order, so checking every
    published edition after a backfill reads each line once, not once per edition; they are
    read a few editions at a time, each read on a connection of its own (none is held between
    two editions given). ``stored``: the list's lines already read (LINES_SCHEMA + ``edition``,
    by edition and ``seq``, as :func:`stored_lines` gives them), at least those of the editions
    up to the last one wanted; they are not read again.
    """
    todo = set(wanted)
    if not todo:
        return
    where = _list_filter(federation, list_name, first_list)
    with engine.connect() as conn:
        heads = read_frame(
            conn, sa.select(_RL.c.edition, sa.func.coalesce(_RL.c.lines, "full"), _RL.c.base_edition)
            .where(where, _RL.c.edition <= max(todo)).order_by(_RL.c.edition),
            {"edition": pl.Int64(), "lines": pl.Utf8(), "base_edition": pl.Int64()},
        )
    start = min((_starts_at(*row)[1] for row in heads.filter(pl.col("edition").is_in(sorted(todo))).iter_rows()),
                default=0)

    def lines_of(first: int, last: int) -> pl.DataFrame:
        if stored is not None:
            return stored.filter(pl.col("edition").is_between(first, last)).select(*LINES_SCHEMA, "edition")
        with engine.connect() as conn:
            return _lines(conn, where, first, last)

    kinds = dict(heads.filter(pl.col("edition") >= start).select("edition", "lines").iter_rows())
    first = min(todo)
    # The state at the first edition wanted, in one pass over the lines before it (from the last
    # full edition); then each later edition replayed on it.
    reset = max((e for e, kind in kinds.items() if kind == "full" and e <= first), default=start)
    before = lines_of(reset, first)
    state = before if kinds.get(first) == "full" else before.unique("player_id", keep="last", maintain_order=True)
    later = [e for e in kinds if e > first and e <= max(todo)]
    reads = [later[i:i + _EDITIONS_PER_READ] for i in range(0, len(later), _EDITIONS_PER_READ)]
    for chunk in [[first], *reads] if first in kinds else reads:
        groups = {} if chunk == [first] else lines_of(chunk[0], chunk[-1]).partition_by(
            "edition", as_dict=True, include_key=False, maintain_order=True)
        for edition in chunk:
            kind = kinds.get(edition)
            if edition > first:
                own = groups.get((edition,), empty(LINES_SCHEMA))
                state = own if kind == "full" else pl.concat([state.drop("edition", strict=False), own],
                                                             how="vertical_relaxed").unique(
                    "player_id", keep="last", maintain_order=True)
            if edition in todo:
                yield edition, _content(state, kind == "full", federation)
                todo.discard(edition)
                if not todo:
                    return


def stored_lines(
    engine: Engine, federation: str, first: int, last: int, *, list_name: str | None = None,
    first_list: str | None = None,
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The lines editions ``first`` to ``last`` of one list stored, as stored: LINES_SCHEMA +
    ``edition``, oldest first; and those editions (``edition``, ``lines``: changes | full)."""
    where = _list_filter(federation, list_name, first_list)
    with engine.connect() as conn:
        heads = read_frame(
            conn, sa.select(_RL.c.edition, sa.func.coalesce(_RL.c.lines, "full"))
            .where(where, _RL.c.edition.between(first, last)).order_by(_RL.c.edition),
            {"edition": pl.Int64(), "lines": pl.Utf8()},
        )
        return _lines(conn, where, first, last), heads




def editions(
    engine: Engine, federation: str, *, list_name: str | None = None, first_list: str | None = None,
    all_lists: bool = False, with_seed: bool = False,
) -> pl.DataFrame:
    """Editions the pipeline published of the federation's list (EDITIONS_SCHEMA), by edition number.

    ``list_name`` one of its lists (``first_list``: its first, stored with a null
    ``list_name``; None: the first list); ``all_lists`` every list's editions, with the
    first list's name filled in from ``first_list``; ``with_seed`` the seeded list's
    edition too (:func:`publish_seed_edition`).
    """
    cols = [_RL.c.id.label("list_id"), *(_RL.c[k] for k in list(EDITIONS_SCHEMA)[1:])]
    where = _list_filter(federation, list_name, first_list, all_lists)
    if not with_seed:
        where = sa.and_(where, sa.func.coalesce(_RL.c.kind, "ordinary") != "seed")
    with engine.connect() as conn:
        frame = read_frame(conn, sa.select(*cols).where(where).order_by(_RL.c.edition), EDITIONS_SCHEMA)
    return frame.with_columns(
        pl.col("kind").fill_null("ordinary"), pl.col("list_name").fill_null(pl.lit(first_list, pl.Utf8))
    )


def edition_entries(engine: Engine, list_id: int) -> pl.DataFrame:
    """The rows of one published edition (RATING_LIST_SCHEMA), in the published order."""
    with engine.connect() as conn:
        head = conn.execute(sa.select(_RL.c.federation, _RL.c.list_name, _RL.c.edition).where(_RL.c.id == list_id)).first()
        if head is None:
            return empty(RATING_LIST_SCHEMA)
        return _read_edition(conn, str(head.federation), head.list_name, int(head.edition))


def edition_corrections(
    engine: Engine, federation: str, *, correcting_edition: int | None = None
) -> pl.DataFrame:
    """The diffs correcting editions published: CORRECTIONS_SCHEMA + correcting_edition, reason.

    Examples
    --------
    >>> from warehouse.db import get_engine
    >>> edition_corrections(get_engine("sqlite://"), "ajusc").columns[:3]
    ['correcting_edition', 'edition', 'edition_as_of']
    """
    schema = {"correcting_edition": pl.Int64(), **CORRECTIONS_SCHEMA, "list_name": pl.Utf8(), "reason": pl.Utf8()}
    query = sa.select(*(_EC.c[k] for k in schema)).where(_EC.c.federation == federation)
    if correcting_edition is not None:
        query = query.where(_EC.c.correcting_edition == correcting_edition)
    with engine.connect() as conn:
        return read_frame(conn, query.order_by(_EC.c.id), schema)


def rating_list(
    engine: Engine,
    federation: str,
    *,
    as_of: dt.date | None = None,
    edition: int | None = None,
    list_name: str | None = None,
    first_list: str | None = None,
) -> pl.DataFrame:
    """The list in force on ``as_of``: the latest edition dated on or before it.

    ``as_of=None`` gives the latest edition; ``edition`` that edition. ``list_name`` one of
    the federation's lists (None: its first, stored with a null ``list_name``). Empty
    (RATING_LIST_SCHEMA) when no edition was in force yet.

    Examples
    --------
    >>> from warehouse.db import get_engine
    >>> from warehouse.editions import publish_list
    >>> engine = get_engine("sqlite://")
    >>> lst = pl.DataFrame({"player_id": ["7"], "name": ["Anna"], "rating": [1510.0], "rank": [1]})
    >>> publish_list(engine, "ajusc", lst, as_of=dt.date(2025, 9, 1))
    1
    >>> rating_list(engine, "ajusc", as_of=dt.date(2025, 9, 30))
    shape: (1, 8)
    ┌────────────┬───────────┬──────┬────────┬───────┬────────┬──────────┬──────┐
    │ federation ┆ player_id ┆ name ┆ rating ┆ games ┆ status ┆ category ┆ rank │
    │ ---        ┆ ---       ┆ ---  ┆ ---    ┆ ---   ┆ ---    ┆ ---      ┆ ---  │
    │ str        ┆ str       ┆ str  ┆ f64    ┆ i64   ┆ str    ┆ str      ┆ i64  │
    ╞════════════╪═══════════╪══════╪════════╪═══════╪════════╪══════════╪══════╡
    │ ajusc      ┆ 7         ┆ Anna ┆ 1510.0 ┆ null  ┆ null   ┆ null     ┆ 1    │
    └────────────┴───────────┴──────┴────────┴───────┴────────┴──────────┴──────┘
    >>> rating_list(engine, "ajusc", as_of=dt.date(2025, 8, 31)).height
    0
    """
    found = latest_edition(engine, federation, as_of=as_of, edition=edition, list_name=list_name,
                           first_list=first_list)
    return empty(RATING_LIST_SCHEMA) if found is None else found[1]


def latest_edition(engine: Engine, federation: str, *, as_of: dt.date | None = None, edition: int | None = None,
                   list_name: str | None = None, first_list: str | None = None) -> tuple[int, pl.DataFrame] | None:
    """:func:`rating_list`'s edition (same arguments) with its number, ``(edition, content)``; None
    when there is none.

    Examples
    --------
    >>> from warehouse.db import get_engine
    >>> from warehouse.editions import Edition, publish_editions
    >>> engine = get_engine("sqlite://")
    >>> anna = pl.DataFrame({"player_id": ["7"], "name": ["Anna"], "rating": [1510.0], "rank": [1]})
    >>> publish_editions(engine, "egf", [Edition(anna, dt.date(2025, 1, 1)), Edition(anna, dt.date(2025, 2, 1))])
    [1, 2]
    >>> [(n, c.height) for n, c in [latest_edition(engine, "egf"), latest_edition(engine, "egf", edition=1)]]
    [(2, 1), (1, 1)]
    >>> latest_edition(engine, "egf", as_of=dt.date(2024, 12, 31)) is None
    True
    """
    query = sa.select(_RL.c.list_name, _RL.c.edition).where(_list_filter(federation, list_name, first_list))
    if edition is not None:
        query = query.where(_RL.c.edition == edition)
    if as_of is not None:
        query = query.where(_RL.c.as_of <= as_of)
    query = query.order_by(_RL.c.as_of.desc(), _RL.c.edition.desc()).limit(1)
    with engine.connect() as conn:
        head = conn.execute(query).first()
        if head is None:
            return None
        return int(head.edition), _read_edition(conn, federation, head.list_name, int(head.edition))
