"""EGD results text (``.h9``): what organisers submit to the European Go Database.

Header lines start with ``;`` and carry tags: ``CL[A]`` class (A–D), ``EV[name]``,
``PC[country, city]``, ``DT[YYYY-MM-DD,YYYY-MM-DD]``, ``HA[h9]`` handicap rule,
``KM[6.5]`` komi, ``TM[minutes]``. Everything after ``;`` on other lines is a comment.

One player per line::

    place  Surname Firstname  grade  country  club  [numbers...]  results...  [|PIN]

The grade (``5k``, ``2d``, ``1p``) ends the name; tokens without a ``+ - = ?``
sign between the club and the results (points, SOS) are ignored. A result is
``<opponent place><+|-|=|?>[/<w|b>[handicap]][!]``: ``12+/w`` won with white
against place 12, ``7-/b2`` lost with black receiving two stones, ``=`` a jigo,
``?`` not reported (``unknown``), a trailing ``!`` a game won or lost by default
(``forfeit``). ``0+`` is a free win (bye ``full``), ``0-`` an absence (``absent``),
``0=`` a half point (``half``); none is a game. Every line has the same number of
rounds; both players' lines must agree on each game (``format.egd.asymmetric``).
``player_a`` is the player on the first of the two lines; ``handicap`` is the
stones ``player_a`` gave (negative: received). Files are UTF-8 or Latin-1.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from formats._common import Findings, decode, is_digits, parse_date, split_lines
from formats.identity import competition_key, player_id
from formats.result import ReadResult, bye_row, sha256, single_competition

__all__ = ["from_egd", "looks_like_egd"]

_TAG = re.compile(r"\b([A-Z]{2})\[([^\]]*)\]")
_GRADE = re.compile(r"^(\d{1,2})([kdpKDP])$")
_RESULT = re.compile(r"^([0-9]+)([+\-=?])(?:/([wbWB])([0-9]{0,2}))?(!?)$")
_SIGNED = re.compile(r"^\d+[+\-=?]")
_OPPOSITE = {"+": "-", "-": "+", "=": "=", "?": "?"}


_COUNTRY = re.compile(r"[A-Za-z]{2}")
_NUMBER = re.compile(r"-?\d+(\.\d+)?")


def looks_like_egd(head: str) -> bool:
    """Whether a text looks like an EGD results file (``;`` header lines with tags).

    Examples
    --------
    >>> looks_like_egd("; CL[B]\\n; EV[Cup]\\n1 Doe John 3d FR Pari 2+/w |12345678\\n")
    True
    """
    return len(set(re.findall(r"(?m)^\s*;.*?\b(CL|EV|PC|DT|HA|KM|TM)\[", head))) >= 1 and bool(
        re.search(r"(?m)^\s*\d+\s+\S+.*\s\d{1,2}[kdpKDP]\s", head)
    )


@dataclass
class _Line:
    place: int
    line: int
    pid: str
    results: list[
        tuple[int, str, str | None, int, bool] | None
    ]  # opp, sign, colour, handicap, by default


def from_egd(data: bytes, name: str, *, federation: str | None = None) -> ReadResult:
    """Read an EGD results file.

    Examples
    --------
    >>> h9 = '''; CL[C]
    ... ; EV[Autumn Cup] PC[FR, Lyon]
    ... ; DT[2025-10-04,2025-10-05] HA[h9] KM[7.5]
    ... 1 Dupont Jean      2d FR Lyon  2+/w   3+/b1  |12345678
    ... 2 Muñoz José       1k ES Madr  1-/b   0+
    ... 3 Smith Ann        3k GB Lond  0-     1-/w1
    ... '''.encode("latin-1")
    >>> r = from_egd(h9, "cup.h9")
    >>> r.games.select("round", "player_a", "player_b", "score_a", "colour_a", "handicap").rows()
    [(1, '12345678', 'name:jose-munoz', 1.0, 'w', 0), (2, '12345678', 'name:ann-smith', 1.0, 'b', -1)]
    >>> r.byes.select("round", "kind").rows(), r.competitions.select("event_class", "rounds").row(0)
    ([(2, 'full'), (1, 'absent')], ('C', 2))
    """
    fed = federation or "egf"
    digest = sha256(data)
    f = Findings(name, fed)
    table = _Table()
    for n, raw in enumerate(split_lines(decode(data).text), start=1):
        if raw.lstrip().startswith(";"):
            for k, v in _TAG.findall(raw):
                table.tags.setdefault(k, (n, v.strip()))
            continue
        body = raw.split(";", 1)[0]
        if body.strip():
            _player_line(table, body, n, f, fed)
    entries, tags = table.entries, table.tags
    if not entries:
        f.add("format.egd.no_players", "reject", "no player line: nothing to rate")
    games, byes = _pair(entries, f, fed)
    title = tags.get("EV", (None, ""))[1] or None
    start, end = _dates(tags, f)
    cls = tags.get("CL", (None, ""))[1].upper() or None
    if cls is not None and cls not in ("A", "B", "C", "D"):
        f.add(
            "format.egd.bad_class",
            "warn",
            f"CL[{cls}] is not a class A, B, C or D",
            line=tags["CL"][0],
            field="CL",
        )
    comp = {"federation": fed, "competition_id": competition_key(title, start, name.rsplit(".", 1)[0]),
            "name": title, "start_date": start, "end_date": end, "rounds": table.width[0] if table.width else 0,
            "event_class": cls}
    return single_competition("egd", f, name, digest, comp, players=table.player_rows, games=games, byes=byes,
                              keep=bool(entries))


@dataclass
class _Table:
    """What the lines of an EGD file hold, as :func:`from_egd` reads them in turn."""

    tags: dict[str, tuple[int, str]] = field(default_factory=dict)  # tag -> (line, value), first one
    entries: dict[int, _Line] = field(default_factory=dict)  # place -> player line
    player_rows: list[dict[str, Any]] = field(default_factory=list)
    width: tuple[int, int] | None = None  # (number of rounds, line that set it)


def _player_line(table: _Table, body: str, n: int, f: Findings, fed: str) -> None:
    """Player line ``n`` (``body``: without its comment): place, name, grade, country, club,
    results, PIN."""
    body, pin = _pin(body, n, f)
    tokens = body.split()
    if not tokens or not is_digits(tokens[0]):
        f.add(
            "format.egd.bad_place",
            "reject",
            f"a player line starts with its place, not {(tokens or [''])[0]!r}",
            line=n,
            field="place",
        )
        return
    place = int(tokens[0])
    g = next((i for i, t in enumerate(tokens[1:], start=1) if _GRADE.match(t)), None)
    if g is None or g == 1:
        f.add(
            "format.egd.bad_grade",
            "reject",
            "no grade (like 5k, 2d, 1p) after the name: the line is truncated or the grade is missing",
            line=n,
            field="grade",
        )
        return
    full = " ".join(tokens[1:g])
    rest = tokens[g + 1 :]
    country = rest[0] if rest and _COUNTRY.fullmatch(rest[0]) else None
    club = rest[1] if country and len(rest) > 1 and not _SIGNED.match(rest[1]) else None
    res_tokens = [
        t
        for t in rest[(1 if country else 0) + (1 if club else 0) :]
        if _SIGNED.match(t) or not _NUMBER.fullmatch(t)
    ]
    results = _results(res_tokens, n, f)
    if table.width is None:
        table.width = (len(results), n)
    elif len(results) != table.width[0]:
        f.add(
            "format.egd.round_count",
            "reject",
            f"{len(results)} round entries but line {table.width[1]} has {table.width[0]}: every line has one "
            "per round (truncated line?)",
            line=n,
            field="results",
        )
    entries = table.entries
    if place in entries:
        f.add(
            "format.egd.duplicate_place",
            "reject",
            f"place {place} is already used on line {entries[place].line}",
            line=n,
            field="place",
        )
        return
    pid = player_id(pin, full) or full
    if any(e.pid == pid for e in entries.values()):
        pid = f"{pid}#{place}"
    entries[place] = _Line(place, n, pid, results)
    table.player_rows.append(
        {
            "federation": fed,
            "player_id": pid,
            "name": full,
            "country": country.upper() if country else None,
            "club": club,
            "declared_rank": tokens[g].lower(),
        }
    )


def _pin(body: str, n: int, f: Findings) -> tuple[str, str]:
    """The line without its ``|PIN``, and the PIN (empty when none, or not a number)."""
    pin = ""
    if "|" in body:
        body, pin = body.split("|", 1)
        pin = pin.strip().split()[0] if pin.strip() else ""
        if pin and not is_digits(pin):
            f.add(
                "format.egd.bad_pin",
                "warn",
                f"PIN {pin!r} is not a number; the name identifies the player",
                line=n,
                field="PIN",
            )
            pin = ""
    return body, pin


def _results(res_tokens: list[str], n: int, f: Findings) -> list[tuple[int, str, str | None, int, bool] | None]:
    """One (opponent, sign, colour, handicap, by default) per round; None for an unreadable one."""
    results: list[tuple[int, str, str | None, int, bool] | None] = []
    for i, tok in enumerate(res_tokens, start=1):
        m = _RESULT.match(tok)
        if m is None:
            f.add(
                "format.egd.bad_result",
                "reject",
                f"round {i}: {tok!r} is not a result (like 12+/w, 7-/b2, 0+, 0-)",
                line=n,
                field=f"round {i}",
            )
            results.append(None)
            continue
        colour = m[3].lower() if m[3] else None
        results.append((int(m[1]), m[2], colour, int(m[4]) if m[4] else 0, bool(m[5])))
    return results


def _dates(tags: dict[str, tuple[int, str]], f: Findings) -> tuple[date | None, date | None]:
    """First and last date of ``DT[YYYY-MM-DD,YYYY-MM-DD]``."""
    start = end = None
    if "DT" in tags:
        dline, dtxt = tags["DT"]
        parts = [p.strip() for p in dtxt.split(",") if p.strip()]
        dates = [parse_date(p) for p in parts]
        if not parts or any(d is None for d in dates):
            f.add(
                "format.egd.bad_date",
                "reject",
                f"DT[{dtxt}] is not DT[YYYY-MM-DD,YYYY-MM-DD]",
                line=dline,
                field="DT",
            )
        else:
            ok = [d for d in dates if d is not None]
            start, end = min(ok), max(ok)
    else:
        f.add(
            "format.egd.missing_date",
            "reject",
            "no DT[YYYY-MM-DD,YYYY-MM-DD] header tag: add the dates",
            field="DT",
        )
    return start, end


def _pair(
    entries: dict[int, _Line], f: Findings, fed: str
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    games: list[dict[str, Any]] = []
    byes: list[dict[str, Any]] = []
    for place in sorted(entries):
        p = entries[place]
        for r, res in enumerate(p.results, start=1):
            if res is None:
                continue
            opp, sign, colour, hcp, by_default = res
            if opp == 0:
                kind = {"+": "full", "-": "absent", "=": "half", "?": "absent"}[sign]
                byes.append(bye_row(fed, r, p.pid, kind, p.line))
                continue
            q = entries.get(opp)
            where = f"round {r}"
            if q is None:
                f.add(
                    "format.egd.bad_opponent",
                    "reject",
                    f"round {r}: opponent place {opp} is not in the file",
                    line=p.line,
                    field=where,
                )
                continue
            if q.place == p.place:
                f.add(
                    "format.egd.self_pairing",
                    "reject",
                    f"round {r}: player {opp} is paired with himself",
                    line=p.line,
                    field=where,
                )
                continue
            other = q.results[r - 1] if r <= len(q.results) else None
            if other is None and r <= len(q.results):
                continue  # already a finding on the other line
            agree = (
                other is not None
                and other[0] == p.place
                and other[1] == _OPPOSITE[sign]
                and (colour is None or other[2] is None or colour != other[2])
                and other[3] == hcp
            )
            if q.place < p.place and (agree or (other is not None and other[0] == p.place)):
                continue  # taken (or reported) from the other line
            if not agree:
                f.add(
                    "format.egd.asymmetric",
                    "reject",
                    f"round {r}: line {p.line} (place {p.place}) has {opp}{sign} but line {q.line} (place {q.place}) "
                    f"has {_show(other)}; both lines must report the same game",
                    line=p.line,
                    field=where,
                )
                continue
            score = {"+": 1.0, "-": 0.0, "=": 0.5, "?": None}[sign]
            status = (
                "unknown"
                if sign == "?"
                else "forfeit"
                if by_default or (other and other[4])
                else "played"
            )
            games.append(
                {
                    "federation": fed,
                    "round": r,
                    "player_a": p.pid,
                    "player_b": q.pid,
                    "score_a": score,
                    "status": status,
                    "handicap": hcp if colour == "w" else -hcp if colour == "b" else hcp,
                    "colour_a": colour,
                    "source_line": p.line,
                }
            )
    return games, byes


def _show(res: tuple[int, str, str | None, int, bool] | None) -> str:
    if res is None:
        return "nothing"
    opp, sign, colour, hcp, bang = res
    return f"{opp}{sign}" + (f"/{colour}{hcp or ''}" if colour else "") + ("!" if bang else "")
