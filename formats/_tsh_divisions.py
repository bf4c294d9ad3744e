"""TSH divisions as canonical frames (:mod:`formats.tsh`): both readers (``.t`` files and the live
``newt`` export) read their players into :class:`Player` rows, built here into one competition per
division, its players, games and byes."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from typing import Any

from formats._common import Findings, parse_date
from formats.identity import competition_key
from formats.result import ReadResult, bye_row, frame
from formats.schema import BYES_SCHEMA, COMPETITIONS_SCHEMA, GAMES_SCHEMA, PLAYERS_SCHEMA

__all__ = ["Player", "build"]


@dataclass
class Player:
    """One player line of a division (``name`` empty: an unreadable line, kept for the numbering)."""

    n: int
    line: int
    pid: str
    name: str
    rating: float | None
    opps: list[int]
    scores: list[float]
    off: bool = False
    extra: dict[str, list[str]] = field(default_factory=dict)


def build(
    name: str,
    digest: str,
    f: Findings,
    fed: str,
    divisions: list[tuple[str | None, list[Player]]],
    dates: dict[str, tuple[int, str]],
    times: dict[str | None, list[date]] | None,
    title: str | None = None,
    fmt: str = "tsh",
) -> ReadResult:
    """The read result of ``divisions`` (name, players), dated by the ``#date``/``#begin``/``#end``
    lines (``dates``) or the rounds' times."""
    comps: list[dict[str, Any]] = []
    games: list[dict[str, Any]] = []
    byes: list[dict[str, Any]] = []
    player_rows: list[dict[str, Any]] = []
    for div, players in divisions:
        start, end = _division_dates(f, dates, times.get(div) if times is not None else None)
        label = " ".join(
            x for x in (title or name.rsplit(".", 1)[0], f"division {div}" if div else None) if x
        )
        cid = competition_key(label, start, name.rsplit(".", 1)[0])
        player_rows += _player_rows(players, fed)
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
                "rounds": max((len(p.opps) for p in players), default=0),
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


def _division_dates(
    f: Findings, dates: dict[str, tuple[int, str]], times: list[date] | None
) -> tuple[date | None, date | None]:
    """Start and end of a division: the comment lines' dates, else its rounds' times."""
    start = end = None
    if times:
        start, end = min(times), max(times)
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
    return start, end


def _player_rows(players: list[Player], fed: str) -> list[dict[str, Any]]:
    """The PLAYERS_SCHEMA rows of a division; two players of one name are kept apart by number."""
    rows: list[dict[str, Any]] = []
    ids: dict[str, int] = {}
    for p in players:
        if not p.name:
            continue
        if p.pid in ids:
            p.pid = f"{p.pid}#{p.n}"
        ids[p.pid] = p.n
        rows.append({"federation": fed, "player_id": p.pid, "name": p.name, "declared_rating": p.rating})
    return rows


def _pair(
    players: list[Player], f: Findings, fed: str, cid: str
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The games (each once, from the lower-numbered line) and byes of a division."""
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
            q = _partner(p, r, opp, by_n, len(players), f, cid)
            if q is None or q.n < p.n:
                continue  # not a game, or taken from the other line
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


def _partner(
    p: Player, r: int, opp: int, by_n: dict[int, Player], count: int, f: Findings, cid: str
) -> Player | None:
    """``p``'s opponent ``opp`` in round ``r`` when the two lines name each other; else None
    (and a reject, unless the opponent's own line could not be read)."""
    q = by_n.get(opp)
    if q is None or not q.name:
        if q is None:
            f.add(
                "format.tsh.bad_opponent",
                "reject",
                f"round {r}: opponent {opp} is not a player of this division (1..{count})",
                line=p.line,
                field=f"round {r}",
                competition_id=cid,
            )
        return None
    if q.n == p.n:
        f.add(
            "format.tsh.self_pairing",
            "reject",
            f"round {r}: player {opp} is paired with himself",
            line=p.line,
            field=f"round {r}",
            competition_id=cid,
        )
        return None
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
        return None
    return q
