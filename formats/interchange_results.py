"""Interchange CSV ``*.results.csv`` (``formats.interchange``): one reader for every file.

The file is read column by column: each rule of a row (``formats._interchange_rules``)
runs once per distinct value of its columns, and the rules of a competition (one set of
dates, one name, one address) and of repeated games compare whole columns. Findings come
out in the order of the file: by line, and within a line in the order of the rules.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from itertools import chain, repeat
from operator import add, floordiv, itemgetter, mul
from typing import Any

import polars as pl

from formats import _interchange_rules as rules
from formats._common import Findings
from formats.interchange_csv import (
    MAX_ROUND,
    RESULTS_COLUMNS,
    RESULTS_REQUIRED,
    _check_header,
    _columns,
    _record_problem,
)
from formats.result import ReadResult, frame
from formats.schema import (
    COMPETITIONS_SCHEMA,
    GAMES_SCHEMA,
    PLAYERS_SCHEMA,
)

_FORMAT = "interchange-results"
_NOT_RATED = "; the competition is not rated until this row is fixed"
#: Columns of a competition that every one of its rows must repeat, in the order they are reported.
_SAME = ("start_date", "end_date", "results_public", "modality", "event_class")


@dataclass
class _Table:
    """The readable records of a file, as columns of text as written ("" for an absent column)."""

    lines: list[int]
    columns: dict[str, list[str]]
    #: (line, rank, rule, severity, message, field, competition id): sorted, they are the findings.
    found: list[tuple[Any, ...]] = field(default_factory=list)
    _stripped: dict[str, list[str]] = field(default_factory=dict)

    def stripped(self, column: str) -> list[str]:
        """A column's fields, stripped: a record's values never keep the spaces around them."""
        if column not in self._stripped:
            self._stripped[column] = list(map(str.strip, self.columns[column]))
        return self._stripped[column]

    def add(self, line: int, rank: int, problem: rules.Problem, fld: str | None, cid: str | None,
            suffix: str = "") -> None:
        """A finding about the record of ``line``; ``rank`` orders it among the findings of its line."""
        self.found.append((line, rank, problem.rule, problem.severity, problem.message + suffix, fld, cid))


def _table(header: list[str], header_line: int, text: str) -> _Table:
    """The records after the header; one that cannot be read is a finding, ranked before any other of its line."""
    read = _columns(text, header_line, len(header))
    unread: list[tuple[Any, ...]] = []
    for line, row in read.odd:
        if (problem := _record_problem(header, row, "competition_id")) is not None:
            unread.append((line, 0, problem[0], "reject", problem[1], None, problem[2]))
    columns = dict(zip(header, read.columns, strict=True))
    empty = [""] * len(read.lines)
    return _Table(read.lines, {c: columns.get(c, empty) for c in RESULTS_COLUMNS}, unread)


def _row_rules(expected: str | None) -> tuple[tuple[str | None, tuple[str, ...], str, Any], ...]:
    """The rules of a row in the order an organiser reads them: (name of the value it gives, or
    None for a rule of whole columns that gives only problems; columns it reads; field it
    reports; rule). ``expected``: the federation the file was sent for."""
    return (
        ("federation", ("federation",), "federation", functools.partial(rules.federation, expected=expected)),
        (None, ("competition_id",), "competition_id", functools.partial(rules.missing, "competition_id")),
        ("start_date", ("start_date",), "start_date", rules.start_date),
        ("end_date", ("start_date", "end_date"), "end_date", rules.end_date),
        ("round", ("round",), "round", rules.round_),
        (None, ("player_a",), "player_a", functools.partial(rules.missing, "player_a")),
        (None, ("player_b",), "player_b", functools.partial(rules.missing, "player_b")),
        (None, ("player_a", "player_b"), "player_b", rules.self_pairing),
        ("status", ("status",), "status", rules.status),
        ("score", ("score_a", "status"), "score_a", rules.score),
        ("handicap", ("handicap",), "handicap", rules.handicap),
        ("results_public", ("results_public",), "results_public", rules.results_public),
        ("colour_a", ("colour_a",), "colour_a", rules.colour),
    )


#: Ranks of the findings about the rows the rules of a row accept, after those rules.
_EMAIL, _SAME_RANK, _ADDRESS, _NAME, _REPEATED = range(len(_row_rules(None)) + 1, len(_row_rules(None)) + 6)


def _check_rows(t: _Table, expected: str | None) -> tuple[dict[str, list[Any]], list[int] | None]:
    """Each row's values by name, and the rows every rule of a row accepts (None: all of them)."""
    cid = t.stripped("competition_id")
    values: dict[str, list[Any]] = {}
    rejected: set[int] = set()
    for rank, (name, reads, fld, rule) in enumerate(_row_rules(expected), start=1):
        if name is None:
            problems = rule(*map(t.stripped, reads))
        else:
            values[name], problems = rules.apply(rule, *(t.columns[c] for c in reads))
        for i, problem in problems:
            reject = problem.severity == "reject"
            t.add(t.lines[i], rank, problem, fld, cid[i] or None, _NOT_RATED if reject else "")
            if reject:
                rejected.add(i)
    if not rejected:
        return values, None
    return values, [i for i in range(len(t.lines)) if i not in rejected]


def _pick(values: list[Any], rows: list[int] | None) -> list[Any]:
    """The ``values`` of ``rows`` (None: all of them, the list itself)."""
    return values if rows is None else [values[i] for i in rows]


@dataclass
class _Good:
    """The rows every rule of a row accepts, as columns: what the competitions and games are made of."""

    col: dict[str, list[Any]]
    competitions: list[tuple[str, str]]  #: (federation, competition_id), in the order of the file
    kid: list[int]  #: each row's competition, an index in ``competitions``
    first: list[int]  #: each competition's first row
    #: Each row's competition and round as one number (competition * (MAX_ROUND + 1) + round).
    round_key: list[int]


def _good_rows(t: _Table, values: dict[str, list[Any]], rows: list[int] | None) -> _Good:
    """The columns of the accepted ``rows`` (None: all) and their competitions; a bad address is a warning."""
    c = t.columns
    scores = _pick(values["score"], rows)
    col: dict[str, list[Any]] = {
        name: _pick(values[name], rows)
        for name in ("federation", "start_date", "end_date", "round", "handicap", "colour_a", "results_public")
    }
    col |= {name: _pick(t.stripped(name), rows) for name in ("competition_id", "player_a", "player_b")}
    col["score_a"] = list(map(itemgetter(0), scores))
    col["status"] = list(map(itemgetter(1), scores))
    col["source_line"] = _pick(t.lines, rows)
    for name, rule in (("competition_name", rules.competition_name), ("modality", rules.modality),
                       ("event_class", rules.event_class)):
        col[name] = rules.apply(rule, _pick(c[name], rows))[0]
    col["organiser_email"], problems = rules.apply(rules.organiser_email, _pick(c["organiser_email"], rows))
    for j, problem in problems:
        t.add(col["source_line"][j], _EMAIL, problem, "organiser_email", col["competition_id"][j])
    ids = {key: i for i, key in enumerate(dict.fromkeys(zip(col["federation"], col["competition_id"], strict=True)))}
    kid = list(map(ids.__getitem__, zip(col["federation"], col["competition_id"], strict=True)))
    last_to_first = dict(zip(reversed(kid), range(len(kid) - 1, -1, -1), strict=True))
    round_key = list(map(add, map(mul, kid, repeat(MAX_ROUND + 1)), col["round"]))
    return _Good(col, list(ids), kid, [last_to_first[k] for k in range(len(ids))], round_key)


def _same_competition(t: _Table, g: _Good) -> None:
    """Findings where a row says otherwise than its competition's first row."""
    line, same, first = g.col["source_line"], [g.col[c] for c in _SAME], g.first
    if len(set(zip(g.kid, *same, strict=True))) != len(first):
        for j, k in enumerate(g.kid):
            f0 = first[k]
            for c, values in zip(_SAME, same, strict=True):
                if values[j] != values[f0]:
                    t.add(line[j], _SAME_RANK, rules.Problem(
                        "format.csv.inconsistent_competition",
                        f"{c} is {values[j]!r} here but {values[f0]!r} on line {line[f0]} of the same competition"),
                        c, g.competitions[k][1])
    names = g.col["competition_name"]
    if len(set(zip(g.kid, names, strict=True))) != len(first):
        for j, (k, name) in enumerate(zip(g.kid, names, strict=True)):
            f0 = first[k]
            if name and names[f0] != name:
                t.add(line[j], _NAME, rules.Problem(
                    "format.csv.inconsistent_competition",
                    f"competition_name {name!r} differs from {names[f0]!r} on line {line[f0]}", "warn"),
                    "competition_name", g.competitions[k][1])


def _addresses(t: _Table, g: _Good) -> list[str | None]:
    """Each competition's address, the first given; a row that gives another is a warning."""
    address: list[str | None] = [None] * len(g.first)
    given = g.col["organiser_email"]
    if not any(given):
        return address
    line = g.col["source_line"]
    for j, (k, a) in enumerate(zip(g.kid, given, strict=True)):
        if a is None:
            continue
        held = address[k]
        if held is None:
            address[k] = a
        elif held != a:
            t.add(line[j], _ADDRESS, rules.Problem(
                "format.csv.inconsistent_competition",
                f"organiser_email {a!r} differs from {held!r} on line {line[g.first[k]]}: the report goes to the first",
                "warn"), "organiser_email", g.competitions[k][1])
    return address


def _repeated(t: _Table, g: _Good) -> list[int] | None:
    """The rows that are games (None: all): a game listed twice (same round, same two players) is excluded."""
    a, b, key = g.col["player_a"], g.col["player_b"], g.round_key
    # Equal games hash alike: distinct hashes, in either order, mean no game is listed twice (a
    # row never pairs a player with himself). Hashes keep no tuple for each row.
    listed = set(map(hash, zip(key, a, b, strict=True)))
    if len(listed) == len(key) and listed.isdisjoint(map(hash, zip(key, b, a, strict=True))):
        return None
    pairs = list(zip(key, map(min, a, b), map(max, a, b), strict=True))
    line, rnd = g.col["source_line"], g.col["round"]
    seen: dict[tuple[Any, ...], int] = {}
    games: list[int] = []
    for j, pair in enumerate(pairs):
        if pair in seen:
            t.add(line[j], _REPEATED, rules.Problem(
                "format.csv.duplicate_game",
                f"{a[j]} v {b[j]} in round {rnd[j]} is already on line {seen[pair]}: this repetition is not rated",
                "exclude"), None, g.competitions[g.kid[j]][1])
            continue
        seen[pair] = line[j]
        games.append(j)
    return games


def _competitions(name: str, digest: str, g: _Good, address: list[str | None]) -> pl.DataFrame:
    """A row a competition, as its first row says, with the rounds that have games."""
    # a repeated game's round has its first listing
    rounds = Counter(map(floordiv, set(g.round_key), repeat(MAX_ROUND + 1)))
    c = g.col
    return frame([{"federation": fed, "competition_id": cid, "name": c["competition_name"][j],
                   "start_date": c["start_date"][j], "end_date": c["end_date"][j], "rounds": rounds[k],
                   "modality": c["modality"][j], "results_public": c["results_public"][j],
                   "event_class": c["event_class"][j], "source": name, "source_sha256": digest,
                   "organiser_email": address[k]}
                  for k, ((fed, cid), j) in enumerate(zip(g.competitions, g.first, strict=True))],
                 COMPETITIONS_SCHEMA)


def _games_and_players(g: _Good, games: list[int] | None) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The games (None: every accepted row), and their players in the order they first play."""
    cols = {c: _pick(g.col[c], games) for c in GAMES_SCHEMA}
    fed, a, b = cols["federation"], cols["player_a"], cols["player_b"]
    if len(set(fed)) == 1:  # one federation: no pair to make for each player
        seen: Iterable[tuple[str, str]] = zip(repeat(fed[0]), dict.fromkeys(chain.from_iterable(zip(a, b, strict=True))))
    else:
        seen = dict.fromkeys(zip(chain.from_iterable(zip(fed, fed, strict=True)),
                                 chain.from_iterable(zip(a, b, strict=True))))
    players = pl.from_dicts([{"federation": f, "player_id": p} for f, p in seen], schema=PLAYERS_SCHEMA)
    return _frame(cols, GAMES_SCHEMA), players


#: Up to this many rows a frame is built fastest from a dict a row (one call into polars);
#: beyond, a column at a time. Either way the same frame.
_ROWS_AS_DICTS = 100


def _frame(cols: dict[str, list[Any]], schema: dict[str, pl.DataType]) -> pl.DataFrame:
    """Columns of plain values as a frame of ``schema``."""
    n = len(next(iter(cols.values())))
    if 0 < n <= _ROWS_AS_DICTS:
        names = list(schema)
        return pl.from_dicts([dict(zip(names, row, strict=True)) for row in zip(*(cols[c] for c in names), strict=True)],
                             schema=schema)
    return pl.DataFrame(cols, schema=schema)


def _results(
    name: str,
    digest: str,
    header: list[str],
    hline: int,
    text: str,
    f: Findings,
    federation: str | None,
) -> ReadResult:
    """Read the records after the header: the rules of each row, then of each competition."""
    if not _check_header(header, hline, RESULTS_COLUMNS, RESULTS_REQUIRED, f):
        return ReadResult.build(name, digest, _FORMAT, f)
    t = _table(header, hline, text)
    values, accepted = _check_rows(t, federation)
    g = _good_rows(t, values, accepted)
    _same_competition(t, g)
    address = _addresses(t, g)
    games = _repeated(t, g)
    for line, _, rule, severity, message, fld, cid in sorted(t.found, key=itemgetter(0, 1)):
        f.add(rule, severity, message, line=line, field=fld, competition_id=cid)
    played, players = _games_and_players(g, games)
    if not played.height and not f.has_reject():
        f.add("format.csv.no_games", "reject", "the results file has a header but no games")
    return ReadResult.build(name, digest, _FORMAT, f, competitions=_competitions(name, digest, g, address),
                            players=players, games=played)
