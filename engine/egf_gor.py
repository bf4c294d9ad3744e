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
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from datetime import date
from typing import Any

import numba
import numpy as np
import numpy.typing as npt
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
from engine.errors import InvalidConfigError, InvalidHistoryError

#: Ratings of the classic con/a table (``../shared/rules/egf_old_con_a_table.csv``).
CON_GOR: tuple[float, ...] = tuple(float(r) for r in range(100, 2800, 100))
#: con at those ratings (classic system), linearly interpolated in between.
CON_VALUES: tuple[float, ...] = (
    116, 110, 105, 100, 95, 90, 85, 80, 75, 70, 65, 60, 55, 51, 47, 43, 39, 35, 31, 27, 24, 21, 18, 15, 13, 11, 10,
)
#: Deflation correction of the classic system.
EPSILON = 0.016
#: beta(r) = -7 ln(3300 - r) is undefined from 3300: a rating made that high by a
#: large handicap (a 2600 receiving 9 stones) is held just below it.
BETA_CEILING = 3299.0
#: Tournament class weights of the 2021 system.
CLASS_WEIGHTS: Mapping[str, float] = {"A": 1.0, "B": 0.75, "C": 0.5, "D": 0.25}


def grade_rating(grade: str) -> float:
    """Starting rating of a declared grade: 20k = 100 ... 1k = 2000, 1d = 2100 ... 7d = 2700.

    Raises
    ------
    InvalidHistoryError
        Not a kyu/dan grade.

    Examples
    --------
    >>> grade_rating("20k"), grade_rating("1K"), grade_rating("1d"), grade_rating("7D"), grade_rating("30k")
    (100.0, 2000.0, 2100.0, 2700.0, -900.0)
    """
    m = re.fullmatch(r"\s*(\d{1,2})\s*([kKdDpP])\s*", grade or "")
    if not m:
        raise InvalidHistoryError(f"declared grade {grade!r} is not a kyu/dan grade such as '3k' or '1d'")
    n, kind = int(m.group(1)), m.group(2).lower()
    if kind == "k":
        return 2100.0 - 100.0 * n
    if kind == "d":
        return 2000.0 + 100.0 * n
    # Professional grades sit just above 7d (the EGD counts 1p as 2730, 30 per grade).
    return 2700.0 + 30.0 * n


def con_classic(rating: float) -> float:
    """``con`` of the classic system, linearly interpolated in the table.

    Examples
    --------
    >>> con_classic(100), con_classic(1675), con_classic(1721), con_classic(3000)
    (116.0, 40.0, 38.16, 10.0)
    """
    return float(np.interp(rating, CON_GOR, CON_VALUES))


def a_classic(rating: float) -> float:
    """``a = 200 - (R - 100) / 20`` of the lower-rated player (70 from 2700; 200 up to 100).

    Examples
    --------
    >>> a_classic(1675), a_classic(2800), a_classic(-50)
    (121.25, 70.0, 200.0)
    """
    r = min(max(rating, 100.0), 2700.0)
    return 200.0 - (r - 100.0) / 20.0


def handicap_bonus(handicap: int) -> float:
    """Rating-point worth of ``handicap`` stones: ``100 x (h - 0.5)`` (0 for an even game).

    Examples
    --------
    >>> handicap_bonus(0), handicap_bonus(1), handicap_bonus(3)
    (0.0, 50.0, 250.0)
    """
    return 100.0 * (abs(handicap) - 0.5) if handicap else 0.0


def expected_classic(
    rating: float, opponent: float, *, handicap: int = 0, epsilon: float = EPSILON, mode: str = "stronger"
) -> float:
    """``Se`` of the player in the classic system.

    ``handicap``: stones given by the player (negative: received).

    Examples
    --------
    >>> round(expected_classic(1721, 1724), 4), round(expected_classic(1721, 1617), 4)
    (0.4937, 0.682)
    """
    eff_own = rating + (handicap_bonus(handicap) if handicap < 0 else 0.0)
    eff_opp = opponent + (handicap_bonus(handicap) if handicap > 0 else 0.0)
    a = a_classic(min(rating, opponent))
    if eff_own <= eff_opp:
        se = 1.0 / (math.exp((eff_opp - eff_own) / a) + 1.0)
        return se - (epsilon / 2 if mode == "split" else 0.0)
    se_low = 1.0 / (math.exp((eff_own - eff_opp) / a) + 1.0)
    return 1.0 - se_low - (epsilon / 2 if mode == "split" else epsilon)


def beta(rating: float) -> float:
    """``beta(r) = -7 ln(3300 - r)`` of the 2021 system.

    Examples
    --------
    >>> round(beta(2100), 6)
    -49.630538
    """
    return -7.0 * math.log(3300.0 - min(rating, BETA_CEILING))


def expected_2021(rating: float, opponent: float, *, handicap: int = 0) -> float:
    """``Se = 1 / (1 + e^(beta(r2) - beta(r1)))`` (2021), handicap inside ``beta``.

    Examples
    --------
    >>> round(expected_2021(1000, 1300), 8)
    0.27322256
    """
    eff_own = rating + (handicap_bonus(handicap) if handicap < 0 else 0.0)
    eff_opp = opponent + (handicap_bonus(handicap) if handicap > 0 else 0.0)
    return 1.0 / (1.0 + math.exp(beta(eff_opp) - beta(eff_own)))


def con_2021(rating: float) -> float:
    """``con = ((3300 - r) / 200)^1.6`` (2021).

    Examples
    --------
    >>> round(con_2021(2100), 4)
    17.5809
    """
    return float(((3300.0 - min(rating, BETA_CEILING)) / 200.0) ** 1.6)


def bonus_2021(rating: float) -> float:
    """``bonus = ln(1 + e^((2300 - r) / 80)) / 5`` (2021), per game.

    Examples
    --------
    >>> round(bonus_2021(2100), 4), round(bonus_2021(-900), 4)
    (0.5158, 8.0)
    """
    return math.log1p(math.exp((2300.0 - rating) / 80.0)) / 5.0


@numba.njit(cache=True, nogil=True)
def _interp(x: float, xs: Any, ys: Any) -> float:  # pragma: no cover - compiled
    if x <= xs[0]:
        return float(ys[0])
    n = xs.shape[0]
    if x >= xs[n - 1]:
        return float(ys[n - 1])
    i = int((x - xs[0]) // (xs[1] - xs[0]))
    t = (x - xs[i]) / (xs[i + 1] - xs[i])
    return float(ys[i] + t * (ys[i + 1] - ys[i]))


@numba.njit(cache=True, nogil=True)
def _rate_kernel(
    offsets: Any, comp_mode: Any, comp_weight: Any, comp_eps: Any, comp_split: Any, comp_floor: Any,
    a_idx: Any, b_idx: Any, score_a: Any, handicap: Any, rating: Any, games: Any, con_x: Any, con_y: Any,
) -> Any:  # pragma: no cover - compiled
    n_games = a_idx.shape[0]
    n_players = rating.shape[0]
    ra = np.empty(n_games)
    rb = np.empty(n_games)
    sea = np.empty(n_games)
    seb = np.empty(n_games)
    ka = np.empty(n_games)
    kb = np.empty(n_games)
    cta = np.empty(n_games)
    ctb = np.empty(n_games)
    aa = np.empty(n_games)
    ab = np.empty(n_games)
    mark = np.full(n_players, -1, dtype=np.int64)
    delta = np.zeros(n_players)
    nplayed = np.zeros(n_players, dtype=np.int64)
    touched = np.empty(n_players, dtype=np.int64)
    for c in range(offsets.shape[0] - 1):
        n_t = 0
        mode = comp_mode[c]
        w = comp_weight[c]
        for g in range(offsets[c], offsets[c + 1]):
            pa = a_idx[g]
            pb = b_idx[g]
            for p in (pa, pb):
                if mark[p] != c:
                    mark[p] = c
                    delta[p] = 0.0
                    nplayed[p] = 0
                    touched[n_t] = p
                    n_t += 1
            r1 = rating[pa]
            r2 = rating[pb]
            h = handicap[g]
            adj = 100.0 * (abs(h) - 0.5) if h != 0 else 0.0
            e1 = r1 + (adj if h < 0 else 0.0)
            e2 = r2 + (adj if h > 0 else 0.0)
            if mode == 0:
                lo = min(r2, r1)
                lo = min(max(lo, 100.0), 2700.0)
                a = 200.0 - (lo - 100.0) / 20.0
                eps = comp_eps[c]
                if e1 <= e2:
                    s1 = 1.0 / (np.exp((e2 - e1) / a) + 1.0)
                    if comp_split[c]:
                        s2 = 1.0 - s1 - eps / 2
                        s1 = s1 - eps / 2
                    else:
                        s2 = 1.0 - s1 - eps
                else:
                    s2 = 1.0 / (np.exp((e1 - e2) / a) + 1.0)
                    if comp_split[c]:
                        s1 = 1.0 - s2 - eps / 2
                        s2 = s2 - eps / 2
                    else:
                        s1 = 1.0 - s2 - eps
                k1 = _interp(r1, con_x, con_y)
                k2 = _interp(r2, con_x, con_y)
                c1 = k1 * (score_a[g] - s1)
                c2 = k2 * ((1.0 - score_a[g]) - s2)
            else:
                e1 = min(e1, 3299.0)
                e2 = min(e2, 3299.0)
                s1 = 1.0 / (1.0 + np.exp(-7.0 * np.log(3300.0 - e2) + 7.0 * np.log(3300.0 - e1)))
                s2 = 1.0 - s1
                k1 = ((3300.0 - min(r1, 3299.0)) / 200.0) ** 1.6
                k2 = ((3300.0 - min(r2, 3299.0)) / 200.0) ** 1.6
                c1 = w * (k1 * (score_a[g] - s1) + np.log1p(np.exp((2300.0 - r1) / 80.0)) / 5.0)
                c2 = w * (k2 * ((1.0 - score_a[g]) - s2) + np.log1p(np.exp((2300.0 - r2) / 80.0)) / 5.0)
            ra[g] = r1
            rb[g] = r2
            sea[g] = s1
            seb[g] = s2
            ka[g] = k1
            kb[g] = k2
            cta[g] = c1
            ctb[g] = c2
            delta[pa] += c1
            delta[pb] += c2
            nplayed[pa] += 1
            nplayed[pb] += 1
        for i in range(n_t):
            p = touched[i]
            new = rating[p] + delta[p]
            new = max(new, comp_floor[c])
            rating[p] = new
            games[p] += nplayed[p]
        for g in range(offsets[c], offsets[c + 1]):
            aa[g] = rating[a_idx[g]]
            ab[g] = rating[b_idx[g]]
    return ra, rb, sea, seb, ka, kb, cta, ctb, aa, ab


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


def _changes(h: History, names: list[str], federation: str, *arrays: npt.NDArray[np.float64]) -> pl.DataFrame:
    """One row per player and competition, summed in one compiled pass over the games."""
    ra, rb, sea, seb, ka, kb, cta, ctb, aa, ab = arrays
    g = h.games
    every = np.ones(g.height, dtype=np.bool_)
    score_a = g["score_a"].to_numpy().astype(np.float64)
    s = summarise_sides(h.game_offsets, g, h.player_rank, every, every,
                        [score_a, sea, cta], [1.0 - score_a, seb, ctb])
    changes = pl.DataFrame({
        "competition_id": g["competition_id"].gather(s.game),
        "player_id": pick(s, g["player_a"], g["player_b"]),
        "rule_set": pl.Series(names, dtype=pl.Utf8).gather(s.group),
        "rating_before": pick(s, ra, rb), "games": s.games, "score": s.sums[0], "expected": s.sums[1],
        "k": pick(s, ka, kb), "change": s.sums[2], "rating_after": pick(s, aa, ab),
    }).with_columns(pl.lit(federation).alias("federation"))
    return conform(changes, RATING_CHANGES_SCHEMA)


def _explanations(h: History, names: list[str], federation: str, *arrays: npt.NDArray[np.float64]) -> pl.DataFrame:
    ra, rb, sea, seb, ka, kb, cta, ctb, aa, ab = arrays
    g = h.games
    cols = ["competition_id", "comp_idx", "game_idx", "round", "source_line"]
    side_a = g.select(*cols, pl.col("player_a").alias("player_id"), pl.col("a_rank").alias("prank"),
                      pl.col("player_b").alias("opponent_id"),
                      pl.col("handicap"), pl.col("score_a").alias("score")).with_columns(
        rating=ra, opponent_rating=rb, expected=sea, k=ka, contribution=cta, rating_after=aa)
    side_b = g.select(*cols, pl.col("player_b").alias("player_id"), pl.col("b_rank").alias("prank"),
                      pl.col("player_a").alias("opponent_id"),
                      (-pl.col("handicap")).alias("handicap"), (1.0 - pl.col("score_a")).alias("score")).with_columns(
        rating=rb, opponent_rating=ra, expected=seb, k=kb, contribution=ctb, rating_after=ab)
    rows = pl.concat([side_a, side_b])
    # By position, not a join: a competition's rule set is at its comp_idx.
    rows = rows.with_columns(
        pl.Series("rule_set", names, dtype=pl.Utf8).gather(rows["comp_idx"]),
        pl.lit(federation).alias("federation"), pl.lit(None, pl.Utf8).alias("period"),
    )
    ordered, _ = explain_and_summarise(rows, group="comp_idx", n_players=len(h.player_ids), firsts=[], sums=[])
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
