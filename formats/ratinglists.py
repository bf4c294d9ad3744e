"""Published rating lists other than the interchange ``*.ratings.csv``.

EGD ``allworld_lp`` (the European Go Database's world list, a ``<pre>`` page)::

    PIN  Name  Country Club  Grade  P&D  GoR  NT  Last-appearance

read as a ``RATINGS_SCHEMA`` frame: ``player_id`` the PIN, ``rating`` the GoR,
``as_of`` the list's date printed in its header (``(22 Feb 2018)``),
``last_played`` the date of the last tournament, decoded from its EGD code
(``T040529C`` -> ``2004-05-29``), ``games`` null (the list counts tournaments,
``NT``, not games), and the grade in the players frame (``declared_rank``). The page's
text is HTML: tags are dropped and entities (``&amp;``, ``&lt;``) read as the characters.
"""

from __future__ import annotations

import html
import re
from datetime import date
from typing import Any

from formats._common import Findings, decode, parse_date, split_lines
from formats.result import ReadResult, frame, sha256
from formats.schema import PLAYERS_SCHEMA, RATINGS_SCHEMA

__all__ = ["from_egd_list", "looks_like_egd_list", "tournament_code_date"]

_ROW = re.compile(
    r"^\s*(?P<pin>\d{5,9})\s+(?P<name>.+?)\s+(?P<country>[A-Z]{2})\s+(?P<club>\S+)\s+(?P<grade>\d{1,2}[kdpKDP])"
    r"\s+(?P<pd>\S+)\s+(?P<gor>-?\d+)\s+(?P<nt>\d+)\s+(?P<last>\S+)\s*$"
)


def looks_like_egd_list(head: str) -> bool:
    """Whether a text is an EGD ``allworld_lp`` list page.

    Examples
    --------
    >>> looks_like_egd_list("<title> List of Players EURO </title> ... PIN ... GoR ... NT")
    True
    """
    return "List of" in head and "GoR" in head and "PIN" in head


def tournament_code_date(code: str) -> date | None:
    """The date in an EGD tournament code (letter, YYMMDD, optional letter).

    Examples
    --------
    >>> tournament_code_date("T040529C"), tournament_code_date("G061014"), tournament_code_date("?")
    (datetime.date(2004, 5, 29), datetime.date(2006, 10, 14), None)
    """
    m = re.match(r"^[A-Z](\d{2})(\d{2})(\d{2})", code)
    if not m:
        return None
    yy = int(m[1])
    try:
        return date(2000 + yy if yy < 70 else 1900 + yy, int(m[2]), int(m[3]))
    except ValueError:
        return None


def from_egd_list(data: bytes, name: str, *, federation: str | None = None) -> ReadResult:
    """Read an EGD ``allworld_lp`` rating list.

    Examples
    --------
    >>> page = (b"<h1>List of WORLD Players</h1>\\n(22 Feb 2018)\\n<pre>PIN Name Club Grade P&D GoR NT\\n"
    ...         b" 13633719  Aagren Thomas   SE  Upp     6k   --   1484     1  T040529C\\n</pre>")
    >>> from_egd_list(page, "allworld_lp.html").ratings.select("player_id", "name", "rating", "as_of",
    ...                                                        "last_played").row(0)
    ('13633719', 'Aagren Thomas', 1484.0, datetime.date(2018, 2, 22), '2004-05-29')
    """
    fed = federation or "egf"
    digest = sha256(data)
    f = Findings(name, fed)
    lines = split_lines(decode(data).text)
    as_of = _list_date(lines, f)
    ratings: list[dict[str, Any]] = []
    players: list[dict[str, Any]] = []
    in_pre = False
    for n, ln in enumerate(lines, start=1):
        low = ln.lower()
        if "<pre>" in low:
            in_pre = True
        if "</pre>" in low:
            in_pre = False
        m = _ROW.match(html.unescape(re.sub(r"<[^>]+>", "", ln)))
        if m is None:
            if in_pre and re.match(r"^\s*\d{5,9}\s", ln):
                f.add(
                    "format.egdlist.bad_row",
                    "reject",
                    "a row starting with a PIN does not have PIN, name, country, club, grade, P&D, GoR, NT, last "
                    "tournament",
                    line=n,
                )
            continue
        rating, player = _rows(m, as_of, fed)
        ratings.append(rating)
        players.append(player)
    if not ratings:
        f.add("format.egdlist.empty", "reject", "no player row in the list")
    return ReadResult.build(
        name,
        digest,
        "egd-ratings",
        f,
        ratings=frame(ratings, RATINGS_SCHEMA),
        players=frame(players, PLAYERS_SCHEMA),
    )


def _list_date(lines: list[str], f: Findings) -> date | None:
    """The list's date, printed ``(DD Mon YYYY)`` in its first 40 lines."""
    as_of: date | None = None
    for ln in lines[:40]:
        m = re.search(r"\((\d{1,2} [A-Za-z]{3,9} \d{4})\)", ln)
        if m:
            as_of = parse_date(m[1])
            break
    if as_of is None:
        f.add(
            "format.egdlist.missing_date",
            "warn",
            "the list's date '(DD Mon YYYY)' is not in its header",
            field="as_of",
        )
    return as_of


def _rows(m: re.Match[str], as_of: date | None, fed: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The RATINGS_SCHEMA and PLAYERS_SCHEMA rows of a list row."""
    last = tournament_code_date(m["last"])
    rating = {
        "federation": fed,
        "player_id": m["pin"],
        "name": m["name"],
        "rating": float(m["gor"]),
        "games": None,
        "as_of": as_of,
        "last_played": last.isoformat() if last else None,
    }
    player = {
        "federation": fed,
        "player_id": m["pin"],
        "name": m["name"],
        "country": m["country"],
        "club": m["club"],
        "declared_rank": m["grade"].lower(),
        "declared_rating": float(m["gor"]),
        "declared_rating_origin": "EGF",
    }
    return rating, player
