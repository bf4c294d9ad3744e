"""Test helper: the games of a FIDE TRF16 file with line numbers (until the formats reader lands).

Columns (handbook C04, annex 2): player record ``001``, starting rank 5-8, name
15-47, rating 49-52, FIDE id 58-68; rounds from column 92, ten columns each:
opponent 92-95, colour 97, result 99. Each game appears on both players' lines;
the line of the lower starting rank is the game's line.
"""

from __future__ import annotations

import re
from datetime import date
from pathlib import Path
from typing import Any

import polars as pl

from formats.schema import BYES_SCHEMA, COMPETITIONS_SCHEMA, GAMES_SCHEMA, PLAYERS_SCHEMA, conform

_PLAYED = {"1": 1.0, "=": 0.5, "0": 0.0}
_UNPLAYED = {"+": 1.0, "-": 0.0, "W": 1.0, "D": 0.5, "L": 0.0}  # forfeits and games under one move
_BYES = {"H": "half", "F": "full", "U": "pairing", "Z": "zero"}


def _date(text: str) -> date | None:
    text = text.strip()
    for pattern, order in ((r"(\d{4})[/.-](\d{2})[/.-](\d{2})", "ymd"), (r"(\d{2})[/.-](\d{2})[/.-](\d{4})", "dmy")):
        m = re.match(pattern, text)
        if m:
            y, mo, d = (m.group(1), m.group(2), m.group(3)) if order == "ymd" else (m.group(3), m.group(2), m.group(1))
            return date(int(y), int(mo), int(d))
    return None


def read_trf(path: Path) -> dict[str, pl.DataFrame]:
    lines = path.read_bytes().decode("latin-1").replace("\r\n", "\n").replace("\r", "\n").split("\n")
    header: dict[str, str] = {}
    players: list[dict[str, Any]] = []
    sides: list[dict[str, Any]] = []
    byes: list[dict[str, Any]] = []
    for number, line in enumerate(lines, start=1):
        tag = line[:3]
        if tag in ("012", "042", "052") or tag == "XXR":
            header[tag] = line[4:].strip()
        if tag != "001":
            continue
        rank = line[4:8].strip()
        rating = line[48:52].strip()
        fide_id = line[57:68].strip()
        pid = fide_id if fide_id and fide_id != "0" else f"rank{rank}"
        players.append({"player_id": pid, "rank": rank, "name": line[14:47].strip(),
                        "declared_rating": float(rating) if rating.isdigit() and int(rating) > 0 else None})
        for rnd, col in enumerate(range(91, len(line), 10), start=1):
            cell = line[col:col + 9]
            opp, result = cell[0:4].strip(), cell[7:8].strip().upper()
            if result in _BYES or (not opp or opp == "0000") and result in ("", "-", "+"):
                if result in _BYES:
                    byes.append({"round": rnd, "player_id": pid, "kind": _BYES[result], "source_line": number})
                continue
            if not opp or not result:
                continue
            sides.append({"round": rnd, "rank": rank, "opp_rank": opp.lstrip("0"), "result": result,
                          "colour": cell[5:6].strip() or None, "line": number})
    ids = {p["rank"]: p["player_id"] for p in players}
    games = []
    for s in sides:
        if int(s["rank"]) > int(s["opp_rank"] or 0):
            continue  # the lower starting rank's line reports the game
        res = s["result"]
        score = _PLAYED.get(res, _UNPLAYED.get(res))
        games.append({"round": s["round"], "player_a": ids[s["rank"]], "player_b": ids.get(s["opp_rank"]),
                      "score_a": score, "status": "played" if res in _PLAYED else "forfeit",
                      "colour_a": s["colour"], "source_line": s["line"]})
    cid = path.stem
    start = _date(header.get("042", "")) or date(2000, 1, 1)
    comps = pl.DataFrame([{"federation": "fide", "competition_id": cid, "name": header.get("012"),
                           "start_date": start, "end_date": _date(header.get("052", "")) or start,
                           "rounds": int(header["XXR"]) if header.get("XXR", "").isdigit() else None,
                           "modality": "standard", "results_public": True, "source": path.name}])
    def fed(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [{"federation": "fide", "competition_id": cid, **r} for r in rows]

    return {
        "competitions": conform(comps, COMPETITIONS_SCHEMA),
        "players": conform(pl.DataFrame([{"federation": "fide", **p} for p in players]), PLAYERS_SCHEMA),
        "games": conform(pl.DataFrame(fed(games)), GAMES_SCHEMA),
        "byes": conform(pl.DataFrame(fed(byes)), BYES_SCHEMA) if byes else pl.DataFrame(schema=BYES_SCHEMA),
    }
