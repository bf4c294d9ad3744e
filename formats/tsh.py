"""TSH (Tournament Software Helper, Scrabble): ``.t`` division files and the live ``newt`` export.

A ``.t`` file is one division, one player per line::

    Surname, Given  rating  opp1 opp2 ...; score1 score2 ...; extra fields

Opponents are 1-based line numbers of player lines in the same file, ``0`` a
bye; scores are game points, and the winner of a round is the player with the
higher score against that opponent (equal: a draw). A bye (opponent ``0``)
carries a spread such as +50 / −50 and is not a game: bye ``full`` for a
positive score, ``zero`` for a negative one, ``half`` for 0. A round paired
but without scores yet is a game with ``unknown`` result. Both players must
name each other in a round (``format.tsh.asymmetric``). ``.t`` files carry no
date: a ``#date YYYY-MM-DD`` comment line (or ``#begin`` / ``#end``) may give
it, else the division is refused with ``format.tsh.missing_date``.

The live export ``tourney.js`` (``newt = { ... divisions: [...] }``) holds the
same per-player ``name``, ``rating``, ``pairings`` and ``scores`` for every
division, and each round's time (``etc.rtime``), from which the dates come.
It is read as one competition per division (``source_line``: the line of the
player's ``name:`` in the file).

Player ids are name keys (TSH files carry no federation ids); an alias table
maps them to the federation's ids (:mod:`formats.identity`).
"""

from __future__ import annotations

import bisect
import json
import re

from formats._common import Findings, decode, split_lines
from formats._tsh_divisions import Player, build
from formats._tsh_newt import balanced, js_to_json, read_divisions
from formats.declarations import UNDECLARED, declare, language_of
from formats.identity import player_id
from formats.result import ReadResult, sha256

__all__ = ["from_tsh", "from_tsh_newt", "looks_like_tsh", "looks_like_tsh_newt"]

_T_LINE = re.compile(
    r"^(?P<name>[^;\d][^;]*?)\s+(?P<rating>-?\d+)(?P<opps>(?:\s+\d+)*)\s*(?:;(?P<rest>.*))?$"
)


def looks_like_tsh(head: str, name: str = "") -> bool:
    """Whether a text looks like a TSH ``.t`` file.

    Examples
    --------
    >>> looks_like_tsh("Doe, Ann 1500 2 3; 400 350\\nRoe, Bob 1400 1 0; 300 50\\n")
    True
    """
    lines = [
        ln for ln in re.split(r"\r\n|\r|\n", head) if ln.strip() and not ln.lstrip().startswith("#")
    ][:20]
    if not lines:
        return False
    good = sum(1 for ln in lines if _T_LINE.match(ln) and ";" in ln)
    return good >= max(1, (len(lines) * 2) // 3)


def looks_like_tsh_newt(head: str) -> bool:
    """Whether a text is tsh's live export (``newt = {`` ... ``divisions``)."""
    return bool(re.match(r"\s*(?:var\s+)?newt\s*=\s*\{", head))


def from_tsh(data: bytes, name: str, *, federation: str | None = None) -> ReadResult:
    """Read one TSH ``.t`` division file.

    Examples
    --------
    >>> t = b"#date 2025-10-04\\nPuig, Anna 1200 2 3; 420 380\\nVila, Pere 1100 1 0; 400 50\\nRoca, Jan 0 0 1; -50 391\\n"
    >>> r = from_tsh(t, "a.t")
    >>> r.games.select("round", "player_a", "player_b", "score_a", "source_line").rows()
    [(1, 'name:anna-puig', 'name:pere-vila', 1.0, 2), (2, 'name:anna-puig', 'name:jan-roca', 0.0, 2)]
    >>> r.byes.select("round", "player_id", "kind").rows()
    [(2, 'name:pere-vila', 'full'), (1, 'name:jan-roca', 'zero')]
    """
    fed = federation or "ajusc"
    digest = sha256(data)
    f = Findings(name, fed)
    lines = split_lines(decode(data).text)
    players: list[Player] = []
    dates: dict[str, tuple[int, str]] = {}
    for n, raw in enumerate(lines, start=1):
        s = raw.strip()
        if not s:
            continue
        if s.startswith("#"):
            m = re.match(r"#\s*(date|begin|end)\s+(\S+)", s, re.IGNORECASE)
            if m:
                dates[m[1].lower()] = (n, m[2])
            continue
        m = _T_LINE.match(s)
        if m is None:
            f.add(
                "format.tsh.bad_line",
                "reject",
                "not a player line 'Surname, Given  rating  opponents...; scores...': truncated or mistyped",
                line=n,
            )
            players.append(
                Player(len(players) + 1, n, f"line:{n}", "", None, [], [])
            )  # keeps numbering
            continue
        rest = (m["rest"] or "").split(";")
        score_txt = rest[0].split() if rest else []
        try:
            scores = [float(x) for x in score_txt]
        except ValueError:
            f.add(
                "format.tsh.bad_score",
                "reject",
                f"scores {rest[0].strip()!r} are not numbers",
                line=n,
                field="scores",
            )
            scores = []
        extra: dict[str, list[str]] = {}
        for chunk in rest[1:]:
            words = chunk.split()
            if words:
                extra[words[0].lower()] = words[1:]
        full = m["name"].strip()
        players.append(
            Player(
                len(players) + 1,
                n,
                player_id(None, full) or full,
                full,
                float(m["rating"]) or None,
                [int(x) for x in m["opps"].split()],
                scores,
                off="off" in extra,
                extra=extra,
            )
        )
    # A '#lexicon DISC' (or '#config lexicon = ...') comment line names the lexicon.
    return declare(build(name, digest, f, fed, [(None, players)], dates, None),
                   language=_declared_language(lines))


def from_tsh_newt(data: bytes, name: str, *, federation: str | None = None) -> ReadResult:
    """Read tsh's live export (``newt = {...}``): one competition per division."""
    fed = federation or "ajusc"
    digest = sha256(data)
    f = Findings(name, fed)
    text = decode(data).text
    m = re.search(r"\bdivisions\s*:\s*\[", text)
    end = balanced(text, m.end() - 1) if m else -1
    if m is None or end < 0:
        f.add(
            "format.tsh.bad_export",
            "reject",
            "no complete 'divisions: [...]' array in the tsh export",
            line=text[: m.start()].count("\n") + 1 if m else None,
            field="divisions",
        )
        return ReadResult.build(name, digest, "tsh-newt", f)
    base_line = text[: m.end()].count("\n") + 1
    body = text[m.end() - 1 : end]
    try:
        divisions = json.loads(js_to_json(body))
    except json.JSONDecodeError as exc:
        f.add(
            "format.tsh.bad_export",
            "reject",
            f"the divisions array cannot be read: {exc.msg}",
            line=base_line + body[: exc.pos].count("\n"),
            field="divisions",
        )
        return ReadResult.build(name, digest, "tsh-newt", f)
    newlines = [i for i, c in enumerate(body) if c == "\n"]
    name_lines = [
        base_line + bisect.bisect_left(newlines, x.start())
        for x in re.finditer(r"\bname\s*:", body)
    ]
    title_m = re.search(r'\bevent_name\s*:\s*"([^"]*)"', text)
    title = title_m[1] if title_m else None
    parsed, times = read_divisions(divisions, name_lines, base_line)
    return declare(build(name, digest, f, fed, parsed, {}, times, title, fmt="tsh-newt"),
                   language=_declared_language([text]))


_LEXICON = re.compile(
    r"""(?:^\s*#\s*(?:config\s+)?(?:lexicon|dictionary)\b\s*=?\s*['"]?([^'"\s;]+))"""
    r"""|(?:\b(?:lexicon|dictionary|rating_system|rating_list)\s*:\s*["']([^"']+)["'])""",
    re.IGNORECASE | re.MULTILINE,
)


def _declared_language(texts: list[str]) -> str:
    """The language of the lexicon (or rating system) the file declares; ``undeclared`` if none.

    tsh's configuration names the lexicon (``config lexicon = 'NWL2023'``) and the
    rating system (``nsa2008``: the North American association's); a ``.t`` file may
    carry a ``#lexicon DISC`` comment line.

    Examples
    --------
    >>> _declared_language(['rating_system: "nsa2008"']), _declared_language(["#lexicon DISC"]), _declared_language(["x"])
    ('en', 'ca', 'undeclared')
    """
    for text in texts:
        for m in _LEXICON.finditer(text):
            code = language_of(m[1] or m[2])
            if code is not None:
                return code
    return UNDECLARED
