"""Pairgoth tournament files (``.tour``, JSON), the successor of OpenGotha in French and EGF events.

``{"name", "shortName", "startDate", "endDate", "online", "rounds", "players": [{"id", "name",
"firstname", "rating", "rank", "country", "club", "egfId"?, "skip"?}], "games": [[{"id", "t", "w",
"b", "h", "r"}, ...] per round]}``. ``w`` / ``b`` are player ids (``0``: a bye), ``h`` the
handicap, ``r`` the result: ``w`` white wins, ``b`` black wins, ``=`` jigo, ``?`` unknown,
``X`` cancelled (not a game: two ``absent`` byes), ``#`` both win and ``0`` both lose
(``unknown`` with a warning, as in OpenGotha). Ranks are numbers: ``-1`` is 1k, ``0`` 1d.
``player_a`` is white; ``source_line`` the line of the game's ``"id"`` in the file.
"""

from __future__ import annotations

import bisect
import json
import re
from typing import Any

from formats._common import Findings, decode, parse_date
from formats.identity import competition_key, player_id
from formats.result import ReadResult, bye_row, sha256, single_competition

__all__ = ["from_pairgoth", "looks_like_pairgoth", "rank_name"]

_RESULTS: dict[str, tuple[float | None, str]] = {
    "w": (1.0, "played"),
    "b": (0.0, "played"),
    "=": (0.5, "played"),
    "?": (None, "unknown"),
    "#": (None, "unknown"),
    "0": (None, "unknown"),
}


_ID = re.compile(r'"id"\s*:\s*(-?\d+)')


def looks_like_pairgoth(head: str) -> bool:
    """Whether a text is a pairgoth tournament (JSON with its keys).

    Examples
    --------
    >>> looks_like_pairgoth('{ "id" : 2, "type" : "INDIVIDUAL", "name" : "X", "pairing" : {')
    True
    """
    s = head.lstrip("\ufeff \r\n\t")
    return (
        s.startswith("{")
        and '"type"' in s
        and ('"pairing"' in s or '"gobanSize"' in s or '"timeSystem"' in s)
    )


def rank_name(rank: int) -> str:
    """Pairgoth's numeric rank as a grade.

    Examples
    --------
    >>> rank_name(-5), rank_name(-1), rank_name(0), rank_name(6)
    ('5k', '1k', '1d', '7d')
    """
    return f"{-rank}k" if rank < 0 else f"{rank + 1}d"


def from_pairgoth(data: bytes, name: str, *, federation: str | None = None) -> ReadResult:
    """Read a pairgoth tournament file.

    Examples
    --------
    >>> doc = b'''{"type": "INDIVIDUAL", "name": "Cup", "startDate": "2021-04-03", "endDate": "2021-04-05",
    ...  "online": true, "rounds": 2, "pairing": {},
    ...  "players": [{"id": 1, "name": "Lee", "firstname": "Ann", "rank": -1, "rating": 2000},
    ...              {"id": 2, "name": "Kim", "firstname": "Bo", "rank": 0, "rating": 2100, "egfId": "123"}],
    ...  "games": [[{"id": 10, "t": 1, "w": 2, "b": 1, "h": 0, "r": "b"}],
    ...            [{"id": 11, "t": 1, "w": 1, "b": 0, "h": 0, "r": "w"}]]}'''
    >>> r = from_pairgoth(doc, "cup.tour")
    >>> r.games.select("round", "player_a", "player_b", "score_a", "source_line").rows()
    [(1, '123', 'name:ann-lee', 0.0, 5)]
    >>> r.byes.select("round", "player_id", "kind").rows(), r.competitions["modality"][0]
    ([(2, 'name:ann-lee', 'full')], 'online')
    """
    fed = federation or "egf"
    digest = sha256(data)
    f = Findings(name, fed)
    text = decode(data).text
    doc = _load(text, f)
    if doc is None:
        return ReadResult.build(name, digest, "pairgoth", f)
    ids, players = _players(doc, f, fed)
    rounds = doc.get("games") or []
    games, byes = _games(rounds if isinstance(rounds, list) else [], ids, _GameLines(text), f, fed)
    start = parse_date(str(doc.get("startDate", "")))
    end = parse_date(str(doc.get("endDate", ""))) or start
    if start is None:
        f.add(
            "format.pairgoth.missing_date",
            "reject",
            f"startDate {doc.get('startDate')!r} is not a date",
            field="startDate",
        )
    title = str(doc.get("name") or "") or None
    cid = competition_key(title, start, str(doc.get("shortName") or name.rsplit(".", 1)[0]))
    comp = {"federation": fed, "competition_id": cid, "name": title, "start_date": start, "end_date": end,
            "rounds": sum(1 for r in rounds if r) if isinstance(rounds, list) else 0,
            "modality": "online" if doc.get("online") else "classic"}
    return single_competition("pairgoth", f, name, digest, comp, players=players, games=games, byes=byes)


def _load(text: str, f: Findings) -> dict[str, Any] | None:
    """The tournament object of the file; None (and a reject) when it is not one."""
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        f.add(
            "format.pairgoth.bad_json",
            "reject",
            f"the JSON cannot be read: {exc.msg}",
            line=exc.lineno,
        )
        return None
    if not isinstance(doc, dict):
        f.add(
            "format.pairgoth.bad_json",
            "reject",
            "the file is not a pairgoth tournament object",
            line=1,
        )
        return None
    return doc


class _GameLines:
    """The line of each game's ``"id"`` in the text (the games' findings and ``source_line``)."""

    def __init__(self, text: str) -> None:
        # game ids may equal player ids: look for them only after the "games" key
        games_at = max(text.rfind('"games"'), 0)
        newlines = [i for i, c in enumerate(text) if c == "\n"]
        self.games_line = bisect.bisect_left(newlines, games_at) + 1
        self.lines = {
            int(m[1]): bisect.bisect_left(newlines, m.start()) + 1 for m in _ID.finditer(text, games_at)
        }

    def of(self, gid: object) -> int:
        # A game whose id cannot be found in the text (written as 1e3, 12.0, ...) is
        # located at the "games" key: every game keeps a line for its findings.
        return (self.lines.get(gid) if isinstance(gid, int) else None) or self.games_line


def _players(doc: dict[str, Any], f: Findings, fed: str) -> tuple[dict[int, str], list[dict[str, Any]]]:
    """Player id by pairgoth id, and the PLAYERS_SCHEMA rows, of ``"players"``."""
    ids: dict[int, str] = {}
    players: list[dict[str, Any]] = []
    for p in doc.get("players") or []:
        if not isinstance(p, dict) or not isinstance(p.get("id"), int):
            f.add(
                "format.pairgoth.bad_player",
                "reject",
                "a player without a numeric id",
                field="players",
            )
            continue
        full = f"{p.get('name', '')} {p.get('firstname', '')}".strip()
        pid = player_id(str(p.get("egfId") or p.get("egf") or ""), full) or f"pairgoth:{p['id']}"
        ids[p["id"]] = pid
        rank = p.get("rank")
        rating = p.get("rating")
        players.append(
            {
                "federation": fed,
                "player_id": pid,
                "name": full or None,
                "country": p.get("country") or None,
                "club": p.get("club") or None,
                "declared_rank": rank_name(rank) if isinstance(rank, int) else None,
                "declared_rating": float(rating) if isinstance(rating, (int, float)) else None,
            }
        )
    return ids, players


def _games(
    rounds: list[Any], ids: dict[int, str], where: _GameLines, f: Findings, fed: str
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The games and byes of ``"games"`` (one list of games per round)."""
    games: list[dict[str, Any]] = []
    byes: list[dict[str, Any]] = []
    for rnd, round_games in enumerate(rounds, start=1):
        for g in round_games if isinstance(round_games, list) else []:
            if isinstance(g, dict):
                _game(g, rnd, where.of(g.get("id")), ids, f, fed, games, byes)
    return games, byes


def _game(
    g: dict[str, Any],
    rnd: int,
    line: int,
    ids: dict[int, str],
    f: Findings,
    fed: str,
    games: list[dict[str, Any]],
    byes: list[dict[str, Any]],
) -> None:
    """One game ``{"id", "t", "w", "b", "h", "r"}`` of round ``rnd``: a game, byes, or a finding."""
    gid = g.get("id")
    w, b, res = g.get("w"), g.get("b"), str(g.get("r", ""))
    if w == 0 or b == 0:
        who = ids.get(b if w == 0 else w)  # type: ignore[arg-type]
        if who is not None:
            byes.append(bye_row(fed, rnd, who, "full", line))
        return
    if w not in ids or b not in ids:
        f.add(
            "format.pairgoth.unknown_player",
            "reject",
            f"game {gid}: player {w if w not in ids else b} is not among the players",
            line=line,
            field="w" if w not in ids else "b",
        )
        return
    if res.upper() == "X":
        for who in (ids[w], ids[b]):
            byes.append(bye_row(fed, rnd, who, "absent", line))
        return
    if res not in _RESULTS:
        f.add(
            "format.pairgoth.bad_result",
            "reject",
            f"game {gid}: result {res!r} is not w, b, =, ?, X, #, 0",
            line=line,
            field="r",
        )
        return
    if res in ("#", "0"):
        f.add(
            "format.pairgoth.both_result",
            "warn",
            f"game {gid}: both players win or lose; not rated",
            line=line,
            field="r",
        )
    score, status = _RESULTS[res]
    h = g.get("h", 0)
    if not isinstance(h, int) or not -99 <= h <= 99:
        f.add(
            "format.pairgoth.bad_handicap",
            "reject",
            f"game {gid}: handicap {h!r} is not a number of stones",
            line=line,
            field="h",
        )
        return
    games.append(
        {
            "federation": fed,
            "round": rnd,
            "player_a": ids[w],
            "player_b": ids[b],
            "score_a": score,
            "status": status,
            "handicap": h,
            "colour_a": "w",
            "source_line": line,
        }
    )
