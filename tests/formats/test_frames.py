"""The fast frame builders of the readers give exactly the frames of the strict,
column-by-column construction they replace, and still refuse what does not fit."""

from __future__ import annotations

from datetime import date
from typing import Any

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from formats._common import Findings
from formats.result import FieldValueError, frame
from formats.schema import COMPETITIONS_SCHEMA, GAMES_SCHEMA, conform, empty, plain_frame


def _column_by_column(rows: list[dict[str, Any]], schema: dict[str, pl.DataType]) -> pl.DataFrame:
    return pl.DataFrame([pl.Series(n, [r.get(n) for r in rows], dtype=d, strict=True) for n, d in schema.items()])


_GAME = st.fixed_dictionaries(
    {"federation": st.sampled_from(["ajusc", "fide"]), "round": st.integers(1, 999),
     "player_a": st.text(max_size=5), "player_b": st.text(max_size=5)},
    optional={"competition_id": st.one_of(st.none(), st.text(max_size=4)),
              "score_a": st.one_of(st.none(), st.sampled_from([0.0, 0.5, 1.0])),
              "handicap": st.one_of(st.none(), st.integers(-9, 9)), "source_line": st.integers(1, 2**31 - 1),
              "unrelated": st.integers()},
)


@pytest.mark.hypothesis
@settings(max_examples=100, deadline=None)
@given(st.lists(_GAME, min_size=1, max_size=20))
def test_plain_rows_build_the_same_frame(rows: list[dict[str, Any]]) -> None:
    fast = plain_frame(rows, GAMES_SCHEMA)
    assert fast is not None
    slow = _column_by_column(rows, GAMES_SCHEMA)
    assert fast.schema == slow.schema and fast.equals(slow)
    assert frame(rows, GAMES_SCHEMA).equals(slow)


def test_a_value_of_another_type_takes_the_strict_path() -> None:
    assert plain_frame([{"round": True}], GAMES_SCHEMA) is None   # a bool is no round number
    assert plain_frame([{"start_date": "2025-01-01"}], COMPETITIONS_SCHEMA) is None
    with pytest.raises(FieldValueError, match="field 'round'"):
        frame([{"round": "x", "source_line": 3}], GAMES_SCHEMA)
    with pytest.raises(FieldValueError, match="field 'round': 99999999999 on line 4"):
        frame([{"round": 99_999_999_999, "source_line": 4}], GAMES_SCHEMA)
    built = frame([{"competition_id": "C", "start_date": date(2025, 1, 1), "rounds": 3}], COMPETITIONS_SCHEMA)
    assert built.row(0)[1:5] == ("C", None, date(2025, 1, 1), None)


def test_empty_and_conform_without_a_query_keep_their_meaning() -> None:
    one, two = empty(GAMES_SCHEMA), empty(GAMES_SCHEMA)
    assert one is not two and one.schema == two.schema and one.height == 0
    games = frame([{"federation": "fide", "round": 1, "player_a": "1", "player_b": "2"}], GAMES_SCHEMA)
    assert conform(games, GAMES_SCHEMA) is games                       # already conforming
    widened = conform(games.select("player_a", "round"), GAMES_SCHEMA)  # a select still fills the rest
    assert widened.columns == list(GAMES_SCHEMA) and widened.row(0)[2:4] == (1, "1")


def test_findings_frame_of_plain_and_odd_values() -> None:
    f = Findings("a.trf", "fide")
    f.add("format.trf.bad_date", "reject", "not a date", line=3, field="092")
    assert f.frame().select("rule", "line", "field").row(0) == ("format.trf.bad_date", 3, "092")
    f.rows[0]["line"] = True   # not plain: the lenient column-by-column path still builds it
    assert f.frame().height == 1
