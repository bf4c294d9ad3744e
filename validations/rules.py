"""Eligibility and data-quality rules as data, per federation and dated.

The rules live in ``rules.toml`` beside this module: each is one row with an id,
the federations it applies to, the dates it is in force, a severity, the frame it
checks and one Great Expectations expectation, and a message template that names
the fix. This module loads and selects them; :mod:`validations.suites` turns them
into expectation suites and :mod:`validations.validate` maps the failures back to
source lines.
"""

from __future__ import annotations

import string
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

import polars as pl

from validations.errors import RuleDefinitionError, UnknownFederationError

#: Severities, from the most to the least serious.
#: ``hold``: the competition is loaded but not rated until the rating officer decides
#: (``ratings approve`` / ``ratings decline``).
SEVERITIES: tuple[str, ...] = ("reject", "hold", "exclude", "warn")
#: Frames a rule can check (built by :mod:`validations.tables`).
TABLES: tuple[str, ...] = (
    "games", "appearances", "competitions", "aggregate", "unrated_events", "players",
)
#: Expectation kinds, each one Great Expectations expectation.
EXPECTS: tuple[str, ...] = (
    "between", "in_set", "not_in_set", "not_null", "unique", "a_greater_than_b",
)
#: Federations with a rule set.
FEDERATIONS: tuple[str, ...] = ("ajusc", "fide", "egf")

_KEYS = {
    "id", "federations", "severity", "table", "expect", "column", "columns", "min", "max",
    "values", "column_a", "column_b", "or_equal", "field", "message", "source",
    "effective_from", "effective_to",
}


@dataclass(frozen=True)
class Rule:
    """One eligibility or data-quality rule.

    Examples
    --------
    >>> r = next(r for r in load_rules() if r.id == "ajusc.min_rounds")
    >>> (r.severity, r.table, r.expect, r.min)
    ('reject', 'aggregate', 'between', 3)
    """

    id: str                                 #: stable id cited by findings, e.g. ``ajusc.min_rounds``
    federations: tuple[str, ...]            #: federations it applies to (``*``: all)
    severity: str                           #: reject | exclude | warn
    table: str                              #: the frame it checks (see :data:`TABLES`)
    expect: str                             #: the expectation kind (see :data:`EXPECTS`)
    message: str                            #: template naming the fix (``{column}`` placeholders)
    field: str | None = None                #: the file field the organiser must correct
    column: str | None = None               #: checked column (between / in_set / not_in_set / not_null)
    columns: tuple[str, ...] = ()           #: compound key (unique)
    min: float | None = None                #: lower bound (between), inclusive
    max: float | None = None                #: upper bound (between), inclusive
    values: tuple[Any, ...] = ()            #: allowed / forbidden values (in_set / not_in_set)
    column_a: str | None = None             #: a_greater_than_b: the larger column
    column_b: str | None = None             #: a_greater_than_b: the smaller column
    or_equal: bool = False                  #: a_greater_than_b: equality allowed
    effective_from: date | None = None      #: first competition start date it applies to
    effective_to: date | None = None        #: first start date it no longer applies to
    source: str = ""                        #: regulation or reasoning it comes from

    def applies(self, federation: str, on: date | None) -> bool:
        """Whether the rule applies to ``federation`` for a competition starting ``on``.

        A competition without a date is checked by the rules in force today.

        Examples
        --------
        >>> r = next(r for r in load_rules() if r.id == "egf.event_class")
        >>> r.applies("egf", date(2022, 5, 1)), r.applies("fide", date(2022, 5, 1))
        (True, False)
        """
        if "*" not in self.federations and federation not in self.federations:
            return False
        day = on if on is not None else date.today()
        if self.effective_from is not None and day < self.effective_from:
            return False
        return not (self.effective_to is not None and day >= self.effective_to)

    @property
    def checked_columns(self) -> tuple[str, ...]:
        """Columns of :attr:`table` the expectation reads."""
        if self.expect == "unique":
            return self.columns
        if self.expect == "a_greater_than_b":
            return tuple(c for c in (self.column_a, self.column_b) if c is not None)
        return (self.column,) if self.column is not None else ()

    def render_message(self, row: dict[str, Any]) -> str:
        """Fill the message template with a failing row's values and the rule's parameters.

        Unknown placeholders and nulls print as ``?`` / ``(none)`` rather than failing:
        a message must always come out, whatever the user's file holds.

        Examples
        --------
        >>> r = next(r for r in load_rules() if r.id == "ajusc.min_players")
        >>> print(r.render_message({"competition_id": "C1", "players": 3}))
        Competition C1 has 3 player(s); BARRUF rates championships of at least 4 players. Check that every player's games are in the file.
        """
        values: dict[str, Any] = {"min": _fmt(self.min), "max": _fmt(self.max)}
        values.update({k: _fmt(v) for k, v in row.items()})
        return string.Formatter().vformat(self.message, (), _Defaults(values))


class _Defaults(dict[str, Any]):
    def __missing__(self, key: str) -> str:
        return "?"


def _fmt(value: Any) -> Any:
    if value is None:
        return "(none)"
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def _parse_date(value: Any, rule_id: str, key: str) -> date | None:
    if value is None:
        return None
    if isinstance(value, date):
        return value
    try:
        return date.fromisoformat(str(value))
    except ValueError as exc:
        raise RuleDefinitionError(f"rule {rule_id!r}: {key} must be an ISO date, not {value!r}") from exc


def _rule_from_dict(raw: dict[str, Any], origin: str) -> Rule:
    rule_id = str(raw.get("id", ""))
    if not rule_id:
        raise RuleDefinitionError(f"{origin}: a rule without an id: {raw!r}")
    unknown = set(raw) - _KEYS
    if unknown:
        raise RuleDefinitionError(f"{origin}: rule {rule_id!r} has unknown keys {sorted(unknown)}")
    for key, allowed in (("severity", SEVERITIES), ("table", TABLES), ("expect", EXPECTS)):
        if raw.get(key) not in allowed:
            raise RuleDefinitionError(
                f"{origin}: rule {rule_id!r}: {key} must be one of {allowed}, not {raw.get(key)!r}"
            )
    expect = raw["expect"]
    needs = {
        "between": ("column",), "in_set": ("column", "values"), "not_in_set": ("column", "values"),
        "not_null": ("column",), "unique": ("columns",), "a_greater_than_b": ("column_a", "column_b"),
    }[expect]
    missing = [k for k in (*needs, "message") if k not in raw]
    if missing:
        raise RuleDefinitionError(f"{origin}: rule {rule_id!r} ({expect}) lacks {missing}")
    if expect == "between" and "min" not in raw and "max" not in raw:
        raise RuleDefinitionError(f"{origin}: rule {rule_id!r} (between) needs min or max")
    feds = raw.get("federations", ["*"])
    return Rule(
        id=rule_id,
        federations=tuple(str(f) for f in feds),
        severity=raw["severity"],
        table=raw["table"],
        expect=expect,
        message=str(raw["message"]),
        field=raw.get("field"),
        column=raw.get("column"),
        columns=tuple(raw.get("columns", ())),
        min=raw.get("min"),
        max=raw.get("max"),
        values=tuple(raw.get("values", ())),
        column_a=raw.get("column_a"),
        column_b=raw.get("column_b"),
        or_equal=bool(raw.get("or_equal", False)),
        effective_from=_parse_date(raw.get("effective_from"), rule_id, "effective_from"),
        effective_to=_parse_date(raw.get("effective_to"), rule_id, "effective_to"),
        source=str(raw.get("source", "")),
    )


def parse_rules(text: str, *, origin: str = "rules") -> tuple[Rule, ...]:
    """Parse a TOML rule table (``[[rule]]`` entries).

    Raises
    ------
    RuleDefinitionError
        When a rule has an unknown key, severity, table or expectation, or lacks one.

    Examples
    --------
    >>> rules = parse_rules('''
    ... [[rule]]
    ... id = "x.min_rounds"
    ... federations = ["x"]
    ... severity = "reject"
    ... table = "aggregate"
    ... expect = "between"
    ... column = "rounds_played"
    ... min = 5
    ... message = "{competition_id}: {rounds_played} rounds, need {min}."
    ... ''')
    >>> rules[0].render_message({"competition_id": "C", "rounds_played": 2})
    'C: 2 rounds, need 5.'
    """
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise RuleDefinitionError(f"{origin}: not valid TOML: {exc}") from exc
    return tuple(_rule_from_dict(raw, origin) for raw in data.get("rule", []))


@lru_cache(maxsize=8)
def load_rules(path: Path | None = None) -> tuple[Rule, ...]:
    """The rule table: ``path`` or the packaged ``validations/rules.toml``.

    Examples
    --------
    >>> sorted({r.id.split(".")[0] for r in load_rules()})
    ['ajusc', 'egf', 'fide', 'quality']
    """
    if path is None:
        text = resources.files("validations").joinpath("rules.toml").read_text(encoding="utf-8")
        return parse_rules(text, origin="validations/rules.toml")
    return parse_rules(path.read_text(encoding="utf-8"), origin=str(path))


def rules_for(federation: str, on: date | None, *, rules: tuple[Rule, ...] | None = None) -> tuple[Rule, ...]:
    """The rules in force for ``federation`` for a competition starting ``on``.

    Raises
    ------
    UnknownFederationError
        When no rule names ``federation``.

    Examples
    --------
    >>> [r.id for r in rules_for("ajusc", date(2025, 10, 1)) if r.id.startswith("ajusc")]
    ['ajusc.classic', 'ajusc.one_vs_one', 'ajusc.min_rounds', 'ajusc.min_players', 'ajusc.results_public', 'ajusc.results_known', 'ajusc.forfeit_not_rated', 'ajusc.language', 'ajusc.language_declared', 'ajusc.players_known']
    """
    table = load_rules() if rules is None else rules
    if not any(federation in r.federations for r in table):
        known = sorted({f for r in table for f in r.federations if f != "*"})
        raise UnknownFederationError(f"no eligibility rules for federation {federation!r}; known: {known}")
    return tuple(r for r in table if r.applies(federation, on))


def editions(federation: str, *, rules: tuple[Rule, ...] | None = None) -> tuple[date | None, ...]:
    """Start dates of the federation's rule-set editions (``None``: since the beginning).

    A new edition begins wherever a rule comes into or goes out of force; within
    one edition the same rules apply to every competition, so one expectation suite
    per edition and table covers them.

    Examples
    --------
    >>> editions("fide")
    (None, datetime.date(2012, 1, 1), datetime.date(2024, 3, 1))
    """
    table = load_rules() if rules is None else rules
    bounds = {
        d for r in table if "*" in r.federations or federation in r.federations
        for d in (r.effective_from, r.effective_to) if d is not None
    }
    return (None, *sorted(bounds))


def edition_of(federation: str, on: date | None, *, rules: tuple[Rule, ...] | None = None) -> date | None:
    """The edition (see :func:`editions`) in force for a competition starting ``on``.

    Examples
    --------
    >>> edition_of("egf", date(2024, 7, 6))
    datetime.date(2021, 1, 1)
    """
    day = on if on is not None else date.today()
    current: date | None = None
    for start in editions(federation, rules=rules):
        if start is None or start <= day:
            current = start
    return current


def rules_frame(rules: tuple[Rule, ...] | None = None) -> pl.DataFrame:
    """The rule table as a frame (for documentation and reports).

    Examples
    --------
    >>> rules_frame().filter(pl.col("id") == "ajusc.min_players").select("id", "severity", "table")
    shape: (1, 3)
    ┌───────────────────┬──────────┬───────────┐
    │ id                ┆ severity ┆ table     │
    │ ---               ┆ ---      ┆ ---       │
    │ str               ┆ str      ┆ str       │
    ╞═══════════════════╪══════════╪═══════════╡
    │ ajusc.min_players ┆ reject   ┆ aggregate │
    └───────────────────┴──────────┴───────────┘
    """
    table = load_rules() if rules is None else rules
    return pl.DataFrame(
        {
            "id": [r.id for r in table],
            "federations": [",".join(r.federations) for r in table],
            "severity": [r.severity for r in table],
            "table": [r.table for r in table],
            "expect": [r.expect for r in table],
            "effective_from": [r.effective_from for r in table],
            "effective_to": [r.effective_to for r in table],
            "message": [r.message for r in table],
            "source": [r.source for r in table],
        },
        schema={
            "id": pl.Utf8, "federations": pl.Utf8, "severity": pl.Utf8, "table": pl.Utf8,
            "expect": pl.Utf8, "effective_from": pl.Date, "effective_to": pl.Date,
            "message": pl.Utf8, "source": pl.Utf8,
        },
    )


def _rule_of(federation: str) -> Callable[[Rule], bool]:
    """Whether a rule is one of `federation`'s own (its id starts with the federation)."""
    return lambda r: r.id.startswith(federation + ".")


def render_rules(rules: tuple[Rule, ...] | None = None) -> str:
    """The rule table as a Markdown catalogue, one section per federation (for docs and organisers).

    Examples
    --------
    >>> print(render_rules().splitlines()[0])
    ### Every federation (data quality)
    """
    table = load_rules() if rules is None else rules
    sections: list[tuple[str, Callable[[Rule], bool]]] = [
        ("Every federation (data quality)", lambda r: "*" in r.federations or r.id.startswith("quality.")),
        *[(f"`{f}`", _rule_of(f)) for f in FEDERATIONS],
    ]
    out: list[str] = []
    for title, keep in sections:
        chosen = [r for r in table if keep(r)]
        if not chosen:
            continue
        out += [f"### {title}", "", "| Rule | Federations | In force | Severity | Checks | Source |",
                "|---|---|---|---|---|---|"]
        for r in chosen:
            parts = ([f"from {r.effective_from.isoformat()}"] if r.effective_from else []) + (
                [f"before {r.effective_to.isoformat()}"] if r.effective_to else [])
            when = " ".join(parts) or "always"
            if r.expect == "between":
                bounds = " and ".join(
                    b for b in (f">= {_fmt(r.min)}" if r.min is not None else "",
                                f"<= {_fmt(r.max)}" if r.max is not None else "") if b)
                check = f"{r.table}.{r.column} {bounds}"
            elif r.expect in ("in_set", "not_in_set"):
                word = "in" if r.expect == "in_set" else "not in"
                check = f"{r.table}.{r.column} {word} {{{', '.join(str(v) for v in r.values)}}}"
            elif r.expect == "unique":
                check = f"{r.table}: ({', '.join(r.columns)}) unique"
            elif r.expect == "a_greater_than_b":
                check = f"{r.table}.{r.column_a} {'>=' if r.or_equal else '>'} {r.column_b}"
            else:
                check = f"{r.table}.{r.column} present"
            out.append(f"| `{r.id}` | {', '.join(r.federations)} | {when} | {r.severity} | "
                       f"{check.replace('|', '/')} | {r.source.replace('|', '/')} |")
        out.append("")
    return "\n".join(out)
