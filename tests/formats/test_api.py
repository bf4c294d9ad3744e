"""One entry point over every format: every real file is read or refused, by content; inbox grouping; aliases."""

from __future__ import annotations

import shutil
from pathlib import Path

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import formats
from formats.schema import (
    BYES_SCHEMA,
    COMPETITIONS_SCHEMA,
    DECLARATIONS_SCHEMA,
    FINDINGS_SCHEMA,
    GAMES_SCHEMA,
    PLAYERS_SCHEMA,
)
from tests.conftest import shared_files
from tests.formats.conftest import SHARED_DATA, shared

ALL = shared_files(
    sorted(p for p in SHARED_DATA.rglob("*") if p.is_file()) if SHARED_DATA.exists() else [], "../shared/data"
)

#: What each real file is, by where it lives (``../shared/data/SOURCES.tsv``).
EXPECTED = {
    ".trf": "trf",
    ".xml": "opengotha",
    ".rnd": "swissperfect",
    ".stg": "swissperfect",
    ".ini": "swissperfect",
    ".js": "tsh-newt",
}
NOT_SUPPORTED = {  # formats no reader covers: refused with a finding, never a traceback
    "british_champ_2026_crosstable_chessresults.html",
    "open_san_sebastian_33_chessresults.csv",
    "ffg_ratings_20240412.json",
    "SOURCES.tsv",
    "README.md",
    "official_191_200.csv",
}


@pytest.mark.parametrize("path", ALL, ids=lambda p: str(p.relative_to(SHARED_DATA)) if p is not None else "absent")
def test_every_shared_file_is_read_or_refused_with_a_line(path: Path) -> None:
    r = formats.read(path)
    for frame, schema in (
        (r.competitions, COMPETITIONS_SCHEMA),
        (r.players, PLAYERS_SCHEMA),
        (r.games, GAMES_SCHEMA),
        (r.byes, BYES_SCHEMA),
        (r.findings, FINDINGS_SCHEMA),
    ):
        # Native readers add what the file declares for eligibility after the canonical columns.
        assert frame.schema in (pl.Schema(schema), pl.Schema({**schema, **DECLARATIONS_SCHEMA}))
    if path.name in NOT_SUPPORTED:
        assert r.format is None
        assert r.findings.select("rule", "severity", "line").row(0) == (
            "format.unknown",
            "reject",
            1,
        )
        return
    if path.suffix in EXPECTED:
        assert r.format == EXPECTED[path.suffix]
    if path.name.endswith(".tour.json"):
        assert r.format == "pairgoth"
    assert r.format is not None
    # every finding names its file; games carry a line
    assert set(r.findings["source"]) <= {r.source} | {p.name for p in path.parent.iterdir()}
    assert r.games["source_line"].null_count() == 0
    if r.games.height:
        assert r.competitions.height >= 1
        assert set(r.games["competition_id"]) <= set(r.competitions["competition_id"])


def test_detection_is_by_content_not_extension() -> None:
    cases = {
        ("chess", "gros_open_donostia_2010.trf"): "trf",
        ("go", "opengotha_frioul_2018.xml"): "opengotha",
        ("scrabble", "tsh_tourney_albany_2024-07-04_NWL.js"): "tsh-newt",
        ("ajusc", "barruf_2025_26", "results", "BARRUF-191.results.csv"): "interchange-results",
        ("ajusc", "manacup_2025_26", "ManaCup_25-26.1.rnd"): "swissperfect",
        ("go", "rating_lists", "egd_allworld_lp_excerpt_2018-02-22.txt"): "egd-ratings",
    }
    for parts, fmt in cases.items():
        data = shared(*parts).read_bytes()
        assert formats.detect(data, "upload.txt") == fmt, parts
        assert formats.read_bytes(data, "upload.dat").format == fmt
    h9 = (Path(__file__).parent / "data" / "autumn_cup_2025.h9").read_bytes()
    assert formats.detect(h9, "results.txt") == "egd"


def test_inbox_end_to_end_by_content(tmp_path: Path) -> None:
    """Drop every supported real file into an inbox under odd names: grouped and read by content."""
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    for p in shared("chess").glob("*.trf"):
        shutil.copy(p, inbox / (p.stem + ".txt"))
    for p in shared("go").glob("*.xml"):
        shutil.copy(p, inbox / (p.stem + ".gotha"))
    for p in shared("ajusc", "manacup_2025_26").iterdir():
        shutil.copy(p, inbox / p.name)
    shutil.copy(
        shared("ajusc", "barruf_2025_26", "results", "BARRUF-191.results.csv"), inbox / "b191.csv"
    )
    shutil.copy(Path(__file__).parent / "data" / "autumn_cup_2025.h9", inbox / "cup.h9")
    groups = formats.group_inbox(sorted(inbox.iterdir()))
    results = [formats.read(g) for g in groups]
    fmts = sorted(r.format or "?" for r in results)
    assert fmts.count("trf") == 7
    assert fmts.count("opengotha") == 5
    assert fmts.count("swissperfect") == 1
    assert {"egd", "interchange-results"} <= set(fmts)


def test_aliases_make_one_player_of_two_spellings() -> None:
    """An OpenGotha player without PIN and the same person with a PIN in an EGD file become one player."""
    xml = (
        b'<?xml version="1.0" encoding="UTF-8"?><Tournament dataVersion="201"><Players>'
        b'<Player name="Garcia" firstName="Jordi" rank="3d" rating="2300" egfPin=""/>'
        b'<Player name="Puig" firstName="Anna" rank="1k" rating="2000" egfPin="55555555"/></Players><Games>'
        b'<Game whitePlayer="GARCIAJORDI" blackPlayer="PUIGANNA" handicap="0" result="RESULT_WHITEWINS" '
        b'roundNumber="1"/></Games><TournamentParameterSet><GeneralParameterSet name="X" beginDate="2025-01-01"/>'
        b"</TournamentParameterSet></Tournament>"
    )
    og = formats.read_bytes(xml, "x.xml")
    h9 = formats.read(Path(__file__).parent / "data" / "autumn_cup_2025.h9")
    assert "name:garcia-jordi" in og.players["player_id"].to_list()
    aliases = formats.read_bytes(
        b'federation,alias,player_id\negf,"Jordi GARCIA",12345678\n', "egf.aliases.csv"
    )
    assert aliases.format == "interchange-aliases"
    unified = og.with_aliases(aliases.aliases)
    assert unified.games.select("player_a").item() == "12345678"
    both = pl.concat([unified.players, h9.players]).unique(["federation", "player_id"])
    assert both.filter(pl.col("name").str.contains("Garcia|García")).height == 1


def test_aliases_from_a_registry_by_unique_name() -> None:
    registry = formats.read(shared("ajusc", "barruf_2025_26", "season.players.csv")).players
    t = "#date 2025-10-04\nTruyols, Xisco 1386 2; 400\nXurí, Mateu 1399 1; 380\n".encode()
    r = formats.read_bytes(t, "lliga.t")
    linked = r.with_aliases(formats.identity.aliases_from_names(r.players, registry))
    assert linked.games.select("player_a", "player_b").row(0) == ("1", "2")


FORMAT_SAMPLES = [
    b"federation,competition_id,start_date,round,player_a,player_b,score_a\najusc,C,2025-10-04,1,1,2,1\n",
    (
        b"012 T\r042 2025/10/04\r001    1 m    Doe, John                         1800 ESP     2200001"
        b" 1980        1.0    1     2 w 1\r001    2 m    Roe, Jane                            0 ESP"
        b"           0 1990        0.0    2     1 b 0\r"
    ),
    (
        b'<?xml version="1.0"?><Tournament dataVersion="201"><Players>'
        b'<Player name="A" firstName="B" rank="1k"/><Player name="C" firstName="D" rank="2k"/>'
        b'</Players><Games><Game whitePlayer="AB" blackPlayer="CD" '
        b'result="RESULT_WHITEWINS" roundNumber="1" handicap="0"/></Games></Tournament>'
    ),
    b"; CL[C]\n; DT[2025-10-04]\n1 A B 2d FR Lyon 2+/w\n2 C D 1k FR Lyon 1-/b\n",
    b"ROUND|TABLE_NO|WHITE_ID|BLACK_ID|WHITE_SCORE|BLACK_SCORE\r\n1|1|1|2|1|0\r\n",
    b"#date 2025-10-04\nA, B 1200 2; 400\nC, D 1100 1; 300\n",
]


@pytest.mark.hypothesis
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from(FORMAT_SAMPLES),
    st.lists(st.tuples(st.integers(0, 400), st.binary(max_size=3)), max_size=4),
    st.integers(0, 400),
)
def test_corrupted_files_of_every_format_never_raise(
    sample: bytes, edits: list[tuple[int, bytes]], cut: int
) -> None:
    data = sample
    for pos, chunk in edits:
        data = data[:pos] + chunk + data[pos + len(chunk) :]
    data = data[: max(cut, 1)] if cut < len(data) else data
    r = formats.read_bytes(data, "fuzz.bin")
    assert r.findings.schema == pl.Schema(FINDINGS_SCHEMA)
    assert "format.reader_error" not in r.findings["rule"].to_list(), r.findings[
        "message"
    ].to_list()
    # a game always has its two players and a line
    assert r.games.select("player_a", "player_b", "source_line").null_count().row(0) == (0, 0, 0)


@pytest.mark.hypothesis
@settings(max_examples=100, deadline=None)
@given(st.binary(max_size=300))
def test_random_bytes_never_raise(data: bytes) -> None:
    r = formats.read_bytes(data, "random.bin")
    assert r.format is None or r.format in formats.READERS
    assert "format.reader_error" not in r.findings["rule"].to_list(), r.findings[
        "message"
    ].to_list()


def test_egd_world_list_is_a_starting_list() -> None:
    path = shared("go", "rating_lists", "egd_allworld_lp_excerpt_2018-02-22.txt")
    raw = [
        ln.split()
        for ln in path.read_text(encoding="latin-1").splitlines()
        if ln[:10].strip().isdigit()
    ]
    seed = formats.read_ratings(path)
    assert seed.height == len(raw) == 10
    assert seed["player_id"].to_list() == [row[0] for row in raw]
    assert seed["rating"].to_list() == [float(row[-3]) for row in raw]
    assert set(seed["as_of"].cast(pl.Utf8)) == {"2018-02-22"}
    players = formats.read(path).players
    assert players.filter(pl.col("player_id") == "15650261").select("declared_rank", "country").row(
        0
    ) == ("20k", "XX")


def test_group_inbox_opens_folders(tmp_path: Path) -> None:
    inbox = tmp_path / "inbox"
    shutil.copytree(shared("ajusc", "barruf_2025_26"), inbox / "barruf")
    shutil.copytree(shared("ajusc", "manacup_2025_26"), inbox / "manacup")
    (inbox / ".DS_Store").write_bytes(b"\x00")
    groups = formats.group_inbox([inbox])
    singles = [g for g in groups if isinstance(g, Path)]
    sets = [g for g in groups if isinstance(g, list)]
    assert len(sets) == 1 and len(sets[0]) == 17
    assert len(singles) == 20 + 4  # 20 results, players, ratings, README, official figures
    read = [formats.read(g) for g in groups]
    assert sum(r.games.height for r in read) == 2505 + 450


def test_native_file_sent_to_another_federation_is_refused() -> None:
    r = formats.read(shared("chess", "gros_open_donostia_2010.trf"), federation="egf")
    assert r.findings.select("rule", "severity").rows() == [
        ("format.federation_mismatch", "reject")
    ]
    assert r.games.height == 0
    assert (
        formats.read(shared("chess", "gros_open_donostia_2010.trf"), federation="fide").games.height
        == 93
    )
    sp = formats.read(shared("ajusc", "manacup_2025_26"), federation="fide")
    assert sp.findings["rule"].to_list() == ["format.federation_mismatch"]


@pytest.mark.parametrize(
    ("data", "name", "rule"),
    [
        (
            (
                b"federation,competition_id,start_date,round,player_a,player_b,score_a\n"
                b"ajusc,C,2025-10-04,99999999999999999999,1,2,1\n"
            ),
            "x.results.csv",
            "format.csv.bad_round",
        ),
        (
            b"ROUND|TABLE_NO|WHITE_ID|BLACK_ID|WHITE_SCORE|BLACK_SCORE\r\n99999999999|1|1|2|1|0\r\n",
            "x.rnd",
            "format.swissperfect.bad_round",
        ),
        (
            b"; CL[C]\n; DT[2025-10-04]\n1 A B 2d FR Lyon 2+/w123\n2 C D 1k FR Lyon 1-/b123\n",
            "x.h9",
            "format.egd.bad_result",
        ),
    ],
    ids=["interchange", "swissperfect", "egd"],
)
def test_numbers_out_of_range_are_findings_not_nulls(data: bytes, name: str, rule: str) -> None:
    """A number too large for its column must be a finding, never a silently null value."""
    r = formats.read_bytes(data, name)
    assert rule in r.findings["rule"].to_list()
    assert r.games.select("round", "handicap").null_count().row(0)[0] == 0
