"""What every interchange CSV file shares: the column sets, the CSV records with their
physical line numbers, header checks and field parsing (``formats.interchange``)."""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterator
from operator import methodcaller
from typing import NamedTuple

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
    if '"' not in text:
        # Without quotes a record is a line and its fields split at every comma, as the csv
        # module splits them; it refuses a field over its size limit, and reads no further.
        limit = csv.field_size_limit()
        for n, line in enumerate(io.StringIO(text, newline=""), start=1):
            row = line.rstrip("\r\n").split(",")
            if len(line) > limit and max(map(len, row)) > limit:
                yield n, [_CSV_ERROR]
                return
            if any(cell.strip() for cell in row):
                yield n, row
        return
    physical = split_lines(text)
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


#: The characters ``str.strip`` strips (``str.isspace``), and the separator: a record of only these is blank.
_BLANK = ",\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"


class _Columns(NamedTuple):
    """The records after the header, as columns of ``n`` fields."""

    lines: list[int]  #: the first physical line of each record
    columns: list[list[str]]  #: the fields of each column, as written (not stripped)
    odd: list[tuple[int, list[str]]]  #: (line, fields) of each record of another number of fields, or unreadable


def _columns(text: str, header_line: int, n: int) -> _Columns:
    """The records after the header (``header_line``) of ``n`` fields as columns, and the others.

    Without quotes a record is a line and splits at every comma: the lines of ``n`` fields are
    joined and split once, and each column is a slice, without a list for each record.
    """
    lines = [] if '"' in text else split_lines(text) if "\r" in text else text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()  # the final line's end
    if not lines or max(map(len, lines)) > csv.field_size_limit():
        rows = [row for row in _rows(text) if row[0] > header_line]
        kept = [row for row in rows if len(row[1]) == n]
        odd = [row for row in rows if len(row[1]) != n]
        return _Columns([line for line, _ in kept], [list(col) for col in zip(*(r for _, r in kept))]
                        or [[] for _ in range(n)], odd)
    body, numbers = lines[header_line:], list(range(header_line + 1, len(lines) + 1))
    counts = list(map(methodcaller("count", ","), body))
    if counts.count(n - 1) != len(body) or "" in map(methodcaller("strip", _BLANK), body):
        keep = [i for i, (c, line) in enumerate(zip(counts, body, strict=True)) if c == n - 1 and line.strip(_BLANK)]
        odd = [(numbers[i], line.split(",")) for i, (c, line) in enumerate(zip(counts, body, strict=True))
               if c != n - 1 and line.strip(_BLANK)]
        body, numbers = [body[i] for i in keep], [numbers[i] for i in keep]
    else:
        odd = []
    flat = ",".join(body).split(",") if body else []
    return _Columns(numbers, [flat[j::n] for j in range(n)], odd)


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


def _record_problem(header: list[str], row: list[str], key: str | None) -> tuple[str, str, str | None] | None:
    """(rule, message, competition id) of a record that cannot be read; None when it can."""
    if row == [_CSV_ERROR]:
        return "format.csv.bad_quote", "a quoted field is never closed: the rest of the file cannot be read", None
    n = len(header)
    if len(row) == n:
        return None
    cid = row[header.index(key)].strip() if key in header and header.index(key) < len(row) else None
    return (
        "format.csv.field_count",
        f"expected {n} fields as in the header, found {len(row)} (truncated or extra separator?)",
        cid or None,
    )


def _records(
    header: list[str], rows: Iterator[tuple[int, list[str]]], f: Findings, key: str | None
) -> Iterator[tuple[int, dict[str, str]]]:
    """Records as dicts; rows with a wrong number of fields become findings."""
    for line, row in rows:
        problem = _record_problem(header, row, key)
        if problem is not None:
            rule, message, cid = problem
            f.add(rule, "reject", message, line=line, competition_id=cid)
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

