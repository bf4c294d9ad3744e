"""BARRUF, the rating system of the AJUSC (Catalan classic Scrabble).

Source: the federation's description of the BARRUF and its computation sheet
``GENERADOR_BARRUF``, as reproduced by the public AJUSC management app
``moominot/gestioAjusc`` (``lib/barruf/``); summarised in
``../shared/rules/RULES.md`` ("BARRUF — AJUSC").

One championship is rated at once, after it ends: every expected score uses the
ratings from before the championship, ``E = Phi((R_own - R_opp) / 283.84)``,
``change = K x (W - sum E)`` and ``new = old + round(change)`` (half away from
zero), so ratings stay integers.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
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
from engine.errors import InvalidConfigError
from engine.rounding import HALF_TOLERANCE

#: Standard deviation of the sheet's ``NORMDIST(diff; 0; 283.84; TRUE)``.
SIGMA = 283.84
#: Rating of a player's first championship (RULES.md: "New player: 950").
NEWCOMER_RATING = 950.0
#: Players with this many games or fewer are provisional ("en expectativa").
PROVISIONAL_MAX_GAMES = 10
#: The name of the rule set in the registry.
RULE_SET = "barruf"

#: Category thresholds, highest first (RULES.md; the app counts 1400 as Gran Gran Mestre).
CATEGORIES: tuple[tuple[float, str], ...] = (
    (1400.0, "Gran Gran Mestre"),
    (1300.0, "Gran Mestre"),
    (1200.0, "Mestre"),
    (1100.0, "Expert"),
    (1000.0, "Avançat"),
)

#: Inactivity window (seasons before the current one) by the season it applies
#: from: the original sheet (current + two previous), then the federation's 2026
#: wording (current + previous), applied from the 2026-27 season (gestioAjusc
#: ``lib/barruf/constants.ts``: "until October 2026 three were looked at").
INACTIVITY_WINDOWS: tuple[tuple[date, int], ...] = (
    (date(1900, 9, 1), 2),
    (date(2026, 9, 1), 1),
)


@dataclass(frozen=True)
class KBand:
    """One rating band of the K table."""

    below: float
    """Applies to ratings strictly below this bound (``inf`` for the top band)."""
    k_new: float
    """K while the games counted (including the championship) are at most ``games_threshold``."""
    k_experienced: float
    """K once the games counted exceed ``games_threshold``."""


@dataclass(frozen=True)
class BarrufParameters:
    """Parameters of the BARRUF (defaults: RULES.md).

    Examples
    --------
    >>> p = BarrufParameters()
    >>> p.sigma, p.newcomer_rating, p.games_threshold
    (283.84, 950.0, 50)
    >>> [(b.below, b.k_new, b.k_experienced) for b in p.k_bands]
    [(1500.0, 30.0, 20.0), (2000.0, 24.0, 16.0), (inf, 24.0, 16.0)]
    """

    sigma: float = SIGMA
    """sigma of the normal CDF giving the expected score."""
    newcomer_rating: float = NEWCOMER_RATING
    """Starting rating of a new player."""
    games_threshold: int = 50
    """K drops once the games counted exceed this (exactly 50 keeps the higher K)."""
    k_bands: tuple[KBand, ...] = field(
        default_factory=lambda: (
            KBand(1500.0, 30.0, 20.0),
            KBand(2000.0, 24.0, 16.0),
            # Nothing is published above 2000: the 1500-1999 band continues
            # unless the federation's config says otherwise (``k_above_2000``).
            KBand(math.inf, 24.0, 16.0),
        )
    )
    season_start: tuple[int, int] = (9, 1)
    """Month and day a season starts (1 September)."""
    inactive_after_seasons: int | None = None
    """Seasons before the current one a player may have last played in and stay active;
    ``None``: by date from :data:`INACTIVITY_WINDOWS`."""

    @classmethod
    def from_config(cls, config: Mapping[str, Any] | None) -> BarrufParameters:
        """Parameters from a federation's table of ``federations.toml``.

        Keys read (all optional): ``newcomer_rating``, ``season_start``
        (``"MM-DD"``), ``inactive_after_seasons``, ``k_games_threshold``,
        ``k_bands`` (list of ``[below, k_new, k_experienced]``, ``below`` of the
        last band may be omitted or ``"inf"``) and ``k_above_2000``
        (``[k_new, k_experienced]``).

        Raises
        ------
        InvalidConfigError
            A value has the wrong shape.

        Examples
        --------
        >>> BarrufParameters.from_config({"k_above_2000": [20, 12]}).k_bands[-1]
        KBand(below=inf, k_new=20.0, k_experienced=12.0)
        """
        cfg = dict(config or {})
        kwargs: dict[str, Any] = {}
        try:
            if "newcomer_rating" in cfg:
                kwargs["newcomer_rating"] = float(cfg["newcomer_rating"])
            if "season_start" in cfg:
                month, day = (int(x) for x in str(cfg["season_start"]).split("-"))
                date(2000, month, day)
                kwargs["season_start"] = (month, day)
            if cfg.get("inactive_after_seasons") is not None:
                kwargs["inactive_after_seasons"] = int(cfg["inactive_after_seasons"])
            if "k_games_threshold" in cfg:
                kwargs["games_threshold"] = int(cfg["k_games_threshold"])
            bands = list(cls().k_bands)
            if "k_bands" in cfg:
                bands = []
                for row in cfg["k_bands"]:
                    below = math.inf if len(row) < 3 or row[0] in (None, "inf") else float(row[0])
                    k_new, k_exp = (row[1], row[2]) if len(row) == 3 else (row[0], row[1])
                    bands.append(KBand(below, float(k_new), float(k_exp)))
            if "k_above_2000" in cfg:
                k_new, k_exp = cfg["k_above_2000"]
                bands = [b for b in bands if b.below <= 2000.0] + [KBand(math.inf, float(k_new), float(k_exp))]
        except (TypeError, ValueError) as exc:
            raise InvalidConfigError(f"invalid BARRUF parameter in config {cfg!r}: {exc}") from exc
        if not bands or bands[-1].below != math.inf or any(
            a.below >= b.below for a, b in itertools.pairwise(bands)
        ):
            raise InvalidConfigError(f"K bands must rise and end with an open band, not {bands}")
        kwargs["k_bands"] = tuple(bands)
        return cls(**kwargs)

    def band_arrays(self) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.float64]]:
        """The K table as three arrays (bounds, K new, K experienced) for the kernel."""
        return (
            np.array([b.below for b in self.k_bands], dtype=np.float64),
            np.array([b.k_new for b in self.k_bands], dtype=np.float64),
            np.array([b.k_experienced for b in self.k_bands], dtype=np.float64),
        )


def expected_score(rating: float, opponent_rating: float, *, sigma: float = SIGMA) -> float:
    """Expected score of one game, ``Phi((R_own - R_opp) / sigma)``.

    Source: the sheet's ``NORMDIST(diff; 0; 283.84; TRUE)`` (RULES.md).

    Examples
    --------
    >>> round(expected_score(1100, 1200), 4)
    0.3623
    >>> expected_score(1000, 1000)
    0.5
    """
    return 0.5 * (1.0 + math.erf((rating - opponent_rating) / (sigma * math.sqrt(2.0))))


def k_factor(rating: float, games_counted: int, params: BarrufParameters | None = None) -> float:
    """K from the rating before the championship and the games counted including it.

    Examples
    --------
    >>> k_factor(1100, 50), k_factor(1100, 51), k_factor(1500, 10), k_factor(1700, 60)
    (30.0, 20.0, 24.0, 16.0)
    """
    p = params or BarrufParameters()
    for band in p.k_bands:
        if rating < band.below:
            return band.k_new if games_counted <= p.games_threshold else band.k_experienced
    raise AssertionError("the last K band is open")  # pragma: no cover


def season_start_year(day: date, season_start: tuple[int, int] = (9, 1)) -> int:
    """Year in which the season holding ``day`` began.

    Examples
    --------
    >>> season_start_year(date(2025, 8, 31)), season_start_year(date(2025, 9, 1))
    (2024, 2025)
    """
    return day.year if (day.month, day.day) >= season_start else day.year - 1


def season_label(start_year: int) -> str:
    """The federation's name of a season.

    Examples
    --------
    >>> season_label(2024)
    '2024-25'
    """
    return f"{start_year}-{(start_year + 1) % 100:02d}"


def inactivity_window(as_of: date, params: BarrufParameters | None = None) -> int:
    """Seasons before the current one in which a last game keeps a player active.

    Examples
    --------
    >>> inactivity_window(date(2026, 3, 1)), inactivity_window(date(2026, 10, 1))
    (2, 1)
    >>> inactivity_window(date(2026, 10, 1), BarrufParameters(inactive_after_seasons=2))
    2
    """
    p = params or BarrufParameters()
    if p.inactive_after_seasons is not None:
        return p.inactive_after_seasons
    current = season_start_year(as_of, p.season_start)
    window = INACTIVITY_WINDOWS[0][1]
    for since, value in INACTIVITY_WINDOWS:
        if current >= season_start_year(since, p.season_start):
            window = value
    return window


def category(rating: float | None) -> str | None:
    """The AJUSC category of a rating (``None`` below 1000).

    Examples
    --------
    >>> category(1400), category(1399), category(1000), category(999)
    ('Gran Gran Mestre', 'Gran Mestre', 'Avançat', None)
    """
    if rating is None:
        return None
    for threshold, name in CATEGORIES:
        if rating >= threshold:
            return name
    return None


def category_expr(rating: pl.Expr) -> pl.Expr:
    """:func:`category` as a polars expression."""
    expr: Any = pl
    for threshold, name in CATEGORIES:
        expr = expr.when(rating >= threshold).then(pl.lit(name))
    out: pl.Expr = expr.otherwise(pl.lit(None, pl.Utf8))
    return out


@numba.njit(cache=True, nogil=True)
def _rate_kernel(
    offsets: npt.NDArray[np.int64],
    a_idx: npt.NDArray[np.int64],
    b_idx: npt.NDArray[np.int64],
    score_a: npt.NDArray[np.float64],
    rating: npt.NDArray[np.float64],
    games: npt.NDArray[np.int64],
    band_below: npt.NDArray[np.float64],
    band_k_new: npt.NDArray[np.float64],
    band_k_exp: npt.NDArray[np.float64],
    threshold: int,
    sigma: float,
    newcomer: float,
    tolerance: float,
) -> tuple[npt.NDArray[np.float64], ...]:  # pragma: no cover - compiled
    n_games = a_idx.shape[0]
    n_players = rating.shape[0]
    ra = np.empty(n_games)
    rb = np.empty(n_games)
    ea = np.empty(n_games)
    ka = np.empty(n_games)
    kb = np.empty(n_games)
    ca = np.empty(n_games)
    cb = np.empty(n_games)
    aa = np.empty(n_games)
    ab = np.empty(n_games)
    mark = np.full(n_players, -1, dtype=np.int64)
    w = np.zeros(n_players)
    e = np.zeros(n_players)
    n = np.zeros(n_players, dtype=np.int64)
    kk = np.zeros(n_players)
    ch = np.zeros(n_players)
    touched = np.empty(n_players, dtype=np.int64)
    scale = 1.0 / (sigma * math.sqrt(2.0))
    for c in range(offsets.shape[0] - 1):
        n_touched = 0
        for g in range(offsets[c], offsets[c + 1]):
            for p in (a_idx[g], b_idx[g]):
                if mark[p] != c:
                    mark[p] = c
                    w[p] = 0.0
                    e[p] = 0.0
                    n[p] = 0
                    if math.isnan(rating[p]):
                        rating[p] = newcomer
                    touched[n_touched] = p
                    n_touched += 1
        for g in range(offsets[c], offsets[c + 1]):
            pa = a_idx[g]
            pb = b_idx[g]
            x = 0.5 * (1.0 + math.erf((rating[pa] - rating[pb]) * scale))
            ra[g] = rating[pa]
            rb[g] = rating[pb]
            ea[g] = x
            w[pa] += score_a[g]
            w[pb] += 1.0 - score_a[g]
            e[pa] += x
            e[pb] += 1.0 - x
            n[pa] += 1
            n[pb] += 1
        for i in range(n_touched):
            p = touched[i]
            total = games[p] + n[p]
            j = 0
            while rating[p] >= band_below[j]:
                j += 1
            k = band_k_new[j] if total <= threshold else band_k_exp[j]
            kk[p] = k
            ch[p] = k * (w[p] - e[p])
        for g in range(offsets[c], offsets[c + 1]):
            pa = a_idx[g]
            pb = b_idx[g]
            ka[g] = kk[pa]
            kb[g] = kk[pb]
            ca[g] = ch[pa]
            cb[g] = ch[pb]
        for i in range(n_touched):
            p = touched[i]
            x = ch[p]
            r = math.floor(abs(x) + 0.5 + tolerance)
            rating[p] += r if x >= 0 else -r
            games[p] += n[p]
        for g in range(offsets[c], offsets[c + 1]):
            aa[g] = rating[a_idx[g]]
            ab[g] = rating[b_idx[g]]
    return ra, rb, ea, ka, kb, ca, cb, aa, ab


@dataclass(frozen=True)
class BarrufResult:
    """Raw output of :func:`rate_arrays`: per game, both sides, and the final state."""

    rating_a: npt.NDArray[np.float64]
    rating_b: npt.NDArray[np.float64]
    expected_a: npt.NDArray[np.float64]
    k_a: npt.NDArray[np.float64]
    k_b: npt.NDArray[np.float64]
    change_a: npt.NDArray[np.float64]
    change_b: npt.NDArray[np.float64]
    after_a: npt.NDArray[np.float64]
    after_b: npt.NDArray[np.float64]
    rating: npt.NDArray[np.float64]
    """Final rating per player (NaN: never rated)."""
    games: npt.NDArray[np.int64]
    """Final lifetime games per player."""


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
        "competition_id": g["competition_id"].gather(s.game),
        "player_id": pick(s, g["player_a"], g["player_b"]),
        "rating_before": pick(s, res.rating_a, res.rating_b),
        "games": s.games, "score": s.sums[0], "expected": s.sums[1],
        "k": pick(s, res.k_a, res.k_b), "change": pick(s, res.change_a, res.change_b),
        "rating_after": pick(s, res.after_a, res.after_b),
    }).with_columns(pl.lit(federation).alias("federation"), pl.lit(RULE_SET).alias("rule_set"))
    return conform(changes, RATING_CHANGES_SCHEMA)


def _explanations(h: History, res: BarrufResult, federation: str) -> pl.DataFrame:
    g = h.games
    side_a = pl.DataFrame({
        "competition_id": g["competition_id"], "comp_idx": g["comp_idx"], "game_idx": g["game_idx"],
        "player_id": g["player_a"], "prank": g["a_rank"], "round": g["round"], "opponent_id": g["player_b"],
        "rating": res.rating_a, "opponent_rating": res.rating_b, "handicap": g["handicap"],
        "score": g["score_a"], "expected": res.expected_a, "k": res.k_a, "change": res.change_a,
        "rating_after": res.after_a, "source_line": g["source_line"],
    })
    side_b = pl.DataFrame({
        "competition_id": g["competition_id"], "comp_idx": g["comp_idx"], "game_idx": g["game_idx"],
        "player_id": g["player_b"], "prank": g["b_rank"], "round": g["round"], "opponent_id": g["player_a"],
        "rating": res.rating_b, "opponent_rating": res.rating_a, "handicap": -g["handicap"],
        "score": 1.0 - g["score_a"], "expected": 1.0 - res.expected_a, "k": res.k_b, "change": res.change_b,
        "rating_after": res.after_b, "source_line": g["source_line"],
    })
    rows = pl.concat([side_a, side_b]).with_columns(
        pl.lit(federation).alias("federation"),
        pl.lit(None, pl.Utf8).alias("period"),
        pl.lit(RULE_SET).alias("rule_set"),
        (pl.col("k") * (pl.col("score") - pl.col("expected"))).alias("contribution"),
    )
    ordered, _ = explain_and_summarise(
        rows, group="comp_idx", n_players=len(h.player_ids), firsts=[], sums=[],
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


def describe_bands(params: BarrufParameters) -> Sequence[str]:
    """Human-readable K table (for reports).

    Examples
    --------
    >>> describe_bands(BarrufParameters())[0]
    'rating < 1500: K 30 up to 50 games, 20 above'
    """
    return [
        f"rating < {b.below:g}: K {b.k_new:g} up to {params.games_threshold} games, {b.k_experienced:g} above"
        for b in params.k_bands
    ]
