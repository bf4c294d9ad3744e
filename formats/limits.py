"""Input limits: every value checked at the boundary, every file bounded (issue 9).

A result file comes from anyone who runs a tournament program. Before a value
reaches validation, the engine or the warehouse it must be finite and in range,
or it is a ``reject`` finding naming the file, the line (where the format has
lines) and the field; nothing becomes null silently. A file, and what it
declares, is bounded so that reading it costs bounded time and memory.

The limits are documented in the README ("Limits"); each names the finding it
produces.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import numpy as np
import polars as pl

from formats.schema import FINDINGS_SCHEMA

if TYPE_CHECKING:
    from formats.result import ReadResult

__all__ = [
    "FIELD_RANGES",
    "MAX_FILE_BYTES",
    "MAX_GAMES",
    "MAX_PLAYERS",
    "MAX_ROUNDS",
    "check_value",
    "enforce",
]

#: Largest file a reader opens (bytes). A national season is a few megabytes.
MAX_FILE_BYTES = 64 * 1024 * 1024
#: Most players one file may hold.
MAX_PLAYERS = 50_000
#: Most games one file may hold.
MAX_GAMES = 1_000_000
#: Highest round number (and declared round count) a competition may have.
MAX_ROUNDS = 1_000

#: field -> (lowest, highest) accepted value, both inclusive. Ratings cover every
#: system here (EGF GoR of 30k is -900; no Elo or BARRUF rating reaches 4000).
FIELD_RANGES: dict[str, tuple[float, float]] = {
    "rating": (-1000.0, 4000.0),
    "declared_rating": (-1000.0, 4000.0),
    "rated_max": (-1000.0, 4000.0),
    "rating_before": (-1000.0, 4000.0),
    "games": (0, 10_000_000),
    "k": (0, 100),
    "round": (1, MAX_ROUNDS),
    "rounds": (0, MAX_ROUNDS),
    "rounds_declared": (0, MAX_ROUNDS),
    "handicap": (-9, 9),
    "birth_year": (1850, 2100),
    "score_a": (0.0, 1.0),
    "source_line": (0, 2**31 - 1),
    "edition": (0, 10_000_000),
}


def _shown(bound: float) -> float | int:
    return int(bound) if float(bound).is_integer() else bound


def check_value(field: str, value: Any) -> str | None:
    """Why ``value`` is not acceptable for ``field`` (``None``: it is).

    Examples
    --------
    >>> check_value("rating", 1500.0) is None, check_value("rating", float("nan"))
    (True, 'rating must be a finite number, not nan')
    >>> check_value("games", -3)
    'games must be between 0 and 10000000, not -3'
    >>> check_value("rating", float("1e999"))
    'rating must be a finite number, not inf'
    """
    if value is None:
        return None
    if isinstance(value, float) and not math.isfinite(value):
        return f"{field} must be a finite number, not {value!r}"
    bounds = FIELD_RANGES.get(field)
    if bounds is None:
        return None
    low, high = bounds
    if not low <= value <= high:
        return f"{field} must be between {_shown(low)} and {_shown(high)}, not {value!r}"
    return None


def _out_of_range(frame: pl.DataFrame, field: str) -> pl.Expr:
    column = pl.col(field)
    bad = pl.lit(False)
    if frame.schema[field].is_float():
        bad = bad | ~column.is_finite()
    low, high = FIELD_RANGES[field]
    return (bad | (column < low) | (column > high)).fill_null(False)


def _may_be_out_of_range(column: pl.Series, field: str) -> bool:
    """Whether ``column`` may hold a value out of ``field``'s range: a test on the column's
    own minimum and maximum (no query), so a clean small file costs microseconds (issue 11)."""
    if column.null_count() == column.len():
        return False
    low, high = FIELD_RANGES[field]
    if column.dtype.is_float():
        values = column.to_numpy()  # nulls become NaN: more NaN than nulls is a real NaN
        if np.isinf(values).any() or int(np.isnan(values).sum()) > column.null_count():
            return True
    lowest, highest = column.min(), column.max()
    return bool(lowest is None or highest is None or lowest < low or highest > high)  # type: ignore[operator]


def _frame_findings(
    frame: pl.DataFrame, what: str, source: str, federation: str | None,
) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    columns = set(frame.columns)
    for field in FIELD_RANGES:
        if field not in columns or not frame.get_column(field).dtype.is_numeric():
            continue
        if not _may_be_out_of_range(frame.get_column(field), field):
            continue
        bad = frame.filter(_out_of_range(frame, field))
        for row in bad.head(20).iter_rows(named=True):
            who = row.get("player_id") or row.get("competition_id")
            rows.append({
                "federation": row.get("federation") or federation,
                "competition_id": row.get("competition_id"),
                "rule": "limits.value_out_of_range",
                "severity": "reject",
                "message": (f"{source}" + (f", line {row['source_line']}" if row.get("source_line") else "")
                            + f", field {field!r}: {check_value(field, row[field])}"
                            + (f" ({what} {who})" if who else f" ({what})")
                            + ": correct the value in the file"),
                "source": source,
                "line": row.get("source_line"),
                "field": field,
            })
    return rows


def enforce(result: ReadResult) -> ReadResult:
    """``result`` (a :class:`~formats.result.ReadResult`) with a ``reject`` finding per bad value.

    Checks every numeric field of every frame against :data:`FIELD_RANGES`, and the
    counts against :data:`MAX_PLAYERS`, :data:`MAX_GAMES`. Games keep their source
    line; a player's finding names the player. The first 20 problems of each field
    are listed (one is enough to refuse the file).
    """
    source, federation = result.source, None
    rows: list[dict[str, Any]] = []
    for what, frame in (("competition", result.competitions), ("player", result.players),
                        ("game", result.games), ("bye", result.byes), ("rating list entry", result.ratings)):
        if frame.height:
            if federation is None and "federation" in frame.columns:
                federation = _first_value(frame.get_column("federation"))
            rows += _frame_findings(frame, what, source, federation)
    if result.players.height > MAX_PLAYERS:
        rows.append(_limit(source, federation, "players", result.players.height, MAX_PLAYERS))
    if result.games.height > MAX_GAMES:
        rows.append(_limit(source, federation, "games", result.games.height, MAX_GAMES))
    if not rows:
        return result
    ids: pl.Series | list[str] = result.competitions.get_column("competition_id").drop_nulls().unique() if result.competitions.height else []
    if len(ids) == 1:
        # A player's bad value rejects the competition of a one-competition file.
        for row in rows:
            row["competition_id"] = row["competition_id"] or ids[0]
    extra = pl.DataFrame(rows, schema=FINDINGS_SCHEMA)
    return replace(result, findings=pl.concat([result.findings, extra], how="vertical_relaxed"))


def _first_value(column: pl.Series) -> Any:
    """The first value of ``column`` that is not null (None: there is none)."""
    nulls = column.null_count()
    if nulls == column.len():
        return None
    return column[0] if nulls == 0 else column.drop_nulls()[0]


def _limit(source: str, federation: str | None, what: str, count: int, limit: int) -> dict[str, Any]:
    return {
        "federation": federation, "competition_id": None, "rule": "limits.too_many", "severity": "reject",
        "message": f"{source}: the file holds {count} {what}, more than the limit of {limit}: split it",
        "source": source, "line": None, "field": what,
    }


def too_large(size: int) -> str | None:
    """Why a file of ``size`` bytes is refused (``None``: it is not).

    Examples
    --------
    >>> too_large(10), too_large(MAX_FILE_BYTES + 1) is not None
    (None, True)
    """
    if size > MAX_FILE_BYTES:
        return (f"the file is {size} bytes, more than the limit of {MAX_FILE_BYTES} bytes: "
                "send one competition (or one season) per file")
    return None
