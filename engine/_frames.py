"""Column lists of the canonical frames the engine reads and writes.

``engine`` imports nothing of the other packages (``docs/CONTRACTS.md``), so the
schemas of ``formats/schema.py`` it produces are copied here; a test in
``tests/engine/test_schemas.py`` keeps the two in step.
"""

from __future__ import annotations

import polars as pl

#: Same as ``formats.schema.RATINGS_SCHEMA``.
RATINGS_SCHEMA: dict[str, pl.DataType] = {
    "federation": pl.Utf8(),
    "player_id": pl.Utf8(),
    "name": pl.Utf8(),
    "rating": pl.Float64(),
    "games": pl.Int64(),
    "as_of": pl.Date(),
    "k": pl.Int32(),
    "status": pl.Utf8(),
    "last_played": pl.Utf8(),
    "rated_max": pl.Float64(),
}

#: Same as ``formats.schema.RATING_CHANGES_SCHEMA``.
RATING_CHANGES_SCHEMA: dict[str, pl.DataType] = {
    "federation": pl.Utf8(),
    "competition_id": pl.Utf8(),
    "period": pl.Utf8(),
    "player_id": pl.Utf8(),
    "rating_before": pl.Float64(),
    "games": pl.Int64(),
    "score": pl.Float64(),
    "expected": pl.Float64(),
    "k": pl.Float64(),
    "change": pl.Float64(),
    "rating_after": pl.Float64(),
    "rule_set": pl.Utf8(),
}

#: Same as ``formats.schema.EXPLANATIONS_SCHEMA``.
EXPLANATIONS_SCHEMA: dict[str, pl.DataType] = {
    "federation": pl.Utf8(),
    "competition_id": pl.Utf8(),
    "period": pl.Utf8(),
    "player_id": pl.Utf8(),
    "round": pl.Int32(),
    "opponent_id": pl.Utf8(),
    "rating": pl.Float64(),
    "opponent_rating": pl.Float64(),
    "handicap": pl.Int32(),
    "score": pl.Float64(),
    "expected": pl.Float64(),
    "k": pl.Float64(),
    "contribution": pl.Float64(),
    "rule_set": pl.Utf8(),
    "source_line": pl.Int32(),
}

#: Same as ``formats.schema.RATING_LIST_SCHEMA``.
RATING_LIST_SCHEMA: dict[str, pl.DataType] = {
    "federation": pl.Utf8(),
    "player_id": pl.Utf8(),
    "name": pl.Utf8(),
    "rating": pl.Float64(),
    "games": pl.Int64(),
    "status": pl.Utf8(),
    "category": pl.Utf8(),
    "rank": pl.Int64(),
}


def conform(frame: pl.DataFrame, schema: dict[str, pl.DataType]) -> pl.DataFrame:
    """Select and cast ``frame`` to ``schema``; missing columns become nulls.

    Examples
    --------
    >>> conform(pl.DataFrame({"player_id": ["7"], "rating": [1100]}), RATINGS_SCHEMA).row(0)
    (None, '7', None, 1100.0, None, None, None, None, None, None)
    """
    cols = [
        (pl.col(name).cast(dtype, strict=False) if name in frame.columns else pl.lit(None, dtype)).alias(name)
        for name, dtype in schema.items()
    ]
    return frame.select(cols)


def empty(schema: dict[str, pl.DataType]) -> pl.DataFrame:
    """An empty frame with ``schema``.

    Examples
    --------
    >>> empty(RATING_LIST_SCHEMA).width
    8
    """
    return pl.DataFrame(schema=schema)
