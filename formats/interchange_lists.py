"""Interchange CSV lists: ``*.players.csv``, ``*.ratings.csv`` and ``*.aliases.csv``
(``formats.interchange``)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date

from formats._common import (
    Findings,
    parse_iso_date,
)
from formats.interchange_csv import (
    ALIASES_COLUMNS,
    ALIASES_REQUIRED,
    PLAYERS_COLUMNS,
    PLAYERS_REQUIRED,
    RATINGS_COLUMNS,
    RATINGS_REQUIRED,
    _check_header,
    _federation,
    _int,
    _out_of_range,
    _records,
)
from formats.result import ReadResult, frame
from formats.schema import (
    ALIASES_SCHEMA,
    PLAYERS_SCHEMA,
    RATINGS_SCHEMA,
)

#: Federations whose player ids are numbers (FIDE id, EGF PIN).
_NUMERIC_IDS = frozenset({"fide", "egf"})


def _alias_target_problem(federation: str, target: str) -> str | None:
    """Why ``target`` cannot be a player id of ``federation`` (``None``: it can)."""
    target = target.strip()
    if target.startswith("name:"):
        return f"player_id {target!r} is a name key, not an id of {federation}"
    if federation in _NUMERIC_IDS and not target.isdigit():
        return f"player_id {target!r} is not a {federation.upper()} id (digits only)"
    return None


def _float(rec: dict[str, str], col: str, line: int, f: Findings, *, rule: str | None = None) -> float | None:
    """The number in ``col`` (None when empty); a reject finding when it is not one."""
    v = rec.get(col, "")
    if not v:
        return None
    try:
        return float(v)
    except ValueError:
        f.add(rule or f"format.csv.bad_{col}", "reject", f"{col} {v!r} is not a number", line=line, field=col)
        return None


def _list_row_federation(rec: dict[str, str], line: int, f: Findings, federation: str | None) -> str | None:
    """The federation of a players or ratings row with a player id; None (and a finding) when it has none."""
    fed = _federation(rec["federation"], federation)
    if fed is None or (federation is not None and fed != federation):
        f.add(
            "format.csv.unknown_federation",
            "reject",
            f"federation {rec['federation']!r} is unknown or not {federation!r}",
            line=line,
            field="federation",
        )
        return None
    if not rec["player_id"]:
        f.add("format.csv.missing_value", "reject", "player_id is empty", line=line, field="player_id")
        return None
    return fed


def _players(
    name: str,
    digest: str,
    header: list[str],
    hline: int,
    rows: Iterator[tuple[int, list[str]]],
    f: Findings,
    federation: str | None,
) -> ReadResult:
    fmt = "interchange-players"
    if not _check_header(header, hline, PLAYERS_COLUMNS, PLAYERS_REQUIRED, f):
        return ReadResult.build(name, digest, fmt, f)
    out: list[dict[str, object]] = []
    for line, rec in _records(header, rows, f, None):
        fed = _list_row_federation(rec, line, f, federation)
        if fed is None:
            continue
        rating = _float(rec, "declared_rating", line, f, rule="format.csv.bad_rating")
        birth_year = _int(rec, "birth_year", line, f)
        if _out_of_range(f, line, declared_rating=rating, birth_year=birth_year):
            continue
        out.append(
            {
                "federation": fed,
                "player_id": rec["player_id"],
                "name": rec.get("name") or None,
                "country": rec.get("country") or None,
                "club": rec.get("club") or None,
                "birth_year": birth_year,
                "declared_rank": rec.get("declared_rank") or None,
                "declared_rating": rating,
                "declared_rating_origin": rec.get("declared_rating_origin") or None,
            }
        )
    return ReadResult.build(name, digest, fmt, f, players=frame(out, PLAYERS_SCHEMA))


def _ratings(
    name: str,
    digest: str,
    header: list[str],
    hline: int,
    rows: Iterator[tuple[int, list[str]]],
    f: Findings,
    federation: str | None,
) -> ReadResult:
    fmt = "interchange-ratings"
    if not _check_header(header, hline, RATINGS_COLUMNS, RATINGS_REQUIRED, f):
        return ReadResult.build(name, digest, fmt, f)
    out: list[dict[str, object]] = []
    seen: dict[tuple[str, str], int] = {}
    editions: dict[int, int] = {}   # edition -> first line declaring it
    for line, rec in _records(header, rows, f, None):
        edition = _list_edition(rec, line, f, editions)
        fed = _list_row_federation(rec, line, f, federation)
        if fed is None:
            continue
        pid = rec["player_id"]
        if (fed, pid) in seen:
            f.add(
                "format.csv.duplicate_player",
                "reject",
                f"player {pid!r} is already listed on line {seen[(fed, pid)]}",
                line=line,
                field="player_id",
            )
            continue
        seen[(fed, pid)] = line
        row = _rating_row(rec, line, f, fed, edition)
        if row is not None:
            out.append(row)
    ratings = frame(out, RATINGS_SCHEMA)
    players = ratings.select("federation", "player_id", "name")
    return ReadResult.build(name, digest, fmt, f, ratings=ratings, players=players,
                            list_edition=next(iter(editions), None))


def _list_edition(rec: dict[str, str], line: int, f: Findings, editions: dict[int, int]) -> int | None:
    """The row's edition (``editions``: each edition and the first line declaring it, filled
    here); a starting list is one edition, of a whole number >= 0."""
    edition = _int(rec, "edition", line, f)
    if edition is not None:
        if edition < 0:
            f.add("format.csv.bad_edition", "reject",
                  f"edition must be a whole number >= 0, not {rec['edition']!r}", line=line, field="edition")
        elif editions and edition not in editions:
            first, first_line = next(iter(editions.items()))
            f.add("format.csv.bad_edition", "reject",
                  f"edition {edition} differs from edition {first} on line {first_line}: "
                  "a starting list is one edition", line=line, field="edition")
        else:
            editions.setdefault(edition, line)
    return edition


def _rating_row(rec: dict[str, str], line: int, f: Findings, fed: str, edition: int | None) -> dict[str, object] | None:
    """One player's line of a ratings list, or ``None`` (its findings written) when a figure is wrong."""
    rating: float | None = None
    if rec["rating"]:
        try:
            rating = float(rec["rating"])
        except ValueError:
            f.add(
                "format.csv.bad_rating",
                "reject",
                f"rating must be a number (empty: unrated), not {rec['rating']!r}",
                line=line,
                field="rating",
            )
            return None
    as_of: date | None = None
    if rec.get("as_of"):
        as_of = parse_iso_date(rec["as_of"])
        if as_of is None:
            f.add(
                "format.csv.bad_date",
                "reject",
                f"as_of {rec['as_of']!r} is not a date (YYYY-MM-DD)",
                line=line,
                field="as_of",
            )
            return None
    rated_max = _float(rec, "rated_max", line, f)
    games = _int(rec, "games", line, f)
    k = _int(rec, "k", line, f)
    if _out_of_range(f, line, rating=rating, rated_max=rated_max, games=games, k=k, edition=edition):
        return None
    return {
        "federation": fed,
        "player_id": rec["player_id"],
        "name": rec.get("name") or None,
        "rating": rating,
        "games": games if games is not None else 0,
        "as_of": as_of,
        "k": k,
        "status": rec.get("status") or None,
        "last_played": rec.get("last_played") or None,
        "rated_max": rated_max,
    }


def _aliases(
    name: str,
    digest: str,
    header: list[str],
    hline: int,
    rows: Iterator[tuple[int, list[str]]],
    f: Findings,
    federation: str | None,
) -> ReadResult:
    fmt = "interchange-aliases"
    if not _check_header(header, hline, ALIASES_COLUMNS, ALIASES_REQUIRED, f):
        return ReadResult.build(name, digest, fmt, f)
    out: list[dict[str, object]] = []
    targets: dict[tuple[str, str], tuple[str, int]] = {}   # (federation, alias) -> (player_id, line)
    for line, rec in _records(header, rows, f, None):
        fed = _federation(rec["federation"], federation)
        if fed is None or (federation is not None and fed != federation):
            # Checked against the federation it is applied to: an alias table dropped in
            # inbox/<federation>/ may only speak of that federation's players.
            f.add(
                "format.csv.unknown_federation",
                "reject",
                f"federation {rec['federation']!r} is unknown"
                + (f" or not {federation!r}, the federation this file was sent to" if federation else ""),
                line=line,
                field="federation",
            )
            continue
        if not rec["alias"] or not rec["player_id"]:
            fld = "alias" if not rec["alias"] else "player_id"
            f.add("format.csv.missing_value", "reject", f"{fld} is empty", line=line, field=fld)
            continue
        problem = _alias_target_problem(fed, rec["player_id"])
        if problem is None and rec["alias"].strip() == rec["player_id"].strip():
            problem = "an alias of itself changes nothing"
        held = targets.get((fed, rec["alias"].strip()))
        if problem is None and held is not None and held[0] != rec["player_id"].strip():
            problem = f"alias {rec['alias']!r} already points to {held[0]!r} on line {held[1]}"
        if problem is not None:
            f.add("format.csv.bad_alias", "reject", f"{problem}: correct the row", line=line, field="player_id")
            continue
        targets.setdefault((fed, rec["alias"].strip()), (rec["player_id"].strip(), line))
        out.append({"federation": fed, "alias": rec["alias"], "player_id": rec["player_id"]})
    return ReadResult.build(name, digest, fmt, f, aliases=frame(out, ALIASES_SCHEMA))
