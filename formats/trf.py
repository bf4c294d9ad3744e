"""FIDE Tournament Report File (TRF16, handbook C04 annex 2; individual records of TRF-2026).

Fixed columns, one record per line, the first three characters naming the
record. Tournament records ``012`` name, ``022`` city, ``042``/``052`` start and
end dates, ``092`` type, ``122`` time control, ``132`` round dates; ``001``
player records with the rounds from column 92, 10 columns each (opponent's
starting rank, colour, result). ``XXR`` (number of rounds) and TRF-2026
``142`` are read; ``###`` comments, ``DDD`` and digit ruler lines are skipped;
any other record (team records of TRF-2026, ``XXC``, ...) is kept as a
``format.trf.unknown_record`` warning with its lines.

Result codes (case-insensitive) and what they become:

=========  ========================================  =================================
code       meaning                                   canonical
=========  ========================================  =================================
1 = 0      win, draw, loss                           game, ``played``
\\+ -       forfeit win / loss                        game, ``forfeit``
W D L      win/draw/loss in under one move           game, ``forfeit`` (not rated)
H          half-point bye                            bye ``half``
F          full-point bye                            bye ``full``
U          pairing-allocated bye                     bye ``pairing``
Z, blank   zero-point bye                            bye ``zero``
\\- / +     without opponent: absent / won by default bye ``absent`` / ``full``
=========  ========================================  =================================

Each game is on both players' lines; they must agree (opponent, complementary
result, opposite colours), else ``format.trf.asymmetric`` (reject) names both
lines. A double forfeit (``-`` on both sides) is not a game: two ``absent`` byes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date

from formats._common import Findings, decode, is_digits, parse_date, split_lines
from formats._trf_games import pair
from formats._trf_players import Player, player, player_row
from formats.declarations import declare, fide_modality, looks_online
from formats.identity import NAME_PREFIX, competition_key
from formats.result import ReadResult, sha256, single_competition

__all__ = ["from_trf", "looks_like_trf"]

_TOURNAMENT = {
    "012",
    "022",
    "032",
    "042",
    "052",
    "062",
    "072",
    "082",
    "092",
    "102",
    "112",
    "122",
    "132",
    "142",
    "152",
    "162",
    "172",
    "182",
    "192",
    "202",
    "212",
    "222",
}
_RULER = re.compile(r"^(DDD|\d{10,})")


def looks_like_trf(head: str) -> bool:
    """Whether text starts like a TRF file (``012`` or ``001`` records near the top).

    Examples
    --------
    >>> looks_like_trf("012 Open\\r001    1 m    Doe, John"), looks_like_trf("federation,player_id")
    (True, False)
    """
    lines = [
        ln for ln in re.split(r"\r\n|\r|\n", head)[:60] if ln.strip() and not ln.startswith("###")
    ]
    recs = [ln[:4] for ln in lines]
    return any(r == "001 " for r in recs) or (
        bool(recs)
        and recs[0] in {f"{t} " for t in _TOURNAMENT}
        and sum(r[:3] in _TOURNAMENT for r in recs) >= 2
    )


def from_trf(data: bytes, name: str, *, federation: str | None = None) -> ReadResult:
    """Read a TRF16 / TRF-2026 individual tournament report.

    Parameters
    ----------
    data
        The file's bytes (any line ending: CR, CRLF, LF).
    name
        File name for ``source`` and findings.
    federation
        Defaults to ``fide``.

    Examples
    --------
    >>> trf = (b"012 Test Open\\r042 2025/10/04\\r"
    ...        b"001    1 m    Doe, John                         1800 ESP     2200001 1980        1.0    1"
    ...        b"     2 w 1     0 - H\\r"
    ...        b"001    2 m    Roe, Jane                            0 ESP           0 1990        0.5    2"
    ...        b"     1 b 0  0000 - H\\r")
    >>> r = from_trf(trf, "t.trf")
    >>> r.games.select("player_a", "player_b", "score_a", "status", "colour_a", "source_line").rows()
    [('2200001', 'name:jane-roe', 1.0, 'played', 'w', 3)]
    >>> r.byes.select("round", "player_id", "kind").rows()
    [(2, '2200001', 'half'), (2, 'name:jane-roe', 'half')]
    >>> r.players.select("player_id", "declared_rating").rows()
    [('2200001', 1800.0), ('name:jane-roe', None)]
    """
    fed = federation or "fide"
    digest = sha256(data)
    f = Findings(name, fed)
    dec = decode(data)
    if dec.first_non_utf8_line is not None:
        f.add(
            "format.trf.encoding",
            "warn",
            str(dec.warning()),
            line=dec.first_non_utf8_line,
        )
    rep = _Report()
    for n, line in enumerate(split_lines(dec.text), start=1):
        _read_line(rep, line, n, f, fed)
    _report_unknown_records(rep.unknown, f)
    if not rep.players:
        f.add("format.trf.no_players", "reject", "no 001 player record: nothing to rate")
    games, byes = pair(rep.players, f, fed)
    tour = rep.tour
    title = tour.get("012", (None, ""))[1] or None
    start, end = _tournament_dates(tour, rep.round_dates, f)
    n_rounds = _rounds(rep, f)
    time_control = tour.get("122", (None, ""))[1].strip() or None
    header = [v for k, (_, v) in tour.items() if k in ("012", "022", "032", "092", "102", "112")]
    comp = {"federation": fed, "competition_id": competition_key(title, start, name.rsplit(".", 1)[0]),
            "name": title, "start_date": start, "end_date": end, "rounds": n_rounds,
            "modality": _modality(tour, time_control), "rounds_declared": rep.declared_rounds}
    result = single_competition("trf", f, name, digest, comp, players=rep.player_rows, games=games, byes=byes,
                                keep=bool(rep.players))
    return declare(result, online=looks_online(*header), time_control=time_control)


@dataclass
class _Report:
    """What the records of a TRF file hold, as :func:`_read_line` reads them in turn."""

    tour: dict[str, tuple[int, str]] = field(default_factory=dict)  # record -> (line, value), first one
    unknown: dict[str, list[int]] = field(default_factory=dict)     # record -> lines
    players: dict[int, Player] = field(default_factory=dict)       # starting rank -> player
    player_rows: list[dict[str, object]] = field(default_factory=list)
    declared_rounds: int | None = None
    round_dates: list[date | None] = field(default_factory=list)
    ids_seen: dict[str, int] = field(default_factory=dict)          # player id -> line


def _read_line(rep: _Report, line: str, n: int, f: Findings, fed: str) -> None:
    """Read physical line ``n`` into ``rep``."""
    rec = line[:3]
    if not line.strip() or line.startswith("###") or _RULER.match(line):
        return
    if rec in _TOURNAMENT:
        _tournament_record(rep, rec, line, n, f)
    elif rec == "XXR":
        v = line[3:].strip()
        if is_digits(v):
            rep.declared_rounds = int(v)
        else:
            f.add(
                "format.trf.bad_rounds",
                "warn",
                f"XXR {v!r} is not a number of rounds",
                line=n,
                field="XXR",
            )
    elif rec != "001":
        rep.unknown.setdefault(rec.strip() or line[:8], []).append(n)
    else:
        p = player(line, n, f)
        if p is not None and _admit_player(rep, p, n, f):
            rep.player_rows.append(player_row(line, p, fed))


def _tournament_record(rep: _Report, rec: str, line: str, n: int, f: Findings) -> None:
    """A tournament record (012, 042, 132 round dates, ...): the first of each is kept."""
    if rec == "132":
        for i in range(91, len(line), 10):
            txt = line[i : i + 8].strip()
            d = parse_date(txt) if txt else None
            if txt and d is None:
                f.add(
                    "format.trf.bad_date",
                    "warn",
                    f"round {len(rep.round_dates) + 1} date {txt!r} is not a date (YY/MM/DD)",
                    line=n,
                    field=f"132 round {len(rep.round_dates) + 1}",
                )
            rep.round_dates.append(d)
    elif rec not in rep.tour:
        rep.tour[rec] = (n, line[4:].strip())
    if rec == "142" and is_digits(line[4:].strip()):
        rep.declared_rounds = int(line[4:].strip())


def _admit_player(rep: _Report, p: Player, n: int, f: Findings) -> bool:
    """Register player ``p`` of line ``n``; False (and a finding) when its rank or FIDE id is taken."""
    if p.rank in rep.players:
        f.add(
            "format.trf.duplicate_rank",
            "reject",
            f"starting rank {p.rank} is already used on line {rep.players[p.rank].line}",
            line=n,
            field="001 starting rank (cols 5-8)",
        )
        return False
    ids_seen = rep.ids_seen
    if p.pid in ids_seen and not p.pid.startswith(NAME_PREFIX):
        # Two players with one FIDE id: whose games are whose cannot be known.
        f.add(
            "format.trf.duplicate_id",
            "reject",
            f"FIDE id {p.pid} of {p.name!r} is already used on line {ids_seen[p.pid]}: "
            "each player has their own FIDE id; correct the id (cols 58-68)",
            line=n,
            field="001 FIDE id (cols 58-68)",
        )
        return False
    if p.pid in ids_seen:
        # Two players without FIDE id and the same name: keep them apart by starting rank.
        p.pid = f"{p.pid}#{p.rank}"
        f.add(
            "format.trf.same_name",
            "warn",
            f"{p.name!r} has the same name as the player on line {ids_seen[p.pid.split('#')[0]]} and "
            "no FIDE id: they are kept apart by starting rank; add FIDE ids",
            line=n,
            field="001 name",
        )
    ids_seen[p.pid] = n
    rep.players[p.rank] = p
    return True


def _report_unknown_records(unknown: dict[str, list[int]], f: Findings) -> None:
    """One warning per record type this reader does not read, at its first line."""
    for rec, where in unknown.items():
        shown = ", ".join(map(str, where[:10])) + (" ..." if len(where) > 10 else "")
        f.add(
            "format.trf.unknown_record",
            "warn",
            f"record {rec!r} is not read by this reader ({len(where)} line(s): {shown})",
            line=where[0],
            field=rec,
        )


def _tournament_dates(
    tour: dict[str, tuple[int, str]], round_dates: list[date | None], f: Findings
) -> tuple[date | None, date | None]:
    """Start and end date: records 042 and 052, else the first and last round date (132)."""
    start = _date(tour, "042", f)
    end = _date(tour, "052", f)
    known = [d for d in round_dates if d is not None]
    if start is None and known:
        start = min(known)
    if end is None and known:
        end = max(known)
    if start is None:
        f.add(
            "format.trf.missing_date",
            "reject",
            "the tournament has no start date: add record 042 (YYYY/MM/DD) or round dates (132)",
            line=tour.get("042", (None, ""))[0],
            field="042",
        )
    if end is None:
        end = start
    if start and end and end < start:
        f.add(
            "format.trf.bad_date",
            "reject",
            f"end date {end} (052) is before start date {start} (042)",
            line=tour["052"][0] if "052" in tour else None,
            field="052",
        )
    return start, end


def _rounds(rep: _Report, f: Findings) -> int:
    """Rounds the player records (or the round dates) hold; a warning when fewer than declared."""
    n_rounds = max((len(p.rounds) for p in rep.players.values()), default=0)
    n_rounds = max(n_rounds, len(rep.round_dates)) if rep.round_dates else n_rounds
    declared = rep.declared_rounds
    if declared is not None and declared > n_rounds and rep.players:
        f.add(
            "format.trf.incomplete",
            "warn",
            f"{declared} rounds declared (XXR/142) but the player records hold {n_rounds}",
        )
    return n_rounds


def _modality(tour: dict[str, tuple[int, str]], time_control: str | None) -> str:
    """A word in the title or type wins; else the time control (FIDE: base + 60 x increment);
    a TRF that states none is a standard rating report."""
    text = " ".join(v for k, (_, v) in tour.items() if k in ("092", "122", "012")).lower()
    return "blitz" if "blitz" in text else "rapid" if "rapid" in text else fide_modality(time_control) or "standard"

def _date(tour: dict[str, tuple[int, str]], rec: str, f: Findings) -> date | None:
    if rec not in tour or not tour[rec][1]:
        return None
    line, txt = tour[rec]
    d = parse_date(txt)
    if d is None:
        f.add(
            "format.trf.bad_date",
            "reject",
            f"{txt!r} is not a date (YYYY/MM/DD, DD/MM/YYYY or YYYY.MM.DD)",
            line=line,
            field=rec,
        )
    return d


