"""The BARRUF's output frames: change rows, explanation rows and the ratings with their status."""

from __future__ import annotations

from datetime import date

import numpy as np
import polars as pl

from engine._barruf_kernel import BarrufResult
from engine._barruf_rules import (
    PROVISIONAL_MAX_GAMES,
    RULE_SET,
    BarrufParameters,
    inactivity_window,
    season_start_year,
)
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


def _status_codes(
    last_season: pl.Expr, seed_status: pl.Expr, games: pl.Expr, rating: pl.Expr, current: int, window: int
) -> pl.Expr:
    """The list's own codes: ``act`` / ``exp`` (provisional) / ``inact``; null when unrated."""
    # Without a season, trust the list's own code (the app's "inact", or the list word "inactive").
    inactive = pl.when(last_season.is_not_null()).then(last_season < current - window).otherwise(
        seed_status.fill_null("").str.to_lowercase().is_in(["inact", "inactive"])
    )
    return (
        pl.when(rating.is_null()).then(pl.lit(None, pl.Utf8))
        .when(inactive).then(pl.lit("inact"))
        .when(games.fill_null(0) <= PROVISIONAL_MAX_GAMES).then(pl.lit("exp"))
        .otherwise(pl.lit("act"))
    )


def _season_year(label: pl.Expr) -> pl.Expr:
    """``"2024-25"`` -> 2024 (null when not a season label)."""
    return label.str.extract(r"^(\d{4})", 1).cast(pl.Int64, strict=False)


def _changes(h: History, res: BarrufResult, federation: str) -> pl.DataFrame:
    """One row per player and competition, summed in one compiled pass over the games."""
    g = h.games
    every = np.ones(g.height, dtype=np.bool_)
    score_a = g["score_a"].to_numpy().astype(np.float64)
    s = summarise_sides(
        h.game_offsets, g, h.player_rank, every, every,
        [score_a, res.expected_a], [1.0 - score_a, 1.0 - res.expected_a],
    )
    changes = pl.DataFrame({
        "competition_id": decode(h.competitions["competition_id"], s.group, "competition_id"),
        "player_id": decode(h.id_table, pick_code(s.side, s.game, g["a_idx"], g["b_idx"]), "player_id"),
        "rating_before": pick(s, res.rating_a, res.rating_b),
        "games": s.games, "score": s.sums[0], "expected": s.sums[1],
        "k": pick(s, res.k_a, res.k_b), "change": pick(s, res.change_a, res.change_b),
        "rating_after": pick(s, res.after_a, res.after_b),
    }).with_columns(pl.lit(federation).alias("federation"), pl.lit(RULE_SET).alias("rule_set"))
    return conform(changes, RATING_CHANGES_SCHEMA)


def _explanations(h: History, res: BarrufResult, federation: str) -> pl.DataFrame:
    g = h.games
    side_a = pl.DataFrame({
        "comp_idx": g["comp_idx"], "game_idx": g["game_idx"],
        "pid": g["a_idx"], "prank": g["a_rank"], "round": g["round"], "oid": g["b_idx"],
        "rating": res.rating_a, "opponent_rating": res.rating_b, "handicap": g["handicap"],
        "score": g["score_a"], "expected": res.expected_a, "k": res.k_a, "change": res.change_a,
        "rating_after": res.after_a, "source_line": g["source_line"],
    })
    side_b = pl.DataFrame({
        "comp_idx": g["comp_idx"], "game_idx": g["game_idx"],
        "pid": g["b_idx"], "prank": g["b_rank"], "round": g["round"], "oid": g["a_idx"],
        "rating": res.rating_b, "opponent_rating": res.rating_a, "handicap": -g["handicap"],
        "score": 1.0 - g["score_a"], "expected": 1.0 - res.expected_a, "k": res.k_b, "change": res.change_b,
        "rating_after": res.after_b, "source_line": g["source_line"],
    })
    rows = pl.concat([side_a, side_b]).with_columns(
        (pl.col("k") * (pl.col("score") - pl.col("expected"))).alias("contribution"),
    )
    ordered, _ = explain_and_summarise(
        rows, group="comp_idx", n_players=len(h.player_ids), firsts=[], sums=[],
    )
    # Ids and constants join the rows once sorted: the sort gathers integers only.
    ordered = decode_rows(ordered, h.id_table, h.competitions["competition_id"], "comp_idx").with_columns(
        pl.lit(federation).alias("federation"), pl.lit(None, pl.Utf8).alias("period"), pl.lit(RULE_SET).alias("rule_set"),
    )
    return conform(ordered, EXPLANATIONS_SCHEMA)


def _ratings_frame(
    h: History,
    res: BarrufResult,
    start: pl.DataFrame,
    players: pl.DataFrame | None,
    federation: str,
    params: BarrufParameters,
) -> pl.DataFrame:
    ids = h.player_ids
    g = h.games
    seed_as_of = seed_column(start, ids, "as_of", pl.Date())
    if h.competitions.height:
        as_of: date | None = h.competitions["end_date"].max()  # type: ignore[assignment]
    else:
        as_of = seed_as_of.max()  # type: ignore[assignment]
    # Season of each player's last counted game, from the competition's end date.
    last_comp = (
        pl.concat([g.select("comp_idx", pid="a_idx"), g.select("comp_idx", pid="b_idx")])
        .group_by("pid").agg(pl.col("comp_idx").max())
        .join(h.competitions.select("comp_idx", "end_date"), on="comp_idx")
    )
    last_year = np.full(len(ids), -1, dtype=np.int64)
    if last_comp.height:
        years = [season_start_year(d, params.season_start) for d in last_comp["end_date"].to_list()]
        last_year[last_comp["pid"].to_numpy()] = np.array(years, dtype=np.int64)
    name = seed_column(start, ids, "name", pl.Utf8()).fill_null(player_column(players, ids, "name", pl.Utf8()))
    frame = pl.DataFrame({
        "player_id": pl.Series(ids, dtype=pl.Utf8),
        "name": name,
        "rating": pl.Series(res.rating, dtype=pl.Float64).fill_nan(None),
        "games": pl.Series(res.games, dtype=pl.Int64),
        "played_year": pl.Series(last_year, dtype=pl.Int64),
        "seed_last": seed_column(start, ids, "last_played", pl.Utf8()),
        "seed_status": seed_column(start, ids, "status", pl.Utf8()),
    }).with_columns(
        pl.when(pl.col("played_year") >= 0)
        .then(pl.max_horizontal(pl.col("played_year"), _season_year(pl.col("seed_last"))))
        .otherwise(_season_year(pl.col("seed_last")))
        .alias("last_year")
    )
    current = season_start_year(as_of, params.season_start) if as_of else 0
    window = inactivity_window(as_of, params) if as_of else 0
    frame = frame.with_columns(
        pl.lit(federation).alias("federation"),
        pl.lit(as_of, pl.Date).alias("as_of"),
        _status_codes(
            pl.col("last_year"), pl.col("seed_status"), pl.col("games"), pl.col("rating"), current, window
        ).alias("status") if as_of else pl.col("seed_status").alias("status"),
        pl.when(pl.col("last_year").is_not_null())
        .then(pl.format("{}-{}", pl.col("last_year"), ((pl.col("last_year") + 1) % 100).cast(pl.Utf8).str.zfill(2)))
        .otherwise(pl.col("seed_last"))
        .alias("last_played"),
    )
    return conform(frame, RATINGS_SCHEMA)
