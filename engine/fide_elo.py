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
- this module: frames in (sorting, indexing) and frames out (changes, explanations,
  ratings), and the list.

Rated player: ``change = K x sum(score - PD(D))`` over the rating period, rounded once
per period, half away from zero. Rating periods: a tournament is rated in the first
list published after its end date; the period is named after that list (``"2025-11"``).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date, timedelta
from typing import Any

import numpy as np
import polars as pl

from engine import rulesets
from engine._frames import (
    EXPLANATIONS_SCHEMA,
    RATING_CHANGES_SCHEMA,
    RATING_LIST_SCHEMA,
    RATINGS_SCHEMA,
    conform,
)
from engine._history import (
    History,
    explain_and_summarise,
    pick,
    player_column,
    prepare,
    seed_column,
    summarise_sides,
)
from engine._lazy import Lazy
from engine.fide_kernel import rate_kernel as _rate_kernel
from engine.fide_periods import day_number as _day
from engine.fide_periods import months_before as _months_before
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
    k_column,
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

# ---------------------------------------------------------------- frames


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
    comps = h.competitions.with_columns(
        pl.col("end_date").map_batches(_next_lists, return_dtype=pl.Date).alias("period_date")
    )
    # Rate period by period: re-sort competitions by (period, end, start, id).
    comps = comps.sort(["period_date", "end_date", "start_date", "competition_id"]).with_row_index("k_idx")
    comps = comps.with_columns(pl.col("k_idx").cast(pl.Int64))
    rs_names = _rule_sets_of(comps, config)
    rs_unique = sorted(set(rs_names)) or ["fide-2024"]
    rs_index = {n: i for i, n in enumerate(rs_unique)}
    k_of_comp = np.zeros(comps.height, dtype=np.int64)
    k_of_comp[comps["comp_idx"].to_numpy()] = comps["k_idx"].to_numpy()
    if bool((k_of_comp == np.arange(comps.height)).all()):
        # The usual case (a period follows from the end date, so the orders agree): no re-sort.
        g = h.games.with_columns(pl.col("comp_idx").alias("k_idx"))
    else:  # pragma: no cover - defensive: the period order always follows the end date
        g = h.games.with_columns(
            pl.Series("k_idx", k_of_comp[h.games["comp_idx"].to_numpy()], dtype=pl.Int64)
        ).sort("k_idx", maintain_order=True)
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
    changes = _changes(g, comps, comp_offsets, h.player_rank, rs_names, federation, *arrays)
    ratings = _ratings_frame(h, g, comps, start, players, federation, final, games_out, rmax_out, config, periods)
    return changes, Lazy(lambda: _explanations(g, comps, rs_names, federation, len(ids), *arrays)), ratings


def _changes(
    g: pl.DataFrame, comps: pl.DataFrame, offsets: Any, rank: Any, rs_names: list[str], federation: str,
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
        "competition_id": g["competition_id"].gather(s.game),
        "period": periods.gather(s.group),
        "player_id": pick(s, g["player_a"], g["player_b"]),
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
    g: pl.DataFrame, comps: pl.DataFrame, rs_names: list[str], federation: str, n_players: int,
    ra: Any, rb: Any, pda: Any, pdb: Any, ka: Any, kb: Any, cnta: Any, cntb: Any, aft_a: Any, aft_b: Any,
) -> pl.DataFrame:
    periods = comps["period_date"].dt.strftime("%Y-%m")  # by k_idx
    rule_sets = pl.Series("rule_set", rs_names, dtype=pl.Utf8)
    base = g.select("competition_id", "k_idx", "game_idx", "round", "handicap", "source_line", "player_a", "player_b",
                    "score_a", "a_rank", "b_rank")

    def side(player: str, opp: str, rank: str, score: pl.Expr, r: Any, ro: Any, pd: Any, k: Any, cnt: Any, aft: Any,
             hsign: int) -> pl.DataFrame:
        pdf = pl.Series(pd, dtype=pl.Float64)
        return base.select(
            "competition_id", "k_idx", "game_idx", "round", "source_line",
            pl.col(player).alias("player_id"), pl.col(rank).alias("prank"), pl.col(opp).alias("opponent_id"),
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
        side("player_a", "player_b", "a_rank", pl.col("score_a"), ra, rb, pda, ka, cnta, aft_a, 1),
        side("player_b", "player_a", "b_rank", 1.0 - pl.col("score_a"), rb, ra, pdb, kb, cntb, aft_b, -1),
    ]).filter(pl.col("cnt") > 0)
    # By position, not a join: a competition's period and rule set are at its k_idx.
    k_idx = rows["k_idx"]
    rows = rows.with_columns(
        periods.gather(k_idx).alias("period"), rule_sets.gather(k_idx),
        pl.lit(federation).alias("federation"),
        (pl.col("k") * (pl.col("score") - pl.col("expected"))).alias("contribution"),
    )
    ordered, _ = explain_and_summarise(rows, group="k_idx", n_players=n_players, firsts=[], sums=[])
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
