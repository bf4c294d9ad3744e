"""Publishing editions: the next edition's number, its lines against the list's last edition,
all of a run's editions in one transaction. See :mod:`warehouse.editions`."""

from __future__ import annotations

import datetime as dt
import hashlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import polars as pl
import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from formats.schema import RATING_LIST_SCHEMA, conform
from warehouse._editions_lines import (
    _EC,
    _RL,
    _RLL,
    CORRECTIONS_SCHEMA,
    ListLines,
    _content,
    _same_list,
    _starts_at,
    list_lines,
)
from warehouse._editions_read import _read_edition
from warehouse._load_contract import _own
from warehouse._load_players import register_federation
from warehouse._model_types import table_of
from warehouse.bulk import frame_sha256, insert_frame, next_id
from warehouse.db import write_transaction
from warehouse.models import LedgerEntry, SeedEntry

__all__ = [
    "Edition",
    "publish_edition",
    "publish_editions",
    "publish_list",
    "publish_seed_edition",
]

_L = table_of(LedgerEntry).c
_S = table_of(SeedEntry).c


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
    >>> from warehouse.editions import editions
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
    >>> from warehouse.editions import editions
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

