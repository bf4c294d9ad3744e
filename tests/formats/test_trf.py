"""TRF16 / TRF-2026 reader: every real TRF file, result codes, both-sides consistency, broken variants."""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from pathlib import Path
from typing import TypedDict

import polars as pl
import pytest

import formats
from formats.trf import from_trf
from tests.conftest import shared_files
from tests.formats.conftest import SHARED_DATA, shared

_TRFS = sorted((SHARED_DATA / "chess").glob("*.trf")) if (SHARED_DATA / "chess").exists() else []
TRF_FILES = shared_files(_TRFS, "../shared/data/chess/*.trf")


class Counted(TypedDict):
    """What the raw 001 lines hold: players, round tokens by result code (against an opponent,
    and without one), and each player's points by starting rank."""

    players: int
    with_opp: Counter[str]
    byes: Counter[str]
    points: dict[int, float]


def _independent(path: Path) -> Counted:
    """A second, simpler count straight from the raw text: 001 lines and their round tokens."""
    text = path.read_bytes().decode("latin-1")
    lines = [ln for ln in re.split(r"\r\n|\r|\n", text) if ln.startswith("001")]
    with_opp: Counter[str] = Counter()
    byes: Counter[str] = Counter()
    points: dict[int, float] = {}
    for ln in lines:
        rank = int(ln[4:8])
        points[rank] = float(ln[80:84])
        rounds = ln.rstrip()[91:]  # trailing blank rounds are rounds not yet paired, not byes
        for tok in re.findall(r".{8}(?:  |$)", rounds):
            opp, code = tok[:4].strip(), tok[7].upper()
            if opp not in ("", "0", "0000"):
                with_opp[code] += 1
            else:
                byes[code or " "] += 1
    return {"players": len(lines), "with_opp": with_opp, "byes": byes, "points": points}


@pytest.mark.parametrize("path", TRF_FILES, ids=lambda p: p.name if p is not None else "absent")
def test_every_real_trf_file(path: Path) -> None:
    r = formats.read(path)
    want = _independent(path)
    assert r.format == "trf"
    assert r.players.height == want["players"]
    with_opp, byes = want["with_opp"], want["byes"]
    # Each game is on two lines. A forfeit win "+" faces a loss "-", so surplus "-" tokens are
    # double forfeits ("-" against "-"): not games, two absences each.
    double_forfeit_tokens = with_opp["-"] - with_opp["+"]
    assert r.games.height * 2 + double_forfeit_tokens == sum(with_opp.values())
    assert r.games.filter(pl.col("status") == "forfeit").height * 2 == 2 * with_opp["+"] + sum(
        with_opp[c] for c in "WDL"
    )
    assert r.games.filter(pl.col("status") == "unknown").height == 0
    kinds = Counter(r.byes["kind"].to_list())
    assert kinds["half"] == byes["H"]
    assert kinds["pairing"] == byes["U"]
    assert kinds["zero"] == byes["Z"] + byes[" "]
    assert kinds["absent"] == byes["-"] + double_forfeit_tokens
    assert kinds["full"] == byes["F"] + byes["+"]
    assert not r.findings.filter(
        pl.col("rule").is_in(
            [
                "format.trf.asymmetric",
                "format.trf.bad_result",
                "format.trf.bad_opponent",
                "format.trf.truncated",
            ]
        )
    ).height


@pytest.mark.parametrize(
    "path", shared_files([p for p in _TRFS if "team" not in p.name], "../shared/data/chess/*.trf"),
    ids=lambda p: p.name if p is not None else "absent"
)
def test_points_column_equals_games_and_byes(path: Path) -> None:
    """The file's own points (columns 81-84) are the sum of what the reader found for each player."""
    r = formats.read(path)
    points = _independent(path)["points"]
    value = {"full": 1.0, "half": 0.5, "pairing": 1.0, "zero": 0.0, "absent": 0.0}
    got: dict[str, float] = defaultdict(float)
    for a, b, s in r.games.select("player_a", "player_b", "score_a").iter_rows():
        got[a] += s
        got[b] += 1 - s
    for pid, kind in r.byes.select("player_id", "kind").iter_rows():
        got[pid] += value[kind]
    ids = r.players["player_id"].to_list()
    declared = [points[rank] for rank in sorted(points)]
    assert [got[pid] for pid in ids] == pytest.approx(declared, abs=1e-9)  # exact halves


def test_gros_donostia_details() -> None:
    r = formats.read(shared("chess", "gros_open_donostia_2010.trf"))
    comp = r.competitions.row(0, named=True)
    assert (comp["name"], str(comp["start_date"]), str(comp["end_date"])) == (
        "XX Open Internacional de Gros",
        "2010-09-24",
        "2010-10-02",
    )
    # Unrated players: rating 0 in columns 49-52, FIDE id 0 -> a name key.
    p = r.players.filter(pl.col("name") == "Gorrochategui Torres, Eugenio").row(0, named=True)
    assert p["declared_rating"] is None
    assert p["player_id"] == "name:eugenio-gorrochategui-torres"
    first = r.players.row(0, named=True)
    assert (
        first["player_id"],
        first["declared_rating"],
        first["country"],
        first["birth_year"],
    ) == ("13400304", 2527.0, "AZE", 1978)
    # 9 rounds planned (XXR 9) but the file has 5: reported, not refused.
    assert "format.trf.incomplete" in r.findings["rule"].to_list()
    assert r.ok


def test_karl_mala_dates_with_spaces_and_birth_dates() -> None:
    r = formats.read(shared("chess", "karl_mala_frankfurt_2005.trf"))
    c = r.competitions.row(0, named=True)
    assert (str(c["start_date"]), str(c["end_date"]), c["rounds"]) == (
        "2005-07-28",
        "2005-07-31",
        7,
    )
    assert r.players["birth_year"].null_count() < r.players.height
    assert r.findings.height == 0  # DDD and the digit ruler are known, silent


def test_san_viator_round_dates_132() -> None:
    r = formats.read(shared("chess", "san_viator_madrid_2018_B.trf"))
    c = r.competitions.row(0, named=True)
    assert (str(c["start_date"]), str(c["end_date"])) == ("2018-04-08", "2018-06-10")
    assert r.findings.height == 0


def test_cr_only_file_without_date_is_refused_naming_the_record() -> None:
    r = formats.read(shared("chess", "bbp_issue15_rtg_synthetic_CR.trf"))
    assert r.players.height == 180
    assert r.findings.select("rule", "severity", "field").rows() == [
        ("format.trf.missing_date", "reject", "042")
    ]


# ---------------------------------------------------------------- synthetic and broken variants


def _line(rank: int, name: str, rating: int, fid: str, points: str, rounds: list[str]) -> str:
    head = f"001 {rank:4d} m    {name:<33} {rating:4d} ESP {fid:>11} {'1980':<10} {points:>4} {rank:4d}"
    assert len(head) == 89
    return head + "  " + "  ".join(rounds)


BASE = [
    "012 Synthetic Open",
    "042 2025/10/04",
    "052 2025/10/05",
    _line(1, "Alpha, Ann", 1800, "2200001", "1.5", ["   2 w 1", "   3 b =", "0000 - H"]),
    _line(2, "Beta, Bob", 1700, "2200002", "1.0", ["   1 b 0", "0000 - U", "   3 w -"]),
    _line(3, "Gamma, Cy", 0, "0", "2.0", ["0000 - Z", "   1 w =", "   2 b +"]),
]


def _trf(lines: list[str], eol: str = "\r") -> bytes:
    return (eol.join(lines) + eol).encode("latin-1")


def test_synthetic_every_code() -> None:
    r = from_trf(_trf(BASE), "s.trf")
    assert r.findings.height == 0
    assert r.games.select(
        "round", "player_a", "player_b", "score_a", "status", "colour_a"
    ).rows() == [
        (1, "2200001", "2200002", 1.0, "played", "w"),
        (2, "2200001", "name:cy-gamma", 0.5, "played", "b"),
        (3, "2200002", "name:cy-gamma", 0.0, "forfeit", "w"),
    ]
    assert r.byes.select("round", "kind").rows() == [(3, "half"), (2, "pairing"), (1, "zero")]


@pytest.mark.parametrize("eol", ["\r", "\r\n", "\n"], ids=["CR", "CRLF", "LF"])
def test_line_endings_give_the_same_frames(eol: str) -> None:
    a = from_trf(_trf(BASE, eol), "s.trf")
    b = from_trf(_trf(BASE, "\n"), "s.trf")
    assert a.games.equals(b.games) and a.byes.equals(b.byes)
    assert a.games["source_line"].to_list() == [4, 4, 5]


def test_unrated_codes_are_forfeits_with_their_score() -> None:
    lines = BASE[:3] + [
        _line(1, "Alpha, Ann", 1800, "2200001", "1.5", ["   2 w w", "   3 b d", "0000 - H"]),
        _line(2, "Beta, Bob", 1700, "2200002", "1.0", ["   1 b l", "0000 - U", "   3 w -"]),
        _line(3, "Gamma, Cy", 0, "0", "2.0", ["0000 - Z", "   1 w D", "   2 b +"]),
    ]
    r = from_trf(_trf(lines), "s.trf")
    assert r.findings.height == 0
    assert r.games.select("score_a", "status").rows() == [
        (1.0, "forfeit"),
        (0.5, "forfeit"),
        (0.0, "forfeit"),
    ]


def _with(i: int, line: str) -> list[str]:
    out = list(BASE)
    out[i] = line
    return out


BROKEN = [
    ("truncated line", _with(4, BASE[4][:30]), "format.trf.truncated", "reject", 5),
    ("truncated round", _with(4, BASE[4][:97]), "format.trf.truncated", "reject", 5),
    ("bad start date", _with(1, "042 2025/13/04"), "format.trf.bad_date", "reject", 2),
    ("end before start", _with(2, "052 2025/10/01"), "format.trf.bad_date", "reject", 3),
    (
        "opponent out of range",
        _with(
            3, _line(1, "Alpha, Ann", 1800, "2200001", "1.5", ["   9 w 1", "   3 b =", "0000 - H"])
        ),
        "format.trf.bad_opponent",
        "reject",
        4,
    ),
    (
        "asymmetric result",
        _with(
            3, _line(1, "Alpha, Ann", 1800, "2200001", "1.5", ["   2 w =", "   3 b =", "0000 - H"])
        ),
        "format.trf.asymmetric",
        "reject",
        4,
    ),
    (
        "unknown result code",
        _with(
            3, _line(1, "Alpha, Ann", 1800, "2200001", "1.5", ["   2 w X", "   3 b =", "0000 - H"])
        ),
        "format.trf.bad_result",
        "reject",
        4,
    ),
    (
        "bye code with opponent",
        _with(
            3, _line(1, "Alpha, Ann", 1800, "2200001", "1.5", ["   2 w H", "   3 b =", "0000 - H"])
        ),
        "format.trf.bad_result",
        "reject",
        4,
    ),
    (
        "duplicate rank",
        BASE + [_line(3, "Delta, Di", 0, "0", "0.0", [])],
        "format.trf.duplicate_rank",
        "reject",
        7,
    ),
    ("bad rank", _with(5, "001   x3" + BASE[5][8:]), "format.trf.bad_rank", "reject", 6),
]


@pytest.mark.parametrize(
    ("label", "lines", "rule", "severity", "line"), BROKEN, ids=[b[0] for b in BROKEN]
)
def test_broken_trf_gives_finding(
    label: str, lines: list[str], rule: str, severity: str, line: int
) -> None:
    r = formats.read_bytes(_trf(lines), "broken.trf")
    hit = r.findings.filter(pl.col("rule") == rule)
    assert hit.height >= 1, r.findings
    assert hit.select("severity", "line").row(0) == (severity, line)
    assert hit["field"][0] is not None
    # No game is silently dropped: every round token against an opponent is a game or on a finding's line.
    games = {(g[0], g[1]) for g in r.games.select("round", "source_line").iter_rows()}
    games |= {(g[0], g[1]) for g in r.games.select("round", "player_b").iter_rows()}
    flagged = set(r.findings["line"].drop_nulls().to_list())
    ranks = {
        int(ln[4:8]): n
        for n, ln in enumerate(lines, 1)
        if ln.startswith("001") and ln[4:8].strip().isdigit()
    }
    for n, ln in enumerate(lines, 1):
        if not ln.startswith("001"):
            continue
        for rnd, tok in enumerate(re.findall(r".{8}(?:  |$)", ln[91:]), start=1):
            opp = tok[:4].strip()
            if opp.isdigit() and int(opp) > 0:
                partner = ranks.get(int(opp))
                assert (
                    n in flagged
                    or partner in flagged
                    or (rnd, n) in games
                    or (rnd, partner) in games
                ), (n, rnd)


def test_asymmetric_finding_names_both_lines() -> None:
    lines = _with(
        3, _line(1, "Alpha, Ann", 1800, "2200001", "1.5", ["   2 w =", "   3 b =", "0000 - H"])
    )
    r = from_trf(_trf(lines), "a.trf")
    msg = r.findings.filter(pl.col("rule") == "format.trf.asymmetric")["message"][0]
    assert "line 4" in msg and "line 5" in msg and "round 1" in msg
    assert r.games.filter(pl.col("round") == 1).height == 0


def test_latin1_names_are_not_mangled() -> None:
    lines = _with(
        3, _line(1, "Muñoz, José", 1800, "0", "1.5", ["   2 w 1", "   3 b =", "0000 - H"])
    )
    r = from_trf(_trf(lines), "l.trf")
    assert r.players["name"][0] == "Muñoz, José"
    assert r.players["player_id"][0] == "name:jose-munoz"
    assert r.findings.select("rule", "severity").rows() == [("format.trf.encoding", "warn")]


def test_unknown_records_are_warnings_with_their_lines() -> None:
    r = from_trf(
        _trf(BASE[:3] + ["XXC white1", "### a comment"] + BASE[3:] + ["310   1 Team"]), "u.trf"
    )
    warn = r.findings.select("rule", "severity", "line", "field").rows()
    assert warn == [
        ("format.trf.unknown_record", "warn", 4, "XXC"),
        ("format.trf.unknown_record", "warn", 9, "310"),
    ]
    assert r.games.height == 3
