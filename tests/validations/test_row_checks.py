"""The row checks (``validations/row_checks.py``) say what Great Expectations says, row for row.

The findings of a batch come from the row checks; Great Expectations checks a sample of each
big table and must agree on it. Here the two are compared on random tables (hypothesis) with
nulls, NaNs, repeated keys and every kind of expectation of ``rules.toml``, with the
expectations built by ``validations.suites.expectation`` as the suites build them.
"""

from __future__ import annotations

import itertools
from datetime import date
from typing import Any

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from validations import row_checks
from validations.rules import Rule, load_rules
from validations.suites import expectation

_IDS = itertools.count()


def _rule(expect: str, **fields: Any) -> Rule:
    return Rule(id=f"probe.{expect}.{next(_IDS)}", federations=("*",), severity="warn", table="games",
                expect=expect, message="", **fields)


def _rules(low: float, high: float, pick: list[str]) -> list[Rule]:
    """One rule of every kind, on every column type that the tables carry."""
    rules = [_rule("not_null", column=c) for c in ("f", "i", "s", "b", "d")]
    rules += [_rule("between", column="f", min=low, max=high), _rule("between", column="i", min=low),
              _rule("between", column="i", max=high)]
    rules += [_rule("in_set", column="s", values=tuple(pick)), _rule("not_in_set", column="s", values=tuple(pick)),
              _rule("in_set", column="f", values=(0.0, 0.5, 1.0)), _rule("in_set", column="b", values=(True,)),
              _rule("not_in_set", column="i", values=(1, 2))]
    rules += [_rule("unique", columns=(c,)) for c in ("s", "i", "f")]
    rules += [_rule("unique", columns=("competition_id", "s")), _rule("unique", columns=("competition_id", "i", "f"))]
    rules += [_rule("a_greater_than_b", column_a=a, column_b=b, or_equal=eq)
              for a, b in (("i", "f"), ("d", "d2"), ("s", "s2")) for eq in (False, True)]
    return rules


def _great_expectations(rules: list[Rule], frame: pl.DataFrame) -> dict[str, set[int]]:
    """Each rule's unexpected ``row_id`` by Great Expectations itself (an in-memory context)."""
    import great_expectations as gx

    context = gx.get_context(mode="ephemeral")
    batch = context.data_sources.add_pandas("p").add_dataframe_asset("t").add_batch_definition_whole_dataframe("w")
    suite = context.suites.add(gx.ExpectationSuite(name="s", expectations=[expectation(r) for r in rules]))
    outcome = gx.ValidationDefinition(name="v", data=batch, suite=suite).run(
        batch_parameters={"dataframe": frame.to_pandas()},
        result_format={"result_format": "COMPLETE", "unexpected_index_column_names": ["row_id"]},
    )
    found: dict[str, set[int]] = {}
    for result in outcome.results:
        assert not (result.exception_info or {}).get("raised_exception"), result.exception_info
        rows = result.result.get("unexpected_index_list") or []
        assert result.expectation_config is not None
        found[str(result.expectation_config.meta["rule"])] = {int(r["row_id"]) for r in rows}
    return found


_floats = st.one_of(st.none(), st.just(float("nan")), st.sampled_from([0.0, 0.5, 1.0, 2.0, -1.5, 3.25]))
_ints = st.one_of(st.none(), st.integers(-3, 4))
_texts = st.one_of(st.none(), st.sampled_from(["", "a", "b", "B", "ab", "é", "z"]))
_days = st.one_of(st.none(), st.dates(date(2020, 1, 1), date(2020, 1, 5)))


@st.composite
def _tables(draw: st.DrawFn) -> pl.DataFrame:
    n = draw(st.integers(1, 14))

    def column(strategy: st.SearchStrategy[Any]) -> list[Any]:
        return draw(st.lists(strategy, min_size=n, max_size=n))

    return pl.DataFrame({
        "row_id": list(range(n)),
        "competition_id": column(st.one_of(st.none(), st.sampled_from(["C1", "C2"]))),
        "f": column(_floats), "i": column(_ints), "s": column(_texts), "s2": column(_texts),
        "b": column(st.one_of(st.none(), st.booleans())), "d": column(_days), "d2": column(_days),
    }, schema={"row_id": pl.Int64, "competition_id": pl.Utf8, "f": pl.Float64, "i": pl.Int64, "s": pl.Utf8,
               "s2": pl.Utf8, "b": pl.Boolean, "d": pl.Date, "d2": pl.Date})


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(frame=_tables(), low=st.sampled_from([-1.0, 0.0, 0.5]), high=st.sampled_from([1.0, 2.0, 3.0]),
       pick=st.lists(st.sampled_from(["a", "b", ""]), max_size=2))
def test_the_row_checks_fail_exactly_the_rows_great_expectations_fails(
    frame: pl.DataFrame, low: float, high: float, pick: list[str]
) -> None:
    rules = _rules(low, high, pick)
    theirs = _great_expectations(rules, frame)
    for rule in rules:
        ours = set(frame.get_column("row_id").filter(row_checks.failing(rule, frame)).to_list())
        assert ours == theirs[rule.id], (rule.expect, rule.checked_columns)


def test_every_unique_key_holds_the_competition() -> None:
    """The sample takes whole competitions, which keeps a repeated key repeated, only because
    every ``unique`` rule's key holds ``competition_id``."""
    uniques = [r for r in load_rules() if r.expect == "unique"]
    assert uniques and all("competition_id" in r.columns for r in uniques)


@settings(max_examples=200, deadline=None)
@given(sizes=st.lists(st.integers(1, 30), min_size=2, max_size=40), seed=st.integers(0, 2**16),
       rows=st.integers(5, 60), per_rule=st.integers(0, 3))
def test_the_sample_keeps_whole_competitions_and_the_first_failures(
    sizes: list[int], seed: int, rows: int, per_rule: int
) -> None:
    competitions = [None if i == 3 else f"C{i}" for i, size in enumerate(sizes) for _ in range(size)]
    frame = pl.DataFrame({"row_id": range(len(competitions)), "competition_id": competitions,
                          "round": [i % 4 for i in range(len(competitions))]})
    once = _rule("unique", columns=("competition_id", "round"))
    low = _rule("between", column="row_id", min=float(seed % 50))
    masks = {r.id: row_checks.failing(r, frame) for r in (once, low)}
    taken = row_checks.sample(frame, masks, rows=rows, per_rule=per_rule, seed=seed)
    if frame.height <= rows:
        assert taken.equals(frame)
        return
    counts = frame.group_by("competition_id").len()
    assert taken.group_by("competition_id").len().join(counts, on="competition_id", nulls_equal=True).filter(
        pl.col("len") != pl.col("len_right")).is_empty()
    for mask in masks.values():
        assert set(frame.filter(mask).head(per_rule)["row_id"]) <= set(taken["row_id"])
    # A repeated key stays repeated in the sample, and only a repeated one is.
    assert row_checks.failing(once, taken).to_list() == masks[once.id].filter(
        frame["row_id"].is_in(taken["row_id"].implode())).to_list()
    assert row_checks.disagreement(masks, frame, taken, {
        rule_id: set(frame["row_id"].filter(mask & frame["row_id"].is_in(taken["row_id"].implode())))
        for rule_id, mask in masks.items()}) is None


def test_a_disagreement_names_the_rule_and_its_rows() -> None:
    frame = pl.DataFrame({"row_id": [0, 1, 2], "x": [1, 5, 9]})
    rule = _rule("between", column="x", max=4.0)
    masks = {rule.id: row_checks.failing(rule, frame)}
    said = row_checks.disagreement(masks, frame, frame, {rule.id: {0, 2}})
    assert said is not None and rule.id in said and "fails rows [1] that Great" in said
    assert "fails rows [0] that the row check" in said
    assert row_checks.disagreement(masks, frame, frame, {rule.id: {1, 2}}) is None


def test_a_million_games_are_checked_in_seconds() -> None:
    """Not a timing: the row checks of a million-row table with a quarter of its rows failing
    (FIDE's forfeits) are vectorised, and Great Expectations sees at most the sample."""
    n = 1_000_000
    frame = pl.DataFrame({"row_id": range(n), "competition_id": [f"C{i // 80}" for i in range(n)],
                          "status": ["forfeit" if i % 4 == 0 else "played" for i in range(n)]})
    rule = _rule("not_in_set", column="status", values=("forfeit",))
    masks = {rule.id: row_checks.failing(rule, frame)}
    assert masks[rule.id].sum() == n // 4
    taken = row_checks.sample(frame, masks)
    assert taken.height <= row_checks.SAMPLE_ROWS + 80
    assert taken.filter(pl.col("status") == "forfeit").height >= row_checks.PER_RULE


@pytest.mark.parametrize("kind", ["between", "in_set", "not_in_set", "not_null", "unique", "a_greater_than_b"])
def test_every_kind_of_the_rule_table_has_a_row_check(kind: str) -> None:
    assert any(r.expect == kind for r in load_rules())
    frame = pl.DataFrame({"row_id": [0, 1], "competition_id": ["C", "C"], "x": [1, 1], "y": [0, 2]})
    kinds: dict[str, dict[str, Any]] = {
        "between": {"column": "x", "max": 0.0}, "in_set": {"column": "x", "values": (2,)},
        "not_in_set": {"column": "x", "values": (1,)}, "not_null": {"column": "x"},
        "unique": {"columns": ("competition_id", "x")},
        "a_greater_than_b": {"column_a": "y", "column_b": "x"},
    }
    fields = kinds[kind]
    expected = {"not_null": [False, False], "a_greater_than_b": [True, False]}.get(kind, [True, True])
    assert row_checks.failing(_rule(kind, **fields), frame).to_list() == expected
