"""Interchange CSV reader: every real file of the two interchange data sets, and broken variants."""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

import formats
from formats.interchange import from_interchange
from formats.schema import (
    COMPETITIONS_SCHEMA,
    FINDINGS_SCHEMA,
    GAMES_SCHEMA,
    PLAYERS_SCHEMA,
    RATINGS_SCHEMA,
)
from tests.conftest import shared_files
from tests.formats.conftest import SHARED_DATA, shared

BARRUF = ("ajusc", "barruf_2025_26")
FIDE = ("fide", "published_periods")


def _files(*parts: str) -> list[Path]:
    folder = SHARED_DATA.joinpath(*parts)
    return sorted(p for p in folder.rglob("*") if p.is_file()) if folder.exists() else []


def _count(path: Path) -> tuple[int, set[str], set[str], int]:
    """Independent count with the csv module: games, player ids, rounds, unknown results."""
    with path.open(newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    ids = {r["player_a"] for r in rows} | {r["player_b"] for r in rows}
    unknown = sum(1 for r in rows if r["score_a"] == "")
    return len(rows), ids, {r["round"] for r in rows}, unknown


@pytest.mark.parametrize("path", shared_files(_files(*BARRUF) + _files(*FIDE), "the AJUSC season and FIDE periods"),
                         ids=lambda p: p.name if p is not None else "absent")
def test_every_real_interchange_file_is_read_or_refused(path: Path) -> None:
    result = formats.read(path)
    assert result.source == path.name
    assert result.findings.schema == pl.Schema(FINDINGS_SCHEMA)
    if path.name.endswith(".results.csv"):
        n_games, ids, rounds, unknown = _count(path)
        assert result.format == "interchange-results"
        assert result.findings.height == 0
        assert result.games.schema == pl.Schema(GAMES_SCHEMA)
        assert result.games.height == n_games
        assert set(result.players["player_id"]) == ids
        assert result.games.filter(pl.col("status") == "unknown").height == unknown
        assert result.games.filter(pl.col("status") == "forfeit").height == 0
        assert result.byes.height == 0
        comp = result.competitions
        assert comp.schema == pl.Schema(COMPETITIONS_SCHEMA)
        assert comp.height == 1
        assert comp["rounds"][0] == len(rounds)
        assert comp["competition_id"][0] == path.name.removesuffix(".results.csv")
        # source_line is the physical line: header is line 1.
        lines = path.read_text(encoding="utf-8").splitlines()
        first = result.games.row(0, named=True)
        assert first["source_line"] == 2
        assert f",{first['player_a']},{first['player_b']}," in lines[1]
    elif path.name.endswith(".players.csv"):
        assert result.format == "interchange-players"
        assert result.players.schema == pl.Schema(PLAYERS_SCHEMA)
        assert result.players.height == len(path.read_text(encoding="utf-8").splitlines()) - 1
    elif path.name.endswith(".ratings.csv"):
        assert result.format == "interchange-ratings"
        assert result.ratings.height == len(path.read_text(encoding="utf-8").splitlines()) - 1
        assert result.findings.height == 0
    else:  # README.md, the federation's published figures: not results files.
        assert result.format is None
        assert result.findings.select("rule", "severity", "line").row(0) == (
            "format.unknown",
            "reject",
            1,
        )


def test_barruf_season_totals_match_its_readme() -> None:
    folder = shared(*BARRUF)
    results = [formats.read(p) for p in sorted((folder / "results").glob("*.results.csv"))]
    # README.md: "the 20 championships of the season, game by game (2,505 games; no byes ...)",
    # "names (and clubs) of all 630 players", "585 players with rating".
    assert len(results) == 20
    assert sum(r.games.height for r in results) == 2505
    assert formats.read(folder / "season.players.csv").players.height == 630
    seed = formats.read_ratings(folder / "season.ratings.csv")
    assert seed.height == 585
    assert seed.schema == pl.Schema(RATINGS_SCHEMA)
    row = seed.filter(pl.col("player_id") == "2").row(0, named=True)
    assert (row["name"], row["rating"], row["games"], row["status"], row["last_played"]) == (
        "Mateu Xurí",
        1399.0,
        401,
        "act",
        "2024-25",
    )
    everyone = pl.concat([r.players for r in results]).unique("player_id")
    named = formats.read(folder / "season.players.csv").players
    assert everyone.join(named, on="player_id", how="anti").height == 0
    # "four draws were recorded 0-0": draws are 0.5 here, whatever the sheet showed.
    draws = sum(r.games.filter(pl.col("score_a") == 0.5).height for r in results)
    assert draws == sum(
        sum(
            1
            for row in csv.DictReader(io.StringIO(p.read_text(encoding="utf-8")))
            if row["score_a"] == "0.5"
        )
        for p in (folder / "results").glob("*.results.csv")
    )


def test_fide_periods_totals_match_its_readme() -> None:
    folder = shared(*FIDE)
    results = [formats.read(p) for p in sorted((folder / "results").glob("*.results.csv"))]
    # README.md: "89 tournaments, 621 games".
    assert len(results) == 89
    assert sum(r.games.height for r in results) == 621
    comps = pl.concat([r.competitions for r in results])
    assert comps["competition_id"].n_unique() == 89
    assert (comps["end_date"] >= comps["start_date"]).all()
    assert set(comps["modality"]) == {"standard"}
    seed = formats.read_ratings(folder / "seed.ratings.csv")
    assert seed["k"].null_count() == 0
    # Names with commas are quoted in these files: the quoted field must stay one field.
    m34 = formats.read(folder / "results" / "F-M34-T1.results.csv")
    assert m34.findings.height == 0 and "," in m34.competitions["name"][0]


# ---------------------------------------------------------------- broken variants

HEADER = "federation,competition_id,competition_name,start_date,end_date,round,player_a,player_b,score_a,status"
GOOD = [
    "ajusc,C1,Open,2025-10-04,2025-10-05,1,7,9,1,played",
    "ajusc,C1,Open,2025-10-04,2025-10-05,1,3,4,0.5,played",
    "ajusc,C1,Open,2025-10-04,2025-10-05,2,7,3,0,forfeit",
    "ajusc,C1,Open,2025-10-04,2025-10-05,2,9,4,,unknown",
]


def _file(*rows: str, header: str = HEADER, eol: str = "\n") -> bytes:
    return eol.join([header, *rows]).encode("utf-8") + eol.encode()


def test_good_file_reads_every_status() -> None:
    r = formats.read_bytes(_file(*GOOD), "c1.results.csv")
    assert r.findings.height == 0
    assert r.games.select("score_a", "status").rows() == [
        (1.0, "played"),
        (0.5, "played"),
        (0.0, "forfeit"),
        (None, "unknown"),
    ]
    assert r.competitions.select("name", "rounds", "modality", "results_public").row(0) == (
        "Open",
        2,
        "classic",
        True,
    )
    assert r.games["source_line"].to_list() == [2, 3, 4, 5]


@pytest.mark.parametrize("eol", ["\n", "\r\n", "\r"], ids=["LF", "CRLF", "CR"])
def test_line_endings_keep_line_numbers(eol: str) -> None:
    bad = GOOD[:2] + ["ajusc,C1,Open,2025-10-04,2025-10-05,2,7,3,2,played"]
    r = formats.read_bytes(_file(*bad, eol=eol), "c1.results.csv")
    assert r.games.height == 2
    assert r.findings.select("rule", "line", "field").rows() == [
        ("format.csv.bad_score", 4, "score_a")
    ]


BROKEN = [
    # (name, rows, rule, severity, line, field)
    (
        "truncated line",
        ["ajusc,C1,Open,2025-10-04,2025-10-05,1,7"],
        "format.csv.field_count",
        "reject",
        3,
        None,
    ),
    (
        "extra field",
        ["ajusc,C1,Open,2025-10-04,2025-10-05,1,7,5,1,played,x"],
        "format.csv.field_count",
        "reject",
        3,
        None,
    ),
    (
        "bad date",
        ["ajusc,C1,Open,2025-13-04,2025-10-05,1,7,5,1,played"],
        "format.csv.bad_date",
        "reject",
        3,
        "start_date",
    ),
    (
        # Day and month could be either way round: only the documented YYYY-MM-DD is a date.
        "a date not in the documented style",
        ["ajusc,C1,Open,03/04/2026,2026-04-04,1,7,5,1,played"],
        "format.csv.bad_date",
        "reject",
        3,
        "start_date",
    ),
    (
        "an end date not in the documented style",
        ["ajusc,C1,Open,2026-04-03,04.04.2026,1,7,5,1,played"],
        "format.csv.bad_date",
        "reject",
        3,
        "end_date",
    ),
    (
        "end before start",
        ["ajusc,C1,Open,2025-10-04,2025-10-01,1,7,5,1,played"],
        "format.csv.bad_date",
        "reject",
        3,
        "end_date",
    ),
    (
        "round zero",
        ["ajusc,C1,Open,2025-10-04,2025-10-05,0,7,5,1,played"],
        "format.csv.bad_round",
        "reject",
        3,
        "round",
    ),
    (
        "round text",
        ["ajusc,C1,Open,2025-10-04,2025-10-05,R2,7,5,1,played"],
        "format.csv.bad_round",
        "reject",
        3,
        "round",
    ),
    (
        "bad score",
        ["ajusc,C1,Open,2025-10-04,2025-10-05,1,7,5,2,played"],
        "format.csv.bad_score",
        "reject",
        3,
        "score_a",
    ),
    (
        "half forfeit",
        ["ajusc,C1,Open,2025-10-04,2025-10-05,1,7,5,0.5,forfeit"],
        "format.csv.bad_score",
        "reject",
        3,
        "score_a",
    ),
    (
        "empty score played",
        ["ajusc,C1,Open,2025-10-04,2025-10-05,1,7,5,,played"],
        "format.csv.bad_score",
        "reject",
        3,
        "score_a",
    ),
    (
        "unknown status",
        ["ajusc,C1,Open,2025-10-04,2025-10-05,1,7,5,1,won"],
        "format.csv.bad_status",
        "reject",
        3,
        "status",
    ),
    (
        "unknown federation",
        ["fifa,C1,Open,2025-10-04,2025-10-05,1,7,5,1,played"],
        "format.csv.unknown_federation",
        "reject",
        3,
        "federation",
    ),
    (
        "missing player",
        ["ajusc,C1,Open,2025-10-04,2025-10-05,1,,5,1,played"],
        "format.csv.missing_value",
        "reject",
        3,
        "player_a",
    ),
    (
        "self pairing",
        ["ajusc,C1,Open,2025-10-04,2025-10-05,1,5,5,1,played"],
        "format.csv.self_pairing",
        "reject",
        3,
        "player_b",
    ),
    (
        "inconsistent dates",
        ["ajusc,C1,Open,2025-10-04,2025-10-06,3,7,5,1,played"],
        "format.csv.inconsistent_competition",
        "reject",
        3,
        "end_date",
    ),
    (
        "duplicate game",
        ["ajusc,C1,Open,2025-10-04,2025-10-05,1,9,7,0,played"],
        "format.csv.duplicate_game",
        "exclude",
        3,
        None,
    ),
    (
        "unclosed quote",
        ['ajusc,C1,"Open,2025-10-04,2025-10-05,1,7,5,1,played'],
        "format.csv.bad_quote",
        "reject",
        3,
        None,
    ),
]


@pytest.mark.parametrize(
    ("label", "rows", "rule", "severity", "line", "field"), BROKEN, ids=[b[0] for b in BROKEN]
)
def test_broken_variant_gives_finding_with_line_and_field(
    label: str, rows: list[str], rule: str, severity: str, line: int, field: str | None
) -> None:
    r = formats.read_bytes(_file(GOOD[0], *rows), "broken.results.csv")
    found = r.findings.filter(pl.col("rule") == rule)
    assert found.height == 1, r.findings
    assert found.select("severity", "line", "field", "source").row(0) == (
        severity,
        line,
        field,
        "broken.results.csv",
    )
    assert "broken.results.csv, line" in found["message"][0]
    # The good row is still read; a broken row is not a game (an inconsistent row is read,
    # but its competition is rejected as a whole).
    assert r.games["source_line"].to_list() == ([2, 3] if label == "inconsistent dates" else [2])


def test_missing_required_column_rejects_file() -> None:
    r = formats.read_bytes(
        _file(
            "ajusc,C1,2025-10-04,1,7,9",
            header="federation,competition_id,start_date,round,player_a,player_b",
        ),
        "x.results.csv",
    )
    assert r.findings.select("rule", "severity", "line", "field").rows() == [
        ("format.csv.missing_column", "reject", 1, "score_a")
    ]
    assert r.games.height == 0


def test_unknown_column_is_a_warning() -> None:
    r = formats.read_bytes(_file(GOOD[0] + ",x", header=HEADER + ",board"), "x.results.csv")
    assert r.findings.select("rule", "severity", "field").rows() == [
        ("format.csv.unknown_column", "warn", "board")
    ]
    assert r.games.height == 1


def test_latin1_file_is_read_with_a_warning_and_names_intact() -> None:
    data = "federation,player_id,name\najusc,2,Mateu Xurí\najusc,3,Núria Pérez\n".encode("latin-1")
    r = formats.read_bytes(data, "x.players.csv")
    assert r.players["name"].to_list() == ["Mateu Xurí", "Núria Pérez"]
    assert r.findings.select("rule", "severity", "line").rows() == [
        ("format.csv.encoding", "warn", 2)
    ]


def test_empty_and_header_only_files() -> None:
    assert formats.read_bytes(b"", "x.results.csv").findings["rule"].to_list() == ["format.empty"]
    r = formats.read_bytes(_file(), "x.results.csv")
    assert r.findings["rule"].to_list() == ["format.csv.no_games"]


def test_federation_argument_refuses_other_federations() -> None:
    r = formats.read_bytes(_file(*GOOD), "c1.results.csv", federation="fide")
    assert r.games.height == 0
    assert set(r.findings["rule"]) == {"format.csv.federation_mismatch"}
    assert r.findings["line"].to_list() == [2, 3, 4, 5]


def test_read_ratings_raises_domain_error_naming_line_and_field(tmp_path: Path) -> None:
    p = tmp_path / "bad.ratings.csv"
    p.write_text(
        "federation,player_id,name,rating,games,as_of\najusc,1,A,1100,3,2025-09-01\najusc,2,B,high,3,"
        "2025-09-01\n",
        encoding="utf-8",
    )
    with pytest.raises(formats.RatingsFileError, match=r"bad.ratings.csv, line 3, field 'rating'"):
        formats.read_ratings(p)
    with pytest.raises(ValueError, match="not a rating list"):
        q = tmp_path / "x.players.csv"
        q.write_text("federation,player_id,name\najusc,1,A\n", encoding="utf-8")
        formats.read_ratings(q)


def test_unreadable_path_is_a_finding(tmp_path: Path) -> None:
    r = formats.read(tmp_path / "missing.results.csv")
    assert r.findings.select("rule", "severity").row(0) == ("format.io", "reject")


_DATA_LINE = re.compile(r"^ajusc,")


@pytest.mark.hypothesis
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.tuples(st.integers(0, 3), st.integers(0, 60), st.text(',"\r\n0125abx.-', max_size=4)),
        max_size=6,
    )
)
def test_mutated_files_never_raise_nor_drop_a_game(edits: list[tuple[int, int, str]]) -> None:
    """Any corruption of a good file: no traceback, and every data line is a game or a finding."""
    rows = list(GOOD)
    for i, pos, text in edits:
        rows[i] = rows[i][:pos] + text + rows[i][pos + len(text) :]
    data = _file(*rows)
    r = formats.read_bytes(data, "fuzz.results.csv")
    accounted = set(r.games["source_line"].to_list()) | set(
        r.findings["line"].drop_nulls().to_list()
    )
    physical = re.split(r"\r\n|\r|\n", data.decode("utf-8"))
    for n, text in enumerate(physical, start=1):
        if n > 1 and _DATA_LINE.match(text):
            if '"' in data.decode("utf-8"):
                # A quote may join lines into one record: the record starts on an earlier line.
                assert any(line <= n for line in accounted), n
            else:
                assert n in accounted, (n, text)


# ---------------------------------------------------------------- one reader, whatever the file's size


_SCORE = {"1": 1.0, "1.0": 1.0, "1.00": 1.0, "0.5": 0.5, ".5": 0.5, "0.50": 0.5, "½": 0.5,
          "0": 0.0, "0.0": 0.0, "0.00": 0.0}


@pytest.mark.parametrize(
    "path",
    shared_files([p for p in _files(*BARRUF) + _files(*FIDE) if p.name.endswith(".results.csv")],
                 "the AJUSC season and FIDE periods"),
    ids=lambda p: p.name if p is not None else "absent",
)
def test_real_results_files_read_as_the_csv_module_reads_them(path: Path) -> None:
    """Every game of a real file, value by value, against an independent reading with the csv module."""
    with path.open(newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    r = formats.read_bytes(path.read_bytes(), path.name)
    assert r.findings.height == 0
    expected = [
        (row["federation"].strip().lower(), row["competition_id"].strip(), int(row["round"]),
         row["player_a"].strip(), row["player_b"].strip(), _SCORE.get(row["score_a"].strip()),
         (row.get("status") or "").strip().lower() or ("unknown" if not row["score_a"].strip() else "played"))
        for row in rows
    ]
    got = r.games.select("federation", "competition_id", "round", "player_a", "player_b", "score_a", "status")
    assert got.rows() == expected
    assert r.games["source_line"].to_list() == list(range(2, len(rows) + 2))
    assert r.competitions.height == len({(g[0], g[1]) for g in expected})


def _padded(rows: list[str], n: int) -> list[str]:
    """``rows`` and then ``n`` clean games of other competitions: a large file around a small one."""
    return rows + [f"ajusc,P{i % 7},Pad,2025-10-04,2025-10-05,{i % 9 + 1},p{i}a,p{i}b,1,played"
                   for i in range(n)]


def _findings(r: formats.ReadResult) -> list[tuple[Any, ...]]:
    return r.findings.select("rule", "severity", "line", "field", "message").rows()


@pytest.mark.hypothesis
@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.tuples(
            st.integers(0, 3), st.integers(0, 60), st.text(',"\r\n0125abx.-wbt ', max_size=4)
        ),
        max_size=4,
    ),
    st.sampled_from([None, "ajusc", "fide"]),
)
def test_a_large_file_finds_what_its_small_part_finds(
    edits: list[tuple[int, int, str]], federation: str | None
) -> None:
    """A mutated small file, and the same rows followed by a thousand clean games: the same
    findings on the same lines, and the small file's games among the large one's."""
    header = HEADER + ",handicap,results_public,modality,event_class,colour_a"
    rows = [r + ",,true,classic,," for r in GOOD]
    for i, pos, text in edits:
        rows[i] = rows[i][:pos] + text + rows[i][pos + len(text) :]
    small = formats.read_bytes(_file(*rows, header=header), "m.results.csv", federation=federation)
    pad = [r + ",,true,classic,," for r in _padded([], 1000)]
    large = formats.read_bytes(_file(*rows, *pad, header=header), "m.results.csv", federation=federation)
    if '"' in "".join(rows) or "\r" in "".join(rows) or "\n" in "".join(rows):
        return  # a quote or line break may join the rows to the padding
    if federation == "fide":
        assert large.games.height == small.games.height
        return  # the padding is refused too
    no_games = [f for f in _findings(small) if f[0] != "format.csv.no_games"]
    assert _findings(large) == no_games
    n = small.games.height
    assert large.games.head(n).equals(small.games)
    assert large.games.height == n + 1000
    event(f"findings: {len(no_games)}")


_VALID_RESULT = st.one_of(
    st.tuples(st.sampled_from(["1", "1.0", "1.00", "0.5", ".5", "0.50", "½", "0", "0.0", "0.00"]),
              st.sampled_from(["played", "Played", ""])),
    st.tuples(st.sampled_from(["1", "0", "1.00", "0.0"]), st.just("forfeit")),
    st.tuples(st.just(""), st.sampled_from(["", "unknown"])),
)


@pytest.mark.hypothesis
@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.tuples(
            st.integers(1, 3),
            st.integers(1, 999),
            _VALID_RESULT,
            st.sampled_from(["", "0", "-3", "9"]),
            st.sampled_from(["", "w", "B"]),
        ),
        min_size=1,
        max_size=12,
    ),
    st.lists(st.sampled_from(["", "true", "Yes", "0", "f"]), min_size=3, max_size=3),
    st.sampled_from([None, "ajusc"]),
    st.sampled_from([0, 900]),
)
def test_every_valid_spelling_is_read_without_findings(
    rows: list[tuple[int, int, tuple[str, str], str, str]],
    public: list[str],
    federation: str | None,
    padding: int,
) -> None:
    """Every spelling a valid file may use, in a small file and in a large one: read without a
    finding, each value as the format defines it."""
    header = HEADER + ",handicap,results_public,modality,event_class,colour_a"
    lines = [  # results_public is a competition's: one spelling per competition
        f"ajusc,C{c},Open {c},2025-10-0{c},2025-10-1{c},{rnd},{n}a,{n}b,{score},{status},{hcp},"
        f"{public[c - 1]},classic,,{colour}"
        for n, (c, rnd, (score, status), hcp, colour) in enumerate(rows)
    ]
    pad = [r + ",,,classic,," for r in _padded([], padding)]
    read = formats.read_bytes(_file(*lines, *pad, header=header), "v.results.csv", federation=federation)
    assert read.findings.height == 0, read.findings.rows()
    expected = [
        (rnd, _SCORE.get(score), status.lower() or ("unknown" if score == "" else "played"),
         int(hcp) if hcp else None, colour.lower() or None)
        for c, rnd, (score, status), hcp, colour in rows
    ]
    got = read.games.head(len(rows)).select("round", "score_a", "status", "handicap", "colour_a")
    assert got.rows() == expected
    comps = read.competitions.filter(pl.col("competition_id").str.starts_with("C"))
    assert dict(comps.select("competition_id", "results_public").rows()) == {
        f"C{c}": public[c - 1].lower() not in ("0", "f") for c, *_ in rows}


def _csv_module_records(text: str) -> list[tuple[int, list[str]]]:
    """(first line, fields) of each non-blank record as the csv module reads them."""
    reader = csv.reader(io.StringIO(text, newline=""), strict=False)
    out, before = [], 0
    for row in reader:
        start, before = before + 1, reader.line_num
        if row and any(cell.strip() for cell in row):
            out.append((start, row))
    return out


@pytest.mark.hypothesis
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(",\r\n \t\x0b\x1c\x85\xa0\u3000\x00ab1", max_size=40))
def test_records_without_quotes_split_as_the_csv_module_splits_them(text: str) -> None:
    """Records of a file without quotes, and its columns, as the csv module reads them:
    line numbers, blank lines of spaces and commas, every line ending."""
    from formats.interchange_csv import _columns, _rows

    expected = _csv_module_records(text)
    assert list(_rows(text)) == expected
    if expected:
        header_line, n = expected[0][0], len(expected[0][1])
        read = _columns(text, header_line, n)
        kept = [(line, row) for line, row in expected[1:] if len(row) == n]
        assert read.lines == [line for line, _ in kept]
        assert read.columns == [[row[j] for _, row in kept] for j in range(n)]
        assert read.odd == [(line, row) for line, row in expected[1:] if len(row) != n]


def test_a_large_file_is_read() -> None:
    rows = [
        # 40,000 players: within the players limit (a file over it is refused whole, its games not kept)
        f"ajusc,C{c},Open {c},2025-10-04,2025-10-05,{r + 1},{c % 100}-{r}-a,{c % 100}-{r}-b,1,played"
        for c in range(500)
        for r in range(200)
    ]
    data = _file(*rows)
    r = formats.read_bytes(data, "big.results.csv")
    assert r.games.height == 100_000 and r.competitions.height == 500
    assert r.players.height == 40_000 and r.findings.height == 0


@pytest.mark.parametrize("padding", [0, 900], ids=["small", "large"])
def test_problems_of_a_large_file_are_found_as_in_a_small_one(padding: int) -> None:
    """Each rule, a row apiece, with and without a large file around them: same findings, same lines."""
    bad = [
        "ajusc,C1,Open,2025-10-04,2025-10-05,1,7,9,x,played",        # bad score
        "ajusc,C1,Open,2025-10-04,2025-10-05,1,7,9,1,played",        # good
        "ajusc,C1,Open,2025-10-04,2025-10-05,1,9,7,0,played",        # the same game again
        "ajusc,C1,Other,2025-10-04,2025-10-06,2,3,4,1,played",       # another end date, another name
        "ajusc,C1,Open,2025-10-04,,3,5,5,1,played",                  # self pairing
        "ajusc,C1,Open,2025-10-04,2025-10-05,4,5,6,",                # too few fields
    ]
    small = formats.read_bytes(_file(*bad), "s.results.csv")
    large = formats.read_bytes(_file(*_padded(bad, padding)), "s.results.csv")
    assert _findings(large) == _findings(small)
    assert [(rule, line) for rule, _, line, _, _ in _findings(small)] == [
        ("format.csv.bad_score", 2),
        ("format.csv.duplicate_game", 4),
        ("format.csv.inconsistent_competition", 5),
        ("format.csv.inconsistent_competition", 5),
        ("format.csv.self_pairing", 6),
        ("format.csv.field_count", 7),
    ]
    assert large.games.height == 2 + padding


def test_ratings_edition_column_is_carried_as_the_list_edition() -> None:
    """DESIGN.md *Publication*: the optional ``edition`` column numbers the seeded list."""
    data = (b"federation,player_id,name,rating,games,as_of,edition\n"
            b"ajusc,1,A,1386,345,2025-09-01,190\najusc,2,B,1399,401,2025-09-01,190\n")
    r = from_interchange(data, "season.ratings.csv")
    assert r.ok and r.list_edition == 190 and r.ratings.height == 2


def test_ratings_edition_must_be_one_per_file() -> None:
    data = (b"federation,player_id,name,rating,games,as_of,edition\n"
            b"ajusc,1,A,1386,345,2025-09-01,190\najusc,2,B,1399,401,2025-09-01,191\n")
    r = from_interchange(data, "season.ratings.csv")
    bad = r.findings.filter(pl.col("rule") == "format.csv.bad_edition")
    assert not r.ok and bad.select("line", "field").row(0) == (3, "edition")


# --- organiser_email: who receives the report (DESIGN.md, "Delivery and the desk") -----------


def _with_email(*emails: str) -> bytes:
    return _file(*(row + f",{email}" for row, email in zip(GOOD, emails, strict=True)),
                 header=HEADER + ",organiser_email")


@pytest.mark.parametrize("padding", [0, 900], ids=["small", "large"])
def test_organiser_email_is_read_normalised(padding: int) -> None:
    rows = [row + f",{email}" for row, email in zip(GOOD, ("Club@Example.ORG", "", "Club@Example.ORG", ""), strict=True)]
    rows += [row + "," for row in _padded([], padding)]
    read = formats.read_bytes(_file(*rows, header=HEADER + ",organiser_email"), "c1.results.csv")
    c1 = read.competitions.filter(pl.col("competition_id") == "C1")
    assert c1.get_column("organiser_email").to_list() == ["Club@example.org"]
    assert read.findings.height == 0


def test_a_bad_organiser_email_is_a_warning_naming_line_and_field() -> None:
    read = formats.read_bytes(_with_email("not-an-address", "", "", ""), "c1.results.csv")
    assert read.games.height == 4   # the games are rated all the same
    assert read.competitions.get_column("organiser_email").to_list() == [None]
    assert read.findings.select("rule", "severity", "line", "field").rows() == [
        ("format.csv.bad_email", "warn", 2, "organiser_email")]
    assert "the report goes to the organiser registered" in read.findings.get_column("message")[0]


def test_two_addresses_for_one_competition_keep_the_first_with_a_warning() -> None:
    read = formats.read_bytes(_with_email("a@example.org", "b@example.org", "", ""), "c1.results.csv")
    assert read.competitions.get_column("organiser_email").to_list() == ["a@example.org"]
    assert read.findings.select("rule", "line", "field").rows() == [
        ("format.csv.inconsistent_competition", 3, "organiser_email")]


@pytest.mark.parametrize("hostile", ["a@example.org\r\nBcc: x@example.org", "a@example.org, b@example.org",
                                     '"a\\"@example.org', "a@localhost"])
def test_hostile_addresses_are_refused(hostile: str) -> None:
    from formats.address import AddressError, email_address

    with pytest.raises(AddressError):
        email_address(hostile)
