"""BARRUF, the rating system of the AJUSC (Catalan classic Scrabble).

Source: the federation's description of the BARRUF and its computation sheet
``GENERADOR_BARRUF``, as reproduced by the public AJUSC management app
``moominot/gestioAjusc`` (``lib/barruf/``); summarised in
``../shared/rules/RULES.md`` ("BARRUF — AJUSC").

One championship is rated at once, after it ends: every expected score uses the
ratings from before the championship, ``E = Phi((R_own - R_opp) / 283.84)``,
``change = K x (W - sum E)`` and ``new = old + round(change)`` (half away from
zero), so ratings stay integers.

The system is split along its seams, and every public name stays importable from here:

- :mod:`engine._barruf_rules`: the parameters and the scalar rules (K table, expected
  score, seasons, inactivity window, categories);
- :mod:`engine._barruf_kernel`: the compiled pass over the whole history;
- :mod:`engine._barruf_frames`: the change, explanation and ratings frames;
- this module: frames in, the kernel's call (``rate_arrays``, where the benchmark times it),
  the public entry points and the list.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date
from typing import Any

import numpy as np
import numpy.typing as npt
import polars as pl

from engine import rulesets
from engine._barruf_frames import (
    _changes,
    _explanations,
    _ratings_frame,
    _season_year,
    _status_codes,
)
from engine._barruf_kernel import BarrufResult, _rate_kernel
from engine._barruf_rules import (
    CATEGORIES,
    INACTIVITY_WINDOWS,
    NEWCOMER_RATING,
    PROVISIONAL_MAX_GAMES,
    RULE_SET,
    SIGMA,
    BarrufParameters,
    KBand,
    category,
    category_expr,
    describe_bands,
    expected_score,
    inactivity_window,
    k_factor,
    season_label,
    season_start_year,
)
from engine._frames import RATING_LIST_SCHEMA, conform
from engine._history import player_column, prepare, seed_column
from engine._lazy import Lazy
from engine.rounding import HALF_TOLERANCE

__all__ = [
    "CATEGORIES",
    "INACTIVITY_WINDOWS",
    "NEWCOMER_RATING",
    "PROVISIONAL_MAX_GAMES",
    "RULE_SET",
    "SIGMA",
    "BarrufParameters",
    "BarrufResult",
    "KBand",
    "category",
    "category_expr",
    "describe_bands",
    "expected_score",
    "inactivity_window",
    "k_factor",
    "list_epoch",
    "rate_arrays",
    "rate_history",
    "rate_lazily",
    "rating_list",
    "season_label",
    "season_start_year",
]


def rate_arrays(
    offsets: npt.NDArray[np.int64],
    a_idx: npt.NDArray[np.int64],
    b_idx: npt.NDArray[np.int64],
    score_a: npt.NDArray[np.float64],
    rating: npt.NDArray[np.float64],
    games: npt.NDArray[np.int64],
    params: BarrufParameters | None = None,
) -> BarrufResult:
    """Rate a whole history in one compiled pass (the fast path).

    Parameters
    ----------
    offsets : ndarray of int64, shape (n_competitions + 1,)
        Games of competition ``c`` (in rating order) are ``offsets[c]:offsets[c + 1]``.
    a_idx, b_idx : ndarray of int64
        Player indices of each game.
    score_a : ndarray of float64
        Score of player a (1, 0.5, 0).
    rating : ndarray of float64
        Starting rating per player; NaN for a newcomer (gets ``newcomer_rating``).
    games : ndarray of int64
        Lifetime games counted before the history.
    params : BarrufParameters, optional
        Rule parameters (default: RULES.md).

    Examples
    --------
    >>> r = rate_arrays(np.array([0, 1]), np.array([0]), np.array([1]), np.array([1.0]),
    ...                 np.array([1000.0, np.nan]), np.array([60, 0]))
    >>> r.rating.tolist(), r.games.tolist()
    ([1009.0, 937.0], [61, 1])
    """
    p = params or BarrufParameters()
    below, k_new, k_exp = p.band_arrays()
    state = np.ascontiguousarray(rating, dtype=np.float64).copy()
    count = np.ascontiguousarray(games, dtype=np.int64).copy()
    out: Any = _rate_kernel(
        np.ascontiguousarray(offsets, dtype=np.int64),
        np.ascontiguousarray(a_idx, dtype=np.int64),
        np.ascontiguousarray(b_idx, dtype=np.int64),
        np.ascontiguousarray(score_a, dtype=np.float64),
        state, count, below, k_new, k_exp, p.games_threshold, p.sigma, p.newcomer_rating, HALF_TOLERANCE,
    )
    ra, rb, ea, ka, kb, ca, cb, aa, ab = out
    return BarrufResult(ra, rb, ea, ka, kb, ca, cb, aa, ab, rating=state, games=count)


def rate_history(
    competitions: pl.DataFrame,
    games: pl.DataFrame,
    start: pl.DataFrame,
    *,
    federation: str = "ajusc",
    config: Mapping[str, Any] | None = None,
    players: pl.DataFrame | None = None,
) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    """Re-rate a federation's whole BARRUF history from its seed.

    Returns ``(changes, explanations, ratings)`` in the canonical schemas; see
    :func:`engine.rate_history`, which is the public entry point.

    Examples
    --------
    >>> comps = pl.DataFrame({"competition_id": ["C1"], "start_date": [date(2025, 10, 4)],
    ...                       "end_date": [date(2025, 10, 4)]})
    >>> games = pl.DataFrame({"competition_id": ["C1"], "round": [1], "player_a": ["1"],
    ...                       "player_b": ["2"], "score_a": [1.0]})
    >>> start = pl.DataFrame({"player_id": ["1"], "rating": [1100.0], "games": [60]})
    >>> changes, _, ratings = rate_history(comps, games, start)
    >>> changes.select("player_id", "rating_before", "k", "rating_after").rows()
    [('1', 1100.0, 20.0, 1106.0), ('2', 950.0, 30.0, 941.0)]
    """
    changes, explanations, ratings = rate_lazily(
        competitions, games, start, federation=federation, config=config, players=players
    )
    return changes, explanations.get(), ratings


def rate_lazily(
    competitions: pl.DataFrame,
    games: pl.DataFrame,
    start: pl.DataFrame,
    *,
    federation: str = "ajusc",
    config: Mapping[str, Any] | None = None,
    players: pl.DataFrame | None = None,
) -> tuple[pl.DataFrame, Lazy, pl.DataFrame]:
    """:func:`rate_history` with the explanation rows built on first use."""
    params = BarrufParameters.from_config(config)
    # A pinned rule set must be the BARRUF's (raises InvalidConfigError otherwise).
    rulesets.rule_set_for("barruf", date(2000, 1, 1), config=config)
    h = prepare(competitions, games, start)
    ids = h.player_ids
    seed_rating = seed_column(start, ids, "rating", pl.Float64())
    declared = player_column(players, ids, "declared_rating", pl.Float64())
    # A seeded rating always wins over a declared one (DESIGN.md, "Semantics").
    initial = seed_rating.fill_null(declared).fill_null(float("nan")).to_numpy().astype(np.float64)
    seed_games = seed_column(start, ids, "games", pl.Int64()).fill_null(0).to_numpy().astype(np.int64)
    g = h.games
    res = rate_arrays(
        h.game_offsets, g["a_idx"].to_numpy(), g["b_idx"].to_numpy(), g["score_a"].to_numpy(),
        initial, seed_games, params,
    )
    changes = _changes(h, res, federation)
    ratings = _ratings_frame(h, res, start, players, federation, params)
    return changes, Lazy(lambda: _explanations(h, res, federation)), ratings


def rating_list(
    ratings: pl.DataFrame,
    *,
    as_of: date,
    federation: str = "ajusc",
    config: Mapping[str, Any] | None = None,
) -> pl.DataFrame:
    """The published AJUSC list at ``as_of``: status, category and shared ranks.

    A player is ``inactive`` without a game in the current season nor the
    window's previous ones (:func:`inactivity_window`), ``provisional`` with at
    most 10 games, ``unrated`` without a rating, else ``active``. Only active
    players are ranked; equal ratings share a rank (1, 2, 3, 4, 4, 6).

    Examples
    --------
    >>> r = pl.DataFrame({"player_id": ["1", "2", "3", "4"], "name": ["A", "B", "C", "D"],
    ...     "rating": [1250.0, 1400.0, 1250.0, 990.0], "games": [40, 300, 12, 5],
    ...     "last_played": ["2025-26", "2025-26", "2021-22", "2025-26"]})
    >>> rating_list(r, as_of=date(2026, 1, 1)).select("player_id", "status", "category", "rank").rows()
    [('2', 'active', 'Gran Gran Mestre', 1), ('1', 'active', 'Mestre', 2), ('3', 'inactive', 'Mestre', None), ('4', 'provisional', None, None)]
    """
    params = BarrufParameters.from_config(config)
    current = season_start_year(as_of, params.season_start)
    window = inactivity_window(as_of, params)
    frame = ratings
    for col, dtype in (("last_played", pl.Utf8()), ("status", pl.Utf8()), ("games", pl.Int64()), ("name", pl.Utf8())):
        if col not in frame.columns:
            frame = frame.with_columns(pl.lit(None, dtype).alias(col))
    code = _status_codes(
        _season_year(pl.col("last_played")), pl.col("status"), pl.col("games"), pl.col("rating"), current, window
    )
    frame = frame.with_columns(
        pl.lit(federation).alias("federation"),
        code.replace_strict(
            {"act": "active", "exp": "provisional", "inact": "inactive"}, default="unrated", return_dtype=pl.Utf8
        ).alias("status"),
        pl.col("rating").cast(pl.Float64),
    )
    frame = frame.with_columns(
        category_expr(pl.col("rating")).alias("category"),
        pl.when(pl.col("status") == "active")
        .then(pl.col("rating").rank(method="min", descending=True).over(pl.col("status") == "active"))
        .otherwise(None)
        .cast(pl.Int64)
        .alias("rank"),
    )
    frame = frame.sort(["rank", "rating", "player_id"], descending=[False, True, False], nulls_last=True)
    return conform(frame, RATING_LIST_SCHEMA)


def list_epoch(as_of: date, config: Mapping[str, Any] | None = None) -> object:
    """What :func:`rating_list` reads of ``as_of``: the season (its inactivity window follows).

    Two dates of one epoch give every player who did not play between them the same
    status, so an edition's changes are the players who played (``engine.list_changes``).

    Examples
    --------
    >>> list_epoch(date(2025, 9, 1)) == list_epoch(date(2026, 8, 31)) != list_epoch(date(2026, 9, 1))
    True
    """
    params = BarrufParameters.from_config(config)
    return season_start_year(as_of, params.season_start), inactivity_window(as_of, params)
