"""TSH: the real live export (Albany 2024) counted again from its raw text; ``.t`` files and broken variants."""

from __future__ import annotations

import re

import polars as pl
import pytest

import formats
from formats.tsh import from_tsh
from tests.formats.conftest import shared


def _raw_pairings(text: str) -> list[tuple[list[int], list[int]]]:
    """Every player's (pairings, scores) arrays, found by a regex over the raw text."""
    out = []
    for m in re.finditer(r"pairings: \[([^\]]*)\],.*?scores: \[([^\]]*)\]", text, re.DOTALL):
        out.append(
            (
                [int(x) for x in m[1].replace("\n", " ").split(",") if x.strip()],
                [int(x) for x in m[2].replace("\n", " ").split(",") if x.strip()],
            )
        )
    return out


def test_albany_live_export_counts() -> None:
    path = shared("scrabble", "tsh_tourney_albany_2024-07-04_NWL.js")
    text = path.read_text(encoding="utf-8")
    raw = _raw_pairings(text)
    r = formats.read(path, federation="ajusc")
    assert r.format == "tsh-newt"
    assert r.findings.height == 0, r.findings
    assert r.players.height == len(raw) == len(re.findall(r"\bphoto: ", text))
    opp_entries = sum(1 for pairings, _ in raw for o in pairings if o != 0)
    assert r.games.height * 2 == opp_entries
    bye_entries = [
        (s) for pairings, scores in raw for o, s in zip(pairings, scores, strict=False) if o == 0
    ]
    assert r.byes.height == len(bye_entries)
    assert r.byes.filter(pl.col("kind") == "full").height == sum(1 for s in bye_entries if s > 0)
    assert r.games.filter(pl.col("status") == "unknown").height == 0
    assert r.competitions.height == len(re.findall(r"\bmaxr: ", text)) == 3
    c = r.competitions.row(0, named=True)
    assert (str(c["start_date"]), str(c["end_date"]), c["rounds"]) == (
        "2024-07-04",
        "2024-07-07",
        27,
    )
    # The first game of Krafchick: 471 v Vera in round 1, opponent 24 of division A.
    g = r.games.filter((pl.col("player_a") == "name:joey-krafchick") & (pl.col("round") == 1)).row(
        0, named=True
    )
    assert g["score_a"] == 1.0 and "Krafchick, Joey" in text.splitlines()[g["source_line"] - 1]


T = """#date 2025-10-04
Puig, Anna      1200  2 3 4; 420 380 401
Vila, Pere      1100  1 4 0; 400 350 50
Roca, Jan          0  4 1 0; 390 391 -50
Soler, Marta    1000  3 2 1; 380 362 401
"""


def test_synthetic_t_file() -> None:
    r = formats.read_bytes(T.encode(), "a.t")
    assert r.format == "tsh"
    assert r.findings.height == 0, r.findings
    assert sorted(r.games.select("round", "player_a", "player_b", "score_a").rows()) == sorted(
        [
            (1, "name:anna-puig", "name:pere-vila", 1.0),
            (2, "name:anna-puig", "name:jan-roca", 0.0),
            (3, "name:anna-puig", "name:marta-soler", 0.5),
            (1, "name:jan-roca", "name:marta-soler", 1.0),
            (2, "name:pere-vila", "name:marta-soler", 0.0),
        ]
    )
    assert r.byes.select("player_id", "kind").rows() == [
        ("name:pere-vila", "full"),
        ("name:jan-roca", "zero"),
    ]
    assert r.players.filter(pl.col("player_id") == "name:jan-roca")["declared_rating"][0] is None


def test_unplayed_round_is_unknown() -> None:
    t = T.replace("420 380 401", "420 380").replace("380 362 401", "380 362")
    r = from_tsh(t.encode(), "a.t")
    assert r.games.filter(pl.col("round") == 3).select("status", "score_a").rows() == [
        ("unknown", None)
    ]


def _with(old: str, new: str) -> str:
    assert old in T
    return T.replace(old, new)


BROKEN = [
    (
        "truncated line",
        _with("Roca, Jan          0  4 1 0; 390 391 -50", "Roca, Jan"),
        "format.tsh.bad_line",
        4,
        None,
    ),
    (
        "opponent out of range",
        _with("1 4 0; 400", "1 9 0; 400"),
        "format.tsh.bad_opponent",
        3,
        "round 2",
    ),
    (
        "asymmetric pairing",
        _with("3 2 1; 380 362 401", "3 1 1; 380 362 401"),
        "format.tsh.asymmetric",
        3,
        "round 2",
    ),
    ("bad score", _with("390 391 -50", "390 x91 -50"), "format.tsh.bad_score", 4, "scores"),
    ("missing date", T.replace("#date 2025-10-04\n", ""), "format.tsh.missing_date", None, "#date"),
    ("bad date", _with("2025-10-04", "2025-10-44"), "format.tsh.bad_date", 1, "#date"),
]


@pytest.mark.parametrize(
    ("label", "text", "rule", "line", "field"), BROKEN, ids=[b[0] for b in BROKEN]
)
def test_broken_t(label: str, text: str, rule: str, line: int | None, field: str | None) -> None:
    r = formats.read_bytes(text.encode(), "broken.t")
    hit = r.findings.filter(pl.col("rule") == rule)
    assert hit.height >= 1, r.findings
    assert hit.select("severity", "line", "field").row(0) == ("reject", line, field)
