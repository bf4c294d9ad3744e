"""The rules of one ``*.results.csv`` row, each written once (``formats.interchange_results``).

A rule reads the values of one row (one field, or two that depend on each other) and
gives the value the frames hold and the problem, if any. The reader applies a rule to
each distinct value of its columns, not to each row: a file repeats its dates, scores
and federations on every line.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable, Hashable, Iterable, Sequence
from datetime import date
from typing import Any, NamedTuple, TypeVar

from formats._common import KNOWN_FEDERATIONS, is_digits, parse_iso_date
from formats.address import AddressError, email_address
from formats.interchange_csv import _FALSE, _SCORES, _STATUSES, _TRUE, MAX_ROUND, _federation

_HANDICAP = re.compile(r"-?[0-9]{1,2}")

V = TypeVar("V")


class Problem(NamedTuple):
    """What a rule found wrong with a value: ``reject`` unless said otherwise."""

    rule: str
    message: str
    severity: str = "reject"


Checked = tuple[V, Problem | None]


def apply(rule: Callable[..., Checked[V]], *columns: Sequence[Any]) -> tuple[list[V], list[tuple[int, Problem]]]:
    """``rule`` over the rows of ``columns`` (fields as written; the rule reads them stripped):
    each row's value, and (row, problem) where there is one.

    The rule runs once per distinct value (a tuple of values when there are several columns).
    """
    if len(columns) == 1:
        memo = {k: rule(k.strip()) for k in set(columns[0])}
        keys: Iterable[Hashable] = columns[0]
    else:
        memo = {k: rule(*(v.strip() for v in k)) for k in set(zip(*columns, strict=True))}
        keys = zip(*columns, strict=True)
    if len(memo) == 1:  # one value for the whole file, as most columns are
        values = [next(iter(memo.values()))[0]] * len(columns[0])
    else:
        values = list(map({k: v for k, (v, _) in memo.items()}.__getitem__, keys))
    bad = {k: p for k, (_, p) in memo.items() if p is not None}
    if not bad:
        return values, []
    rows = columns[0] if len(columns) == 1 else zip(*columns, strict=True)
    return values, [(i, bad[k]) for i, k in enumerate(rows) if k in bad]


def missing(column: str, values: Sequence[str]) -> list[tuple[int, Problem]]:
    """The rows where a column that must not be empty is."""
    if "" not in values:
        return []
    problem = Problem("format.csv.missing_value", f"{column} is empty")
    return [(i, problem) for i, v in enumerate(values) if not v]


def self_pairing(a: Sequence[str], b: Sequence[str]) -> list[tuple[int, Problem]]:
    """The rows where a player is paired with himself."""
    if not any(map(operator.eq, a, b)):
        return []
    return [(i, Problem("format.csv.self_pairing", f"player {x!r} is paired with himself"))
            for i, (x, y) in enumerate(zip(a, b, strict=True)) if x and x == y]


def federation(value: str, expected: str | None) -> Checked[str | None]:
    fed = _federation(value, expected)
    if fed is None:
        known = ", ".join(sorted(KNOWN_FEDERATIONS))
        return None, Problem("format.csv.unknown_federation", f"unknown federation {value!r} (known: {known})")
    if expected is not None and fed != expected:
        return fed, Problem("format.csv.federation_mismatch", f"federation {fed!r} in a file sent for {expected!r}")
    return fed, None


def start_date(value: str) -> Checked[date | None]:
    start = parse_iso_date(value)
    if start is None:
        return None, Problem("format.csv.bad_date", f"start_date {value!r} is not a date (YYYY-MM-DD)")
    return start, None


def end_date(start_value: str, value: str) -> Checked[date | None]:
    """The end date, ``start_date``'s when empty."""
    start = parse_iso_date(start_value)
    if not value:
        return start, None
    end = parse_iso_date(value)
    if end is None:
        return None, Problem("format.csv.bad_date", f"end_date {value!r} is not a date (YYYY-MM-DD)")
    if start is not None and end < start:
        return end, Problem("format.csv.bad_date", f"end_date {end} is before start_date {start}")
    return end, None


def round_(value: str) -> Checked[int | None]:
    if is_digits(value) and 1 <= int(value) <= MAX_ROUND:
        return int(value), None
    return None, Problem("format.csv.bad_round", f"round must be an integer from 1 to {MAX_ROUND}, not {value!r}")


def status(value: str) -> Checked[str]:
    low = value.lower()
    if low and low not in _STATUSES:
        return low, Problem("format.csv.bad_status", f"status must be one of {', '.join(_STATUSES)}, not {value!r}")
    return low, None


def score(raw: str, status_value: str) -> Checked[tuple[float | None, str]]:
    """(score_a, status) from ``score_a`` and ``status`` (a bad status included): empty is unknown."""
    status = status_value.lower()
    if raw == "":
        if status in ("", "unknown"):
            return (None, "unknown"), None
        return (None, status), Problem(
            "format.csv.bad_score", f"score_a is empty but status is {status!r} (empty means unknown)")
    if raw not in _SCORES:
        return (None, status or "played"), Problem(
            "format.csv.bad_score", f"score_a must be 1, 0.5 or 0 (empty: unknown), not {raw!r}")
    value = _SCORES[raw]
    if status == "unknown":
        return (None, status), Problem(
            "format.csv.score_of_unknown", f"status is 'unknown' but score_a is {raw!r}: the score is ignored", "warn")
    if status == "forfeit" and value == 0.5:
        return (value, status), Problem("format.csv.bad_score", "a forfeit scores 1 or 0, not 0.5")
    return (value, status or "played"), None


def handicap(value: str) -> Checked[int | None]:
    if not value:
        return None, None
    if _HANDICAP.fullmatch(value):
        return int(value), None
    return None, Problem("format.csv.bad_handicap", f"handicap must be a number of stones (-99 to 99), not {value!r}")


def results_public(value: str) -> Checked[bool]:
    low = value.lower()
    if not value or low in _TRUE or low in _FALSE:
        return low not in _FALSE, None
    return True, Problem("format.csv.bad_boolean", f"results_public must be true or false, not {value!r}")


def colour(value: str) -> Checked[str | None]:
    low = value.lower() or None
    if low in (None, "w", "b"):
        return low, None
    return low, Problem("format.csv.bad_colour", f"colour_a must be w or b, not {value!r}")


def organiser_email(value: str) -> Checked[str | None]:
    """The address normalised; a bad one is a warning (the report then goes to the registry's
    address, or to the officer's digest) and ``None``."""
    if not value:
        return None, None
    try:
        return email_address(value), None
    except AddressError as error:
        return None, Problem(
            "format.csv.bad_email",
            f"{error}: the report goes to the organiser registered for the competition, else to the rating officer",
            "warn",
        )


def modality(value: str) -> Checked[str]:
    return (value or "classic").lower(), None


def event_class(value: str) -> Checked[str | None]:
    return value.upper() or None, None


def competition_name(value: str) -> Checked[str | None]:
    return value or None, None
