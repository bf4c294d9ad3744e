"""Input limits: every value checked at the boundary, every file bounded.

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
import unicodedata
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
    "MAX_LIST_BYTES",
    "MAX_LIST_PLAYERS",
    "MAX_PLAYERS",
    "MAX_ROUNDS",
    "check_value",
    "enforce",
    "too_large",
    "too_many_rows",
]

#: Largest file a reader opens (bytes). A national season is a few megabytes.
MAX_FILE_BYTES = 64 * 1024 * 1024
#: Most players one file may hold.
MAX_PLAYERS = 50_000
#: Most players of a federation's own rating list, read whole by ``ratings seed`` (the
#: starting list the federation brings, not an organiser's file): FIDE's database holds
#: over a million players, 350,000+ of them on the standard list.
MAX_LIST_PLAYERS = 2_000_000
#: Largest federation's own list ``ratings seed`` reads (bytes): two million lines of CSV.
MAX_LIST_BYTES = 512 * 1024 * 1024
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
    own minimum and maximum (no query), so a clean small file costs little."""
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


def enforce(result: ReadResult, *, own_list: bool = False) -> ReadResult:
    """``result`` (a :class:`~formats.result.ReadResult`) with a ``reject`` finding per bad value.

    Checks every numeric field of every frame against :data:`FIELD_RANGES`, and the
    counts against :data:`MAX_PLAYERS`, :data:`MAX_GAMES`. Games keep their source
    line; a player's finding names the player. The first 20 problems of each field
    are listed (one is enough to refuse the file). ``own_list``: the federation's own
    list, whose players count against :data:`MAX_LIST_PLAYERS`.
    """
    most_players = MAX_LIST_PLAYERS if own_list else MAX_PLAYERS
    source, federation = result.source, None
    rows: list[dict[str, Any]] = []
    for what, frame in (("competition", result.competitions), ("player", result.players),
                        ("game", result.games), ("bye", result.byes), ("rating list entry", result.ratings)):
        if frame.height:
            if federation is None and "federation" in frame.columns:
                federation = _first_value(frame.get_column("federation"))
            rows += _frame_findings(frame, what, source, federation)
    for what, frame, columns in (("game", result.games, ("player_a", "player_b")),
                                 ("player", result.players, ("player_id",)),
                                 ("bye", result.byes, ("player_id",))):
        if frame.height and (what == "game" or not result.games.height):   # a game names the line
            rows += _id_findings(frame, columns, what, source, federation)
    if result.players.height > most_players:
        rows.append(_limit(source, federation, "players", result.players.height, most_players))
    if result.games.height > MAX_GAMES:
        rows.append(_limit(source, federation, "games", result.games.height, MAX_GAMES))
    if not rows:
        return result
    if any(row["rule"] == "limits.too_many" for row in rows):
        # Refused whole: nothing of it goes on to validation, rating or the warehouse.
        extra = pl.DataFrame([{**row, "competition_id": None} for row in rows if row["rule"] == "limits.too_many"],
                             schema=FINDINGS_SCHEMA)
        return replace(
            result, competitions=result.competitions.clear(), players=result.players.clear(),
            games=result.games.clear(), byes=result.byes.clear(), ratings=result.ratings.clear(),
            findings=pl.concat([result.findings.filter(pl.col("competition_id").is_null()), extra],
                               how="vertical_relaxed"),
        )
    ids: pl.Series | list[str] = result.competitions.get_column("competition_id").drop_nulls().unique() if result.competitions.height else []
    if len(ids) == 1:
        # A player's bad value rejects the competition of a one-competition file.
        for row in rows:
            row["competition_id"] = row["competition_id"] or ids[0]
    extra = pl.DataFrame(rows, schema=FINDINGS_SCHEMA)
    return replace(result, findings=pl.concat([result.findings, extra], how="vertical_relaxed"))


#: Longest player id accepted (FIDE ids have 9 digits, EGF PINs 8; a name is not an id).
MAX_ID_CHARS = 64


def id_problem(player_id: str) -> str | None:
    """Why ``player_id`` is refused as a player id (``None``: it is accepted): an id that only
    looks like another (full-width digits, an invisible or direction-changing character)
    would make a second player of the same person, and an overlong one is not an id.

    Examples
    --------
    >>> id_problem("1001") is None, id_problem("\\uff11\\uff10\\uff10\\uff11")
    (True, "the id '１００１' holds look-alike characters (write it as '1001')")
    >>> print(id_problem("10\\u200b01"))
    the id '10\\u200b01' holds an invisible or control character (U+200B)
    >>> id_problem("7" * 65)
    'the id is 65 characters long, more than the limit of 64'
    """
    if len(player_id) > MAX_ID_CHARS:
        return f"the id is {len(player_id)} characters long, more than the limit of {MAX_ID_CHARS}"
    for char in player_id:
        if unicodedata.category(char) in ("Cc", "Cf", "Co", "Cs", "Cn", "Zl", "Zp"):
            shown = player_id.encode("unicode_escape").decode("ascii")
            return f"the id '{shown}' holds an invisible or control character (U+{ord(char):04X})"
    plain = unicodedata.normalize("NFKC", player_id)
    if plain != unicodedata.normalize("NFC", player_id):   # an accent written in two code points is no look-alike
        return f"the id {player_id!r} holds look-alike characters (write it as {plain!r})"
    return None


def _id_findings(frame: pl.DataFrame, columns: tuple[str, ...], what: str, source: str,
                 federation: str | None) -> list[dict[str, Any]]:
    """A ``reject`` finding for each bad id of ``columns`` (first 20): file, line and field."""
    rows: list[dict[str, Any]] = []
    for field in columns:
        if field not in frame.columns or frame.schema[field] != pl.Utf8():
            continue
        ids = frame.get_column(field).drop_nulls().unique()
        # Plain ASCII ids of sensible length (nearly every file) cost one vectorised test.
        suspect = ids.filter(~ids.str.contains(r"^[\x20-\x7e]{0,64}$"))
        if not suspect.len():
            continue
        bad = {pid: why for pid in suspect.to_list() if (why := id_problem(str(pid))) is not None}
        if not bad:
            continue
        for row in frame.filter(pl.col(field).is_in(list(bad))).unique(field, keep="first",
                                                                        maintain_order=True).head(20).iter_rows(named=True):
            line = row.get("source_line")
            rows.append({
                "federation": row.get("federation") or federation,
                "competition_id": row.get("competition_id"),
                "rule": "limits.player_id", "severity": "reject",
                "message": (f"{source}" + (f", line {line}" if line else "") + f", field {field!r}: "
                            f"{bad[row[field]]} ({what}): correct the player's id in the file"),
                "source": source, "line": line, "field": field,
            })
    return rows


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


def too_large(size: int, *, own_list: bool = False) -> str | None:
    """Why a file of ``size`` bytes is refused (``None``: it is not); ``own_list``: a
    federation's own rating list, up to :data:`MAX_LIST_BYTES`.

    Examples
    --------
    >>> too_large(10), too_large(MAX_FILE_BYTES + 1) is not None, too_large(MAX_FILE_BYTES + 1, own_list=True)
    (None, True, None)
    """
    if own_list:
        if size > MAX_LIST_BYTES:
            return f"the list is {size} bytes, more than the limit of {MAX_LIST_BYTES} bytes"
        return None
    if size > MAX_FILE_BYTES:
        return (f"the file is {size} bytes, more than the limit of {MAX_FILE_BYTES} bytes: "
                "send one competition (or one season) per file")
    return None


#: Formats with one data row per line (after a header): their row count is a line count.
_ROW_PER_LINE = frozenset({"interchange-results", "interchange-players", "interchange-ratings",
                           "interchange-aliases"})


def too_many_rows(data: bytes, fmt: str, *, own_list: bool = False) -> str | None:
    """Why a file of format ``fmt`` is refused for its row count before it is parsed
    (``None``: it is not, or the format has no row per line).

    Counting the lines of the bytes costs milliseconds; parsing a million rows costs minutes.
    ``own_list``: a federation's own rating list, up to :data:`MAX_LIST_PLAYERS` rows.

    Examples
    --------
    >>> too_many_rows(b"h\\n" + b"r\\n" * 3, "interchange-results") is None
    True
    >>> too_many_rows(b"h\\n" + b"r\\n" * (MAX_GAMES + 1), "interchange-results")[:24]
    'the file holds more than'
    """
    if fmt not in _ROW_PER_LINE:
        return None
    limit = MAX_GAMES if fmt == "interchange-results" else MAX_LIST_PLAYERS if own_list else MAX_PLAYERS
    lines = data.count(b"\n") + (not data.endswith(b"\n"))
    if lines - 1 <= limit:
        return None
    what = "games" if fmt == "interchange-results" else "rows"
    return f"the file holds more than {limit} {what} ({lines - 1} lines), more than the limit: split it"
