"""The federations' list downloads (formats/list_exports.py), read back by our own readers.

Each writer's file is read by the reader of that format (FIDE TXT and XML, the EGD's
``allworld_lp``, the spreadsheet) and must give back the rows written: on a real list
(the seeded FIDE list, the EGD's own page) and on generated lists with hostile names.
"""

from __future__ import annotations

import string
from collections.abc import Sequence
from datetime import date

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import formats
from formats.fide_lists import from_fide_txt, from_fide_xml
from formats.list_exports import (
    ListExportError,
    ListHeader,
    egd_left_out,
    escape_controls,
    export_file_name,
    export_list,
    read_xlsx,
)
from formats.ratinglists import from_egd_list
from tests.formats.conftest import shared

HEADER = ListHeader("fide", 7, date(2025, 10, 1), "standard")


def _rows(players: Sequence[tuple[str, str | None, float | None, int | None, str | None]]) -> pl.DataFrame:
    return pl.DataFrame(players, schema={"player_id": pl.Utf8, "name": pl.Utf8, "rating": pl.Float64,
                                         "games": pl.Int64, "status": pl.Utf8}, orient="row")


def _whole(x: float | None) -> float | None:
    return None if x is None else float(int(abs(x) + 0.5) * (1 if x >= 0 else -1))


def _expected(rows: pl.DataFrame, *, strip: bool) -> list[tuple[object, ...]]:
    out: list[tuple[object, ...]] = []
    for pid, name, rating, games, status in rows.iter_rows():
        shown = escape_controls(name) if name is not None else None
        if strip and shown is not None:
            shown = shown.strip()
        out.append((pid, shown or None, _whole(rating), games, "inactive" if status == "inactive" else None))
    return out


def _read_back(result: formats.ReadResult) -> list[tuple[object, ...]]:
    assert result.findings.filter(pl.col("severity") == "reject").height == 0, result.findings.to_dicts()
    return [tuple(r) for r in result.ratings.select("player_id", "name", "rating", "games", "status").iter_rows()]


@pytest.fixture(scope="module")
def fide_seed() -> pl.DataFrame:
    """The real seeded FIDE list (../shared/data/fide/published_periods), as its rows."""
    seed = formats.read_ratings(shared("fide", "published_periods", "seed.ratings.csv"))
    return seed.select("player_id", "name", "rating", "games", pl.lit(None, pl.Utf8).alias("status"))


def test_fide_txt_round_trip_on_the_real_seed(fide_seed: pl.DataFrame) -> None:
    data = export_list(fide_seed, "fide-txt", HEADER)
    back = from_fide_txt(data, export_file_name(HEADER, "fide-txt"))
    assert back.format == "fide-txt"
    assert _read_back(back) == _expected(fide_seed, strip=True)
    assert set(back.ratings.get_column("as_of").to_list()) == {date(2025, 10, 1)}   # the OCT25 column
    # The seed's ids are longer than FIDE's 15 columns: the ID column widens, the reader follows the header.
    assert data.splitlines()[0].startswith(b"ID Number         Name ")


def test_fide_txt_keeps_fides_columns_for_fide_ids() -> None:
    rows = _rows([("1503014", "Carlsen, Magnus", 2839.0, 9, "inactive")])
    header, line = export_list(rows, "fide-txt", HEADER).decode().splitlines()
    assert header.index("Name") == 15 and header.index("Fed") == 76 and header.index("OCT25") == 113
    assert line[:15].rstrip() == "1503014" and line[113:119].rstrip() == "2839" and line.endswith("i")


def test_fide_xml_round_trip_on_the_real_seed(fide_seed: pl.DataFrame) -> None:
    data = export_list(fide_seed, "fide-xml", HEADER)
    back = from_fide_xml(data, export_file_name(HEADER, "fide-xml"))
    assert _read_back(back) == _expected(fide_seed, strip=False)
    assert set(back.ratings.get_column("as_of").to_list()) == {date(2025, 10, 1)}   # from the file's name
    assert data.startswith(b'<?xml version="1.0" encoding="UTF-8"?>\n<playerslist>\n<player><fideid>')


def test_egd_round_trip_on_the_real_egd_page() -> None:
    """The EGD's own page read, written again, read again: the same players, GoR and date."""
    page = shared("go", "rating_lists", "egd_allworld_lp_excerpt_2018-02-22.txt").read_bytes()
    first = from_egd_list(page, "allworld_lp.html")
    rows = first.ratings.select("player_id", "name", "rating")
    header = ListHeader("egf", 1, date(2018, 2, 22))
    again = from_egd_list(export_list(rows, "egd", header, players=first.players), "egf.html")
    assert again.findings.filter(pl.col("severity") == "reject").height == 0
    assert again.ratings.select("player_id", "name", "rating", "as_of").rows() == \
        first.ratings.select("player_id", "name", "rating", "as_of").rows()
    assert again.players.select("country", "club").rows() == first.players.select("country", "club").rows()


def test_xlsx_round_trip_is_typed_and_never_a_formula() -> None:
    rows = pl.DataFrame({"player_id": ["007", "12"], "name": ["=HYPERLINK(\"http://x\")", "#N/A"],
                         "rating": [1510, None], "games": [3, 0], "edition": [191, 191],
                         "as_of": ["2025-10-04", "2025-10-04"]})
    header = ListHeader("ajusc", 191, date(2025, 10, 4))
    data = export_list(rows, "xlsx", header)
    back = read_xlsx(data)
    assert back.rows() == rows.rows()
    assert back.columns == rows.columns
    assert data == export_list(rows, "xlsx", header)   # the same edition, the same bytes


def test_egd_leaves_out_players_without_a_pin_and_says_how_many() -> None:
    rows = _rows([("13633719", "Aagren Thomas", 1484.0, None, None), ("name:jose-munoz", "Muñoz José", 1500.0,
                                                                       None, None)])
    back = from_egd_list(export_list(rows, "egd", ListHeader("egf", 2, date(2025, 1, 5))), "egf.html")
    assert back.ratings.get_column("player_id").to_list() == ["13633719"]
    assert egd_left_out(rows) == 1


@pytest.mark.parametrize("fmt", ["fide-txt", "fide-xml", "egd", "xlsx"])
def test_an_id_that_no_list_can_carry_is_refused_in_one_line(fmt: str) -> None:
    rows = _rows([("12 34", "Anna", 1500.0, 1, None)])
    with pytest.raises(ListExportError, match=r"row 1, field 'player_id'") as error:
        export_list(rows, fmt, HEADER)
    assert "\n" not in str(error.value)


# Hostile names: any printable text, XML and HTML specials, accents, right-to-left marks and
# control characters (written escaped); ids as the federations give them.
_NAMES = st.text(st.characters(exclude_categories=["Cs"]), min_size=1, max_size=40) | st.sampled_from(
    ["<b>&amp;</b>", "O'Brien & \"Sons\"", "]]>", "Müller, Jürgen", "李 小龍", "\u202eevil", "a\x00b\rc\nd\x85",
     "  spaced  ", "=1+1", "&#x41;"])
_IDS = st.text(string.ascii_letters + string.digits + "-_:.", min_size=1, max_size=20)
_PLAYERS = st.lists(st.tuples(_IDS, _NAMES, st.one_of(st.none(), st.floats(-500, 3500).map(lambda x: round(x, 1))),
                              st.one_of(st.none(), st.integers(0, 9999)),
                              st.sampled_from([None, "active", "inactive"])),
                    min_size=1, max_size=12, unique_by=lambda p: p[0])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_PLAYERS)
def test_fide_txt_round_trip_on_generated_lists(players: list[tuple[str, str, float | None, int | None,
                                                                     str | None]]) -> None:
    rows = _rows(players)
    assert _read_back(from_fide_txt(export_list(rows, "fide-txt", HEADER), "x.txt")) == _expected(rows, strip=True)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_PLAYERS)
def test_fide_xml_round_trip_on_generated_lists(players: list[tuple[str, str, float | None, int | None,
                                                                     str | None]]) -> None:
    rows = _rows(players)
    assert _read_back(from_fide_xml(export_list(rows, "fide-xml", HEADER), "x.xml")) == _expected(rows, strip=False)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.integers(10000, 999999999).map(str), _NAMES, st.floats(-900, 3000)),
                min_size=1, max_size=12, unique_by=lambda p: p[0]))
def test_egd_round_trip_on_generated_lists(players: list[tuple[str, str, float]]) -> None:
    rows = _rows([(pid, name, gor, None, None) for pid, name, gor in players])
    day = date(2026, 2, 28)
    back = from_egd_list(export_list(rows, "egd", ListHeader("egf", 4, day)), "egf.html")
    expected = [(pid, (escape_controls(name).strip() or "?"), _whole(gor), None, None)
                for pid, name, gor, _, _ in rows.iter_rows()]
    assert _read_back(back) == expected
    assert set(back.ratings.get_column("as_of").to_list()) == {day}


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_PLAYERS)
def test_xlsx_round_trip_on_generated_lists(players: list[tuple[str, str, float | None, int | None,
                                                                 str | None]]) -> None:
    rows = _rows(players)
    back = read_xlsx(export_list(rows, "xlsx", ListHeader("ajusc", 1, date(2025, 9, 1))))
    assert back.columns == rows.columns
    assert [tuple(r) for r in back.iter_rows()] == [
        (pid, escape_controls(name), rating, games, status) for pid, name, rating, games, status in rows.iter_rows()]


# The writers are polars expressions; the first ones, row by row in Python, are the reference
# (tests/formats/list_exports_reference.py): the same bytes, on hostile names and ids too.
_ANY_NAMES = st.one_of(st.none(), _NAMES, st.text(st.characters(exclude_categories=["Cs"]), max_size=6),
                       st.sampled_from(["\u3000Ω\u00a0", "\x1c\x1dx\x1e\x1f", "\u2028a\u2029", "\u180ez\u200b",
                                        "\ufeffb\ufeff", " \t"]))
_ANY_PLAYERS = st.lists(st.tuples(_IDS, _ANY_NAMES, st.one_of(st.none(), st.just(float("nan")),
                                                            st.floats(-5000, 5000, allow_nan=False)),
                                  st.one_of(st.none(), st.integers(0, 99999)),
                                  st.sampled_from([None, "active", "inactive"])),
                        max_size=12, unique_by=lambda p: p[0])


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_ANY_PLAYERS, st.dates(date(1990, 1, 1), date(2099, 12, 31)))
def test_fide_writers_equal_the_row_by_row_reference(players: list[tuple[str, str | None, float | None,
                                                                           int | None, str | None]],
                                                     day: date) -> None:
    from tests.formats import list_exports_reference as reference

    rows = _rows(players)
    header = ListHeader("fide", 3, day, "rapid")
    assert export_list(rows, "fide-txt", header) == reference.fide_txt(rows.to_dicts(), header)
    assert export_list(rows, "fide-xml", header) == reference.fide_xml(rows.to_dicts())


def test_fide_writers_equal_the_reference_on_the_real_seed(fide_seed: pl.DataFrame) -> None:
    from tests.formats import list_exports_reference as reference

    assert export_list(fide_seed, "fide-txt", HEADER) == reference.fide_txt(fide_seed.to_dicts(), HEADER)
    assert export_list(fide_seed, "fide-xml", HEADER) == reference.fide_xml(fide_seed.to_dicts())


def test_fide_writers_take_rows_without_the_optional_columns() -> None:
    from tests.formats import list_exports_reference as reference

    rows = pl.DataFrame({"player_id": ["1503014", "x:2"], "rating": [2830.5, -0.4]})
    assert export_list(rows, "fide-txt", HEADER) == reference.fide_txt(rows.to_dicts(), HEADER)
    assert export_list(rows, "fide-xml", HEADER) == reference.fide_xml(rows.to_dicts())
