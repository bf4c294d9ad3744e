"""Swiss Perfect reader: the real ManaCup set, reading a tournament from a folder or a file, broken variants."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import polars as pl
import pytest

import formats
from formats.swissperfect import from_swissperfect_set
from tests.formats.conftest import shared
from tests.formats.dbase import write_dbf

STEM = "ManaCup_25-26"


def _manacup() -> Path:
    return shared("ajusc", "manacup_2025_26")


def test_manacup_set_counts_match_the_raw_files() -> None:
    folder = _manacup()
    rnds = sorted(folder.glob("*.rnd"))
    rows = [
        ln
        for p in rnds
        for ln in p.read_text(encoding="ascii").splitlines()
        if re.match(r"^\d+\|", ln)
    ]
    ids = {c for ln in rows for c in ln.split("|")[2:4]}
    stg = (folder / f"{STEM}.21.stg").read_text(encoding="ascii").splitlines()[1:]
    entrants = {ln.split("|")[2] for ln in stg} | ids
    r = formats.read(folder)
    assert r.format == "swissperfect"
    assert r.games.height == len(rows) == 450
    assert r.byes.height == 0
    assert r.games.filter(pl.col("score_a") == 0.5).height == sum(
        1 for ln in rows if ln.endswith("|0.5|0.5")
    )
    assert r.games.filter(pl.col("status") != "played").height == 0
    assert r.players.height == len(entrants) == 65
    assert r.competitions.select("name", "rounds").row(0) == ("XII ManaCup", len(rnds))
    # White's result is the first score column.
    first = (folder / f"{STEM}.1.rnd").read_text(encoding="ascii").splitlines()[1].split("|")
    g = r.games.filter(pl.col("round") == 1).row(0, named=True)
    assert (
        g["player_a"].rsplit(":", 1)[1],
        g["player_b"].rsplit(":", 1)[1],
        g["score_a"],
        g["source_line"],
    ) == (first[2], first[3], float(first[4]), 2)


def test_manacup_is_refused_for_its_missing_date_naming_the_ini_line() -> None:
    folder = _manacup()
    ini_lines = (folder / f"{STEM}.ini").read_text(encoding="ascii").splitlines()
    section = ini_lines.index("[Tournament Info]") + 1
    r = formats.read(folder / f"{STEM}.ini")
    rejects = r.findings.filter(pl.col("severity") == "reject")
    assert rejects.select("rule", "source", "line", "field").rows() == [
        ("format.swissperfect.missing_date", f"{STEM}.ini", section, "StartDate")
    ]
    warns = set(r.findings.filter(pl.col("severity") == "warn")["rule"])
    # the .stg covers 19 rounds while 15 round files were exported; rounds 3-9 and 23-26 are missing
    assert warns == {
        "format.swissperfect.standings_mismatch",
        "format.swissperfect.no_names",
        "format.swissperfect.missing_rounds",
    }


def test_folder_ini_and_round_file_read_the_same_tournament() -> None:
    folder = _manacup()
    a = formats.read(folder)
    b = formats.read(folder / f"{STEM}.ini")
    c = formats.read(folder / f"{STEM}.12.rnd")
    d = formats.read(sorted(folder.iterdir()))
    for other in (b, c, d):
        assert other.games.equals(a.games)
        assert other.source_sha256 == a.source_sha256


def test_group_inbox_puts_a_tournament_together(tmp_path: Path) -> None:
    folder = _manacup()
    inbox = tmp_path / "inbox"
    shutil.copytree(folder, inbox)
    (inbox / "x.results.csv").write_text(
        "federation,competition_id,start_date,round,player_a,player_b,score_a\n"
    )
    groups = formats.group_inbox(sorted(inbox.iterdir()))
    assert len(groups) == 2
    sp = next(g for g in groups if isinstance(g, list))
    assert len(sp) == len(list(folder.iterdir()))


def test_dated_ini_with_trn_gives_names_and_no_reject(tmp_path: Path) -> None:
    folder = _manacup()
    work = tmp_path / "ManaCup"
    shutil.copytree(folder, work)
    ini = work / f"{STEM}.ini"
    ini.write_text(
        ini.read_text(encoding="ascii").replace(
            "[Tournament Info]\n", "[Tournament Info]\nStartDate=2025-09-20\nEndDate=2026-06-13\n"
        ),
        encoding="ascii",
    )
    ids = sorted(
        {
            int(c)
            for p in folder.glob("*.rnd")
            for ln in p.read_text().splitlines()[1:]
            for c in ln.split("|")[2:4]
        }
    )
    fields = [
        ("ID", "N", 4),
        ("START_NO", "C", 4),
        ("SURNAME", "C", 30),
        ("FIRSTNAME", "C", 20),
        ("CLUB", "C", 20),
        ("LOC_ID", "C", 10),
    ]
    recs: list[dict[str, object]] = [
        {
            "ID": n,
            "START_NO": str(n),
            "SURNAME": f"Xurí{n}",
            "FIRSTNAME": "Mateu",
            "CLUB": "Manacor",
            "LOC_ID": str(1000 + n) if n % 2 else "",
        }
        for n in ids
    ]
    recs.append({"ID": None, "SURNAME": ""})  # Swiss Perfect's blank spare record
    (work / f"{STEM}.trn").write_bytes(write_dbf(fields, recs))
    r = formats.read(work)
    assert r.ok, r.findings
    c = r.competitions.row(0, named=True)
    assert (str(c["start_date"]), str(c["end_date"]), c["competition_id"]) == (
        "2025-09-20",
        "2026-06-13",
        "xii-manacup-2025-09-20",
    )
    odd = r.players.filter(pl.col("player_id") == "1001").row(0, named=True)
    assert (odd["name"], odd["club"]) == ("Mateu Xurí1", "Manacor")
    assert r.players.filter(pl.col("player_id") == "name:mateu-xuri2").height == 1
    assert r.games.height == 450


RND = "ROUND|TABLE_NO|WHITE_ID|BLACK_ID|WHITE_SCORE|BLACK_SCORE\r\n"
INI = "[Tournament Info]\r\nName=Lliga\r\nRounds=2\r\nStartDate=2025-10-04\r\n"
R1 = "1|1|1|2|1|0\r\n1|2|3|4|0.5|0.5\r\n"
R2 = "2|1|1|3|0|1\r\n2|2|2|4|1|0\r\n"


def _set(r1: str = R1, r2: str = R2) -> dict[str, bytes]:
    return {"L.ini": INI.encode(), "L.1.rnd": (RND + r1).encode(), "L.2.rnd": (RND + r2).encode()}


def test_synthetic_set_reads_clean() -> None:
    r = from_swissperfect_set(_set())
    assert [x for x in r.findings["rule"]] == ["format.swissperfect.no_names"]
    assert r.games.height == 4 and r.competitions["rounds"][0] == 2


def test_bye_rows_are_byes_not_games() -> None:
    r = from_swissperfect_set(_set(r2=R2 + "2|3|5|0|1|0\r\n"))
    assert r.byes.select("round", "kind", "source_line").rows() == [(2, "full", 4)]
    assert r.games.height == 4


BROKEN = [
    ("truncated line", R2 + "2|3|5|6\r\n", "format.swissperfect.field_count", 4, None),
    (
        "mixed rounds",
        R2.replace("2|2|2|4", "1|2|2|4"),
        "format.swissperfect.mixed_rounds",
        3,
        "ROUND",
    ),
    (
        "scores not summing to 1",
        R2.replace("2|2|2|4|1|0", "2|2|2|4|1|1"),
        "format.swissperfect.bad_score",
        3,
        "BLACK_SCORE",
    ),
    (
        "unknown score",
        R2.replace("2|2|2|4|1|0", "2|2|2|4|W|0"),
        "format.swissperfect.bad_score",
        3,
        "WHITE_SCORE",
    ),
    (
        "self pairing",
        R2.replace("2|2|2|4", "2|2|2|2"),
        "format.swissperfect.self_pairing",
        3,
        "BLACK_ID",
    ),
    (
        "twice in a round",
        R2.replace("2|2|2|4", "2|2|1|4"),
        "format.swissperfect.double_pairing",
        3,
        "WHITE_ID",
    ),
    (
        "bad player",
        R2.replace("2|2|2|4", "2|2|x|4"),
        "format.swissperfect.bad_player",
        3,
        "WHITE_ID",
    ),
]


@pytest.mark.parametrize(
    ("label", "r2", "rule", "line", "field"), BROKEN, ids=[b[0] for b in BROKEN]
)
def test_broken_round_file(label: str, r2: str, rule: str, line: int, field: str | None) -> None:
    r = from_swissperfect_set(_set(r2=r2))
    hit = r.findings.filter(pl.col("rule") == rule)
    assert hit.select("severity", "source", "line", "field").rows() == [
        ("reject", "L.2.rnd", line, field)
    ]
    assert "L.2.rnd, line" in hit["message"][0]
    # the broken line is not a game; the others are
    assert line not in r.games.filter(pl.col("round") == 2)["source_line"].to_list()


def test_repeated_round_across_files_and_bad_header() -> None:
    files = _set()
    files["L.3.rnd"] = (RND + R2.replace("2|", "3|", 1)).encode()
    files["L.01.rnd"] = (RND + R1).encode()  # round 1 exported twice
    files["L.5.rnd"] = b"ROUND;TABLE\r\n1;2\r\n"
    r = from_swissperfect_set(files)
    rules = r.findings.select("rule", "source").rows()
    assert ("format.swissperfect.repeated_round", "L.1.rnd") in rules or (
        "format.swissperfect.repeated_round",
        "L.01.rnd",
    ) in rules
    assert ("format.swissperfect.mixed_rounds", "L.3.rnd") in rules
    assert ("format.swissperfect.bad_header", "L.5.rnd") in rules


def test_single_round_file_read_alone_warns() -> None:
    r = formats.read_bytes((RND + R1).encode(), "L.1.rnd")
    assert r.format == "swissperfect"
    assert "format.swissperfect.single_round" in r.findings["rule"].to_list()
    assert r.games.height == 2


def test_corrupt_trn_header_is_a_warning_not_a_hang() -> None:
    """Regression (found by fuzzing): dbfread trusts the record count and looped over 2**32 records."""
    fields = [("ID", "N", 4), ("SURNAME", "C", 20)]
    good = write_dbf(fields, [{"ID": 1, "SURNAME": "Puig"}, {"ID": 2, "SURNAME": "Vila"}])
    for bad in (
        good[:4] + (2**32 - 1).to_bytes(4, "little") + good[8:],
        good[:40],
        good[: len(good) - 10],
    ):
        files = _set() | {"L.trn": bad}
        r = from_swissperfect_set(files)
        hit = r.findings.filter(pl.col("rule") == "format.swissperfect.bad_trn")
        assert hit.select("severity", "source").rows() == [("warn", "L.trn")]
        assert r.games.height == 4
    named = from_swissperfect_set(_set() | {"L.trn": good})
    assert set(named.players["name"].drop_nulls()) == {"Puig", "Vila"}
