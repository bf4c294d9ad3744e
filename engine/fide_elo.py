"""FIDE Elo: re-rate a history into the canonical frames, and the FIDE rating list.

Sources: FIDE Rating Regulations (handbook B02) effective 1 July 2009, 1 July 2014,
1 January 2022, 1 March 2024 and 1 October 2025, as summarised in
``../shared/rules/RULES.md`` ("FIDE").

The system is split along its seams, and every public name stays importable from here:

- :mod:`engine.fide_tables`: the PD and dp tables and the scalar rules (PD, K, the
  initial rating), each one compiled function that the kernel and the public helpers
  (``expected_score``, ``dp``, ``k_factor``, ``initial_rating``) share;
- :mod:`engine.fide_periods`: rating periods (``next_list``, ``period_label``);
- :mod:`engine.fide_kernel`: the compiled pass over the whole history;
- :mod:`engine._fide_inputs`: frames in (the period order, the kernel's arrays);
- :mod:`engine._fide_frames`: frames out (changes, explanations, ratings and their K);
- this module: the entry points, the kernel's call (where the benchmark times it) and the list.

Rated player: ``change = K x sum(score - PD(D))`` over the rating period, rounded once
per period, half away from zero. Rating periods: a tournament is rated in the first
list published after its end date; the period is named after that list (``"2025-11"``).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date
from typing import Any

import numpy as np
import polars as pl

from engine._fide_frames import _changes, _explanations, _ratings_frame, _status, list_k
from engine._fide_inputs import _by_period, _period_arrays, _player_arrays
from engine._frames import RATING_LIST_SCHEMA, conform
from engine._history import prepare
from engine._lazy import Lazy
from engine.fide_kernel import rate_kernel as _rate_kernel
from engine.fide_periods import day_number as _day
from engine.fide_periods import next_list, period_label
from engine.fide_tables import (
    DP_TABLE,
    INACTIVE_AFTER_DAYS,
    PD_HIGH,
    PD_UPPER,
    RULE_DTYPE,
    InitialRating,
    dp,
    expected_score,
    initial_rating,
    k_factor,
    rule_table,
)

__all__ = [
    "DP_TABLE",
    "INACTIVE_AFTER_DAYS",
    "PD_HIGH",
    "PD_UPPER",
    "RULE_DTYPE",
    "InitialRating",
    "adjust_to_standard_2022",
    "dp",
    "expected_score",
    "initial_rating",
    "k_factor",
    "list_k",
    "next_list",
    "period_label",
    "rate_history",
    "rating_list",
]


def rate_history(
    competitions: pl.DataFrame,
    games: pl.DataFrame,
    start: pl.DataFrame,
    *,
    federation: str = "fide",
    config: Mapping[str, Any] | None = None,
    players: pl.DataFrame | None = None,
) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    """Re-rate a FIDE history from its seed (see :func:`engine.rate_history`).

    Tournaments are grouped into rating periods (the first list after their end);
    each uses the ratings of the list in force at its start. Games against unrated
    opponents do not count for rated players; an unrated player's games against
    rated opponents are pooled across tournaments until an initial rating is
    earned. A change row per player, tournament and period; ``change`` is the
    tournament's unrounded ``K x (W - sum PD)``, ``rating_after`` the rating
    after the period (rounded once). For an unrated player ``rating_before``,
    ``expected``, ``k`` and ``change`` are null and ``rating_after`` is the
    initial rating when the period earned it.

    Examples
    --------
    >>> comps = pl.DataFrame({"competition_id": ["T"], "start_date": [date(2025, 10, 1)],
    ...                       "end_date": [date(2025, 10, 3)]})
    >>> games = pl.DataFrame({"competition_id": ["T"], "round": [1], "player_a": ["1"],
    ...                       "player_b": ["2"], "score_a": [1.0]})
    >>> start = pl.DataFrame({"player_id": ["1", "2"], "rating": [1800.0, 1900.0], "games": [100, 100]})
    >>> ch, _, _ = rate_history(comps, games, start)
    >>> ch.select("period", "player_id", "expected", "k", "change", "rating_after").rows()
    [('2025-11', '1', 0.36, 20.0, 12.8, 1813.0), ('2025-11', '2', 0.64, 20.0, -12.8, 1887.0)]
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
    federation: str = "fide",
    config: Mapping[str, Any] | None = None,
    players: pl.DataFrame | None = None,
) -> tuple[pl.DataFrame, Lazy, pl.DataFrame]:
    """:func:`rate_history` with the explanation rows built on first use."""
    h = prepare(competitions, games, start)
    ids = h.player_ids
    comps, g, rs_names = _by_period(h, config)
    rs_unique = sorted(set(rs_names)) or ["fide-2024"]
    rs_index = {n: i for i, n in enumerate(rs_unique)}
    comp_offsets, periods, period_offsets, cutoff = _period_arrays(comps, g, rs_unique)
    initial, seed_games, seed_k, rmax, birth = _player_arrays(start, players, ids)
    out = _rate_kernel(
        period_offsets, np.array([_day(d) for d in periods], dtype=np.int64),
        np.array([d.year for d in periods], dtype=np.int64), cutoff,
        comp_offsets, np.array([_day(d) for d in comps["start_date"].to_list()], dtype=np.int64),
        np.array([_day(d) for d in comps["end_date"].to_list()], dtype=np.int64),
        np.array([rs_index[n] for n in rs_names], dtype=np.int64),
        g["a_idx"].to_numpy().astype(np.int64), g["b_idx"].to_numpy().astype(np.int64),
        np.rint(g["score_a"].to_numpy() * 2).astype(np.int64),
        initial, seed_games.copy(), seed_k, rmax.copy(), birth,
        rule_table(rs_unique),
    )
    ra, rb, pda, pdb, ka, kb, cnta, cntb, aft_a, aft_b, final, games_out, rmax_out = out
    arrays = (ra, rb, pda, pdb, ka, kb, cnta, cntb, aft_a, aft_b)
    changes = _changes(g, comps, comp_offsets, h.player_rank, rs_names, federation, h.id_table, *arrays)
    ratings = _ratings_frame(h, g, comps, start, players, federation, final, games_out, rmax_out, config, periods)
    return changes, Lazy(lambda: _explanations(g, comps, rs_names, federation, h.id_table, *arrays)), ratings


def list_epoch(as_of: date, config: Mapping[str, Any] | None = None) -> object:
    """What :func:`rating_list` reads of ``as_of``: the day itself (inactive after a year without a game).

    Examples
    --------
    >>> list_epoch(date(2025, 11, 1)) == list_epoch(date(2025, 12, 1))
    False
    """
    return as_of


def rating_list(
    ratings: pl.DataFrame, *, as_of: date, federation: str = "fide", config: Mapping[str, Any] | None = None
) -> pl.DataFrame:
    """The FIDE list at ``as_of``: ``active``, ``inactive`` (no rated game for a year) or ``unrated``.

    Categories are not used by FIDE (null); active players are ranked, ties share a rank.

    Examples
    --------
    >>> r = pl.DataFrame({"player_id": ["1", "2", "3"], "rating": [2100.0, None, 2200.0], "games": [50, 3, 90],
    ...                   "last_played": ["2025-10-03", None, "2023-01-10"]})
    >>> rating_list(r, as_of=date(2025, 11, 1)).select("player_id", "status", "rank").rows()
    [('1', 'active', 1), ('3', 'inactive', None), ('2', 'unrated', None)]
    """
    frame = ratings
    for col, dtype in (("last_played", pl.Utf8()), ("games", pl.Int64()), ("name", pl.Utf8())):
        if col not in frame.columns:
            frame = frame.with_columns(pl.lit(None, dtype).alias(col))
    frame = frame.with_columns(
        pl.lit(federation).alias("federation"),
        pl.col("rating").cast(pl.Float64),
        _status(pl.col("rating").cast(pl.Float64), pl.col("last_played"), as_of).alias("status"),
        pl.lit(None, pl.Utf8).alias("category"),
    )
    frame = frame.with_columns(
        pl.when(pl.col("status") == "active")
        .then(pl.col("rating").rank(method="min", descending=True).over(pl.col("status") == "active"))
        .otherwise(None).cast(pl.Int64).alias("rank")
    ).sort(["rank", "rating", "player_id"], descending=[False, True, False], nulls_last=True)
    return conform(frame, RATING_LIST_SCHEMA)


def adjust_to_standard_2022(rapid_or_blitz: pl.DataFrame, standard: pl.DataFrame) -> pl.DataFrame:
    """The one-off adjustment of 1 October 2022 to a rapid or blitz list.

    FIDE Rapid & Blitz rating regulations as amended from 1 October 2022
    (``../shared/rules/RULES.md``, "FIDE rapid and blitz lists"): every rapid or
    blitz rating more than 100 points below the player's standard rating is
    raised to standard - 100. ``rapid_or_blitz`` and ``standard``: ``player_id,
    rating`` (the lists in force on that day); other columns are kept.

    Examples
    --------
    >>> rapid = pl.DataFrame({"player_id": ["a", "b", "c"], "rating": [1700.0, 1950.0, 1500.0]})
    >>> standard = pl.DataFrame({"player_id": ["a", "b"], "rating": [2000.0, 2000.0]})
    >>> adjust_to_standard_2022(rapid, standard).get_column("rating").to_list()
    [1900.0, 1950.0, 1500.0]
    """
    floor = standard.select("player_id", (pl.col("rating").cast(pl.Float64) - 100.0).alias("_floor"))
    return rapid_or_blitz.join(floor, on="player_id", how="left").with_columns(
        pl.when(pl.col("_floor").is_not_null() & (pl.col("rating") < pl.col("_floor")))
        .then(pl.col("_floor")).otherwise(pl.col("rating")).alias("rating")
    ).drop("_floor")
