"""The registry of effective-dated rule sets."""

from __future__ import annotations

from datetime import date

import pytest

from engine import rulesets
from engine.errors import InvalidConfigError, UnknownFederationError, UnknownRuleSetError


def test_registry_names() -> None:
    rapid_blitz = [f"fide-{lst}-{v}" for lst in ("blitz", "rapid")
                   for v in ("2012", "2014", "2022", "2022-10", "2024", "2025")]
    assert sorted(rulesets.REGISTRY) == sorted([
        "barruf", "egf-gor-1998", "egf-gor-2021", "fide-2009", "fide-2014", "fide-2022", "fide-2024", "fide-2025",
        *rapid_blitz,
    ])
    for rs in rulesets.REGISTRY.values():
        assert rs.source  # every rule set cites its regulation


@pytest.mark.parametrize(
    ("system", "day", "name"),
    [
        ("fide-elo", date(2005, 1, 1), "fide-2009"),   # before the oldest: the oldest
        ("fide-elo", date(2014, 6, 30), "fide-2009"),
        ("fide-elo", date(2014, 7, 1), "fide-2014"),
        ("fide-elo", date(2021, 12, 31), "fide-2014"),
        ("fide-elo", date(2022, 1, 1), "fide-2022"),
        ("fide-elo", date(2024, 3, 1), "fide-2024"),
        ("fide-elo", date(2025, 9, 30), "fide-2024"),
        ("fide-elo", date(2025, 10, 1), "fide-2025"),
        ("egf-gor", date(2020, 12, 31), "egf-gor-1998"),
        ("egf-gor", date(2021, 1, 1), "egf-gor-2021"),
        ("barruf", date(2026, 1, 1), "barruf"),
    ],
)
def test_rule_set_by_date(system: str, day: date, name: str) -> None:
    assert rulesets.rule_set_for(system, day).name == name


def test_pinned_rule_set_and_federations() -> None:
    assert rulesets.rule_set_for("egf-gor", date(2001, 1, 1), config={"rule_set": "egf-gor-2021"}).name == "egf-gor-2021"
    with pytest.raises(InvalidConfigError):
        rulesets.rule_set_for("egf-gor", date(2001, 1, 1), config={"rule_set": "fide-2014"})
    with pytest.raises(UnknownRuleSetError):
        rulesets.get("elo-1960")
    assert rulesets.system_for("fide") == "fide-elo"
    assert rulesets.system_for("egf") == "egf-gor"
    assert rulesets.system_for("nsw", {"system": "barruf"}) == "barruf"
    with pytest.raises(UnknownFederationError):
        rulesets.system_for("nsw")
    with pytest.raises(UnknownFederationError):
        rulesets.system_for("ajusc", {"system": "glicko"})


def test_federations_toml_tables_are_understood() -> None:
    import tomllib
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "flows" / "federations.toml"
    tables = tomllib.loads(path.read_text(encoding="utf-8"))
    for federation, config in tables.items():
        system = rulesets.system_for(federation, config)
        assert rulesets.rule_set_for(system, date(2025, 1, 1), config=config).system == system
