"""The EGF GoR's tournament parameters in, and its change, explanation and ratings frames out."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date
from typing import Any

import numpy as np
import numpy.typing as npt
import polars as pl

from engine import rulesets
from engine._coding import decode, decode_rows, pick_code
from engine._frames import EXPLANATIONS_SCHEMA, RATING_CHANGES_SCHEMA, RATINGS_SCHEMA, conform
from engine._history import (
    History,
    explain_and_summarise,
    pick,
    player_column,
    seed_column,
    summarise_sides,
)
from engine.errors import InvalidConfigError, InvalidHistoryError


def _comp_params(comps: pl.DataFrame, config: Mapping[str, Any] | None) -> tuple[list[str], dict[str, Any]]:
    names = [rulesets.rule_set_for("egf-gor", d, config=config).name for d in comps["end_date"].to_list()]
    cfg = dict(config or {})
    mode_cfg = cfg.get("epsilon_mode")
    if mode_cfg not in (None, "stronger", "split"):
        raise InvalidConfigError(f"epsilon_mode must be 'stronger' or 'split', not {mode_cfg!r}")
    classes = (
        comps["event_class"].to_list() if "event_class" in comps.columns else [None] * comps.height
    )
    mode, weight, eps, split, floor = [], [], [], [], []
    for name, cls in zip(names, classes, strict=True):
        p = rulesets.get(name).params
        if name == "egf-gor-2021":
            mode.append(1)
            weights = p["class_weights"]
            key = (cls or "A").strip().upper()
            if key not in weights:
                raise InvalidHistoryError(f"unknown EGF tournament class {cls!r}; expected one of {sorted(weights)}")
            weight.append(float(weights[key]))
            eps.append(0.0)
            split.append(False)
        else:
            mode.append(0)
            weight.append(1.0)
            eps.append(float(cfg.get("epsilon", p["epsilon"])))
            split.append((mode_cfg or p["epsilon_mode"]) == "split")
        floor.append(float(p["floor"]))
    return names, {
        "mode": np.array(mode, dtype=np.int64), "weight": np.array(weight), "eps": np.array(eps),
        "split": np.array(split, dtype=np.bool_), "floor": np.array(floor),
    }


def _changes(h: History, names: list[str], federation: str, *arrays: npt.NDArray[np.float64]) -> pl.DataFrame:
    """One row per player and competition, summed in one compiled pass over the games."""
    ra, rb, sea, seb, ka, kb, cta, ctb, aa, ab = arrays
    g = h.games
    every = np.ones(g.height, dtype=np.bool_)
    score_a = g["score_a"].to_numpy().astype(np.float64)
    s = summarise_sides(h.game_offsets, g, h.player_rank, every, every,
                        [score_a, sea, cta], [1.0 - score_a, seb, ctb])
    changes = pl.DataFrame({
        "competition_id": decode(h.competitions["competition_id"], s.group, "competition_id"),
        "player_id": decode(h.id_table, pick_code(s.side, s.game, g["a_idx"], g["b_idx"]), "player_id"),
        "rule_set": pl.Series(names, dtype=pl.Utf8).gather(s.group),
        "rating_before": pick(s, ra, rb), "games": s.games, "score": s.sums[0], "expected": s.sums[1],
        "k": pick(s, ka, kb), "change": s.sums[2], "rating_after": pick(s, aa, ab),
    }).with_columns(pl.lit(federation).alias("federation"))
    return conform(changes, RATING_CHANGES_SCHEMA)


def _explanations(h: History, names: list[str], federation: str, *arrays: npt.NDArray[np.float64]) -> pl.DataFrame:
    ra, rb, sea, seb, ka, kb, cta, ctb, aa, ab = arrays
    g = h.games
    cols = ["comp_idx", "game_idx", "round", "source_line"]
    side_a = g.select(*cols, pl.col("a_idx").alias("pid"), pl.col("a_rank").alias("prank"),
                      pl.col("b_idx").alias("oid"),
                      pl.col("handicap"), pl.col("score_a").alias("score")).with_columns(
        rating=ra, opponent_rating=rb, expected=sea, k=ka, contribution=cta, rating_after=aa)
    side_b = g.select(*cols, pl.col("b_idx").alias("pid"), pl.col("b_rank").alias("prank"),
                      pl.col("a_idx").alias("oid"),
                      (-pl.col("handicap")).alias("handicap"), (1.0 - pl.col("score_a")).alias("score")).with_columns(
        rating=rb, opponent_rating=ra, expected=seb, k=kb, contribution=ctb, rating_after=ab)
    rows = pl.concat([side_a, side_b])
    ordered, _ = explain_and_summarise(rows, group="comp_idx", n_players=len(h.player_ids), firsts=[], sums=[])
    # Ids, rule sets (by position: a competition's is at its comp_idx) and constants join the
    # rows once sorted: the sort gathers integers only.
    ordered = decode_rows(ordered, h.id_table, h.competitions["competition_id"], "comp_idx").with_columns(
        pl.Series("rule_set", names, dtype=pl.Utf8).gather(ordered["comp_idx"]),
        pl.lit(federation).alias("federation"), pl.lit(None, pl.Utf8).alias("period"),
    )
    return conform(ordered, EXPLANATIONS_SCHEMA)


def _ratings_frame(
    h: History, start: pl.DataFrame, players: pl.DataFrame | None, federation: str,
    rating: npt.NDArray[np.float64], games: npt.NDArray[np.int64],
) -> pl.DataFrame:
    ids = h.player_ids
    g = h.games
    seed_as_of = seed_column(start, ids, "as_of", pl.Date())
    as_of: date | None = h.competitions["end_date"].max() if h.competitions.height else seed_as_of.max()  # type: ignore[assignment]
    last = np.full(len(ids), -1, dtype=np.int64)
    if g.height:
        np.maximum.at(last, g["a_idx"].to_numpy(), g["comp_idx"].to_numpy())
        np.maximum.at(last, g["b_idx"].to_numpy(), g["comp_idx"].to_numpy())
    ends = h.competitions["end_date"].to_list()
    played = [ends[i].isoformat() if i >= 0 else None for i in last.tolist()]
    frame = pl.DataFrame({
        "player_id": pl.Series(ids, dtype=pl.Utf8),
        "name": seed_column(start, ids, "name", pl.Utf8()).fill_null(player_column(players, ids, "name", pl.Utf8())),
        "rating": pl.Series(rating, dtype=pl.Float64).fill_nan(None),
        "games": pl.Series(games, dtype=pl.Int64),
        "last_played": pl.Series(played, dtype=pl.Utf8).fill_null(seed_column(start, ids, "last_played", pl.Utf8())),
    }).with_columns(
        pl.lit(federation).alias("federation"),
        pl.lit(as_of, pl.Date).alias("as_of"),
        pl.when(pl.col("rating").is_null()).then(pl.lit("unrated")).otherwise(pl.lit("active")).alias("status"),
    )
    return conform(frame, RATINGS_SCHEMA)
