"""Published editions: stored as the lines that changed, read back in full.

DESIGN.md *Publication*. AJUSC and EGF publish an edition after each rated
competition: a migrated archive of 12,000 competitions and 50,000 players is 10^8
full lines, of which 0.5 % differ in a figure from the edition before.
So an edition stores, in ``rating_list_lines``, only the lines whose figures (name,
rating, games, status, category) changed since the previous edition of its list, the
players new to the list, and a ``removed`` line for each player who left it
(``rating_lists.lines = 'changes'``). Its ranks and order are not stored: they follow
from the figures by the rule every federation's list follows (:func:`in_list_order`).
A list whose ranks or order do not follow that rule (a list made by hand) is stored in
full, as published (``'full'``). Reading an edition takes, for each player, the newest
line from the list's ``base_edition`` (its last full edition, or the start) up to it.

Every published edition reads back exactly as it was published (tests check it on
every real season); the view ``rating_list_entries`` gives the same lines in SQL.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import polars as pl
import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from formats.schema import RATING_LIST_SCHEMA, conform, empty
from warehouse._load_contract import _own
from warehouse._load_players import register_federation
from warehouse.bulk import frame_sha256, insert_frame, next_id, read_frame
from warehouse.db import write_transaction
from warehouse.models import EditionCorrection, LedgerEntry, RatingList, RatingListLine, SeedEntry

__all__ = [
    "CORRECTIONS_SCHEMA",
    "EDITIONS_SCHEMA",
    "LINES_SCHEMA",
    "Edition",
    "ListLines",
    "edition_contents",
    "edition_corrections",
    "edition_entries",
    "editions",
    "in_list_order",
    "list_lines",
    "publish_edition",
    "publish_editions",
    "publish_list",
    "publish_seed_edition",
    "rating_list",
    "stored_lines",
]

_L = LedgerEntry.__table__.c  # type: ignore[attr-defined]
_S = SeedEntry.__table__.c  # type: ignore[attr-defined]
_RL = RatingList.__table__  # type: ignore[attr-defined]
_RLL = RatingListLine.__table__  # type: ignore[attr-defined]
_EC = EditionCorrection.__table__  # type: ignore[attr-defined]

#: :func:`editions`: one row per published edition.
EDITIONS_SCHEMA: dict[str, pl.DataType] = {
    "list_id": pl.Int64(),
    "federation": pl.Utf8(),
    "list_name": pl.Utf8(),
    "edition": pl.Int64(),
    "as_of": pl.Date(),
    "kind": pl.Utf8(),
    "covers": pl.Utf8(),
    "n_players": pl.Int64(),
}

#: A correcting edition's diff: one row per player and published edition it touched.
CORRECTIONS_SCHEMA: dict[str, pl.DataType] = {
    "edition": pl.Int64(),
    "edition_as_of": pl.Date(),
    "player_id": pl.Utf8(),
    "name": pl.Utf8(),
    "published": pl.Float64(),
    "now": pl.Float64(),
}

#: An edition's stored lines (``rating_list_lines`` without its keys).
LINES_SCHEMA: dict[str, pl.DataType] = {
    **{k: v for k, v in RATING_LIST_SCHEMA.items() if k != "federation"},
    "position": pl.Int64(),
    "removed": pl.Boolean(),
}

#: What a ``changes`` edition compares with the previous edition, player by player.
_FIGURES: tuple[str, ...] = ("player_id", "name", "rating", "games", "status", "category")


def in_list_order(frame: pl.DataFrame) -> pl.DataFrame:
    """``frame`` ranked and ordered as every federation's list is: ranks to active players
    only, ties share a rank (1, 2, 2, 4); rows by rank, then rating (descending), then
    player id; unranked players last (the rule of ``engine.rating_list`` for BARRUF, Elo
    and GoR alike).

    Examples
    --------
    >>> f = pl.DataFrame({"player_id": ["a", "b", "c", "d"], "rating": [1500.0, 1600.0, 1500.0, 1700.0],
    ...                   "status": ["active", "active", "active", "inactive"]})
    >>> in_list_order(f).select("player_id", "rank").rows()
    [('b', 1), ('a', 2), ('c', 2), ('d', None)]
    """
    active = pl.col("status") == "active"
    ranked = frame.with_columns(
        pl.when(active).then(pl.col("rating").rank(method="min", descending=True).over(active))
        .otherwise(None).cast(pl.Int64).alias("rank")
    )
    return ranked.sort(["rank", "rating", "player_id"], descending=[False, True, False], nulls_last=True)


def _keyed(rows: pl.DataFrame) -> bool:
    """One line per player, each with an id: lines can be told apart by player."""
    ids = rows.get_column("player_id")
    return ids.null_count() == 0 and not ids.is_duplicated().any()


def _follows_the_rule(rows: pl.DataFrame) -> bool:
    """The ranks and order of ``rows`` are those :func:`in_list_order` derives."""
    if not _keyed(rows):
        return False
    derived = in_list_order(rows.drop("rank"))
    return derived.select("player_id", "rank").equals(rows.select("player_id", "rank"))


@dataclass(frozen=True)
class ListLines:
    """An edition's lines as stored (:func:`list_lines`)."""

    lines: pl.DataFrame                      #: LINES_SCHEMA
    full: bool                               #: every line as published, else the changes
    n_players: int                           #: how many players the edition lists
    rating_list: pl.DataFrame | None = None  #: the edition in full, when the caller has it


def list_lines(previous: pl.DataFrame | None, current: pl.DataFrame) -> ListLines:
    """How ``current`` (RATING_LIST_SCHEMA, in published order) is stored after ``previous``
    (the edition before it in its list, None for the list's first).

    Examples
    --------
    >>> before = pl.DataFrame({"player_id": ["a", "b", "c"], "rating": [1600.0, 1500.0, 1400.0],
    ...                        "status": "active", "rank": [1, 2, 3]})
    >>> after = pl.DataFrame({"player_id": ["b", "a", "d"], "rating": [1650.0, 1600.0, 1000.0],
    ...                       "status": ["active", "active", "provisional"], "rank": [1, 2, None]})
    >>> stored = list_lines(before, after)
    >>> stored.full, stored.n_players, stored.lines.select("player_id", "rating", "removed").rows()
    (False, 3, [('b', 1650.0, False), ('d', 1000.0, False), ('c', None, True)])
    """
    rows = conform(current, RATING_LIST_SCHEMA)
    if not _follows_the_rule(rows) or (previous is not None and not _keyed(previous)):
        lines = rows.with_columns(pl.int_range(1, rows.height + 1, dtype=pl.Int64).alias("position"),
                                  pl.lit(False).alias("removed"))
        return ListLines(conform(lines, LINES_SCHEMA), True, rows.height, current)
    now = rows.select(_FIGURES)
    if previous is None:
        changed, gone = now, now.clear()
    else:
        before = conform(previous, RATING_LIST_SCHEMA).select(_FIGURES)
        changed = now.join(before, on=list(_FIGURES), how="anti", nulls_equal=True, maintain_order="left")
        gone = before.join(now, on="player_id", how="anti", maintain_order="left")
    lines = pl.concat([
        changed.with_columns(pl.lit(False).alias("removed")),
        gone.select("player_id", pl.lit(True).alias("removed")),
    ], how="diagonal_relaxed")
    return ListLines(conform(lines, LINES_SCHEMA), False, rows.height, current)


def _content(lines: pl.DataFrame, full: bool, federation: str) -> pl.DataFrame:
    """An edition in full (RATING_LIST_SCHEMA) from its list's lines since its base, oldest first."""
    if full:
        out = lines.sort("position")
    else:
        out = in_list_order(
            lines.unique("player_id", keep="last", maintain_order=True).filter(~pl.col("removed"))
        )
    return conform(out.with_columns(pl.lit(federation).alias("federation")), RATING_LIST_SCHEMA)


def _starts_at(edition: int, lines: str | None, base_edition: int | None) -> tuple[bool, int]:
    """Whether an edition is stored in full (null ``lines``: published before revision 0006),
    and the edition its lines start from: its own when full, else its ``base_edition``
    (0: the list's first edition)."""
    full = (lines or "full") == "full"
    return full, edition if full else int(base_edition or 0)


def _seeded_edition(conn: Any, federation: str) -> int | None:
    """The edition number the latest seeded list carried (None: no seed, or one without a number)."""
    seed_ledger = conn.execute(
        sa.select(sa.func.max(_L.id)).where(_L.federation == federation, _L.kind == "seed")
    ).scalar()
    seeded = conn.execute(
        sa.select(sa.func.max(_S.edition)).where(_S.ledger_id == seed_ledger)
    ).scalar() if seed_ledger is not None else None
    return None if seeded is None else int(seeded)


def _next_edition(conn: Any, federation: str) -> int:
    """The next edition number: after the latest published, else after the seeded list's edition."""
    latest = conn.execute(sa.select(sa.func.max(_RL.c.edition)).where(_RL.c.federation == federation)).scalar()
    if latest is not None:
        return int(latest) + 1
    seeded = _seeded_edition(conn, federation)
    return 1 if seeded is None else seeded + 1


def publish_seed_edition(engine: Engine, federation: str, rating_list: pl.DataFrame, *,
                         as_of: dt.date) -> int | None:
    """Store the seeded list as the edition it was (``kind = 'seed'``); return its number.

    The list a federation brings is the edition in force until the pipeline publishes
    its first: ``ratings list --edition N`` and ``--as-of`` its date answer it, and the
    first edition published after it is compared with it (changes, new players). Only
    a seed that carries an edition number is one, and only while the federation has no
    edition: a later seed publishes nothing (an edition is never rewritten). None when
    nothing was stored.

    Examples
    --------
    >>> from warehouse.db import get_engine
    >>> from warehouse.load import load_seed
    >>> engine = get_engine("sqlite://")
    >>> lst = pl.DataFrame({"player_id": ["7"], "name": ["Anna"], "rating": [1510.0], "rank": [1]})
    >>> load_seed(engine, "ajusc", lst, source="s.ratings.csv", source_sha256="ab", edition=190)
    1
    >>> publish_seed_edition(engine, "ajusc", lst, as_of=dt.date(2025, 9, 1))
    190
    >>> publish_list(engine, "ajusc", lst.with_columns(pl.lit(1520.0).alias("rating")), as_of=dt.date(2025, 10, 4))
    191
    >>> editions(engine, "ajusc", with_seed=True).select("edition", "kind").rows()
    [(190, 'seed'), (191, 'ordinary')]
    """
    with write_transaction(engine) as conn:
        seeded = _seeded_edition(conn, federation)
        if seeded is None:
            return None
        if conn.execute(sa.select(_RL.c.id).where(_RL.c.federation == federation).limit(1)).first():
            return None
        return _publish(conn, federation, [Edition(rating_list, as_of, kind="seed")], known=None, number=seeded)[0]


def publish_edition(
    engine: Engine,
    federation: str,
    rating_list: pl.DataFrame,
    *,
    as_of: dt.date,
    list_name: str | None = None,
    kind: str = "ordinary",
    covers: str | None = None,
    corrections: pl.DataFrame | None = None,
    reason: str | None = None,
) -> int:
    """Store ``rating_list`` as the federation's next edition (always); return its number.

    Parameters
    ----------
    engine
        From :func:`warehouse.get_engine`.
    federation
        Federation id.
    rating_list
        RATING_LIST_SCHEMA, in the published order (kept as ``position``).
    as_of
        The date the edition is in force from.
    list_name
        Which of the federation's lists (None: its first).
    kind
        ``ordinary`` or ``correcting``.
    covers
        The last point of the history the edition holds (see ``RatingList.covers``).
    corrections
        CORRECTIONS_SCHEMA: for a correcting edition, every figure of a published
        edition it changes (stored in ``edition_corrections``).
    reason
        Why (the competitions that caused a correction), kept with each correction.

    Examples
    --------
    >>> from warehouse.db import get_engine
    >>> engine = get_engine("sqlite://")
    >>> lst = pl.DataFrame({"player_id": ["7"], "name": ["Anna"], "rating": [1510.0], "rank": [1]})
    >>> publish_edition(engine, "ajusc", lst, as_of=dt.date(2025, 9, 1), covers="2025-09-01|2025-09-01|C1")
    1
    >>> editions(engine, "ajusc").select("edition", "as_of", "kind", "covers").row(0)
    (1, datetime.date(2025, 9, 1), 'ordinary', '2025-09-01|2025-09-01|C1')
    """
    edition = Edition(rating_list, as_of, list_name=list_name, kind=kind, covers=covers,
                      corrections=corrections, reason=reason)
    return publish_editions(engine, federation, [edition])[0]


@dataclass(frozen=True)
class Edition:
    """One edition to publish (see :func:`publish_edition` for each field).

    ``rating_list`` the edition in full, or ``lines`` as :func:`list_lines` made them
    against the edition before it in the same call (a run that publishes thousands of
    editions holds their changes, not thousands of full lists).
    """

    rating_list: pl.DataFrame | None
    as_of: dt.date
    list_name: str | None = None
    kind: str = "ordinary"
    covers: str | None = None
    corrections: pl.DataFrame | None = None
    reason: str | None = None
    lines: ListLines | None = None


@dataclass
class _Tip:
    """The last edition of one list: what the next edition's lines are compared with."""

    exists: bool
    base: int            # its base_edition (0: none yet)
    sha: str             # its checksum
    content: pl.DataFrame | None   # in full, when known
    read: Callable[[], pl.DataFrame] | None = None   # reads ``content`` from the warehouse when first asked

    def in_full(self) -> pl.DataFrame | None:
        """Its content; a stored tip is read on first use only. An edition that comes with its
        lines (a night's, from ``engine.list_changes``) never needs it, and reading it replays
        the list from its last full edition (1.1 s on a 1M-game archive)."""
        if self.content is None and self.read is not None:
            self.content, self.read = self.read(), None
        return self.content


def _tip(conn: Connection, federation: str, list_name: str | None,
         known: tuple[int, pl.DataFrame] | None = None) -> _Tip:
    """The list's last published edition (``list_name`` as stored: null for the first list);
    ``known``: an edition the caller read, ``(edition, content)``, used if it is that one."""
    row = conn.execute(
        sa.select(_RL.c.edition, _RL.c.lines, _RL.c.base_edition, _RL.c.content_sha256)
        .where(_RL.c.federation == federation, _same_list(list_name))
        .order_by(_RL.c.edition.desc()).limit(1)
    ).first()
    if row is None:
        return _Tip(False, 0, "", None)
    _, base = _starts_at(int(row.edition), row.lines, row.base_edition)
    if known is not None and known[0] == int(row.edition):   # editions are never changed once published
        return _Tip(True, base, str(row.content_sha256), known[1])
    return _Tip(True, base, str(row.content_sha256), None,
                read=lambda: _read_edition(conn, federation, list_name, int(row.edition)))


def publish_editions(engine: Engine, federation: str, editions: Sequence[Edition], *,
                     known: Mapping[str | None, tuple[int, pl.DataFrame]] | None = None,
                     number: int | None = None) -> list[int]:
    """Store ``editions`` as the federation's next editions, in order, in ONE transaction.

    ``known``: by list name as stored, an edition the caller already read in full, ``(edition,
    content)`` as :func:`latest_edition` gives it. When it is still that list's last edition, the
    first new edition is compared with it instead of reading it again (a list's last edition is
    replayed from its last full one: 1.1 s of a 1M-game archive's night). ``number``: the first
    edition's number, when it is not the next one (the seed edition, :func:`publish_seed_edition`).

    A night that rates a migrated archive publishes an edition per competition: hundreds
    or thousands. One commit for all of them instead of one each (SQLite syncs the disk
    at every commit: 80 ms each for 770 editions of a 100k-game history), and one bulk
    insert of all their lines. All are published or none.

    Examples
    --------
    >>> from warehouse.db import get_engine
    >>> engine = get_engine("sqlite://")
    >>> lst = pl.DataFrame({"player_id": ["7"], "name": ["Anna"], "rating": [1510.0], "rank": [1]})
    >>> publish_editions(engine, "ajusc", [Edition(lst, dt.date(2025, 9, 1)), Edition(lst, dt.date(2025, 9, 8))])
    [1, 2]
    """
    if not editions:
        return []
    with write_transaction(engine) as conn:
        return _publish(conn, federation, editions, known=known, number=number)


def _publish(conn: Connection, federation: str, editions: Sequence[Edition], *,
             known: Mapping[str | None, tuple[int, pl.DataFrame]] | None, number: int | None) -> list[int]:
    """:func:`publish_editions` inside the caller's transaction."""
    numbers: list[int] = []
    register_federation(conn, federation)
    first_edition = _next_edition(conn, federation) if number is None else number
    first_id = next_id(conn, _RL)
    first_fix = next_id(conn, _EC)
    now = dt.datetime.now(dt.UTC)
    tips: dict[str | None, _Tip] = {}
    heads: list[dict[str, Any]] = []
    lines: list[pl.DataFrame] = []
    fixes: list[pl.DataFrame] = []
    for i, e in enumerate(editions):
        edition, list_id = first_edition + i, first_id + i
        tip = tips.get(e.list_name)
        if tip is None:
            tip = tips[e.list_name] = _tip(conn, federation, e.list_name, (known or {}).get(e.list_name))
        if e.lines is not None:
            stored = e.lines
            content = None if stored.rating_list is None else _own(
                stored.rating_list, RATING_LIST_SCHEMA, federation, "rating list")
        else:
            content = _own(e.rating_list, RATING_LIST_SCHEMA, federation, "rating list")
            before = tip.in_full()
            if tip.exists and before is None:
                raise ValueError(f"edition {edition} has no lines and follows an edition known only by its lines")
            stored = list_lines(before if tip.exists else None, content)
        if stored.full:
            base = edition
            sha = frame_sha256(_content(stored.lines, True, federation))
        else:
            base = tip.base if tip.exists else 0
            # Chained: this edition's lines after the checksum of the edition they follow.
            sha = hashlib.sha256((tip.sha + stored.lines.write_csv()).encode()).hexdigest()
        tips[e.list_name] = _Tip(True, base, sha, content)
        heads.append({
            "id": list_id, "federation": federation, "edition": edition, "as_of": e.as_of,
            "published_at": now, "n_players": stored.n_players, "content_sha256": sha,
            "list_name": e.list_name, "kind": e.kind, "covers": e.covers,
            "lines": "full" if stored.full else "changes", "base_edition": base,
        })
        lines.append(stored.lines.with_columns(
            pl.lit(list_id, pl.Int64).alias("list_id"),
            pl.int_range(1, stored.lines.height + 1, dtype=pl.Int64).alias("seq"),
            pl.lit(federation).alias("federation"),
        ))
        if e.corrections is not None and e.corrections.height:
            diff = conform(e.corrections, CORRECTIONS_SCHEMA)
            fixes.append(diff.with_columns(
                pl.lit(list_id, pl.Int64).alias("list_id"),
                pl.lit(federation).alias("federation"),
                pl.lit(e.list_name, pl.Utf8).alias("list_name"),
                pl.lit(edition, pl.Int64).alias("correcting_edition"),
                pl.lit(e.reason, pl.Utf8).alias("reason"),
            ))
        numbers.append(edition)
    conn.execute(sa.insert(_RL), heads)
    insert_frame(conn, _RLL, pl.concat(lines, how="vertical_relaxed"))
    if fixes:
        diff = pl.concat(fixes, how="vertical_relaxed")
        insert_frame(conn, _EC, diff.with_columns(
            pl.int_range(first_fix, first_fix + diff.height, dtype=pl.Int64).alias("id")))
    return numbers


def publish_list(engine: Engine, federation: str, rating_list: pl.DataFrame, *, as_of: dt.date) -> int | None:
    """Store ``rating_list`` as the federation's next edition, unless it equals the latest.

    Parameters
    ----------
    engine
        From :func:`warehouse.get_engine`.
    federation
        Federation id.
    rating_list
        RATING_LIST_SCHEMA, in the published order (kept as ``position``).
    as_of
        The date the list is in force from.

    Returns
    -------
    int or None
        The new edition number (after the seeded list's edition, else 1, 2, ...), or
        None when the rows are identical to the latest edition's (nothing is stored).

    Examples
    --------
    >>> from warehouse.db import get_engine
    >>> engine = get_engine("sqlite://")
    >>> lst = pl.DataFrame({"player_id": ["7"], "name": ["Anna"], "rating": [1510.0], "rank": [1]})
    >>> publish_list(engine, "ajusc", lst, as_of=dt.date(2025, 9, 1))
    1
    >>> publish_list(engine, "ajusc", lst, as_of=dt.date(2025, 10, 1)) is None
    True
    """
    rows = _own(rating_list, RATING_LIST_SCHEMA, federation, "rating list")
    with engine.connect() as conn:
        latest = conn.execute(
            sa.select(_RL.c.edition, _RL.c.list_name).where(_RL.c.federation == federation)
            .order_by(_RL.c.edition.desc()).limit(1)
        ).first()
        if latest is not None and _read_edition(conn, federation, latest.list_name, int(latest.edition)).equals(rows):
            return None
    return publish_edition(engine, federation, rows, as_of=as_of)


def _same_list(stored_name: str | None) -> Any:
    """Editions of one list, by the name it is stored under (null: the federation's first)."""
    return _RL.c.list_name.is_(None) if stored_name is None else _RL.c.list_name == stored_name


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


def edition_contents(
    engine: Engine, federation: str, wanted: Sequence[int], *, list_name: str | None = None,
    first_list: str | None = None, stored: pl.DataFrame | None = None,
) -> Iterator[tuple[int, pl.DataFrame]]:
    """Editions ``wanted`` of one list in full, in edition order: ``(edition, RATING_LIST_SCHEMA)``.

    The list's lines are read once and its editions replayed in order, so checking every
    published edition after a backfill reads each line once, not once per edition.
    ``stored``: the list's lines already read (LINES_SCHEMA + ``edition``, by edition and
    ``seq``, as :func:`stored_lines` gives them), at least those of the editions up to the
    last one wanted; they are not read again.
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
        lines = (_lines(conn, where, start, max(todo)) if stored is None
                 else stored.filter(pl.col("edition").is_between(start, max(todo))).select(*LINES_SCHEMA, "edition"))
    kinds = dict(heads.filter(pl.col("edition") >= start).select("edition", "lines").iter_rows())
    first = min(todo)
    # The state at the first edition wanted, in one pass over the lines before it (from the last
    # full edition); then each later edition replayed on it.
    reset = max((e for e, kind in kinds.items() if kind == "full" and e <= first), default=start)
    before = lines.filter(pl.col("edition").is_between(reset, first))
    state = before if kinds.get(first) == "full" else before.unique("player_id", keep="last", maintain_order=True)
    groups = lines.filter(pl.col("edition") > first).partition_by(
        "edition", as_dict=True, include_key=False, maintain_order=True)
    for edition, kind in kinds.items():
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


def _list_filter(federation: str, list_name: str | None, first_list: str | None, all_lists: bool = False) -> Any:
    """Rows of one of the federation's lists.

    The first list (and the only one of most federations) is stored with a null
    ``list_name``, so a query that names no list answers the federation's main list;
    ``all_lists`` takes every list.
    """
    where = _RL.c.federation == federation
    if all_lists:
        return where
    if list_name is None or list_name == first_list:
        own = _RL.c.list_name.is_(None)
        return where & ((own | (_RL.c.list_name == list_name)) if list_name is not None else own)
    return where & (_RL.c.list_name == list_name)


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
