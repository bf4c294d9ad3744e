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
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from typing import Any

from formats._common import Findings, decode, parse_date, split_lines
from formats.declarations import UNDECLARED, declare, language_of
from formats.identity import competition_key, player_id
from formats.result import ReadResult, bye_row, frame, sha256
from formats.schema import BYES_SCHEMA, COMPETITIONS_SCHEMA, GAMES_SCHEMA, PLAYERS_SCHEMA

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


@dataclass
class _P:
    n: int
    line: int
    pid: str
    name: str
    rating: float | None
    opps: list[int]
    scores: list[float]
    off: bool = False
    extra: dict[str, list[str]] = field(default_factory=dict)


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
    players: list[_P] = []
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
                _P(len(players) + 1, n, f"line:{n}", "", None, [], [])
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
            _P(
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
    return declare(_build(name, digest, f, fed, [(None, players)], dates, None),
                   language=_declared_language(lines))


def _build(
    name: str,
    digest: str,
    f: Findings,
    fed: str,
    divisions: list[tuple[str | None, list[_P]]],
    dates: dict[str, tuple[int, str]],
    times: dict[str | None, list[date]] | None,
    title: str | None = None,
    fmt: str = "tsh",
) -> ReadResult:
    comps: list[dict[str, Any]] = []
    games: list[dict[str, Any]] = []
    byes: list[dict[str, Any]] = []
    player_rows: list[dict[str, Any]] = []
    for div, players in divisions:
        start = end = None
        if times is not None and times.get(div):
            start, end = min(times[div]), max(times[div])
        for key in ("date", "begin"):
            if key in dates:
                start = parse_date(dates[key][1])
                if start is None:
                    f.add(
                        "format.tsh.bad_date",
                        "reject",
                        f"#{key} {dates[key][1]!r} is not a date (YYYY-MM-DD)",
                        line=dates[key][0],
                        field=f"#{key}",
                    )
        end = parse_date(dates["end"][1]) if "end" in dates else end or start
        if start is None and not f.has_reject():
            f.add(
                "format.tsh.missing_date",
                "reject",
                "TSH .t files carry no date: add a line '#date YYYY-MM-DD' (or #begin / #end) at the top",
                field="#date",
            )
        label = " ".join(
            x for x in (title or name.rsplit(".", 1)[0], f"division {div}" if div else None) if x
        )
        cid = competition_key(label, start, name.rsplit(".", 1)[0])
        ids: dict[str, int] = {}
        for p in players:
            if not p.name:
                continue
            if p.pid in ids:
                p.pid = f"{p.pid}#{p.n}"
            ids[p.pid] = p.n
            player_rows.append(
                {"federation": fed, "player_id": p.pid, "name": p.name, "declared_rating": p.rating}
            )
        n_rounds = max((len(p.opps) for p in players), default=0)
        g, b = _pair(players, f, fed, cid)
        games += g
        byes += b
        comps.append(
            {
                "federation": fed,
                "competition_id": cid,
                "name": label,
                "start_date": start,
                "end_date": end,
                "rounds": n_rounds,
                "modality": "classic",
                "results_public": True,
                "event_class": None,
                "source": name,
                "source_sha256": digest,
            }
        )
    if not player_rows:
        f.add("format.tsh.no_players", "reject", "no player line: nothing to rate")
    if len(comps) == 1:
        for row in f.rows:
            row["competition_id"] = row["competition_id"] or comps[0]["competition_id"]
    return ReadResult.build(
        name,
        digest,
        fmt,
        f,
        competitions=frame(comps if player_rows else [], COMPETITIONS_SCHEMA),
        players=frame(player_rows, PLAYERS_SCHEMA),
        games=frame(games, GAMES_SCHEMA),
        byes=frame(byes, BYES_SCHEMA),
    )


def _pair(
    players: list[_P], f: Findings, fed: str, cid: str
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    games: list[dict[str, Any]] = []
    byes: list[dict[str, Any]] = []
    by_n = {p.n: p for p in players}
    for p in players:
        if not p.name:
            continue
        if len(p.scores) > len(p.opps):
            f.add(
                "format.tsh.bad_score",
                "reject",
                f"{len(p.scores)} scores for {len(p.opps)} rounds: every score needs an opponent",
                line=p.line,
                field="scores",
                competition_id=cid,
            )
        for r, opp in enumerate(p.opps, start=1):
            mine = p.scores[r - 1] if r <= len(p.scores) else None
            if opp == 0:
                if mine is not None:
                    kind = "full" if mine > 0 else "zero" if mine < 0 else "half"
                    byes.append(bye_row(fed, r, p.pid, kind, p.line, competition_id=cid))
                continue
            q = by_n.get(opp)
            if q is None or not q.name:
                if q is None:
                    f.add(
                        "format.tsh.bad_opponent",
                        "reject",
                        f"round {r}: opponent {opp} is not a player of this division (1..{len(players)})",
                        line=p.line,
                        field=f"round {r}",
                        competition_id=cid,
                    )
                continue
            if q.n == p.n:
                f.add(
                    "format.tsh.self_pairing",
                    "reject",
                    f"round {r}: player {opp} is paired with himself",
                    line=p.line,
                    field=f"round {r}",
                    competition_id=cid,
                )
                continue
            theirs = q.opps[r - 1] if r <= len(q.opps) else None
            if theirs != p.n:
                # each line that names a partner who does not name it back is reported
                f.add(
                    "format.tsh.asymmetric",
                    "reject",
                    f"round {r}: line {p.line} plays {opp} but line {q.line} (player {opp}) plays "
                    f"{theirs if theirs is not None else 'nobody'}",
                    line=p.line,
                    field=f"round {r}",
                    competition_id=cid,
                )
                continue
            if q.n < p.n:
                continue  # taken from the other line
            other = q.scores[r - 1] if r <= len(q.scores) else None
            if mine is None or other is None:
                score, status = None, "unknown"
            else:
                score, status = (1.0 if mine > other else 0.0 if mine < other else 0.5), "played"
            games.append(
                {
                    "federation": fed,
                    "competition_id": cid,
                    "round": r,
                    "player_a": p.pid,
                    "player_b": q.pid,
                    "score_a": score,
                    "status": status,
                    "handicap": None,
                    "colour_a": None,
                    "source_line": p.line,
                }
            )
    return games, byes


def _js_to_json(text: str) -> str:
    """The ``divisions`` array of tsh's JavaScript object literal, as JSON."""
    out = re.sub(r"\bundefined\b", "null", text)
    out = re.sub(r"([{\[,]\s*)([A-Za-z_$][\w$]*)\s*:", r'\1"\2":', out)
    out = re.sub(r",(\s*[}\]])", r"\1", out)
    return out


_SPECIAL = re.compile(r"[\[\]{}\"'\\]")


def _balanced(text: str, start: int) -> int:
    """Index just after the bracket that closes the one at ``start`` (strings respected).

    Examples
    --------
    >>> _balanced('x = [1, "]", {a: [2]}] tail', 4)
    22
    """
    depth, quote, skip = 0, "", -1
    for m in _SPECIAL.finditer(text, start):
        i, c = m.start(), m.group()
        if i == skip:
            continue
        if quote:
            if c == "\\":
                skip = i + 1
            elif c == quote:
                quote = ""
        elif c in "\"'":
            quote = c
        elif c in "[{":
            depth += 1
        elif c in "]}":
            depth -= 1
            if depth == 0:
                return i + 1
    return -1


def from_tsh_newt(data: bytes, name: str, *, federation: str | None = None) -> ReadResult:
    """Read tsh's live export (``newt = {...}``): one competition per division."""
    fed = federation or "ajusc"
    digest = sha256(data)
    f = Findings(name, fed)
    text = decode(data).text
    m = re.search(r"\bdivisions\s*:\s*\[", text)
    end = _balanced(text, m.end() - 1) if m else -1
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
        divisions = json.loads(_js_to_json(body))
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
    parsed: list[tuple[str | None, list[_P]]] = []
    times: dict[str | None, list[date]] = {}
    line_iter = iter(name_lines)
    for d in divisions:
        if not isinstance(d, dict):
            continue
        div = str(d.get("name")) if d.get("name") is not None else None
        if d.get("name") is not None:
            next(line_iter, None)  # the division's own "name:" comes before its players'
        players: list[_P] = []
        for i, p in enumerate(d.get("players") or []):
            if p is None:
                continue  # tsh numbers players from 1: element 0 is empty
            pline = next(line_iter, base_line)
            pname = str(p.get("name") or "").strip()
            n = int(p.get("id") or i)
            rating = p.get("rating")
            players.append(
                _P(
                    n,
                    pline,
                    player_id(None, pname) or pname,
                    pname,
                    float(rating) if isinstance(rating, (int, float)) and rating else None,
                    [int(x) for x in p.get("pairings") or []],
                    [float(x) for x in p.get("scores") or []],
                )
            )
            for t in (p.get("etc") or {}).get("rtime") or []:
                if isinstance(t, (int, float)) and t > 0:
                    times.setdefault(div, []).append(datetime.fromtimestamp(t, tz=UTC).date())
        parsed.append((div, players))
    return declare(_build(name, digest, f, fed, parsed, {}, times, title, fmt="tsh-newt"),
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
