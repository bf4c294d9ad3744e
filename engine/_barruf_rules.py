"""The BARRUF's rules: parameters, K table, expected score, seasons and categories.

Scalar helpers and the parameters of :mod:`engine.barruf` (RULES.md, "BARRUF — AJUSC"),
kept apart from the compiled kernel and the frames; every public name is importable
from :mod:`engine.barruf`.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any

import numpy as np
import numpy.typing as npt
import polars as pl

from engine.errors import InvalidConfigError

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
