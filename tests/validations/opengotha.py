"""Test helper: the fields of an OpenGotha XML file that validation needs, with line numbers.

The project's reader lives in ``formats`` (written in parallel); until the flow
tests use it, these tests read the real files themselves with a parser that
refuses entity expansion (defusedxml), keeping each ``<Game>`` element's line.
"""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any
from xml.sax.handler import ContentHandler
from xml.sax.xmlreader import AttributesImpl, Locator

import defusedxml.sax
import polars as pl

from formats.schema import BYES_SCHEMA, COMPETITIONS_SCHEMA, GAMES_SCHEMA, PLAYERS_SCHEMA, conform
from validations.egf import adjusted_time

_RESULTS = {  # OpenGotha result -> (score of white, status)
    "RESULT_WHITEWINS": (1.0, "played"), "RESULT_BLACKWINS": (0.0, "played"),
    "RESULT_EQUAL": (0.5, "played"), "RESULT_UNKNOWN": (None, "unknown"),
    "RESULT_WHITEWINS_BYDEF": (1.0, "forfeit"), "RESULT_BLACKWINS_BYDEF": (0.0, "forfeit"),
    "RESULT_EQUAL_BYDEF": (0.5, "forfeit"),
}


class _Handler(ContentHandler):
    def __init__(self) -> None:
        super().__init__()
        self.locator: Locator | None = None
        self.players: list[dict[str, Any]] = []
        self.games: list[dict[str, Any]] = []
        self.byes: list[dict[str, Any]] = []
        self.general: dict[str, str] = {}

    def setDocumentLocator(self, locator: Locator) -> None:
        self.locator = locator

    def startElement(self, name: str, attrs: AttributesImpl) -> None:
        line = self.locator.getLineNumber() if self.locator else None
        a = {k: attrs.getValue(k) for k in attrs.getNames()}
        if name == "Player":
            key = (a.get("name", "") + a.get("firstName", "")).upper()
            self.players.append({"player_id": key, "name": f"{a.get('firstName', '')} {a.get('name', '')}",
                                 "declared_rank": a.get("rank"), "declared_rating": float(a.get("rating", 0)),
                                 "country": a.get("country"), "club": a.get("club")})
        elif name == "Game":
            score_white, status = _RESULTS.get(a.get("result", ""), (None, "unknown"))
            self.games.append({"round": int(a["roundNumber"]), "player_a": a["whitePlayer"],
                               "player_b": a["blackPlayer"], "score_a": score_white, "status": status,
                               "handicap": int(a.get("handicap", 0)), "colour_a": "w", "source_line": line})
        elif name == "ByePlayer" and "roundNumber" in a:
            self.byes.append({"round": int(a["roundNumber"]), "player_id": a["player"].upper(),
                              "kind": "pairing", "source_line": line})
        elif name == "GeneralParameterSet":
            self.general = a


def read_opengotha(path: Path) -> dict[str, pl.DataFrame]:
    """Canonical frames (competitions, players, games, byes) of one OpenGotha file."""
    handler = _Handler()
    defusedxml.sax.parse(str(path), handler)
    gen = handler.general
    cid = gen.get("shortName") or path.stem
    basic = float(gen["basicTime"]) if gen.get("basicTime") else None
    adjusted = None
    if basic is not None:
        adjusted = adjusted_time(
            basic, gen.get("complementaryTimeSystem"),
            byoyomi_seconds=float(gen.get("canByoYomiTime" if gen.get("complementaryTimeSystem") == "CANBYOYOMI"
                                          else "stdByoYomiTime", 0) or 0),
            canadian_moves=int(gen.get("nbMovesCanTime", 0) or 0),
            fischer_seconds=float(gen.get("fischerTime", 0) or 0),
        )
    competitions = pl.DataFrame([{
        "federation": "egf", "competition_id": cid, "name": gen.get("name"),
        "start_date": date.fromisoformat(gen["beginDate"]), "end_date": date.fromisoformat(gen["endDate"]),
        "rounds": int(gen["numberOfRounds"]), "modality": "classic", "results_public": True,
        "event_class": None, "source": path.name, "source_sha256": None,
        "basic_time_min": basic, "adjusted_time_min": adjusted, "online": gen.get("bInternet") == "true",
    }])
    extra = {"basic_time_min": pl.Float64(), "adjusted_time_min": pl.Float64(), "online": pl.Boolean()}
    def with_fed(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [{"federation": "egf", "competition_id": cid, **r} for r in rows]

    return {
        "competitions": conform(competitions, {**COMPETITIONS_SCHEMA, **extra}),
        "players": conform(pl.DataFrame([{"federation": "egf", **p} for p in handler.players]), PLAYERS_SCHEMA),
        "games": conform(pl.DataFrame(with_fed(handler.games)), GAMES_SCHEMA),
        "byes": conform(pl.DataFrame(with_fed(handler.byes)), BYES_SCHEMA)
        if handler.byes else pl.DataFrame(schema=BYES_SCHEMA),
    }
