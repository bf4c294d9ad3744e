"""TRF ``001`` player records (:mod:`formats.trf`): the player's columns and, from column 92,
one 10-column entry per round (opponent's starting rank, colour, result code)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from formats._common import Findings, is_digits
from formats.identity import player_id

__all__ = [
    "BYES",
    "COMPLEMENT",
    "FORFEIT",
    "PLAYED",
    "UNRATED",
    "Entry",
    "Player",
    "player",
    "player_row",
]

PLAYED = {"1": 1.0, "=": 0.5, "0": 0.0}
FORFEIT = {"+": 1.0, "-": 0.0}
UNRATED = {"W": 1.0, "D": 0.5, "L": 0.0}
BYES = {"H": "half", "F": "full", "U": "pairing", "Z": "zero", "": "zero"}
COMPLEMENT = {"1": "0", "0": "1", "=": "=", "+": "-", "-": "+", "W": "L", "L": "W", "D": "D"}
_YEAR = re.compile(r"(\d{4})")


@dataclass
class Entry:
    """One round of a player record; code ``?`` when it could not be read (a finding says why)."""

    opponent: int | None
    colour: str
    code: str
    raw: str


@dataclass
class Player:
    rank: int
    line: int
    pid: str
    name: str
    rounds: list[Entry] = field(default_factory=list)


def _slice(line: str, a: int, b: int) -> str:
    """1-based inclusive columns ``a``..``b``."""
    return line[a - 1 : b]


def player_row(line: str, p: Player, fed: str) -> dict[str, object]:
    """The PLAYERS_SCHEMA row of player record ``line``."""
    rating_txt = _slice(line, 49, 52).strip()
    birth = _YEAR.search(_slice(line, 70, 79))
    rated = is_digits(rating_txt) and int(rating_txt) > 0
    return {
        "federation": fed,
        "player_id": p.pid,
        "name": p.name or None,
        "country": _slice(line, 54, 56).strip() or None,
        "club": None,
        "birth_year": int(birth[1]) if birth and 1850 < int(birth[1]) < 2100 else None,
        "declared_rank": None,
        "declared_rating": float(rating_txt) if rated else None,
        "declared_rating_origin": "FIDE" if rated else None,
    }


def player(line: str, n: int, f: Findings) -> Player | None:
    """The player of record ``line`` (physical line ``n``) with its rounds; None (and a
    reject) when the record has no starting rank or is cut short before its points."""
    p = _player_head(line, n, f)
    if p is None:
        return None
    body = line.rstrip()
    for i, base in enumerate(range(91, len(body), 10), start=1):
        p.rounds.append(_round_entry(body[base : base + 10], i, base, n, f))
    return p


def _player_head(line: str, n: int, f: Findings) -> Player | None:
    """Starting rank (cols 5-8), name (15-47) and FIDE id (58-68) of a player record."""
    rank_txt = _slice(line, 5, 8).strip()
    if not is_digits(rank_txt) or int(rank_txt) < 1:
        f.add(
            "format.trf.bad_rank",
            "reject",
            f"starting rank {rank_txt!r} is not a number >= 1 (columns 5-8)",
            line=n,
            field="001 starting rank (cols 5-8)",
        )
        return None
    name = _slice(line, 15, 47).strip()
    if len(line.rstrip()) < 15 or not name:
        f.add(
            "format.trf.truncated",
            "reject",
            "the player record ends before the name (columns 15-47)",
            line=n,
            field="001 name (cols 15-47)",
        )
        return None
    if len(line.rstrip()) < 84:
        f.add(
            "format.trf.truncated",
            "reject",
            f"the player record ends at column {len(line.rstrip())}, before the points (columns 81-84): "
            "the line is cut short",
            line=n,
            field="001 points (cols 81-84)",
        )
        return None
    fide_id = _slice(line, 58, 68).strip()
    if fide_id and not is_digits(fide_id):
        f.add(
            "format.trf.bad_id",
            "warn",
            f"FIDE id {fide_id!r} is not a number: the name identifies the player",
            line=n,
            field="001 FIDE id (cols 58-68)",
        )
        fide_id = ""
    pid = player_id(fide_id, name) or f"rank:{rank_txt}"
    return Player(int(rank_txt), n, pid, name)


def _round_entry(seg: str, i: int, base: int, n: int, f: Findings) -> Entry:
    """Round ``i`` of a player record: the 10 columns ``seg`` from 0-based column ``base``."""
    opp_txt, colour, code = seg[0:4].strip(), seg[5:6].strip().lower(), seg[7:8].strip().upper()
    where = f"001 round {i} (cols {base + 1}-{base + 8})"
    unread = Entry(None, "", "?", seg)
    if len(seg.rstrip()) < 8 and (opp_txt or colour):
        f.add(
            "format.trf.truncated",
            "reject",
            f"round {i} is cut short: {seg.rstrip()!r} has no result (column {base + 8})",
            line=n,
            field=where,
        )
        return unread
    if opp_txt and not is_digits(opp_txt):
        f.add(
            "format.trf.bad_opponent",
            "reject",
            f"round {i} opponent {opp_txt!r} is not a starting rank",
            line=n,
            field=where,
        )
        return unread
    opp = int(opp_txt) if opp_txt and int(opp_txt) > 0 else None
    if colour not in ("w", "b", "-", ""):
        f.add(
            "format.trf.bad_colour",
            "warn",
            f"round {i} colour {colour!r} is not w, b or -; ignored",
            line=n,
            field=where,
        )
        colour = ""
    known = PLAYED | FORFEIT | UNRATED if opp is not None else {**BYES, "+": 1, "-": 0}
    if code not in known:
        f.add(
            "format.trf.bad_result",
            "reject",
            f"round {i} result {code!r} is not a TRF code "
            + (
                "(1 = 0 + - W D L with an opponent)"
                if opp is not None
                else "(H F U Z + - without opponent)"
            ),
            line=n,
            field=where,
        )
        return unread
    return Entry(opp, colour, code, seg)
