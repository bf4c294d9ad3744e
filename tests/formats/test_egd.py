"""EGD results text (.h9): a hand-written file, Latin-1 and UTF-8, broken variants.

No EGD results file is among the shared real data (``../shared/data/SOURCES.tsv``),
so the golden file ``data/autumn_cup_2025.h9`` is this project's own, with a
``; Source:`` header; its figures are counted by hand in the comments below.
"""

from __future__ import annotations

import re
from pathlib import Path

import polars as pl
import pytest

import formats
from formats.egd import from_egd

CUP = Path(__file__).parent / "data" / "autumn_cup_2025.h9"


def test_golden_file() -> None:
    r = formats.read(CUP)
    assert r.format == "egd"
    assert r.findings.height == 0, r.findings
    # 6 players x 4 rounds = 24 entries: 5 byes (0+, 0-, 0-, 0=; and none else) ... counted by hand:
    # byes: 3/R2 0+, 4/R4 0-, 6/R2 0-, 6/R4 0=  -> 4; the other 20 entries are 10 games.
    assert r.games.height == 10
    assert r.byes.select("player_id", "round", "kind").sort("player_id", "round").rows() == [
        ("34567891", 4, "absent"),
        ("name:anna-puig", 2, "full"),
        ("name:dubois-marie", 2, "absent"),
        ("name:dubois-marie", 4, "half"),
    ]
    assert r.games.filter(pl.col("status") == "unknown").height == 1  # 5 v 6, round 3: "?"
    assert r.games.filter(pl.col("score_a") == 0.5).height == 1  # 2 v 4 jigo
    c = r.competitions.row(0, named=True)
    assert (c["name"], str(c["start_date"]), str(c["end_date"]), c["event_class"], c["rounds"]) == (
        "Autumn Cup 2025",
        "2025-10-04",
        "2025-10-05",
        "B",
        4,
    )
    # handicap games: 3 (white) gave 1 stone to 6; 4 (white) gave 2 to 5
    h = (
        r.games.filter(pl.col("handicap") != 0)
        .select("player_a", "player_b", "handicap", "colour_a")
        .rows()
    )
    assert sorted(h) == [
        ("34567891", "name:luca-rossi", 2, "w"),
        ("name:anna-puig", "name:dubois-marie", 1, "w"),
    ]
    assert r.players.filter(pl.col("player_id") == "12345678").select(
        "name", "declared_rank", "country"
    ).row(0) == ("Garcia Jordi", "3d", "ES")
    # source_line: the line of the first of the two players
    lines = CUP.read_text(encoding="utf-8").splitlines()
    assert all(re.match(r"^\s+\d+ ", lines[n - 1]) for n in r.games["source_line"])


@pytest.mark.parametrize("encoding", ["latin-1", "utf-8"])
def test_encodings_keep_names(encoding: str) -> None:
    text = (
        CUP.read_text(encoding="utf-8")
        .replace("Muller Jorg", "Müller Jörg")
        .replace("Garcia Jordi", "García Jordi")
    )
    r = from_egd(text.encode(encoding), "cup.h9")
    assert set(r.players["name"]) >= {"Müller Jörg", "García Jordi"}
    assert r.findings.height == 0


def _cup() -> list[str]:
    return CUP.read_text(encoding="utf-8").splitlines()


def _edit(n: int, old: str, new: str) -> list[str]:
    lines = _cup()
    assert old in lines[n - 1]
    lines[n - 1] = lines[n - 1].replace(old, new, 1)
    return lines


BROKEN = [
    (
        "truncated line",
        _edit(14, "  1-/b     2-/b      ; a free win in round 2", ""),
        "format.egd.round_count",
        14,
        "results",
    ),
    (
        "truncated name",
        _edit(
            15,
            "Novak Petr           2k CZ Prah   21  1-/b     5-/w2    2=/w     0-        |34567891",
            "Novak",
        ),
        "format.egd.bad_grade",
        15,
        "grade",
    ),
    ("bad date", _edit(6, "2025-10-05", "2025-10-45"), "format.egd.bad_date", 6, "DT"),
    ("opponent out of range", _edit(12, "4+/w", "9+/w"), "format.egd.bad_opponent", 12, "round 1"),
    ("asymmetric result", _edit(12, "4+/w", "4-/w"), "format.egd.asymmetric", 12, "round 1"),
    ("unknown result code", _edit(12, "4+/w", "4x/w"), "format.egd.bad_result", 12, "round 1"),
    ("handicap disagrees", _edit(16, "4+/b2", "4+/b3"), "format.egd.asymmetric", 15, "round 2"),
]


@pytest.mark.parametrize(
    ("label", "lines", "rule", "line", "field"), BROKEN, ids=[b[0] for b in BROKEN]
)
def test_broken_egd(label: str, lines: list[str], rule: str, line: int, field: str) -> None:
    data = ("\n".join(lines) + "\n").encode()
    r = formats.read_bytes(data, "broken.h9")
    assert r.format == "egd"
    hit = r.findings.filter(pl.col("rule") == rule)
    assert hit.height >= 1, r.findings
    assert hit.select("severity", "line", "field").row(0) == ("reject", line, field)
    # never a silently dropped game: 10 games minus those on flagged lines
    flagged = set(r.findings["line"].drop_nulls())
    assert r.games.height + len(flagged) >= 8


def test_missing_dates_refused() -> None:
    data = "\n".join(ln for ln in _cup() if "DT[" not in ln).encode()
    r = formats.read_bytes(data, "nodate.h9")
    assert r.findings.select("rule", "severity", "field").rows() == [
        ("format.egd.missing_date", "reject", "DT")
    ]
