"""Decoding, line splitting and dates: the helpers every reader relies on."""

from __future__ import annotations

from datetime import date

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from formats._common import decode, parse_date, split_lines

# Letters of Catalan, Spanish, French, German, Turkish-in-Latin-1 names.
LATIN1_NAMES = st.text(
    alphabet="abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ àáèéíïòóúüçñÀÈÉÍÒÓÚÇÑ·ßöäÖÄ,.-'",
    min_size=1,
    max_size=40,
)


@pytest.mark.hypothesis
@given(LATIN1_NAMES)
def test_names_survive_every_encoding(name: str) -> None:
    assert decode(name.encode("utf-8")).text == name
    for enc in ("latin-1", "cp1252"):
        data = name.encode(enc)
        # Inherent ambiguity: a capital accented letter followed by a symbol ("Ä·") is also
        # valid UTF-8 ("ķ"); UTF-8 wins, as it must for files that are UTF-8. Names do not
        # hold such pairs, so the property is stated for the others.
        assume(not _valid_utf8(data) or data.isascii())
        assert decode(data).text == name


def _valid_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def test_windows_1252_specials_and_latin1_fallback() -> None:
    assert decode("O’Neill – Œuvre €".encode("cp1252")).text == "O’Neill – Œuvre €"
    # 0x81 is undefined in Windows-1252: the bytes can only be Latin-1
    assert decode(b"a\x81b").encoding == "latin-1"
    assert decode("\ufeffAnna".encode()).text == "Anna"  # the BOM is dropped
    assert decode(b"one\r\ntwo\r\nXur\xed\r\n").first_non_utf8_line == 3


@pytest.mark.parametrize(
    ("text", "lines"),
    [
        ("a\nb\n", ["a", "b"]),
        ("a\r\nb\r\n", ["a", "b"]),
        ("a\rb\r", ["a", "b"]),
        ("a\r\rb", ["a", "", "b"]),
        ("a", ["a"]),
        ("", []),
    ],
)
def test_split_lines(text: str, lines: list[str]) -> None:
    assert split_lines(text) == lines


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2010/09/24", date(2010, 9, 24)),  # TRF 042, YYYY/MM/DD
        ("24/09/2010", date(2010, 9, 24)),  # gros_open_donostia_2010.trf
        ("2005.11.26", date(2005, 11, 26)),  # karl_mala birth dates
        ("28. 07. 2005", date(2005, 7, 28)),  # karl_mala_frankfurt_2005.trf 042
        ("May 29, 2020", date(2020, 5, 29)),  # lichess_swiss_2020_06.trf 042
        ("18/04/08", date(2018, 4, 8)),  # san_viator 132 round dates, YY/MM/DD
        ("2024-07-06", date(2024, 7, 6)),  # OpenGotha beginDate, EGD DT
        ("22 Feb 2018", date(2018, 2, 22)),  # EGD allworld_lp header
        ("20250930", date(2025, 9, 30)),
    ],
)
def test_every_date_style_of_the_real_files(text: str, expected: date) -> None:
    assert parse_date(text) == expected


@pytest.mark.parametrize("text", ["", "2025-02-30", "13/13/2020", "soon", "2025-1", "Foo 12, 2020"])
def test_not_dates(text: str) -> None:
    assert parse_date(text) is None


@pytest.mark.hypothesis
@given(st.dates(min_value=date(1971, 1, 1), max_value=date(2069, 12, 31)))
def test_date_styles_round_trip(d: date) -> None:
    for text in (
        d.isoformat(),
        d.strftime("%Y/%m/%d"),
        d.strftime("%d/%m/%Y"),
        d.strftime("%Y.%m.%d"),
        d.strftime("%y/%m/%d"),
        d.strftime("%d. %m. %Y"),
        d.strftime("%b %d, %Y"),
    ):
        assert parse_date(text) == d, text
