"""How an edition's lines are stored and read back in full: the schemas of editions, the rule of a
list's order (:func:`in_list_order`), the lines an edition stores (:func:`list_lines`) and the
list they give back (:func:`_content`). See :mod:`warehouse.editions`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import polars as pl

from formats.schema import RATING_LIST_SCHEMA, conform
from warehouse._model_types import table_of
from warehouse.models import EditionCorrection, RatingList, RatingListLine

__all__ = [
    "CORRECTIONS_SCHEMA",
    "EDITIONS_SCHEMA",
    "LINES_SCHEMA",
    "ListLines",
    "in_list_order",
    "list_lines",
]

_RL = table_of(RatingList)
_RLL = table_of(RatingListLine)
_EC = table_of(EditionCorrection)


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

def _same_list(stored_name: str | None) -> Any:
    """Editions of one list, by the name it is stored under (null: the federation's first)."""
    return _RL.c.list_name.is_(None) if stored_name is None else _RL.c.list_name == stored_name

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
