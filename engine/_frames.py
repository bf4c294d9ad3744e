"""Column lists of the canonical frames the engine reads and writes.

``engine`` imports nothing of the other packages (``docs/CONTRACTS.md``), so the
canonical schemas it produces are defined here, the lowest layer, and
``formats.schema`` and ``warehouse`` import them from here.
"""

from __future__ import annotations

import polars as pl

#: A starting rating list (``*.ratings.csv``) or the engine's rating state.
RATINGS_SCHEMA: dict[str, pl.DataType] = {
    "federation": pl.Utf8(),
    "player_id": pl.Utf8(),
    "name": pl.Utf8(),
    "rating": pl.Float64(),         # null: unrated (FIDE)
    "games": pl.Int64(),            # games counted so far (lifetime)
    "as_of": pl.Date(),
    "k": pl.Int32(),                # FIDE K of the list (null elsewhere)
    "status": pl.Utf8(),
    "last_played": pl.Utf8(),       # AJUSC: season "2024-25"; else ISO date
    "rated_max": pl.Float64(),      # FIDE: highest rating reached (for the permanent K 10)
}

#: One row per rated player and competition (FIDE: and rating period).
RATING_CHANGES_SCHEMA: dict[str, pl.DataType] = {
    "federation": pl.Utf8(),
    "competition_id": pl.Utf8(),
    "period": pl.Utf8(),            # FIDE rating period "2025-11"; null elsewhere
    "player_id": pl.Utf8(),
    "rating_before": pl.Float64(),
    "games": pl.Int64(),            # games rated in this competition
    "score": pl.Float64(),
    "expected": pl.Float64(),
    "k": pl.Float64(),
    "change": pl.Float64(),         # unrounded K x (W - We) (or sum of per-game changes)
    "rating_after": pl.Float64(),
    "rule_set": pl.Utf8(),
}

#: One row per (rated player, game): how each game contributed to ``change``.
EXPLANATIONS_SCHEMA: dict[str, pl.DataType] = {
    "federation": pl.Utf8(),
    "competition_id": pl.Utf8(),
    "period": pl.Utf8(),
    "player_id": pl.Utf8(),
    "round": pl.Int32(),
    "opponent_id": pl.Utf8(),
    "rating": pl.Float64(),         # player's rating used for this game
    "opponent_rating": pl.Float64(),
    "handicap": pl.Int32(),
    "score": pl.Float64(),
    "expected": pl.Float64(),
    "k": pl.Float64(),
    "contribution": pl.Float64(),   # this game's share of ``change``
    "rule_set": pl.Utf8(),
    "source_line": pl.Int32(),
}

#: A published rating list (``ratings list`` output columns first).
RATING_LIST_SCHEMA: dict[str, pl.DataType] = {
    "federation": pl.Utf8(),
    "player_id": pl.Utf8(),
    "name": pl.Utf8(),
    "rating": pl.Float64(),
    "games": pl.Int64(),
    "status": pl.Utf8(),            # active | provisional | inactive | unrated
    "category": pl.Utf8(),
    "rank": pl.Int64(),             # null for players without a rank (not active)
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
