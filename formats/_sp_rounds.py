"""The round and standings files of a Swiss Perfect tournament (:mod:`formats.swissperfect`):
``<stem>.<n>.rnd`` (one round's games, the source of truth) and ``<stem>.<n>.stg`` (cumulative
standings, a cross-check only)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from formats._common import Findings, decode, is_digits, split_lines
from formats.result import bye_row

__all__ = ["RND_HEADER", "STG_HEADER", "read_rnd", "read_stg"]

RND_HEADER = "ROUND|TABLE_NO|WHITE_ID|BLACK_ID|WHITE_SCORE|BLACK_SCORE"
STG_HEADER = "PLACING|SHORT_PLACING|PLAYER_ID|TOTAL_SCORE"
_SCORES = {"1": 1.0, "1.0": 1.0, "0": 0.0, "0.0": 0.0, "0.5": 0.5, ".5": 0.5}


@dataclass
class _Round:
    """One ``.rnd`` file being read: where its games and byes go, and what its lines used."""

    fname: str
    number: int | None  # the round its name says
    f: Findings
    fed: str
    pid: Callable[[int], str]
    games: list[dict[str, Any]]
    byes: list[dict[str, Any]]
    rounds_seen: dict[int, str]  # round -> the file it was read from
    this_round: set[int] = field(default_factory=set)
    busy: dict[str, int] = field(default_factory=dict)  # start number -> line of its game

    def add(self, rule: str, severity: str, msg: str, line: int | None, field: str | None = None) -> None:
        self.f.add(rule, severity, msg, line=line, field=field, source=self.fname)


def read_rnd(
    fname: str,
    number: int | None,
    data: bytes,
    f: Findings,
    fed: str,
    pid: Callable[[int], str],
    games: list[dict[str, Any]],
    byes: list[dict[str, Any]],
    rounds_seen: dict[int, str],
) -> None:
    """Read round file ``fname`` (round ``number`` by its name) into ``games`` and ``byes``."""
    rd = _Round(fname, number, f, fed, pid, games, byes, rounds_seen)
    lines = split_lines(decode(data).text)
    if not _header(rd, lines):
        return
    for n, line in enumerate(lines[1:], start=2):
        if line.strip():
            _row(rd, line, n)
    for r in rd.this_round:
        rounds_seen[r] = fname


def _header(rd: _Round, lines: list[str]) -> bool:
    """Whether the file starts with the ``RND_HEADER`` line (else a reject)."""
    if not lines or not lines[0].strip():
        rd.add("format.swissperfect.empty", "reject", "the round file is empty", 1)
        return False
    header = [h.strip().upper() for h in lines[0].split("|")]
    need = RND_HEADER.split("|")
    if header[: len(need)] != need:
        rd.add(
            "format.swissperfect.bad_header",
            "reject",
            f"expected the header {RND_HEADER!r} (Swiss Perfect text dump with InclHeader=1), found {lines[0]!r}",
            1,
        )
        return False
    return True


def _row(rd: _Round, line: str, n: int) -> None:
    """One game (or bye) row: ``ROUND|TABLE_NO|WHITE_ID|BLACK_ID|WHITE_SCORE|BLACK_SCORE``."""
    cells = [c.strip() for c in line.split("|")]
    if len(cells) < 6:
        rd.add(
            "format.swissperfect.field_count",
            "reject",
            f"expected 6 fields ({RND_HEADER}), found {len(cells)}: the line is truncated",
            n,
        )
        return
    rnd_txt, _, w_txt, b_txt, ws_txt, bs_txt = cells[:6]
    rnd = _round_number(rd, rnd_txt, n)
    if rnd is None:
        return
    rd.this_round.add(rnd)
    scores = _scores(rd, w_txt, b_txt, ws_txt, bs_txt, n)
    if scores is None:
        return
    ws, bs = scores
    if bs is None:
        kind = "full" if ws == 1 else "half" if ws == 0.5 else "zero"
        rd.byes.append(bye_row(rd.fed, rnd, rd.pid(int(w_txt)), kind, n))
        return
    clash = next((p for p in (w_txt, b_txt) if p in rd.busy), None)
    if clash is not None:
        rd.add(
            "format.swissperfect.double_pairing",
            "reject",
            f"player {clash} already plays in round {rnd} (line {rd.busy[clash]})",
            n,
            "WHITE_ID" if clash == w_txt else "BLACK_ID",
        )
        return
    rd.busy[w_txt] = rd.busy[b_txt] = n
    rd.games.append(
        {
            "federation": rd.fed,
            "round": rnd,
            "player_a": rd.pid(int(w_txt)),
            "player_b": rd.pid(int(b_txt)),
            "score_a": ws,
            "status": "played",
            "handicap": None,
            "colour_a": None,
            "source_line": n,
        }
    )


def _round_number(rd: _Round, rnd_txt: str, n: int) -> int | None:
    """The ROUND of a row; None (and a reject) when it is not this file's round or another file's."""
    if not is_digits(rnd_txt) or not 1 <= int(rnd_txt) <= 999:
        rd.add(
            "format.swissperfect.bad_round",
            "reject",
            f"ROUND {rnd_txt!r} is not a round number from 1 to 999",
            n,
            "ROUND",
        )
        return None
    rnd = int(rnd_txt)
    if rd.number is not None and rnd != rd.number:
        rd.add(
            "format.swissperfect.mixed_rounds",
            "reject",
            f"round {rnd} in the file of round {rd.number}: each .rnd holds one round",
            n,
            "ROUND",
        )
        return None
    if rnd in rd.rounds_seen and rd.rounds_seen[rnd] != rd.fname:
        rd.add(
            "format.swissperfect.repeated_round",
            "reject",
            f"round {rnd} is also in {rd.rounds_seen[rnd]}: remove one of the two files",
            n,
            "ROUND",
        )
        return None
    return rnd


def _scores(
    rd: _Round, w_txt: str, b_txt: str, ws_txt: str, bs_txt: str, n: int
) -> tuple[float, float | None] | None:
    """White's and black's score of a row (black's None: a bye); None (and a reject) when the
    start numbers or scores cannot be a game."""
    if not is_digits(w_txt) or int(w_txt) < 1:
        rd.add("format.swissperfect.bad_player", "reject", f"WHITE_ID {w_txt!r} is not a start number", n, "WHITE_ID")
        return None
    if b_txt not in ("", "0") and not is_digits(b_txt):
        rd.add("format.swissperfect.bad_player", "reject", f"BLACK_ID {b_txt!r} is not a start number", n, "BLACK_ID")
        return None
    ws, bs = _SCORES.get(ws_txt), _SCORES.get(bs_txt)
    if ws is None:
        rd.add(
            "format.swissperfect.bad_score", "reject", f"WHITE_SCORE {ws_txt!r} is not 1, 0.5 or 0", n, "WHITE_SCORE"
        )
        return None
    if b_txt in ("", "0"):
        return ws, None
    if bs is None:
        rd.add(
            "format.swissperfect.bad_score", "reject", f"BLACK_SCORE {bs_txt!r} is not 1, 0.5 or 0", n, "BLACK_SCORE"
        )
        return None
    if ws + bs != 1:
        rd.add("format.swissperfect.bad_score", "reject", f"scores {ws_txt}|{bs_txt} do not sum to 1", n, "BLACK_SCORE")
        return None
    if w_txt == b_txt:
        rd.add("format.swissperfect.self_pairing", "reject", f"player {w_txt} is paired with himself", n, "BLACK_ID")
        return None
    return ws, bs


def read_stg(
    fname: str,
    data: bytes,
    f: Findings,
    entrants: dict[int, None],
    games: list[dict[str, Any]],
    byes: list[dict[str, Any]],
) -> None:
    lines = split_lines(decode(data).text)
    if not lines or not lines[0].upper().startswith(STG_HEADER):
        f.add(
            "format.swissperfect.bad_header",
            "warn",
            f"standings header is not {STG_HEADER}...; file ignored",
            line=1,
            source=fname,
        )
        return
    total = 0.0
    for n, line in enumerate(lines[1:], start=2):
        cells = line.split("|")
        if len(cells) < 4 or not is_digits(cells[2].strip()):
            f.add(
                "format.swissperfect.bad_standing",
                "warn",
                "standings row without a PLAYER_ID; ignored",
                line=n,
                field="PLAYER_ID",
                source=fname,
            )
            continue
        entrants.setdefault(int(cells[2]), None)
        try:
            total += float(cells[3])
        except ValueError:
            pass
    read = float(len(games)) + sum(
        1.0 if b["kind"] == "full" else 0.5 if b["kind"] == "half" else 0.0 for b in byes
    )
    if abs(total - read) > 1e-9:
        f.add(
            "format.swissperfect.standings_mismatch",
            "warn",
            f"the standings total {total:g} points but the round files read give {read:g}: a round file is "
            "missing or the standings are from another round",
            source=fname,
        )
