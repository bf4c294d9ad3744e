"""Values checked at the boundary: finite, in range, or a finding naming file, line, field."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

import formats
from flows.cli import app
from formats.result import FieldValueError, frame
from formats.schema import GAMES_SCHEMA

SEED_HEAD = "federation,player_id,name,rating,games,as_of,rated_max\n"


@pytest.mark.parametrize(
    ("row", "field", "shown"),
    [
        ("ajusc,7,Ann,nan,40,2025-09-01,", "rating", "nan"),
        ("ajusc,7,Ann,inf,40,2025-09-01,", "rating", "inf"),
        ("ajusc,7,Ann,1e999,40,2025-09-01,", "rating", "inf"),
        ("ajusc,7,Ann,1100,-3,2025-09-01,", "games", "-3"),
        ("ajusc,7,Ann,1100,99999999999999999999,2025-09-01,", "games", "99999999999999999999"),
        ("ajusc,7,Ann,1100,40,2025-09-01,nan", "rated_max", "nan"),
    ],
)
def test_seed_refuses_a_bad_value_with_its_line(tmp_path: Path, row: str, field: str, shown: str) -> None:
    """`ratings seed` refused nothing of this: a NaN seed rating became a 950 newcomer."""
    path = tmp_path / "season.ratings.csv"
    path.write_text(SEED_HEAD + "ajusc,6,Bo,1200,10,2025-09-01,\n" + row + "\n", encoding="utf-8")
    result = CliRunner().invoke(app, ["seed", "--federation", "ajusc", str(path),
                                      "--warehouse", f"sqlite:///{tmp_path / 'w.db'}"])
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output
    assert f"line 3, field '{field}'" in result.output and shown in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_a_number_too_large_for_its_column_is_an_error_not_a_null() -> None:
    with pytest.raises(FieldValueError) as caught:
        frame([{"round": 1, "source_line": 2}, {"round": 2**40, "source_line": 3}], GAMES_SCHEMA)
    assert caught.value.field == "round" and caught.value.line == 3


def test_native_reader_values_are_checked() -> None:
    """OpenGotha ratings are read with float(): nan, inf and 1e999 used to pass."""
    for bad in ("nan", "inf", "1e999", "-5000"):
        xml = (
            '<?xml version="1.0"?><Tournament><TournamentParameterSet><GeneralParameterSet '
            'name="T" beginDate="2025-10-04" endDate="2025-10-04" numberOfRounds="1"/>'
            '</TournamentParameterSet><Players>'
            f'<Player name="A" firstName="B" rank="1k" egfPin="11" rating="{bad}" ratingOrigin="EGF"/>'
            '<Player name="C" firstName="D" rank="2k" egfPin="12" rating="1900" ratingOrigin="EGF"/>'
            '</Players><Games><Game whitePlayer="AB" blackPlayer="CD" '
            'result="RESULT_WHITEWINS" roundNumber="1" handicap="0"/></Games></Tournament>'
        ).encode()
        r = formats.read_bytes(xml, "t.xml")
        found = r.findings.filter(pl.col("rule") == "limits.value_out_of_range")
        assert found.height == 1, (bad, r.findings.rows())
        assert found.row(0, named=True)["field"] == "declared_rating"
        assert found.row(0, named=True)["severity"] == "reject"
        assert found.row(0, named=True)["competition_id"] is not None   # rejects the competition


#: A player record of the reader tests' sample (tests/formats/test_api.py), columns as TRF16 has them.
_LINE = "001    1 m    Doe, John                         1800 ESP     2200001 1980        1.0    1     2 w 1"


def _trf(second_id: str) -> bytes:
    def player(rank: int, name: str, fid: str, opponent: int, colour: str, won: bool) -> str:
        line = _LINE.replace("   1 m", f"{rank:4d} m").replace("Doe, John", f"{name:<9}"[:9])
        line = line.replace("2200001", f"{fid:>7}").replace("1.0    1", ("1.0" if won else "0.0") + f"{rank:5d}")
        return line[:-8] + f"{opponent:4d} {colour} {'1' if won else '0'}" + "\r"

    text = ("012 T\r042 2025/10/04\r" + player(1, "Doe, John", "2200001", 2, "w", True)
            + player(2, "Roe, Jane", second_id, 1, "b", False) + player(3, "Poe, Anna", "2200003", 4, "w", True)
            + player(4, "Loe, Joan", "2200004", 3, "b", False))
    return text.encode()


def test_two_players_with_one_fide_id_reject_the_competition() -> None:
    """It used to be a `same_name` warning saying "no FIDE id", and the second got a made-up id."""
    ok = formats.read_bytes(_trf("2200002"), "t.trf")
    assert ok.ok and ok.players.height == 4, ok.findings.rows()
    dup = formats.read_bytes(_trf("2200001"), "t.trf")
    rules = dup.findings.select("rule", "severity", "line").rows()
    assert ("format.trf.duplicate_id", "reject", 4) in rules
    assert "format.trf.same_name" not in [r[0] for r in rules]
    assert not any("#" in p for p in dup.players.get_column("player_id").to_list())
    assert dup.findings.filter(pl.col("severity") == "reject").get_column("competition_id").null_count() == 0


ALIAS_HEAD = b"federation,alias,player_id\n"


def test_aliases_are_checked_against_their_federation() -> None:
    sent_to_egf = formats.read_bytes(ALIAS_HEAD + b"ajusc,Kowalski Jan,10950\n", "a.aliases.csv", federation="egf")
    assert sent_to_egf.findings.select("rule", "line", "field").rows() == [
        ("format.csv.unknown_federation", 2, "federation")
    ]
    assert sent_to_egf.aliases.height == 0
    bad = formats.read_bytes(
        ALIAS_HEAD + b"fide,Doe John,name:doe-john\nfide,Roe,12x\nfide,Poe,7\nfide,Poe,8\nfide,9,9\n",
        "b.aliases.csv",
    )
    assert bad.findings.select("rule", "line").rows() == [
        ("format.csv.bad_alias", 2), ("format.csv.bad_alias", 3), ("format.csv.bad_alias", 5),
        ("format.csv.bad_alias", 6),
    ]
    assert bad.aliases.rows() == [("fide", "Poe", "7")]


def test_every_real_file_passes_the_boundary_checks(shared_data: Path) -> None:
    """The limits are wide enough for every real file (none of them gains a limits finding)."""
    units = formats.group_inbox(sorted(p for p in shared_data.rglob("*") if p.is_file()))
    hit = []
    for unit in units:
        r = formats.read(unit)
        rules = set(r.findings.get_column("rule"))
        hit += [(str(unit), rule) for rule in rules if rule.startswith("limits.") or rule == "format.reader_error"]
    assert hit == []
