"""OpenGotha XML (the Go tournament manager most EGF events use).

``<Tournament>`` holds ``<Players><Player name firstName rank rating ratingOrigin
egfPin country club .../>``, ``<Games><Game whitePlayer blackPlayer handicap
result roundNumber knownColor/>``, ``<ByePlayers><ByePlayer player roundNumber/>``
and ``<TournamentParameterSet><GeneralParameterSet name beginDate endDate
numberOfRounds bInternet .../>``. Games name players by the key
``NAME+FIRSTNAME`` in upper case (bye records in the case of the names, spaces
sometimes as ``_``): keys are compared case-folded, without accents, spaces or ``_``.

The file is parsed with :mod:`defusedxml` (no DTD, no entity expansion) through
SAX, so every game keeps the line of its element.

Results: ``RESULT_WHITEWINS`` 1, ``RESULT_BLACKWINS`` 0, ``RESULT_EQUAL`` 0.5
for white (``player_a`` is white, ``handicap`` the stones white gives);
``..._BYDEF`` variants are forfeits; ``RESULT_UNKNOWN`` is ``unknown``;
``RESULT_BOTHLOSE`` / ``RESULT_BOTHWIN`` cannot be one score: ``unknown`` with
a warning. ``ByePlayer`` rows are ``pairing`` byes. Player ids: the EGF PIN,
else the name key (:mod:`formats.identity`). ``declared_rating`` is the
printed rating and ``declared_rating_origin`` the list it came from
(``EGF``, ``FFG``, ``INI``; null when OpenGotha did not say).
"""

from __future__ import annotations

from datetime import date
from typing import Any

from formats._common import Findings, is_digits, parse_date
from formats._gotha_games import bye, game, key
from formats._gotha_xml import Element, parse
from formats.identity import competition_key, player_id
from formats.result import ReadResult, sha256, single_competition

__all__ = ["from_opengotha", "looks_like_opengotha"]

def looks_like_opengotha(head: str) -> bool:
    """Whether the start of a text is an OpenGotha tournament.

    Examples
    --------
    >>> looks_like_opengotha('<?xml version="1.0"?>\\n<Tournament dataVersion="201">\\n<Players>')
    True
    """
    return "<Tournament" in head and (
        "<Players" in head or "gotha" in head.lower() or "dataVersion" in head
    )


def from_opengotha(data: bytes, name: str, *, federation: str | None = None) -> ReadResult:
    """Read an OpenGotha tournament file.

    Examples
    --------
    >>> xml_ = b'''<?xml version="1.0" encoding="UTF-8"?>
    ... <Tournament dataVersion="201"><Players>
    ... <Player name="Kose" firstName="Dogac" rank="3d" rating="2300" ratingOrigin="EGF" egfPin="14825052"/>
    ... <Player name="Unal" firstName="Ege Ali" rank="5k" rating="1550" egfPin=""/>
    ... </Players><Games>
    ... <Game whitePlayer="KOSEDOGAC" blackPlayer="UNALEGE ALI" handicap="2" result="RESULT_BLACKWINS_BYDEF"
    ...       roundNumber="1" knownColor="true"/>
    ... </Games><TournamentParameterSet><GeneralParameterSet name="Test Cup" beginDate="2024-07-06"
    ... endDate="2024-07-07" numberOfRounds="5"/></TournamentParameterSet></Tournament>'''
    >>> r = from_opengotha(xml_, "t.xml")
    >>> r.games.select("player_a", "player_b", "score_a", "status", "handicap", "colour_a", "source_line").rows()
    [('14825052', 'name:ali-ege-unal', 0.0, 'forfeit', 2, 'w', 6)]
    >>> r.players.select("player_id", "declared_rank", "declared_rating", "declared_rating_origin").rows()
    [('14825052', '3d', 2300.0, 'EGF'), ('name:ali-ege-unal', '5k', 1550.0, None)]
    """
    fed = federation or "egf"
    digest = sha256(data)
    f = Findings(name, fed)
    elements = parse(data, f)
    if elements is None:
        return ReadResult.build(name, digest, "opengotha", f)
    if not elements or elements[0][0] != "Tournament":
        f.add(
            "format.opengotha.not_a_tournament",
            "reject",
            "the XML has no <Tournament> root element",
            line=1,
        )
        return ReadResult.build(name, digest, "opengotha", f)
    params, params_line = next(((a, line) for tag, line, a in reversed(elements) if tag == "GeneralParameterSet"),
                               ({}, 1))
    players, player_rows = _players(elements, f, fed)
    games, byes = _games_and_byes(elements, players, f, fed)
    comp = _competition(params, params_line, games, byes, name, f, fed)
    return single_competition("opengotha", f, name, digest, comp, players=player_rows, games=games, byes=byes)


def _players(elements: list[Element], f: Findings, fed: str) -> tuple[dict[str, str], list[dict[str, Any]]]:
    """The ``<Player>`` elements: player id by key (as games name them), and the PLAYERS_SCHEMA rows."""
    players: dict[str, str] = {}
    player_rows: list[dict[str, Any]] = []
    ids: dict[str, int] = {}
    for tag, line, a in elements:
        if tag != "Player":
            continue
        surname, first = a.get("name", "").strip(), a.get("firstName", "").strip()
        if not surname:
            f.add(
                "format.opengotha.bad_player",
                "reject",
                "a <Player> without a name",
                line=line,
                field="name",
            )
            continue
        full = f"{surname} {first}".strip()
        pid = player_id(a.get("egfPin", "").strip(), full) or full
        if pid in ids:
            f.add(
                "format.opengotha.duplicate_player",
                "reject",
                f"{full!r} is already registered on line {ids[pid]}",
                line=line,
                field="egfPin",
            )
            continue
        ids[pid] = line
        players[key(surname + first)] = pid
        player_rows.append(_player_row(a, line, pid, full, f, fed))
    return players, player_rows


def _player_row(a: dict[str, str], line: int, pid: str, full: str, f: Findings, fed: str) -> dict[str, Any]:
    """The PLAYERS_SCHEMA row of a ``<Player>``: declared rank, rating and its origin."""
    rank = a.get("rank", "").strip().lower() or None
    rating: float | None = None
    try:
        rating = float(a["rating"]) if a.get("rating", "").strip() else None
    except ValueError:
        f.add(
            "format.opengotha.bad_rating",
            "warn",
            f"rating {a['rating']!r} is not a number; ignored",
            line=line,
            field="rating",
        )
    origin = a.get("ratingOrigin", "").split(":")[0].strip().upper() or None
    return {
        "federation": fed,
        "player_id": pid,
        "name": full,
        "country": a.get("country", "").strip() or None,
        "club": a.get("club", "").strip() or None,
        "birth_year": None,
        "declared_rank": rank,
        "declared_rating": rating,
        "declared_rating_origin": origin,
    }


def _games_and_byes(
    elements: list[Element], players: dict[str, str], f: Findings, fed: str
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The ``<Game>`` and ``<ByePlayer>`` elements, in file order."""
    games: list[dict[str, Any]] = []
    byes: list[dict[str, Any]] = []
    busy: dict[tuple[int, str], int] = {}
    for tag, line, a in elements:
        if tag == "Game":
            game(a, line, players, busy, games, f, fed)
        elif tag == "ByePlayer" and not a:
            continue  # some OpenGotha versions wrap the byes in <ByePlayer> instead of <ByePlayers>
        elif tag == "ByePlayer":
            row = bye(a, line, players, f, fed)
            if row is not None:
                byes.append(row)
    return games, byes


def _competition(
    params: dict[str, str],
    params_line: int,
    games: list[dict[str, Any]],
    byes: list[dict[str, Any]],
    name: str,
    f: Findings,
    fed: str,
) -> dict[str, Any]:
    """The competition of ``<GeneralParameterSet>``: name, dates, rounds, online or not."""
    title = params.get("name", "").strip() or None
    start = _date(params, "beginDate", params_line, f)
    end = _date(params, "endDate", params_line, f) or start
    if start is None and "beginDate" not in params:
        f.add(
            "format.opengotha.missing_date",
            "reject",
            "the tournament has no beginDate",
            line=params_line,
            field="beginDate",
        )
    if start and end and end < start:
        f.add(
            "format.opengotha.bad_date",
            "reject",
            f"endDate {end} is before beginDate {start}",
            line=params_line,
            field="endDate",
        )
    played_rounds = {int(g["round"]) for g in games} | {int(b["round"]) for b in byes}
    declared = params.get("numberOfRounds", "")
    if is_digits(declared) and played_rounds and int(declared) > max(played_rounds):
        f.add(
            "format.opengotha.incomplete",
            "warn",
            f"numberOfRounds is {declared} but games are recorded up to round {max(played_rounds)}",
            line=params_line,
            field="numberOfRounds",
        )
    cid = competition_key(title, start, params.get("shortName") or name.rsplit(".", 1)[0])
    return {"federation": fed, "competition_id": cid, "name": title, "start_date": start, "end_date": end,
            "rounds": len(played_rounds), "modality": "online" if params.get("bInternet") == "true" else "classic",
            "rounds_declared": int(declared) if is_digits(declared) else None}


def _date(params: dict[str, str], key: str, line: int, f: Findings) -> date | None:
    txt = params.get(key, "").strip()
    if not txt:
        return None
    d = parse_date(txt)
    if d is None:
        f.add(
            "format.opengotha.bad_date",
            "reject",
            f"{key} {txt!r} is not a date (YYYY-MM-DD)",
            line=line,
            field=key,
        )
    return d


