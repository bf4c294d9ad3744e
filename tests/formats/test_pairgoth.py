"""Pairgoth JSON: the real Paris 2021 file counted again from its raw text; broken variants."""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable
from typing import Any

import polars as pl
import pytest

import formats
from tests.formats.conftest import shared


def test_paris_2021_counts() -> None:
    path = shared("go", "pairgoth_paris_2021_online.tour.json")
    text = path.read_text(encoding="utf-8")
    games_part = text[text.rindex('"games"') :]
    results = Counter(re.findall(r'"r" : "(.)"', games_part))
    r = formats.read(path)
    assert r.format == "pairgoth"
    assert r.findings.height == 0
    assert r.players.height == len(re.findall(r'"firstname" :', text))
    assert r.games.height == sum(results.values())
    assert r.games.filter(pl.col("score_a") == 1.0).height == results["w"]
    assert r.games.filter(pl.col("score_a") == 0.0).height == results["b"]
    assert r.byes.height == len(re.findall(r'"[wb]" : 0,', games_part))
    c = r.competitions.row(0, named=True)
    assert (c["modality"], c["rounds"], str(c["start_date"])) == ("online", 6, "2021-04-03")
    first = json.loads(text)["players"][0]
    p = r.players.filter(pl.col("name") == f"{first['name']} {first['firstname']}").row(
        0, named=True
    )
    assert (p["declared_rank"], p["declared_rating"]) == ("5k", 1640.0)


DOC = {
    "type": "INDIVIDUAL",
    "name": "Cup",
    "startDate": "2021-04-03",
    "endDate": "2021-04-05",
    "pairing": {},
    "players": [
        {"id": 1, "name": "Lee", "firstname": "Ann", "rank": -1, "rating": 2000},
        {"id": 2, "name": "Kim", "firstname": "Bo", "rank": 0, "rating": 2100},
    ],
    "games": [[{"id": 10, "t": 1, "w": 2, "b": 1, "h": 0, "r": "b"}]],
}


@pytest.mark.parametrize(
    ("label", "edit", "rule"),
    [
        (
            "unknown player",
            lambda d: d["games"][0][0].update(w=9),
            "format.pairgoth.unknown_player",
        ),
        ("unknown result", lambda d: d["games"][0][0].update(r="z"), "format.pairgoth.bad_result"),
        ("bad date", lambda d: d.update(startDate="2021-13-03"), "format.pairgoth.missing_date"),
    ],
)
def test_broken_pairgoth(label: str, edit: Callable[[Any], object], rule: str) -> None:
    doc = json.loads(json.dumps(DOC))
    edit(doc)
    r = formats.read_bytes(json.dumps(doc, indent=1).encode(), "cup.tour")
    assert r.format == "pairgoth"
    assert r.findings.filter(pl.col("rule") == rule).select("severity").rows() == [("reject",)]


def test_truncated_json_names_its_line() -> None:
    text = json.dumps(DOC, indent=1)
    r = formats.read_bytes(text[: len(text) // 2].encode(), "cup.tour")
    hit = r.findings.row(0, named=True)
    assert hit["rule"] == "format.pairgoth.bad_json" and hit["line"] is not None
