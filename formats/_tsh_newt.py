"""tsh's live export (``tourney.js``, ``newt = { ... divisions: [...] }``, :mod:`formats.tsh`): its
JavaScript object literal as JSON, and each division's players with the times of their rounds."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime
from typing import Any

from formats._tsh_divisions import Player
from formats.identity import player_id

__all__ = ["balanced", "js_to_json", "read_divisions"]


def js_to_json(text: str) -> str:
    """The ``divisions`` array of tsh's JavaScript object literal, as JSON."""
    out = re.sub(r"\bundefined\b", "null", text)
    out = re.sub(r"([{\[,]\s*)([A-Za-z_$][\w$]*)\s*:", r'\1"\2":', out)
    out = re.sub(r",(\s*[}\]])", r"\1", out)
    return out


_SPECIAL = re.compile(r"[\[\]{}\"'\\]")


def balanced(text: str, start: int) -> int:
    """Index just after the bracket that closes the one at ``start`` (strings respected).

    Examples
    --------
    >>> balanced('x = [1, "]", {a: [2]}] tail', 4)
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


def read_divisions(
    divisions: list[Any], name_lines: list[int], base_line: int
) -> tuple[list[tuple[str | None, list[Player]]], dict[str | None, list[date]]]:
    """Each division's (name, players), and the dates of its rounds (``etc.rtime``);
    ``name_lines``: the line of every ``name:`` in the array, in order."""
    parsed: list[tuple[str | None, list[Player]]] = []
    times: dict[str | None, list[date]] = {}
    line_iter = iter(name_lines)
    for d in divisions:
        if not isinstance(d, dict):
            continue
        div = str(d.get("name")) if d.get("name") is not None else None
        if d.get("name") is not None:
            next(line_iter, None)  # the division's own "name:" comes before its players'
        players: list[Player] = []
        for i, p in enumerate(d.get("players") or []):
            if p is None:
                continue  # tsh numbers players from 1: element 0 is empty
            pline = next(line_iter, base_line)
            pname = str(p.get("name") or "").strip()
            n = int(p.get("id") or i)
            rating = p.get("rating")
            players.append(
                Player(
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
    return parsed, times
