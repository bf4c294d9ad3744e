"""OpenGotha XML reader: every real OpenGotha file, counted again from the raw XML; broken variants."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from typing import TypedDict

import polars as pl
import pytest

import formats
from formats.opengotha import from_opengotha
from tests.conftest import shared_files
from tests.formats.conftest import SHARED_DATA, shared

FILES = shared_files(
    sorted((SHARED_DATA / "go").glob("opengotha_*.xml")) if (SHARED_DATA / "go").exists() else [],
    "../shared/data/go/opengotha_*.xml",
)


class RawCounts(TypedDict):
    """What the raw XML holds, counted with regular expressions: players, results by code,
    byes and handicaps by stones."""

    players: int
    results: Counter[str]
    byes: int
    handicaps: Counter[str]


def _raw_counts(path: Path) -> RawCounts:
    text = path.read_text(encoding="utf-8-sig")
    return {
        "players": len(re.findall(r"<Player\s", text)),
        "results": Counter(re.findall(r'<Game\b[^>]*\bresult="([A-Z_]+)"', text)),
        "byes": len(re.findall(r"<ByePlayer\s+player=", text)),
        "handicaps": Counter(re.findall(r'<Game\b[^>]*\bhandicap="(\d+)"', text)),
    }


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name if p is not None else "absent")
def test_every_real_opengotha_file(path: Path) -> None:
    r = formats.read(path)
    want = _raw_counts(path)
    results = want["results"]
    assert r.format == "opengotha"
    assert r.players.height == want["players"]
    assert r.games.height == sum(results.values())
    assert r.games.filter(pl.col("status") == "unknown").height == results["RESULT_UNKNOWN"]
    assert r.games.filter(pl.col("status") == "forfeit").height == sum(
        n for k, n in results.items() if k.endswith("_BYDEF")
    )
    assert r.games.filter(pl.col("score_a") == 1.0).height == results["RESULT_WHITEWINS"]
    assert r.byes.height == want["byes"]
    handicaps = want["handicaps"]
    assert Counter(str(h) for h in r.games["handicap"]) == handicaps
    assert r.ok, r.findings
    # every game's source_line is the line of a <Game> element
    lines = path.read_text(encoding="utf-8-sig").splitlines()
    assert all("<Game " in lines[n - 1] for n in r.games["source_line"].to_list())
    c = r.competitions.row(0, named=True)
    assert c["start_date"] is not None and c["end_date"] >= c["start_date"]


def test_toulouse_handicap_and_negative_rating() -> None:
    r = formats.read(shared("go", "opengotha_toulouse_2024_handicap.xml"))
    assert r.games["handicap"].max() == 9
    nine = r.games.filter(pl.col("handicap") == 9).row(0, named=True)
    assert nine["colour_a"] == "w"  # player_a is white, who gives the stones
    weakest = r.players.sort("declared_rating").row(0, named=True)
    assert weakest["declared_rank"] == "27k" and weakest["declared_rating"] < 0
    assert r.competitions["rounds"][0] == 6


def test_egc_partial_keys_with_turkish_letters_and_pins() -> None:
    r = formats.read(shared("go", "opengotha_egc2024_main_open_partial.xml"))
    # "Taşkın Gözde" is "TAŞKINGÖZDE" in games: the dotless i must still meet its player.
    assert (
        r.games.filter(
            (pl.col("player_a") == "15462832") | (pl.col("player_b") == "15462832")
        ).height
        >= 1
    )
    assert r.players["player_id"].n_unique() == r.players.height
    assert r.players.filter(pl.col("player_id") == "17986925")["declared_rank"][0] == "4k"
    warn = r.findings.filter(pl.col("rule") == "format.opengotha.incomplete")
    assert warn.height == 1 and r.competitions["rounds"][0] == 2


def test_frioul_rating_origins() -> None:
    r = formats.read(shared("go", "opengotha_frioul_2018.xml"))
    assert Counter(r.players["declared_rating_origin"].to_list()) == {"FFG": 50, "EGF": 6, "INI": 2}


DOC = """<?xml version="1.0" encoding="UTF-8"?>
<Tournament dataVersion="201">
<Players>
<Player name="Müller" firstName="Jörg" rank="2k" rating="1950" egfPin="11111111"/>
<Player name="Kose" firstName="Dogac" rank="3d" rating="2300" egfPin="14825052"/>
<Player name="Unal" firstName="Ege" rank="5k" rating="1550" egfPin=""/>
</Players>
<Games>
<Game whitePlayer="MÜLLERJÖRG" blackPlayer="KOSEDOGAC" handicap="0" result="RESULT_WHITEWINS" roundNumber="1"/>
<Game whitePlayer="KOSEDOGAC" blackPlayer="UNALEGE" handicap="3" result="RESULT_EQUAL" roundNumber="2"/>
<Game whitePlayer="UNALEGE" blackPlayer="MÜLLERJÖRG" handicap="0" result="RESULT_UNKNOWN" roundNumber="3"/>
</Games>
<ByePlayers><ByePlayer player="UnalEge" roundNumber="1"/></ByePlayers>
<TournamentParameterSet><GeneralParameterSet name="Cup" beginDate="2024-07-06" endDate="2024-07-07"
 numberOfRounds="3"/></TournamentParameterSet>
</Tournament>
"""


def test_synthetic_document() -> None:
    r = from_opengotha(DOC.encode(), "cup.xml")
    assert r.findings.height == 0
    assert r.games.select("round", "score_a", "status", "handicap", "source_line").rows() == [
        (1, 1.0, "played", 0, 9),
        (2, 0.5, "played", 3, 10),
        (3, None, "unknown", 0, 11),
    ]
    assert r.byes.select("round", "player_id", "kind").rows() == [(1, "name:ege-unal", "pairing")]


BROKEN = [
    (
        "truncated xml",
        DOC[: DOC.index('<Game whitePlayer="KOSE') + 30],
        "format.xml.malformed",
        10,
        None,
    ),
    (
        "unknown player",
        DOC.replace('blackPlayer="KOSEDOGAC"', 'blackPlayer="NOBODY"'),
        "format.opengotha.unknown_player",
        9,
        "blackPlayer",
    ),
    (
        "unknown result",
        DOC.replace("RESULT_EQUAL", "RESULT_JIGO"),
        "format.opengotha.bad_result",
        10,
        "result",
    ),
    (
        "bad round",
        DOC.replace('roundNumber="2"', 'roundNumber="two"'),
        "format.opengotha.bad_round",
        10,
        "roundNumber",
    ),
    (
        "bad date",
        DOC.replace("2024-07-06", "2024-07-36"),
        "format.opengotha.bad_date",
        14,
        "beginDate",
    ),
    (
        "bad handicap",
        DOC.replace('handicap="3"', 'handicap="x"'),
        "format.opengotha.bad_handicap",
        10,
        "handicap",
    ),
    (
        "entity bomb",
        DOC.replace(
            '<?xml version="1.0" encoding="UTF-8"?>',
            '<?xml version="1.0"?><!DOCTYPE t [<!ENTITY a "aaaa"><!ENTITY b "&a;&a;&a;">]>',
        ),
        "format.xml.forbidden",
        1,
        None,
    ),
    (
        "double pairing",
        DOC.replace(
            'blackPlayer="UNALEGE" handicap="3" result="RESULT_EQUAL" roundNumber="2"',
            'blackPlayer="UNALEGE" handicap="3" result="RESULT_EQUAL" roundNumber="1"',
        ),
        "format.opengotha.double_pairing",
        10,
        None,
    ),
]


@pytest.mark.parametrize(
    ("label", "doc", "rule", "line", "field"), BROKEN, ids=[b[0] for b in BROKEN]
)
def test_broken_opengotha(label: str, doc: str, rule: str, line: int, field: str | None) -> None:
    r = formats.read_bytes(doc.encode("utf-8"), "broken.xml")
    assert r.format == "opengotha"
    hit = r.findings.filter(pl.col("rule") == rule)
    assert hit.select("severity", "line", "field").rows() == [("reject", line, field)], r.findings
    # Every <Game> element is a game or the line of a finding.
    accounted = set(r.games["source_line"].to_list()) | set(
        r.findings["line"].drop_nulls().to_list()
    )
    if rule not in ("format.xml.malformed", "format.xml.forbidden"):
        for n, text in enumerate(doc.splitlines(), 1):
            if text.startswith("<Game "):
                assert n in accounted


def test_latin1_bytes_declared_utf8_are_read_with_a_warning() -> None:
    r = formats.read_bytes(DOC.encode("latin-1"), "latin.xml")
    assert r.findings.select("rule", "severity", "line").rows() == [
        ("format.xml.encoding", "warn", 4)
    ]
    assert r.players["name"][0] == "Müller Jörg"
    assert r.games.height == 3


def test_unknown_declared_encoding_is_read_with_a_warning() -> None:
    """Regression (found by fuzzing): an unknown encoding name raised LookupError inside the parser."""
    r = formats.read_bytes(DOC.replace('encoding="UTF-8"', 'encoding="UT3-8"').encode(), "enc.xml")
    assert r.findings.select("rule", "severity").rows() == [("format.xml.encoding", "warn")]
    assert r.games.height == 3
