"""The games and byes of a TRF file's player records (:mod:`formats.trf`): each game is on both
players' lines and is taken once, from the first line, when the two lines agree."""

from __future__ import annotations

from formats._common import Findings
from formats._trf_players import BYES, COMPLEMENT, FORFEIT, PLAYED, UNRATED, Player
from formats.result import bye_row

__all__ = ["pair"]


def pair(
    players: dict[int, Player], f: Findings, fed: str
) -> tuple[list[dict[str, object]], list[dict[str, object]]]:
    games: list[dict[str, object]] = []
    byes: list[dict[str, object]] = []
    for rank in sorted(players):
        p = players[rank]
        for r, e in enumerate(p.rounds, start=1):
            if e.code == "?":
                continue
            if e.opponent is None:
                kind = "absent" if e.code == "-" else "full" if e.code == "+" else BYES[e.code]
                byes.append(bye_row(fed, r, p.pid, kind, p.line))
                continue
            q = players.get(e.opponent)
            if q is None:
                f.add(
                    "format.trf.bad_opponent",
                    "reject",
                    f"round {r} opponent {e.opponent} is not the starting rank of any player in the file",
                    line=p.line,
                    field=f"001 round {r}",
                )
                continue
            if q.rank == p.rank:
                f.add(
                    "format.trf.self_pairing",
                    "reject",
                    f"round {r}: player {p.rank} is paired with himself",
                    line=p.line,
                    field=f"001 round {r}",
                )
                continue
            other = q.rounds[r - 1] if r <= len(q.rounds) else None
            if other is not None and other.code == "?":
                continue  # already a finding on the other line
            double_forfeit = e.code == "-" and other is not None and other.code == "-"
            agree = (
                other is not None
                and other.opponent == p.rank
                and (COMPLEMENT[e.code] == other.code or double_forfeit)
                and (e.colour in ("", "-") or other.colour in ("", "-") or e.colour != other.colour)
            )
            if q.rank < p.rank and agree:
                continue  # the game was taken from the other player's line
            if not agree:
                theirs = "nothing" if other is None else repr(other.raw.strip())
                if q.rank < p.rank and other is not None and other.opponent == p.rank:
                    continue  # reported once, from the first line
                f.add(
                    "format.trf.asymmetric",
                    "reject",
                    f"round {r}: line {p.line} (player {p.rank}) has {e.raw.strip()!r} against {q.rank}, but line "
                    f"{q.line} (player {q.rank}) has {theirs}; both lines must report the same game",
                    line=p.line,
                    field=f"001 round {r}",
                )
                continue
            if double_forfeit:
                for who in (p, q):
                    byes.append(bye_row(fed, r, who.pid, "absent", who.line))
                continue
            score = {**PLAYED, **FORFEIT, **UNRATED}[e.code]
            games.append(
                {
                    "federation": fed,
                    "round": r,
                    "player_a": p.pid,
                    "player_b": q.pid,
                    "score_a": score,
                    "status": "played" if e.code in PLAYED else "forfeit",
                    "handicap": None,
                    "colour_a": e.colour if e.colour in ("w", "b") else None,
                    "source_line": p.line,
                }
            )
    return games, byes
