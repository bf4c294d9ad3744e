"""Rating systems (BARRUF, FIDE Elo, EGF GoR) as effective-dated rule sets. No IO, no Prefect, no SQL.

The public API works on polars frames in the canonical schemas of
``formats/schema.py`` (copied in :mod:`engine._frames`):

>>> import polars as pl
>>> from datetime import date
>>> import engine
>>> comps = pl.DataFrame({"competition_id": ["C1"], "start_date": [date(2025, 10, 4)],
...                       "end_date": [date(2025, 10, 4)]})
>>> games = pl.DataFrame({"competition_id": ["C1"], "round": [1], "player_a": ["1"],
...                       "player_b": ["2"], "score_a": [1.0], "status": ["played"]})
>>> start = pl.DataFrame({"player_id": ["1", "2"], "rating": [1100.0, 1200.0], "games": [60, 60]})
>>> run = engine.rate_history("ajusc", comps, games, start)
>>> run.changes.select("player_id", "rating_before", "expected", "change", "rating_after").rows()
[('1', 1100.0, 0.3623..., 12.7539..., 1113.0), ('2', 1200.0, 0.6376..., -12.7539..., 1187.0)]
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from datetime import date
from typing import TYPE_CHECKING, Any

import polars as pl

from engine import rulesets
from engine._frames import (
    EXPLANATIONS_SCHEMA,
    RATING_CHANGES_SCHEMA,
    RATING_LIST_SCHEMA,
    RATINGS_SCHEMA,
)
from engine._lazy import Lazy
from engine.errors import (
    EngineError,
    InvalidConfigError,
    InvalidHistoryError,
    UnknownFederationError,
    UnknownRuleSetError,
)
from engine.rounding import round_half_away
from engine.rulesets import REGISTRY, RuleSet, rule_set_for, system_for

if TYPE_CHECKING:   # what __getattr__ below imports on first use, as the type checker sees it
    from types import ModuleType

    from engine import barruf, egf_gor, fide_elo
    from engine._editions import (
        LINE_FIGURES,
        PUBLICATIONS,
        RESTARTABLE_SYSTEMS,
        advance_state,
        competition_points,
        list_changes,
        list_epoch,
        monthly_points,
        point_date,
        publication_of,
        restartable,
        state_from_seed,
        states_at,
    )
    from engine._history import own_declared_ratings

    SYSTEM_MODULES: dict[str, ModuleType]

__all__ = [
    "EXPLANATIONS_SCHEMA",
    "LINE_FIGURES",
    "PUBLICATIONS",
    "RATINGS_SCHEMA",
    "RATING_CHANGES_SCHEMA",
    "RATING_LIST_SCHEMA",
    "REGISTRY",
    "RESTARTABLE_SYSTEMS",
    "SYSTEM_MODULES",
    "EngineError",
    "InvalidConfigError",
    "InvalidHistoryError",
    "RatingRun",
    "RuleSet",
    "UnknownFederationError",
    "UnknownRuleSetError",
    "advance_state",
    "barruf",
    "competition_points",
    "egf_gor",
    "fide_elo",
    "list_changes",
    "list_epoch",
    "monthly_points",
    "own_declared_ratings",
    "point_date",
    "publication_of",
    "rate_history",
    "rating_list",
    "restartable",
    "round_half_away",
    "rule_set_for",
    "rulesets",
    "state_from_seed",
    "states_at",
    "system_for",
]


#: The module implementing each system, by system name (``engine.SYSTEM_MODULES``).
_SYSTEMS = {"barruf": "engine.barruf", "fide-elo": "engine.fide_elo", "egf-gor": "engine.egf_gor"}
#: Names whose modules compile numba kernels: imported on first use, so that a command that
#: only reads a list (``warehouse``, ``website``) never pays for the compiler.
_LAZY = {
    "barruf": "engine.barruf", "egf_gor": "engine.egf_gor", "fide_elo": "engine.fide_elo",
    "own_declared_ratings": "engine._history",
    **dict.fromkeys(
        ("LINE_FIGURES", "PUBLICATIONS", "RESTARTABLE_SYSTEMS", "advance_state", "competition_points",
         "list_changes", "list_epoch", "monthly_points", "point_date", "publication_of", "restartable",
         "state_from_seed", "states_at"), "engine._editions"),
}


def __getattr__(name: str) -> Any:
    """PEP 562: the kernels' modules and what depends on them, imported when first asked for."""
    if name == "SYSTEM_MODULES":
        value: Any = {system: importlib.import_module(module) for system, module in _SYSTEMS.items()}
    elif name in _LAZY:
        module = importlib.import_module(_LAZY[name])
        value = module if module.__name__.rsplit(".", 1)[-1] == name else getattr(module, name)
    else:
        raise AttributeError(f"module 'engine' has no attribute {name!r}")
    globals()[name] = value
    return value


class RatingRun:
    """What re-rating a federation's history produces.

    ``explanations`` may be built on first use (:func:`rate_history` builds it so):
    the change rows and the ratings come straight from the compiled kernel, while the
    explanation rows are ten times as many and many callers never read them. Once
    built they are kept, and a pickled run carries them.
    """

    __slots__ = ("_explanations", "changes", "ratings")

    changes: pl.DataFrame
    """RATING_CHANGES_SCHEMA: one row per player and competition (FIDE: and rating period)."""
    ratings: pl.DataFrame
    """RATINGS_SCHEMA: every player's state after the last competition."""
    _explanations: Lazy

    def __init__(
        self, changes: pl.DataFrame, explanations: pl.DataFrame | Lazy, ratings: pl.DataFrame
    ) -> None:
        object.__setattr__(self, "changes", changes)
        object.__setattr__(self, "ratings", ratings)
        lazy = explanations if isinstance(explanations, Lazy) else Lazy.of(explanations)
        object.__setattr__(self, "_explanations", lazy)

    @property
    def explanations(self) -> pl.DataFrame:
        """EXPLANATIONS_SCHEMA: one row per rated player and game; contributions sum to ``change``."""
        return self._explanations.get()

    @property
    def lazy_explanations(self) -> Lazy:
        """The explanations as they are held (built or not): to pass on to another run unbuilt."""
        return self._explanations

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"RatingRun is immutable (cannot set {name!r})")

    def __reduce__(self) -> tuple[type[RatingRun], tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]]:
        return (RatingRun, (self.changes, self.explanations, self.ratings))

    def __repr__(self) -> str:
        built = "built" if self._explanations.ready else "not built yet"
        return f"RatingRun(changes={self.changes.height} rows, explanations {built}, ratings={self.ratings.height} rows)"


def rate_history(
    federation: str,
    competitions: pl.DataFrame,
    games: pl.DataFrame,
    start: pl.DataFrame,
    *,
    config: Mapping[str, Any] | None = None,
    players: pl.DataFrame | None = None,
) -> RatingRun:
    """Re-rate a federation's whole history from its seeded list.

    Parameters
    ----------
    federation : str
        Federation id (``ajusc``, ``fide``, ``egf``, ...).
    competitions : pl.DataFrame
        The accepted competitions (COMPETITIONS_SCHEMA columns; at least
        ``competition_id``, ``start_date``, ``end_date``), in any order: they are
        rated by end date, then start date, then id.
    games : pl.DataFrame
        GAMES_SCHEMA columns, plus an optional bool ``rated``. Only ``played``
        games with a known score (and ``rated`` when given) count; games of
        competitions absent from ``competitions`` are ignored.
    start : pl.DataFrame
        The seeded list (RATINGS_SCHEMA; may be empty).
    config : mapping, optional
        The federation's table of ``federations.toml`` (``system``, optional
        pinned ``rule_set``, parameters).
    players : pl.DataFrame, optional
        PLAYERS_SCHEMA: ``declared_rating`` / ``declared_rank`` / ``birth_year``
        for players not in the seed (a seeded rating always wins).

    Returns
    -------
    RatingRun
        Changes, explanations (built on first read) and final ratings in the canonical schemas.

    Raises
    ------
    UnknownFederationError
        No rating system for ``federation``.
    InvalidHistoryError
        A frame lacks a required column or holds an impossible game.
    """
    module: Any = importlib.import_module(_SYSTEMS[system_for(federation, config)])
    changes, explanations, ratings = module.rate_lazily(
        competitions, games, start, federation=federation, config=config, players=players
    )
    return RatingRun(changes=changes, explanations=explanations, ratings=ratings)


def rating_list(
    federation: str, ratings: pl.DataFrame, *, as_of: date, config: Mapping[str, Any] | None = None
) -> pl.DataFrame:
    """The federation's published list at ``as_of`` (RATING_LIST_SCHEMA).

    ``status`` is one of ``active | provisional | inactive | unrated``; ranks go
    to active players only, ties share a rank (1, 2, 3, 4, 4, 6); rows are sorted
    by rank, then rating (descending).

    Examples
    --------
    >>> r = pl.DataFrame({"player_id": ["1", "2"], "name": ["A", "B"], "rating": [1250.0, 1250.0],
    ...                   "games": [40, 300], "last_played": ["2025-26", "2024-25"]})
    >>> rating_list("ajusc", r, as_of=date(2026, 1, 1)).select("player_id", "category", "rank").rows()
    [('1', 'Mestre', 1), ('2', 'Mestre', 1)]
    """
    module: Any = importlib.import_module(_SYSTEMS[system_for(federation, config)])
    out: pl.DataFrame = module.rating_list(ratings, as_of=as_of, federation=federation, config=config)
    return out
