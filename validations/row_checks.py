"""Each rule's failing rows, found by polars with Great Expectations' own semantics.

Great Expectations lists a failing expectation's rows one by one: on FIDE's million-game
benchmark, listing 250,000 forfeits as unexpected rows took 179 s of a 390 s run. Here
each rule of ``rules.toml`` is one vectorised polars expression over the whole table,
and gives the exact rows (the findings); Great Expectations still runs every suite, on
:func:`sample` (the whole table while it is small), and :func:`disagreement` compares
its verdict with these rows on every row it saw, so that the two can never drift apart.

The semantics are those of Great Expectations' pandas engine, which sees a polars frame
through ``to_pandas``: a null (and a float NaN, which pandas cannot tell from one) is
skipped by every expectation except ``not_null``; ``unique`` fails every copy of a
repeated value; a compound key is skipped only where all its columns are missing, and
two missing values are equal in it; ``a_greater_than_b`` skips a row missing either side.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np
import polars as pl

from validations.rules import Rule

__all__ = ["PER_RULE", "SAMPLE_ROWS", "disagreement", "failing", "sample"]

#: Rows of one table and rule-set edition that Great Expectations checks in full; a larger
#: table is checked on a sample of whole competitions of about this many rows.
SAMPLE_ROWS = 20_000
#: Failing rows of each rule that the sample holds (with their whole competitions).
PER_RULE = 50


def _missing(frame: pl.DataFrame, column: str) -> pl.Expr:
    """Null, or NaN in a float column: pandas holds both as NaN, and skips them."""
    col = pl.col(column)
    return (col.is_null() | col.is_nan()) if frame.schema[column].is_float() else col.is_null()


def _outside_set(frame: pl.DataFrame, column: str, values: tuple[object, ...], *, inside: bool) -> pl.Expr:
    """Rows whose value is (``inside``) or is not in ``values``, compared as Python values
    (pandas' ``isin``: 1 and 1.0 are the same), once per distinct value."""
    allowed = set(values)
    distinct = frame.get_column(column).unique().to_list()
    bad = [v for v in distinct
           if v is not None and not (isinstance(v, float) and math.isnan(v))
           and ((v in allowed) if inside else (v not in allowed))]
    series = pl.Series(bad, dtype=frame.schema[column])
    return pl.col(column).is_in(series.implode()) & ~_missing(frame, column)


def failing(rule: Rule, frame: pl.DataFrame) -> pl.Series:
    """The rows of ``frame`` that fail ``rule``: a boolean series with no nulls.

    Examples
    --------
    >>> from validations.rules import load_rules
    >>> once = next(r for r in load_rules() if r.id == "quality.pairing_once")
    >>> games = pl.DataFrame({"competition_id": ["C", "C", "C"], "round": [1, 1, 2],
    ...                       "pair_lo": ["1", "1", "1"], "pair_hi": ["2", "2", "2"]})
    >>> failing(once, games).to_list()
    [True, True, False]
    """
    if rule.expect == "not_null":
        assert rule.column is not None
        expr = _missing(frame, rule.column)
    elif rule.expect == "between":
        assert rule.column is not None
        col = pl.col(rule.column)
        low = col < rule.min if rule.min is not None else pl.lit(False)
        high = col > rule.max if rule.max is not None else pl.lit(False)
        expr = ~_missing(frame, rule.column) & (low | high)
    elif rule.expect in ("in_set", "not_in_set"):
        assert rule.column is not None
        expr = _outside_set(frame, rule.column, rule.values, inside=rule.expect == "not_in_set")
    elif rule.expect == "unique":
        keys = list(rule.columns)
        # Missing values compare equal in a key (pandas' duplicated): a float NaN becomes a null.
        key = [pl.col(c).fill_nan(None) if frame.schema[c].is_float() else pl.col(c) for c in keys]
        present = ~pl.all_horizontal(*[_missing(frame, c) for c in keys])
        repeated = pl.struct(key).is_duplicated() if len(keys) > 1 else key[0].is_duplicated()
        expr = present & repeated
    else:  # a_greater_than_b
        assert rule.column_a is not None and rule.column_b is not None
        a, b = pl.col(rule.column_a), pl.col(rule.column_b)
        ordered = a >= b if rule.or_equal else a > b
        expr = ~(_missing(frame, rule.column_a) | _missing(frame, rule.column_b)) & ~ordered
    return frame.select(expr.fill_null(False).alias(rule.id)).to_series()


def sample(frame: pl.DataFrame, masks: Mapping[str, pl.Series], *, rows: int | None = None,
           per_rule: int | None = None, seed: int = 0) -> pl.DataFrame:
    """The rows Great Expectations checks: ``frame`` itself up to ``rows`` rows; beyond, whole
    competitions: those of the first ``per_rule`` failing rows of each rule (``masks``), and
    others drawn at random (seeded) up to about ``rows`` rows.

    A competition is taken whole because every ``unique`` rule's key holds ``competition_id``
    (``tests/validations/test_row_checks.py`` checks the rule table for it): in the sample a
    key is repeated exactly when it is repeated in the table. A table without competitions
    (one row per player) is sampled by rows; no ``unique`` rule checks such a table.
    """
    rows = SAMPLE_ROWS if rows is None else rows
    per_rule = PER_RULE if per_rule is None else per_rule
    if frame.height <= rows:
        return frame
    chosen: set[int] = set()
    for mask in masks.values():
        chosen.update(mask.arg_true().head(per_rule).to_list())
    if "competition_id" not in frame.columns:
        rng = np.random.default_rng(seed)
        chosen.update(int(i) for i in rng.choice(frame.height, size=min(rows, frame.height), replace=False))
        return frame[sorted(chosen)]
    groups = frame.select(pl.col("competition_id").rank("dense").fill_null(0).alias("g")).to_series()
    wanted = set(groups.gather(sorted(chosen)).to_list())
    sizes = groups.value_counts().sort("g")
    order = np.random.default_rng(seed).permutation(sizes.height)
    taken = int(sizes.filter(pl.col("g").is_in(sorted(wanted))).get_column("count").sum())
    ids, counts = sizes.get_column("g").to_numpy(), sizes.get_column("count").to_numpy()
    for i in order:
        if taken >= rows:
            break
        if int(ids[i]) not in wanted:
            wanted.add(int(ids[i]))
            taken += int(counts[i])
    return frame.filter(groups.is_in(sorted(wanted)))


def disagreement(masks: Mapping[str, pl.Series], frame: pl.DataFrame, checked: pl.DataFrame,
                 reported: Mapping[str, set[int]]) -> str | None:
    """Where Great Expectations (``reported``: rule id -> failing ``row_id`` of the rows it
    ``checked``) and :func:`failing` (``masks`` over ``frame``) disagree, said in words; else None."""
    seen = set(checked.get_column("row_id").to_list())
    for rule_id, mask in masks.items():
        ours = set(frame.get_column("row_id").filter(mask).to_list()) & seen
        theirs = reported.get(rule_id, set())
        if ours != theirs:
            only_ours, only_theirs = sorted(ours - theirs)[:5], sorted(theirs - ours)[:5]
            return (f"rule {rule_id}: the row check fails rows {only_ours} that Great Expectations "
                    f"passes, and Great Expectations fails rows {only_theirs} that the row check passes")
    return None
