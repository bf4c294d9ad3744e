"""FIDE Elo, frames out: the change and explanation rows, the ratings with their K and status."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date, timedelta
from typing import Any

import numpy as np
import polars as pl

from engine import rulesets
from engine._coding import decode, decode_rows, pick_code
from engine._fide_inputs import _lists_of
from engine._frames import EXPLANATIONS_SCHEMA, RATING_CHANGES_SCHEMA, RATINGS_SCHEMA, conform
from engine._history import (
    History,
    explain_and_summarise,
    pick,
    player_column,
    seed_column,
    summarise_sides,
)
from engine.fide_tables import INACTIVE_AFTER_DAYS, k_column, rule_table


def _changes(
    g: pl.DataFrame, comps: pl.DataFrame, offsets: Any, rank: Any, rs_names: list[str], federation: str, ids: pl.Series,
    ra: Any, rb: Any, pda: Any, pdb: Any, ka: Any, kb: Any, cnta: Any, cntb: Any, aft_a: Any, aft_b: Any,
) -> pl.DataFrame:
    """One row per player, tournament and period, summed in one compiled pass over the games.

    The sums add exactly what the explanation rows hold: null expected and contribution
    (a game pooled for an initial rating) count as 0.
    """
    score_a = g["score_a"].to_numpy().astype(np.float64)
    score_b = 1.0 - score_a
    exp_a = np.where(pda >= 0, pda / 100.0, 0.0)
    exp_b = np.where(pdb >= 0, pdb / 100.0, 0.0)
    con_a = np.where(cnta == 1, ka.astype(np.float64) * (score_a - exp_a), 0.0)
    con_b = np.where(cntb == 1, kb.astype(np.float64) * (score_b - exp_b), 0.0)
    s = summarise_sides(offsets, g, rank, cnta > 0, cntb > 0, [score_a, exp_a, con_a], [score_b, exp_b, con_b])
    rated = pick(s, cnta, cntb) == 1
    k = pick(s, ka, kb).astype(np.float64)
    periods = comps["period_date"].dt.strftime("%Y-%m")
    changes = pl.DataFrame({
        "competition_id": decode(comps["competition_id"], s.group, "competition_id"),   # comps by k_idx
        "period": periods.gather(s.group),
        "player_id": decode(ids, pick_code(s.side, s.game, g["a_idx"], g["b_idx"]), "player_id"),
        "rating_before": pl.Series(pick(s, ra, rb), dtype=pl.Float64).fill_nan(None),
        "games": s.games, "score": s.sums[0],
        "expected": pl.Series(np.where(rated, s.sums[1], np.nan)).fill_nan(None),
        "k": pl.Series(np.where(rated, k, np.nan)).fill_nan(None),
        "change": pl.Series(np.where(rated, s.sums[2], np.nan)).fill_nan(None),
        "rating_after": pl.Series(pick(s, aft_a, aft_b), dtype=pl.Float64).fill_nan(None),
        "rule_set": pl.Series(rs_names, dtype=pl.Utf8).gather(s.group),
    }).with_columns(pl.lit(federation).alias("federation"))
    return conform(changes, RATING_CHANGES_SCHEMA)


def _explanations(
    g: pl.DataFrame, comps: pl.DataFrame, rs_names: list[str], federation: str, ids: pl.Series,
    ra: Any, rb: Any, pda: Any, pdb: Any, ka: Any, kb: Any, cnta: Any, cntb: Any, aft_a: Any, aft_b: Any,
) -> pl.DataFrame:
    periods = comps["period_date"].dt.strftime("%Y-%m")  # by k_idx
    rule_sets = pl.Series("rule_set", rs_names, dtype=pl.Utf8)
    base = g.select("k_idx", "game_idx", "round", "handicap", "source_line", "a_idx", "b_idx",
                    "score_a", "a_rank", "b_rank")

    def side(player: str, opp: str, rank: str, score: pl.Expr, r: Any, ro: Any, pd: Any, k: Any, cnt: Any, aft: Any,
             hsign: int) -> pl.DataFrame:
        pdf = pl.Series(pd, dtype=pl.Float64)
        return base.select(
            "k_idx", "game_idx", "round", "source_line",
            pl.col(player).alias("pid"), pl.col(rank).alias("prank"), pl.col(opp).alias("oid"),
            (pl.col("handicap") * hsign).alias("handicap"), score.alias("score"),
        ).with_columns(
            rating=pl.Series(r, dtype=pl.Float64).fill_nan(None),
            opponent_rating=pl.Series(ro, dtype=pl.Float64).fill_nan(None),
            expected=pl.when(pdf >= 0).then(pdf / 100.0).otherwise(None),
            k=pl.when(pl.Series(cnt) == 1).then(pl.Series(k, dtype=pl.Float64)).otherwise(None),
            cnt=pl.Series(cnt, dtype=pl.Int8),
            rating_after=pl.Series(aft, dtype=pl.Float64).fill_nan(None),
        )

    rows = pl.concat([
        side("a_idx", "b_idx", "a_rank", pl.col("score_a"), ra, rb, pda, ka, cnta, aft_a, 1),
        side("b_idx", "a_idx", "b_rank", 1.0 - pl.col("score_a"), rb, ra, pdb, kb, cntb, aft_b, -1),
    ]).filter(pl.col("cnt") > 0)
    rows = rows.with_columns((pl.col("k") * (pl.col("score") - pl.col("expected"))).alias("contribution"))
    ordered, _ = explain_and_summarise(rows, group="k_idx", n_players=len(ids), firsts=[], sums=[])
    # By position, not a join: a competition's id, period and rule set are at its k_idx. They and
    # the player ids join the rows once sorted: the sort gathers integers only.
    k_idx = ordered["k_idx"]
    ordered = decode_rows(ordered, ids, comps["competition_id"], "k_idx").with_columns(
        periods.gather(k_idx).alias("period"), rule_sets.gather(k_idx), pl.lit(federation).alias("federation"),
    )
    return conform(ordered, EXPLANATIONS_SCHEMA)


def list_k(
    rating: pl.Expr, games: pl.Expr, rated_max: pl.Expr, age: pl.Expr, rule_set: str
) -> pl.Expr:
    """:func:`k_factor` of the list (one game in the period) as a polars expression.

    The same compiled rule (:func:`engine.fide_tables.k_rule`), applied to whole columns.

    Examples
    --------
    >>> f = pl.DataFrame({"r": [1800.0, 2250.0, None], "g": [12, 100, 5], "m": [None, None, None], "a": [30, 16, 9]})
    >>> f.select(list_k(pl.col("r"), pl.col("g"), pl.col("m"), pl.col("a"), "fide-2024")).to_series().to_list()
    [40, 40, None]
    """
    table = rule_table([rule_set])

    def apply(s: pl.Series) -> pl.Series:
        f = s.struct.unnest()
        r = f["rating"].cast(pl.Float64).fill_null(float("nan")).to_numpy()
        k = k_column(
            table, r,
            f["rated_max"].cast(pl.Float64).fill_null(float("-inf")).to_numpy(),
            f["games"].cast(pl.Float64).fill_null(float("inf")).to_numpy(),
            f["age"].cast(pl.Int64).fill_null(0).to_numpy(), f["age"].is_not_null().to_numpy(), 1,
        )
        return pl.Series(k, dtype=pl.Int32).set(pl.Series(np.isnan(r)), None)

    return pl.struct(
        rating.alias("rating"), games.alias("games"), rated_max.alias("rated_max"), age.alias("age")
    ).map_batches(apply, return_dtype=pl.Int32)


def _ratings_frame(
    h: History, g: pl.DataFrame, comps: pl.DataFrame, start: pl.DataFrame, players: pl.DataFrame | None,
    federation: str, final: Any, games_out: Any, rmax: Any, config: Mapping[str, Any] | None, periods: list[date],
) -> pl.DataFrame:
    ids = h.player_ids
    seed_as_of = seed_column(start, ids, "as_of", pl.Date())
    as_of: date | None = periods[-1] if periods else seed_as_of.max()  # type: ignore[assignment]
    last = np.full(len(ids), -1, dtype=np.int64)
    if g.height:
        k = g["k_idx"].to_numpy()
        np.maximum.at(last, g["a_idx"].to_numpy(), k)
        np.maximum.at(last, g["b_idx"].to_numpy(), k)
    played = comps["end_date"].gather(pl.Series(last).replace(-1, None))
    birth = player_column(players, ids, "birth_year", pl.Int64())
    lists = sorted(set(_lists_of(comps)))
    # Pure: the day comes from the history (its last period) or the seed, never the clock;
    # with neither, the K of the newest rules.
    rule_set = rulesets.rule_set_for(
        "fide-elo", as_of or date.max, config=config, rating_list=lists[0] if len(lists) == 1 else "standard"
    ).name
    frame = pl.DataFrame({
        "player_id": pl.Series(ids, dtype=pl.Utf8),
        "name": seed_column(start, ids, "name", pl.Utf8()).fill_null(player_column(players, ids, "name", pl.Utf8())),
        "rating": pl.Series(final, dtype=pl.Float64).fill_nan(None),
        "games": pl.Series(games_out, dtype=pl.Int64),
        "rated_max": pl.Series(rmax, dtype=pl.Float64),
        "played": played,
        "seed_last": seed_column(start, ids, "last_played", pl.Utf8()),
        "age": (as_of.year if as_of else 0) - birth,
        "seed_k": seed_column(start, ids, "k", pl.Int32()),
        "seed_games": seed_column(start, ids, "games", pl.Int64()).fill_null(0),
    }).with_columns(
        pl.when(pl.col("rated_max").is_infinite() | pl.col("rating").is_null()).then(None)
        .otherwise(pl.col("rated_max")).alias("rated_max"),
        pl.coalesce(pl.col("played").dt.strftime("%Y-%m-%d"), pl.col("seed_last")).alias("last_played"),
    )
    frame = frame.with_columns(
        pl.lit(federation).alias("federation"),
        pl.lit(as_of, pl.Date).alias("as_of"),
        # A player the history never rated keeps the K of the seeded list (it may rest on
        # facts the list does not carry, such as a past 2400); others get the rules' K.
        pl.when(pl.col("seed_k").is_not_null() & (pl.col("games") == pl.col("seed_games")))
        .then(pl.col("seed_k"))
        .otherwise(list_k(pl.col("rating"), pl.col("games"), pl.col("rated_max"), pl.col("age"), rule_set))
        .alias("k"),
        _status(pl.col("rating"), pl.col("last_played"), as_of).alias("status"),
    )
    return conform(frame, RATINGS_SCHEMA)


def _status(rating: pl.Expr, last_played: pl.Expr, as_of: date | None) -> pl.Expr:
    """``unrated``, ``inactive`` (no rated game in the year before ``as_of``) or ``active``.

    Without a day (an undated history and seed) nobody can be judged inactive.
    """
    if as_of is None:
        return pl.when(rating.is_null()).then(pl.lit("unrated")).otherwise(pl.lit("active"))
    last = last_played.str.to_date("%Y-%m-%d", strict=False)
    limit = as_of - timedelta(days=INACTIVE_AFTER_DAYS)
    return (
        pl.when(rating.is_null()).then(pl.lit("unrated"))
        .when(last.is_not_null() & (last < limit)).then(pl.lit("inactive"))
        .otherwise(pl.lit("active"))
    )
