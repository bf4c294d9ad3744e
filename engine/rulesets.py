"""One registry of effective-dated rule sets, for every rating system.

A competition is rated with the rule set in force on its date (its start date for
FIDE, whose ratings come from the list in force when a tournament starts; its end
date elsewhere), so re-rating old history reproduces what was published then. A
federation's config may pin one rule set for all dates (``rule_set = "..."``):
the EGF re-rated its whole database with the 2021 system.

Sources: ``../shared/rules/RULES.md``; FIDE Rating Regulations (handbook B02)
effective 1 July 2009, 1 July 2014, 1 January 2022, 1 March 2024 and
1 October 2025; EGF rating system descriptions (classic 1998, new 2021).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date
from types import MappingProxyType
from typing import Any

from engine.errors import InvalidConfigError, UnknownFederationError, UnknownRuleSetError

#: Systems and the federations that use them by default.
SYSTEMS: tuple[str, ...] = ("barruf", "fide-elo", "egf-gor")
DEFAULT_SYSTEM: Mapping[str, str] = MappingProxyType({"ajusc": "barruf", "fide": "fide-elo", "egf": "egf-gor"})


@dataclass(frozen=True)
class RuleSet:
    """A version of a rating system's rules, with the date it took effect."""

    name: str
    """Registry key, e.g. ``"fide-2024"``; written into every change and explanation row."""
    system: str
    """``barruf``, ``fide-elo`` or ``egf-gor``."""
    effective_from: date
    """First day the rules apply (earlier dates fall back on the oldest version)."""
    source: str
    """The regulation or paper the version implements."""
    params: Mapping[str, Any] = field(default_factory=dict)
    """Version parameters read by the system's module."""
    rating_list: str = "standard"
    """The list it rates (FIDE: ``standard``, ``rapid``, ``blitz``); one list elsewhere."""


def _frozen(**kw: Any) -> Mapping[str, Any]:
    return MappingProxyType(dict(kw))


_FIDE_2009: dict[str, Any] = {
    "k_new": 30.0, "k_mid": 15.0, "k_top": 10.0, "k_new_games": 30, "k_top_from": 2400.0, "k_junior": None,
    "k_junior_below": None, "k_cap": None, "cap_400": "every", "cap_400_exempt_from": None,
    "initial_min_games": 9, "initial_window_months": 24, "initial_floor": 1200.0,
    "initial_per_half_point": 12.5, "initial_method": "rc", "initial_min_points_first": 1.0,
    "initial_min_rated_opponents": 3, "initial_cap": None,
}
_FIDE_2014 = dict(
    _FIDE_2009, k_new=40.0, k_mid=20.0, k_junior=40.0, k_junior_below=2300.0, k_cap=700.0,
    initial_min_games=5, initial_window_months=26, initial_floor=1000.0, initial_per_half_point=20.0,
    initial_min_points_first=0.5, initial_min_rated_opponents=1,
)
_FIDE_2022 = dict(_FIDE_2014, cap_400="once")
_FIDE_2024 = dict(
    _FIDE_2014, cap_400="every", initial_method="ra_dp", initial_floor=1400.0, initial_cap=2200.0,
    initial_hypothetical=1800.0, initial_hypothetical_games=2,
)
_FIDE_2025 = dict(_FIDE_2024, cap_400_exempt_from=2650.0)

# FIDE rapid and blitz lists (RULES.md, "FIDE rapid and blitz lists"): from 1 January 2012
# K = 20 for every player, floor(700 / n) when n > 35 games in a period (the same as
# K x n <= 700 at K 20); the initial rating and the 400-point rule as on the standard
# list of the time. From 1 October 2022 the standard K rules (40 / 20 / 10, K x n <= 700),
# with that day's one-off adjustment (:func:`engine.fide_elo.adjust_to_standard_2022`).
# Not applied, pending the handbook text (B02 rapid and blitz section): the reported
# 735-point cap, the 1-point first-event minimum and the games-per-day limits.
_FLAT_K20: dict[str, Any] = {
    "k_new": 20.0, "k_mid": 20.0, "k_top": 20.0, "k_junior": None, "k_junior_below": None, "k_cap": 700.0,
}
_RAPID_BLITZ_SOURCE = {
    2012: "FIDE rapid and blitz rating lists, announcement of 16 November 2011 (tournaments from "
          "1 January 2012): K = 20 for every player, 700 / n above 35 games; handbook B02",
    2014: "FIDE rapid and blitz lists (K = 20, 700 / n) with the standard initial-rating rules of "
          "1 July 2014 (handbook B02)",
    2022: "FIDE rapid and blitz lists (K = 20, 700 / n) with the standard rules of 1 January 2022 "
          "(handbook B02)",
    202210: "FIDE Rapid & Blitz rating regulations amended from 1 October 2022: the standard K rules "
            "(40 / 20 / 10, K x n <= 700) and a one-off adjustment to standard - 100 (handbook B02)",
    2024: "FIDE Rating Regulations effective 1 March 2024 (handbook B02), rapid and blitz as standard",
    2025: "FIDE Rating Regulations effective 1 October 2025 (handbook B02), rapid and blitz as standard",
}
_RAPID_BLITZ_VERSIONS: tuple[tuple[str, date, dict[str, Any], int], ...] = (
    ("2012", date(2012, 1, 1), dict(_FIDE_2009, **_FLAT_K20), 2012),
    ("2014", date(2014, 7, 1), dict(_FIDE_2014, **_FLAT_K20), 2014),
    ("2022", date(2022, 1, 1), dict(_FIDE_2022, **_FLAT_K20), 2022),
    ("2022-10", date(2022, 10, 1), dict(_FIDE_2022, adjust_to_standard_minus=100.0), 202210),
    ("2024", date(2024, 3, 1), dict(_FIDE_2024), 2024),
    ("2025", date(2025, 10, 1), dict(_FIDE_2025), 2025),
)
_RAPID_BLITZ = tuple(
    RuleSet(f"fide-{lst}-{tag}", "fide-elo", since, _RAPID_BLITZ_SOURCE[src], _frozen(**params), rating_list=lst)
    for lst in ("rapid", "blitz")
    for tag, since, params, src in _RAPID_BLITZ_VERSIONS
)

#: Every rule set the engine knows, by name.
REGISTRY: Mapping[str, RuleSet] = MappingProxyType({
    r.name: r
    for r in (
        RuleSet("barruf", "barruf", date(1900, 1, 1),
                "AJUSC BARRUF description and GENERADOR_BARRUF sheet (moominot/gestioAjusc lib/barruf/)"),
        RuleSet("fide-2009", "fide-elo", date(2009, 7, 1),
                "FIDE Rating Regulations effective 1 July 2009 (handbook B02)", _frozen(**_FIDE_2009)),
        RuleSet("fide-2014", "fide-elo", date(2014, 7, 1),
                "FIDE Rating Regulations effective 1 July 2014 (handbook B02)", _frozen(**_FIDE_2014)),
        RuleSet("fide-2022", "fide-elo", date(2022, 1, 1),
                "FIDE Rating Regulations effective 1 January 2022 (handbook B02)", _frozen(**_FIDE_2022)),
        RuleSet("fide-2024", "fide-elo", date(2024, 3, 1),
                "FIDE Rating Regulations effective 1 March 2024 (handbook B02)", _frozen(**_FIDE_2024)),
        RuleSet("fide-2025", "fide-elo", date(2025, 10, 1),
                "FIDE Rating Regulations effective 1 October 2025 (handbook B02)", _frozen(**_FIDE_2025)),
        RuleSet("egf-gor-1998", "egf-gor", date(1998, 1, 1),
                "EGF Official Ratings, classic GoR system (European Go Database, 1998-2020)",
                _frozen(epsilon=0.016, epsilon_mode="stronger", floor=100.0)),
        RuleSet("egf-gor-2021", "egf-gor", date(2021, 1, 1),
                "EGF rating system 2021 (Ales Cieply, 'EGF ratings system', European Go Database)",
                _frozen(floor=-900.0, class_weights=_frozen(A=1.0, B=0.75, C=0.5, D=0.25))),
        *_RAPID_BLITZ,
    )
})

#: FIDE lists and the competition modalities rated on each (others: the standard list).
FIDE_LISTS: tuple[str, ...] = ("standard", "rapid", "blitz")


def system_for(federation: str, config: Mapping[str, Any] | None = None) -> str:
    """The rating system of a federation: ``config["system"]``, else by federation id.

    Raises
    ------
    UnknownFederationError
        Neither the config nor the federation id names a system.

    Examples
    --------
    >>> system_for("ajusc"), system_for("xyz", {"system": "fide-elo"})
    ('barruf', 'fide-elo')
    """
    system = (config or {}).get("system") or DEFAULT_SYSTEM.get(federation)
    if system is None:
        raise UnknownFederationError(
            f"federation {federation!r} has no rating system: set system to one of {list(SYSTEMS)} in its config"
        )
    if system not in SYSTEMS:
        raise UnknownFederationError(f"federation {federation!r}: unknown system {system!r}, expected one of {list(SYSTEMS)}")
    return str(system)


def get(name: str) -> RuleSet:
    """A rule set by name.

    Examples
    --------
    >>> get("fide-2014").params["k_new"]
    40.0
    """
    try:
        return REGISTRY[name]
    except KeyError:
        raise UnknownRuleSetError(f"unknown rule set {name!r}; known: {sorted(REGISTRY)}") from None


def list_of(modality: str | None) -> str:
    """The FIDE list a competition's ``modality`` is rated on (``standard`` unless rapid or blitz).

    Examples
    --------
    >>> list_of("rapid"), list_of("Blitz"), list_of("standard"), list_of(None)
    ('rapid', 'blitz', 'standard', 'standard')
    """
    low = (modality or "").strip().lower()
    return low if low in FIDE_LISTS else "standard"


def rule_set_for(
    system: str, on: date, *, config: Mapping[str, Any] | None = None, rating_list: str = "standard",
) -> RuleSet:
    """The rule set of ``system`` for ``rating_list`` in force on ``on`` (or the one the config pins).

    Raises
    ------
    UnknownRuleSetError
        The pinned rule set is unknown.
    InvalidConfigError
        The pinned rule set belongs to another system.

    Examples
    --------
    >>> rule_set_for("fide-elo", date(2024, 2, 29)).name, rule_set_for("fide-elo", date(2024, 3, 1)).name
    ('fide-2022', 'fide-2024')
    >>> rule_set_for("egf-gor", date(2005, 1, 1)).name
    'egf-gor-1998'
    >>> rule_set_for("egf-gor", date(2005, 1, 1), config={"rule_set": "egf-gor-2021"}).name
    'egf-gor-2021'
    >>> rule_set_for("fide-elo", date(2022, 9, 30), rating_list="blitz").name
    'fide-blitz-2022'
    >>> rule_set_for("fide-elo", date(2022, 10, 1), rating_list="rapid").params["k_new"]
    40.0
    """
    pinned = (config or {}).get("rule_set")
    if pinned and rating_list == "standard":
        rs = get(str(pinned))
        if rs.system != system:
            raise InvalidConfigError(f"rule set {rs.name!r} belongs to {rs.system!r}, not to {system!r}")
        return rs
    versions = sorted(
        (r for r in REGISTRY.values() if r.system == system and r.rating_list == rating_list),
        key=lambda r: r.effective_from,
    ) or sorted((r for r in REGISTRY.values() if r.system == system and r.rating_list == "standard"),
                key=lambda r: r.effective_from)
    if not versions:
        raise UnknownRuleSetError(f"no rule set for system {system!r}")
    chosen = versions[0]
    for r in versions:
        if r.effective_from <= on:
            chosen = r
    return chosen
