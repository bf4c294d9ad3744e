"""EGF GoR, the European Go Federation's rating: the classic system and the 2021 system.

Sources: ``../shared/rules/RULES.md`` ("EGF GoR"); the EGF's official rating
description (European Go Database, "EGF Official Ratings"); the article "Sistema
EGF" (worked tournament of a 1721 player); the EGF rating system of 2021 (A.
Cieply), with which the EGF recomputed its whole database.

Per tournament every game uses both players' pre-tournament ratings; the changes
of a player's games are summed.

Classic (``egf-gor-1998``): A the lower-rated player, ``D = R_B - R_A``,
``a = 200 - (R_A - 100) / 20`` (70 from 2700), ``Se(A) = 1 / (e^(D/a) + 1)``,
``Se(B) = 1 - Se(A) - epsilon`` (epsilon = 0.016; or epsilon/2 off each player),
``change = con(R) x (S - Se)`` with ``con`` interpolated in the table; floor 100.

2021 (``egf-gor-2021``): ``Se = 1 / (1 + e^(beta(r2) - beta(r1)))``,
``beta(r) = -7 ln(3300 - r)``, ``con = ((3300 - r) / 200)^1.6``,
``bonus = ln(1 + e^((2300 - r) / 80)) / 5``, per game
``change = w x (con x (S - Se) + bonus)`` with the tournament class weight ``w``
(A 1, B 0.75, C 0.5, D 0.25); floor -900.

Handicap ``h`` stones (both systems): the receiver counts as ``100 x (h - 0.5)``
stronger for ``Se`` (inside ``beta`` in 2021). ``a`` and ``con`` come from the
ratings themselves (``a`` from the lower of the two).

The system is split along its seams, and every public name stays importable from here:
:mod:`engine._egf_formulas` (the scalar formulas), :mod:`engine._egf_kernel` (the
compiled pass), :mod:`engine._egf_frames` (tournament parameters in, frames out); this
module holds the entry points, the kernel's call (where the benchmark times it) and the list.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date
from typing import Any

import numpy as np
import polars as pl

from engine._egf_formulas import (
    BETA_CEILING,
    CLASS_WEIGHTS,
    CON_GOR,
    CON_VALUES,
    EPSILON,
    a_classic,
    beta,
    bonus_2021,
    con_2021,
    con_classic,
    expected_2021,
    expected_classic,
    grade_rating,
    handicap_bonus,
)
from engine._egf_frames import _changes, _comp_params, _explanations, _ratings_frame
from engine._egf_kernel import _rate_kernel
from engine._frames import RATING_LIST_SCHEMA, conform
from engine._history import player_column, prepare, seed_column
from engine._lazy import Lazy
from engine.errors import InvalidHistoryError

__all__ = [
    "BETA_CEILING",
    "CLASS_WEIGHTS",
    "CON_GOR",
    "CON_VALUES",
    "EPSILON",
    "a_classic",
    "beta",
    "bonus_2021",
    "con_2021",
    "con_classic",
    "expected_2021",
    "expected_classic",
    "grade_rating",
    "handicap_bonus",
    "list_epoch",
    "rate_history",
    "rate_lazily",
    "rating_list",
]


def rate_history(
    competitions: pl.DataFrame,
    games: pl.DataFrame,
    start: pl.DataFrame,
    *,
    federation: str = "egf",
    config: Mapping[str, Any] | None = None,
    players: pl.DataFrame | None = None,
) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    """Re-rate an EGF history from its seed (see :func:`engine.rate_history`).

    A player absent from the seed starts from the file's declared rating, else
    from the declared grade (:func:`grade_rating`). ``k`` in the output is the
    player's ``con``; ``expected`` the sum of ``Se``; ``change`` the (weighted)
    sum of the games' changes (with the 2021 bonus). Ratings are not rounded.
    Config keys: ``rule_set`` (pin), ``epsilon``, ``epsilon_mode`` (``stronger``
    or ``split``, classic system).

    Raises
    ------
    InvalidHistoryError
        A new player has neither a rating nor a grade, or a class is unknown.

    Examples
    --------
    >>> comps = pl.DataFrame({"competition_id": ["T"], "start_date": [date(2022, 5, 1)],
    ...                       "end_date": [date(2022, 5, 1)], "event_class": ["A"]})
    >>> games = pl.DataFrame({"competition_id": ["T"], "player_a": ["1"], "player_b": ["2"], "score_a": [1.0]})
    >>> start = pl.DataFrame({"player_id": ["1", "2"], "rating": [2100.0, 2100.0]})
    >>> ch, _, _ = rate_history(comps, games, start)
    >>> [round(x, 3) for x in ch["rating_after"]]
    [2109.306, 2091.725]
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
    federation: str = "egf",
    config: Mapping[str, Any] | None = None,
    players: pl.DataFrame | None = None,
) -> tuple[pl.DataFrame, Lazy, pl.DataFrame]:
    """:func:`rate_history` with the explanation rows built on first use."""
    h = prepare(competitions, games, start)
    ids = h.player_ids
    names, params = _comp_params(h.competitions, config)
    seed = seed_column(start, ids, "rating", pl.Float64())
    declared = player_column(players, ids, "declared_rating", pl.Float64())
    grades = player_column(players, ids, "declared_rank", pl.Utf8())
    initial = seed.fill_null(declared).to_numpy().astype(np.float64).copy()
    g = h.games
    in_games = np.zeros(len(ids), dtype=bool)
    in_games[g["a_idx"].to_numpy()] = True
    in_games[g["b_idx"].to_numpy()] = True
    grade_list = grades.to_list()
    for i in np.flatnonzero(np.isnan(initial) & in_games):
        grade = grade_list[i]
        if grade is None:
            raise InvalidHistoryError(
                f"EGF player {ids[i]!r} has no rating in the seed, no declared rating and no declared grade"
            )
        initial[i] = grade_rating(grade)
    seed_games = seed_column(start, ids, "games", pl.Int64()).fill_null(0).to_numpy().astype(np.int64)
    state = initial.copy()
    count = seed_games.copy()
    handicap = g["handicap"].fill_null(0).to_numpy().astype(np.int64)
    out = _rate_kernel(
        h.game_offsets, params["mode"], params["weight"], params["eps"], params["split"], params["floor"],
        g["a_idx"].to_numpy().astype(np.int64), g["b_idx"].to_numpy().astype(np.int64),
        g["score_a"].to_numpy().astype(np.float64), handicap, state, count,
        np.array(CON_GOR), np.array(CON_VALUES, dtype=np.float64),
    )
    changes = _changes(h, names, federation, *out)
    ratings = _ratings_frame(h, start, players, federation, state, count)
    return changes, Lazy(lambda: _explanations(h, names, federation, *out)), ratings


def list_epoch(as_of: date, config: Mapping[str, Any] | None = None) -> object:
    """What :func:`rating_list` reads of ``as_of``: nothing (the EGD has no inactivity rule).

    Examples
    --------
    >>> list_epoch(date(2020, 1, 1)) == list_epoch(date(2026, 1, 1))
    True
    """
    return None


def rating_list(
    ratings: pl.DataFrame, *, as_of: date, federation: str = "egf", config: Mapping[str, Any] | None = None
) -> pl.DataFrame:
    """The EGF list: every rated player is ``active`` and ranked (ties share a rank); category is the grade.

    The EGD lists every player it has rated: there is no inactivity rule.
    ``category`` gives the grade the rating corresponds to (2100 -> ``1d``).

    Examples
    --------
    >>> r = pl.DataFrame({"player_id": ["1", "2", "3"], "rating": [2100.0, 1549.9, None], "games": [5, 8, 0]})
    >>> rating_list(r, as_of=date(2024, 1, 1)).select("player_id", "status", "category", "rank").rows()
    [('1', 'active', '1d', 1), ('2', 'active', '6k', 2), ('3', 'unrated', None, None)]
    """
    frame = ratings
    for col, dtype in (("games", pl.Int64()), ("name", pl.Utf8())):
        if col not in frame.columns:
            frame = frame.with_columns(pl.lit(None, dtype).alias(col))
    grade_n = ((pl.col("rating") + 50.0) / 100.0).floor().cast(pl.Int64)  # 2050..2149 -> 21 -> 1d
    frame = frame.with_columns(
        pl.lit(federation).alias("federation"),
        pl.col("rating").cast(pl.Float64),
        pl.when(pl.col("rating").is_null()).then(pl.lit("unrated")).otherwise(pl.lit("active")).alias("status"),
        pl.when(pl.col("rating").is_null()).then(None)
        .when(grade_n >= 21).then(pl.format("{}d", pl.min_horizontal(grade_n - 20, pl.lit(9))))
        .otherwise(pl.format("{}k", pl.min_horizontal(21 - grade_n, pl.lit(30))))
        .alias("category"),
    )
    frame = frame.with_columns(
        pl.when(pl.col("status") == "active")
        .then(pl.col("rating").rank(method="min", descending=True).over(pl.col("status") == "active"))
        .otherwise(None).cast(pl.Int64).alias("rank")
    ).sort(["rank", "rating", "player_id"], descending=[False, True, False], nulls_last=True)
    return conform(frame, RATING_LIST_SCHEMA)
