"""The list rows formatted by polars (``list_rows_by_edition``) are the rows ``list_rows`` makes one by one.

A full edition of a large archive is tens of thousands of rows: the site formats them in
polars, and this property keeps that formatting byte for byte the Python one's (rounding
half to even, ``-0``, the minus sign, escaping, empty statuses, sections and their order).
"""

from __future__ import annotations

from typing import Any

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from website.fragments import Names, list_rows, list_rows_by_edition

pytestmark = pytest.mark.hypothesis

SCHEMA = {"ed": pl.Int64(), "player_id": pl.Utf8(), "rank": pl.Int64(), "rating": pl.Float64(),
          "change": pl.Float64(), "new": pl.Boolean(), "category": pl.Utf8(), "status": pl.Utf8(),
          "games": pl.Int64()}
NAMES = {"1001": "Ann <b>", "b\x07": None, "c": "Çe & d'", "../x": "Dot dot"}

# Ties and signs where formatting can go wrong, beside ordinary figures.
figures = st.one_of(
    st.none(),
    st.sampled_from([0.0, -0.0, 0.5, -0.5, 1.5, -1.5, 2.5, -0.4, 1834.5, 1835.5, 1834.4999999]),
    st.floats(min_value=-5000, max_value=5000, allow_nan=False),
)
rows = st.fixed_dictionaries({
    "ed": st.integers(0, 2),
    "player_id": st.one_of(st.none(), st.sampled_from([*NAMES, "2002", "<script>"]), st.text(max_size=6)),
    "rank": st.one_of(st.none(), st.integers(1, 60_000)),
    "rating": figures,
    "change": figures,
    "new": st.one_of(st.none(), st.booleans()),
    "category": st.one_of(st.none(), st.sampled_from(["", "U18", "S65", "<x>&"]), st.text(max_size=3)),
    "status": st.one_of(st.none(), st.sampled_from(["", "active", "provisional", "inactive", "unrated", "left"]),
                        st.text(max_size=4)),
    "games": st.one_of(st.none(), st.integers(0, 500)),
})


def _by_edition(listed: list[dict[str, Any]], ranked: bool) -> dict[int, str]:
    names = Names(NAMES, "../players/")
    return {ed: str(list_rows([r for r in listed if r["ed"] == ed], names, ranked=ranked))
            for ed in sorted({r["ed"] for r in listed})}


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(listed=st.lists(rows, max_size=40), ranked=st.booleans())
def test_the_rows_formatted_by_polars_are_the_rows_formatted_one_by_one(
    listed: list[dict[str, Any]], ranked: bool
) -> None:
    frame = pl.DataFrame(listed, schema=SCHEMA)
    got = list_rows_by_edition(frame, Names(NAMES, "../players/"), ranked=ranked)
    assert got is not None
    assert {ed: str(html) for ed, html in got.items()} == _by_edition(listed, ranked)


@pytest.mark.parametrize("rating", [float("inf"), float("nan"), 2.0 ** 60])
def test_a_figure_polars_cannot_format_like_python_is_left_to_the_python_rows(rating: float) -> None:
    frame = pl.DataFrame([{"ed": 0, "player_id": "1001", "rank": 1, "rating": rating, "change": None,
                           "new": False, "category": None, "status": "active", "games": 3}], schema=SCHEMA)
    assert list_rows_by_edition(frame, Names(NAMES, "")) is None


def test_ranks_that_are_not_integers_are_left_to_the_python_rows() -> None:
    frame = pl.DataFrame([{"ed": 0, "player_id": "1001", "rank": 1.0, "rating": 1500.0}],
                         schema={"ed": pl.Int64(), "player_id": pl.Utf8(), "rank": pl.Float64(),
                                 "rating": pl.Float64()}).with_columns(
        change=pl.lit(None, pl.Float64()), new=pl.lit(False), category=pl.lit(None, pl.Utf8()),
        status=pl.lit("active"), games=pl.lit(3, pl.Int64()))
    assert list_rows_by_edition(frame, Names(NAMES, "")) is None


@settings(max_examples=200, deadline=None)
@given(values=st.lists(st.one_of(st.none(), st.text(), st.sampled_from(["<a href='x'>&amp;</a>", "\x00\x1f\x7f\x85\x9f",
                                                                        "C/2 <x>", "../../etc", "a..b", "x" * 90]))),
       names=st.dictionaries(st.text(max_size=8), st.one_of(st.none(), st.text(max_size=8)), max_size=6))
def test_texts_and_links_escaped_by_polars_are_those_escaped_one_by_one(
    values: list[str | None], names: dict[str, str | None]
) -> None:
    from website.fragments import escaped, text

    got = pl.DataFrame({"v": values}, schema={"v": pl.Utf8()}).select(escaped(pl.col("v"))).get_column("v").to_list()
    assert got == [text(v) for v in values]
    ids = [*values, *names]
    linked = Names(names, "../players/")
    assert linked.links(ids).get_column("_link").to_list() == [linked.link(i) for i in ids]


def test_the_list_rows_benchmark_runs_and_finds_both_ways_equal(capsys: pytest.CaptureFixture[str]) -> None:
    from benchmarks.bench_list_rows import main

    assert main(["--editions", "2", "--lines", "400", "--players", "300"]) == 0
    assert "800 rows" in capsys.readouterr().out
