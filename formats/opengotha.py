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

import re
import unicodedata
import xml.sax
from datetime import date
from typing import Any
from xml.sax.handler import ContentHandler
from xml.sax.xmlreader import AttributesImpl, Locator

import defusedxml.sax
from defusedxml import DefusedXmlException

from formats._common import Findings, decode, is_digits, parse_date
from formats.identity import competition_key, player_id
from formats.result import ReadResult, bye_row, sha256, single_competition

__all__ = ["from_opengotha", "looks_like_opengotha"]

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


def _key(s: str) -> str:
    # OpenGotha upper-cases with Java's rules ("Taşkın" -> "TAŞKIN"): compare without accents and
    # with the dotless i folded, so that both spellings meet.
    plain = "".join(c for c in unicodedata.normalize("NFKD", s) if not unicodedata.combining(c))
    return _BLANKS.sub("", plain).replace("ı", "i").casefold()


class _Handler(ContentHandler):
    def __init__(self) -> None:
        super().__init__()
        self.locator: Locator | None = None
        self.elements: list[tuple[str, int, dict[str, str]]] = []

    def setDocumentLocator(self, locator: Locator) -> None:
        self.locator = locator

    def startElement(self, name: str, attrs: AttributesImpl) -> None:
        if name in ("Player", "Game", "ByePlayer", "GeneralParameterSet", "Tournament"):
            line = (self.locator.getLineNumber() or 0) if self.locator else 0
            self.elements.append((name, line, {k: attrs[k] for k in attrs.getNames()}))


def _sax(data: bytes) -> list[tuple[str, int, dict[str, str]]]:
    handler = _Handler()
    defusedxml.sax.parseString(data, handler)
    return handler.elements


def _refuse(exc: Exception, f: Findings) -> None:
    if isinstance(exc, DefusedXmlException):
        f.add(
            "format.xml.forbidden",
            "reject",
            f"the XML uses a DTD or entities, which are refused for safety ({type(exc).__name__})",
            line=1,
        )
    elif isinstance(exc, xml.sax.SAXParseException):
        f.add(
            "format.xml.malformed",
            "reject",
            f"the XML is not well formed: {exc.getMessage()}",
            line=exc.getLineNumber(),
        )
    else:
        f.add("format.xml.malformed", "reject", f"the XML cannot be read: {exc}", line=1)


def _parse(data: bytes, f: Findings) -> list[tuple[str, int, dict[str, str]]] | None:
    try:
        return _sax(data)
    except (DefusedXmlException, xml.sax.SAXParseException, LookupError, ValueError) as exc:
        first = exc
    dec = decode(data)
    unknown_encoding = isinstance(first, LookupError)
    if not unknown_encoding and (
        dec.first_non_utf8_line is None or not isinstance(first, xml.sax.SAXParseException)
    ):
        _refuse(first, f)
        return None
    # Saved in another encoding than it declares (or an encoding Python does not know):
    # read the bytes as the text they most likely are, without the declaration.
    text = re.sub(
        r"^(\s*<\?xml[^>]*?)encoding\s*=\s*[\"'][^\"']*[\"']", r"\1", dec.text.lstrip("\ufeff")
    )
    why = (
        f"declares an unknown encoding ({first})"
        if unknown_encoding
        else f"is not UTF-8 as it declares (line {dec.first_non_utf8_line})"
    )
    f.add(
        "format.xml.encoding",
        "warn",
        f"the file {why}; read as {dec.encoding}: check the names",
        line=dec.first_non_utf8_line or 1,
    )
    try:
        return _sax(text.encode("utf-8"))
    except (DefusedXmlException, xml.sax.SAXParseException, LookupError, ValueError) as exc:
        _refuse(exc, f)
    return None


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
    elements = _parse(data, f)
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
    players: dict[str, str] = {}
    player_rows: list[dict[str, Any]] = []
    params: dict[str, str] = {}
    params_line = 1
    games: list[dict[str, Any]] = []
    byes: list[dict[str, Any]] = []
    busy: dict[tuple[int, str], int] = {}
    ids: dict[str, int] = {}
    for tag, line, a in elements:
        if tag == "GeneralParameterSet":
            params, params_line = a, line
        elif tag == "Player":
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
            players[_key(surname + first)] = pid
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
            player_rows.append(
                {
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
            )
    for tag, line, a in elements:
        if tag == "Game":
            _game(a, line, players, busy, games, f, fed)
        elif tag == "ByePlayer" and not a:
            continue  # some OpenGotha versions wrap the byes in <ByePlayer> instead of <ByePlayers>
        elif tag == "ByePlayer":
            who = players.get(_key(a.get("player", "")))
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
                byes.append(bye_row(fed, rnd, who, "pairing", line))
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
    comp = {"federation": fed, "competition_id": cid, "name": title, "start_date": start, "end_date": end,
            "rounds": len(played_rounds), "modality": "online" if params.get("bInternet") == "true" else "classic",
            "rounds_declared": int(declared) if is_digits(declared) else None}
    return single_competition("opengotha", f, name, digest, comp, players=player_rows, games=games, byes=byes)


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


def _game(
    a: dict[str, str],
    line: int,
    players: dict[str, str],
    busy: dict[tuple[int, str], int],
    games: list[dict[str, Any]],
    f: Findings,
    fed: str,
) -> None:
    bad = False
    ids: list[str] = []
    for col in ("whitePlayer", "blackPlayer"):
        pid = players.get(_key(a.get(col, "")))
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
        return
    if ids[0] == ids[1]:
        f.add(
            "format.opengotha.self_pairing",
            "reject",
            "a player is paired with himself",
            line=line,
            field="blackPlayer",
        )
        return
    for pid in ids:
        if (rnd, pid) in busy:
            f.add(
                "format.opengotha.double_pairing",
                "reject",
                f"player {pid} already plays in round {rnd} (line {busy[(rnd, pid)]})",
                line=line,
            )
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
            "handicap": int(hcp_txt),
            "colour_a": "w" if a.get("knownColor", "true") != "false" else None,
            "source_line": line,
        }
    )
