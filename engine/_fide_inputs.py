"""FIDE Elo, frames in: competitions in rating-period order, and the kernel's arrays."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date
from typing import Any

import numpy as np
import numpy.typing as npt
import polars as pl

from engine import rulesets
from engine._history import History, player_column, seed_column
from engine.fide_periods import day_number as _day
from engine.fide_periods import months_before as _months_before
from engine.fide_periods import next_list


def _lists_of(comps: pl.DataFrame) -> list[str]:
    """The FIDE list of each competition, by its ``modality`` (standard when absent)."""
    if "modality" not in comps.columns:
        return ["standard"] * comps.height
    modalities = comps["modality"].to_list()
    known = {m: rulesets.list_of(m) for m in set(modalities)}  # a handful of values, 10k competitions
    return [known[m] for m in modalities]


def _next_lists(days: pl.Series) -> pl.Series:
    """:func:`next_list` of each day (computed once per distinct day)."""
    values = days.to_list()
    known = {d: next_list(d) for d in set(values)}
    return pl.Series([known[d] for d in values], dtype=pl.Date)


def _rule_sets_of(comps: pl.DataFrame, config: Mapping[str, Any] | None) -> list[str]:
    # A rapid or blitz competition is rated with its own list's rules of its date.
    keys = list(zip(comps["start_date"].to_list(), _lists_of(comps), strict=True))
    known = {k: rulesets.rule_set_for("fide-elo", k[0], config=config, rating_list=k[1]).name for k in set(keys)}
    return [known[k] for k in keys]


def _by_period(h: History, config: Mapping[str, Any] | None) -> tuple[pl.DataFrame, pl.DataFrame, list[str]]:
    """Competitions and games in rating order, and each competition's rule set.

    Both frames gain ``k_idx``, the competition's place in the order (period, end, start,
    id); the competitions gain ``period_date``, the list that rates them.
    """
    comps = h.competitions.with_columns(
        pl.col("end_date").map_batches(_next_lists, return_dtype=pl.Date).alias("period_date")
    )
    # Rate period by period: re-sort competitions by (period, end, start, id).
    comps = comps.sort(["period_date", "end_date", "start_date", "competition_id"]).with_row_index("k_idx")
    comps = comps.with_columns(pl.col("k_idx").cast(pl.Int64))
    rs_names = _rule_sets_of(comps, config)
    k_of_comp = np.zeros(comps.height, dtype=np.int64)
    k_of_comp[comps["comp_idx"].to_numpy()] = comps["k_idx"].to_numpy()
    if bool((k_of_comp == np.arange(comps.height)).all()):
        # The usual case (a period follows from the end date, so the orders agree): no re-sort.
        g = h.games.with_columns(pl.col("comp_idx").alias("k_idx"))
    else:  # pragma: no cover - defensive: the period order always follows the end date
        g = h.games.with_columns(
            pl.Series("k_idx", k_of_comp[h.games["comp_idx"].to_numpy()], dtype=pl.Int64)
        ).sort("k_idx", maintain_order=True)
    return comps, g, rs_names


def _period_arrays(
    comps: pl.DataFrame, g: pl.DataFrame, rs_unique: list[str]
) -> tuple[npt.NDArray[np.int64], list[date], npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """Games by competition (offsets), the periods, competitions by period (offsets), and per
    period and rule set the first day of the initial rating's window."""
    counts = np.bincount(g["k_idx"].to_numpy(), minlength=comps.height) if g.height else np.zeros(comps.height, np.int64)
    comp_offsets = np.zeros(comps.height + 1, dtype=np.int64)
    np.cumsum(counts, out=comp_offsets[1:])
    periods = comps["period_date"].unique(maintain_order=True).to_list()
    pidx = {d: i for i, d in enumerate(periods)}
    comp_period = np.array([pidx[d] for d in comps["period_date"].to_list()], dtype=np.int64)
    period_offsets = np.searchsorted(comp_period, np.arange(len(periods) + 1), side="left").astype(np.int64)
    cutoff = np.array(
        [[_day(_months_before(d, int(rulesets.get(n).params["initial_window_months"]))) for n in rs_unique]
         for d in periods],
        dtype=np.int64,
    ).reshape(len(periods), len(rs_unique))
    return comp_offsets, periods, period_offsets, cutoff


def _player_arrays(
    start: pl.DataFrame, players: pl.DataFrame | None, ids: list[str]
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.int64], npt.NDArray[np.float64], npt.NDArray[np.float64],
           npt.NDArray[np.int64]]:
    """Per player: starting rating (NaN: unrated), games, the seed's K, highest rating, birth year."""
    seed_rating = seed_column(start, ids, "rating", pl.Float64())
    declared = player_column(players, ids, "declared_rating", pl.Float64())
    # A seeded rating always wins over a declared one (DESIGN.md); a declared 0 is "unrated".
    merged = seed_rating.fill_null(declared)
    initial = (
        pl.select(pl.when(merged > 0).then(merged).otherwise(None)).to_series()
        .fill_null(float("nan")).to_numpy().astype(np.float64)
    )
    seed_games = seed_column(start, ids, "games", pl.Int64()).fill_null(0).to_numpy().astype(np.int64)
    seed_k = seed_column(start, ids, "k", pl.Float64()).fill_null(0.0).to_numpy().astype(np.float64)
    rmax = seed_column(start, ids, "rated_max", pl.Float64()).fill_null(float("-inf")).to_numpy()
    rmax = np.maximum(rmax, np.nan_to_num(initial, nan=-np.inf)).astype(np.float64)
    birth = player_column(players, ids, "birth_year", pl.Int64()).fill_null(-1).to_numpy().astype(np.int64)
    return initial, seed_games, seed_k, rmax, birth
