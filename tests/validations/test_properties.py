"""Invariants (Hypothesis): class monotonic in time, escaping total, findings consistent."""

from __future__ import annotations

import re
from datetime import date

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from validations import validate
from validations.egf import CLASS_ORDER, tournament_class
from validations.report import md_escape

pytestmark = pytest.mark.hypothesis
_RANK = {c: i for i, c in enumerate(CLASS_ORDER)}


@given(basic=st.floats(0, 240), extra=st.floats(0, 60), more=st.floats(0, 60))
def test_more_time_never_gives_a_weaker_class(basic: float, extra: float, more: float) -> None:
    base = tournament_class(basic, basic + extra)
    longer = tournament_class(basic + more, basic + extra + more)
    if base is not None:
        assert longer is not None and _RANK[longer] <= _RANK[base]


@given(st.text())
def test_markdown_escape_leaves_no_live_markup(text: str) -> None:
    out = md_escape(text)
    assert "\n" not in out and "<" not in out and ">" not in out
    assert not re.search(r"(?<!\\)\|", out.replace("\\\\", ""))


_ids = st.sampled_from(["1", "2", "3", "4", "5", None])
_game = st.fixed_dictionaries({
    "round": st.one_of(st.none(), st.integers(-1, 6)),
    "player_a": _ids, "player_b": _ids,
    "score_a": st.sampled_from([None, 0.0, 0.5, 1.0, 0.7]),
    "status": st.sampled_from([None, "played", "forfeit", "unknown", "bogus"]),
})


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_game, max_size=25), st.booleans())
def test_validate_never_raises_and_status_follows_findings(games: list[dict[str, object]], public: bool) -> None:
    """Whatever a file holds, validate answers with findings; rejected iff a reject finding."""
    comps = pl.DataFrame({"federation": ["ajusc"], "competition_id": ["C"], "start_date": [date(2025, 10, 4)],
                          "results_public": [public], "source": ["c.results.csv"]})
    frame = pl.DataFrame(
        [{"competition_id": "C", "source_line": i + 2, **g} for i, g in enumerate(games)],
        schema={"competition_id": pl.Utf8, "source_line": pl.Int32, "round": pl.Int32, "player_a": pl.Utf8,
                "player_b": pl.Utf8, "score_a": pl.Float64, "status": pl.Utf8},
    )
    v = validate(comps, frame, federation="ajusc")
    rejected = v.findings.filter(pl.col("severity") == "reject").height > 0
    assert v.competitions.item(0, "status") == ("rejected" if rejected else "accepted")
    assert set(v.findings.get_column("source").to_list()) <= {"c.results.csv"}
    game_lines = set(frame.get_column("source_line").to_list())
    assert set(v.findings.get_column("line").drop_nulls().to_list()) <= game_lines
    assert v.games.height == frame.height
    if rejected:
        assert not v.games.get_column("rated").any()
