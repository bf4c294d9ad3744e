"""What every interchange CSV file shares: the column sets, the CSV records with their
physical line numbers, header checks and field parsing (``formats.interchange``)."""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterator

from formats._common import (
    KNOWN_FEDERATIONS,
    Findings,
    split_lines,
)
from formats.limits import check_value
from formats.schema import (
    ALIASES_SCHEMA,
    PLAYERS_SCHEMA,
    RATINGS_SCHEMA,
)

__all__ = ["RESULTS_COLUMNS", "RESULTS_REQUIRED", "kind_of_header"]

#: Columns of ``*.results.csv`` (plus the optional ``colour_a``).
RESULTS_COLUMNS = (
    "federation",
    "competition_id",
    "competition_name",
    "start_date",
    "end_date",
    "round",
    "player_a",
    "player_b",
    "score_a",
    "status",
    "handicap",
    "results_public",
    "modality",
    "event_class",
    "colour_a",
    "organiser_email",
)
#: Required columns of ``*.results.csv`` (``end_date`` defaults to ``start_date``).
RESULTS_REQUIRED = (
    "federation",
    "competition_id",
    "start_date",
    "round",
    "player_a",
    "player_b",
    "score_a",
)
PLAYERS_COLUMNS = tuple(PLAYERS_SCHEMA)
PLAYERS_REQUIRED = ("federation", "player_id")
#: ``edition`` (optional, DESIGN.md *Publication*): the list's edition number, one value per file.
RATINGS_COLUMNS = (*RATINGS_SCHEMA, "edition")
RATINGS_REQUIRED = ("federation", "player_id", "rating")
ALIASES_COLUMNS = tuple(ALIASES_SCHEMA)
ALIASES_REQUIRED = ALIASES_COLUMNS

_CSV_ERROR = "\x00csv-error"
#: Highest round number accepted (a season-long league has a few dozen).
MAX_ROUND = 999
_STATUSES = ("played", "forfeit", "unknown")
_TRUE = {"true", "1", "yes", "y", "t"}
_FALSE = {"false", "0", "no", "n", "f"}
_SCORES = {
    "1": 1.0,
    "1.0": 1.0,
    "1.00": 1.0,
    "0.5": 0.5,
    ".5": 0.5,
    "0.50": 0.5,
    "½": 0.5,
    "0": 0.0,
    "0.0": 0.0,
    "0.00": 0.0,
}
_FED = re.compile(r"^[a-z][a-z0-9_-]*$")


def kind_of_header(columns: list[str]) -> str | None:
    """Which interchange file a header row is: ``results``, ``players``, ``ratings``, ``aliases``.

    Examples
    --------
    >>> kind_of_header(["federation", "player_id", "name", "rating", "games", "as_of"])
    'ratings'
    >>> kind_of_header(["ROUND", "TABLE_NO"]) is None
    True
    """
    cols = {c.strip().lower() for c in columns}
    if {"competition_id", "player_a", "player_b"} <= cols:
        return "results"
    if {"alias", "player_id"} <= cols:
        return "aliases"
    if {"player_id", "rating"} <= cols:
        return "ratings"
    if {"federation", "player_id"} <= cols:
        return "players"
    return None


def _rows(text: str) -> Iterator[tuple[int, list[str]]]:
    """(first physical line, fields) of each non-blank record."""
    physical = split_lines(text) if '"' in text else []
    reader = csv.reader(io.StringIO(text, newline=""), strict=False)
    before = 0
    while True:
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error:
            yield before + 1, [_CSV_ERROR]
            return
        start, before = before + 1, reader.line_num
        # An unterminated quote swallows the rest of the file into one field.
        if sum(line.count('"') for line in physical[start - 1 : before]) % 2:
            yield start, [_CSV_ERROR]
            return
        if row and any(cell.strip() for cell in row):
            yield start, row


def _federation(value: str, expected: str | None) -> str | None:
    v = value.strip().lower()
    if not v or not _FED.match(v):
        return None
    if v in KNOWN_FEDERATIONS or v == expected:
        return v
    return None


def _check_header(
    header: list[str], line: int, known: tuple[str, ...], required: tuple[str, ...], f: Findings
) -> bool:
    ok = True
    for col in required:
        if col not in header:
            f.add(
                "format.csv.missing_column",
                "reject",
                f"required column {col!r} is missing from the header",
                line=line,
                field=col,
            )
            ok = False
    seen: set[str] = set()
    for col in header:
        if col in seen:
            f.add(
                "format.csv.duplicate_column",
                "reject",
                f"column {col!r} appears twice in the header",
                line=line,
                field=col,
            )
            ok = False
        seen.add(col)
        if col not in known:
            f.add(
                "format.csv.unknown_column",
                "warn",
                f"column {col!r} is not part of the format; ignored",
                line=line,
                field=col,
            )
    return ok


def _records(
    header: list[str], rows: Iterator[tuple[int, list[str]]], f: Findings, key: str | None
) -> Iterator[tuple[int, dict[str, str]]]:
    """Records as dicts; rows with a wrong number of fields become findings."""
    n = len(header)
    for line, row in rows:
        if row == [_CSV_ERROR]:
            f.add(
                "format.csv.bad_quote",
                "reject",
                "a quoted field is never closed: the rest of the file cannot be read",
                line=line,
            )
            continue
        if len(row) != n:
            cid = (
                row[header.index(key)].strip()
                if key in header and header.index(key) < len(row)
                else None
            )
            f.add(
                "format.csv.field_count",
                "reject",
                f"expected {n} fields as in the header, found {len(row)} (truncated or extra separator?)",
                line=line,
                competition_id=cid or None,
            )
            continue
        yield line, {h: v.strip() for h, v in zip(header, row, strict=True)}


_WHOLE = re.compile(r"-?\d+\.0+")


def _int(
    rec: dict[str, str], col: str, line: int, f: Findings, *, severity: str = "reject"
) -> int | None:
    v = rec.get(col, "")
    if not v:
        return None
    try:
        # "12.0" is 12; never through float, which rounds 99999999999999999999.
        return int(v.split(".")[0]) if _WHOLE.fullmatch(v) else int(v)
    except ValueError:
        f.add(
            f"format.csv.bad_{col}",
            severity,
            f"{col} must be an integer, not {v!r}",
            line=line,
            field=col,
        )
        return None



def _out_of_range(f: Findings, line: int, **values: object) -> bool:
    """Add a reject finding for every value out of its range (``formats.limits``); any?"""
    bad = False
    for field, value in values.items():
        problem = check_value(field, value)
        if problem is not None:
            f.add("format.csv.out_of_range", "reject", f"{problem}: correct the value", line=line, field=field)
            bad = True
    return bad

