"""The games and byes of an OpenGotha file (:mod:`formats.opengotha`): ``<Game>`` and
``<ByePlayer>`` name players by the key ``NAME+FIRSTNAME``, compared by :func:`key`."""

from __future__ import annotations

import re
import unicodedata
from typing import Any

from formats._common import Findings, is_digits
from formats.result import bye_row

__all__ = ["bye", "game", "key"]

_RESULTS: dict[str, tuple[float | None, str]] = {
    "RESULT_WHITEWINS": (1.0, "played"),
    "RESULT_BLACKWINS": (0.0, "played"),
    "RESULT_EQUAL": (0.5, "played"),
    "RESULT_WHITEWINS_BYDEF": (1.0, "forfeit"),
    "RESULT_BLACKWINS_BYDEF": (0.0, "forfeit"),
    "RESULT_EQUAL_BYDEF": (0.5, "forfeit"),
    "RESULT_UNKNOWN": (None, "unknown"),
    "RESULT_BOTHLOSE": (None, "unknown"),
    "RESULT_BOTHWIN": (None, "unknown"),
    "RESULT_BOTHLOSE_BYDEF": (None, "unknown"),
    "RESULT_BOTHWIN_BYDEF": (None, "unknown"),
}
_HANDICAP = re.compile(r"-?[0-9]{1,2}")
_BLANKS = re.compile(r"[\s_]+")


def key(s: str) -> str:
    """A player's key as games and byes spell it, case-folded, without accents, spaces or ``_``."""
    # OpenGotha upper-cases with Java's rules ("Taşkın" -> "TAŞKIN"): compare without accents and
    # with the dotless i folded, so that both spellings meet.
    plain = "".join(c for c in unicodedata.normalize("NFKD", s) if not unicodedata.combining(c))
    return _BLANKS.sub("", plain).replace("ı", "i").casefold()


def _round(txt: str, line: int, f: Findings) -> int | None:
    if is_digits(txt.strip()) and 1 <= int(txt) <= 999:
        return int(txt)
    f.add(
        "format.opengotha.bad_round",
        "reject",
        f"roundNumber {txt!r} is not a number from 1 to 999",
        line=line,
        field="roundNumber",
    )
    return None



def bye(a: dict[str, str], line: int, players: dict[str, str], f: Findings, fed: str) -> dict[str, Any] | None:
    """The ``pairing`` bye of a ``<ByePlayer player roundNumber/>``; None when it cannot be read."""
    who = players.get(key(a.get("player", "")))
    rnd = _round(a.get("roundNumber", ""), line, f)
    if who is None:
        f.add(
            "format.opengotha.unknown_player",
            "reject",
            f"bye player {a.get('player', '')!r} is not among the <Players>",
            line=line,
            field="player",
        )
    elif rnd is not None:
        return bye_row(fed, rnd, who, "pairing", line)
    return None


def game(
    a: dict[str, str],
    line: int,
    players: dict[str, str],
    busy: dict[tuple[int, str], int],
    games: list[dict[str, Any]],
    f: Findings,
    fed: str,
) -> None:
    """Add the ``<Game>`` of ``line`` to ``games`` (``busy``: (round, player) -> line of its game)."""
    fields = _game_fields(a, line, players, f)
    if fields is None:
        return
    ids, rnd, result, handicap = fields
    if not _free(ids, rnd, line, busy, f):
        return
    for pid in ids:
        busy[(rnd, pid)] = line
    score, status = _RESULTS[result]
    if "BOTH" in result:
        f.add(
            "format.opengotha.both_result",
            "warn",
            f"{result}: both players lose or both win; not one score, so the game is not rated",
            line=line,
            field="result",
        )
    games.append(
        {
            "federation": fed,
            "round": rnd,
            "player_a": ids[0],
            "player_b": ids[1],
            "score_a": score,
            "status": status,
            "handicap": handicap,
            "colour_a": "w" if a.get("knownColor", "true") != "false" else None,
            "source_line": line,
        }
    )


def _game_fields(
    a: dict[str, str], line: int, players: dict[str, str], f: Findings
) -> tuple[list[str], int, str, int] | None:
    """White's and black's ids, round, result code and handicap of a ``<Game>``; None when any
    of them cannot be read (every one that cannot is a finding)."""
    bad = False
    ids: list[str] = []
    for col in ("whitePlayer", "blackPlayer"):
        pid = players.get(key(a.get(col, "")))
        if pid is None:
            f.add(
                "format.opengotha.unknown_player",
                "reject",
                f"{col} {a.get(col, '')!r} is not among the <Players>: the game cannot be rated",
                line=line,
                field=col,
            )
            bad = True
        else:
            ids.append(pid)
    rnd = _round(a.get("roundNumber", ""), line, f)
    result = a.get("result", "").strip().upper()
    if result not in _RESULTS:
        f.add(
            "format.opengotha.bad_result",
            "reject",
            f"result {a.get('result', '')!r} is not an OpenGotha result code",
            line=line,
            field="result",
        )
        bad = True
    hcp_txt = a.get("handicap", "0").strip() or "0"
    if not _HANDICAP.fullmatch(hcp_txt):
        f.add(
            "format.opengotha.bad_handicap",
            "reject",
            f"handicap {hcp_txt!r} is not a number of stones",
            line=line,
            field="handicap",
        )
        bad = True
    if bad or rnd is None:
        return None
    return ids, rnd, result, int(hcp_txt)


def _free(ids: list[str], rnd: int, line: int, busy: dict[tuple[int, str], int], f: Findings) -> bool:
    """Whether the two players are two and neither plays another game in round ``rnd``."""
    if ids[0] == ids[1]:
        f.add(
            "format.opengotha.self_pairing",
            "reject",
            "a player is paired with himself",
            line=line,
            field="blackPlayer",
        )
        return False
    for pid in ids:
        if (rnd, pid) in busy:
            f.add(
                "format.opengotha.double_pairing",
                "reject",
                f"player {pid} already plays in round {rnd} (line {busy[(rnd, pid)]})",
                line=line,
            )
            return False
    return True
