"""The federations this installation serves: the packaged ``federations.toml``, overridden
by the installation's own file.

This is the single wiring point for what differs between federations: the flows
read a federation's table here and pass it down as a plain ``dict`` (``config``)
to the readers, the eligibility rules and the engine. Adding a federation means a
table in a config file, a reader if it has its own format and a rule set if its
mathematics differ: no flow or warehouse change.

An installation changes a federation's settings without editing the package: a
``federations.toml`` of its own, named by ``ratings --config FILE`` or
``$RATINGS_CONFIG``, whose tables override the packaged ones key by key (and may
add a federation). Both files are validated against :class:`FederationTable`
when read: an unknown key or a wrong type is a :class:`ConfigError` naming the
file and the key.
"""

from __future__ import annotations

import os
import tomllib
from functools import cache
from pathlib import Path
from types import UnionType
from typing import TYPE_CHECKING, Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel, ConfigDict, ValidationError

if TYPE_CHECKING:
    from delivery import DeliverySettings

CONFIG_PATH = Path(__file__).with_name("federations.toml")

#: Environment variable naming the installation's config file.
CONFIG_ENV = "RATINGS_CONFIG"

#: ``rule_set = "by-date"``: no pinned rule set, the engine's dated registry chooses.
BY_DATE = "by-date"


class UnknownFederationError(ValueError):
    """A federation id that is not configured in ``federations.toml``."""


class ConfigError(ValueError):
    """A config file that cannot be used: unreadable, not TOML, an unknown key or a wrong type."""


class FederationTable(BaseModel):
    """The keys a federation's table may hold, with their types (one line per key).

    ``None`` means "not set": the engine or the rules use their own default.
    """

    model_config = ConfigDict(extra="forbid", strict=True)

    name: str | None = None                 #: the federation's full name
    game: str | None = None                 #: the game it rates
    system: str | None = None               #: barruf, fide-elo or egf-gor (engine.rulesets.SYSTEMS)
    rule_set: str | None = None             #: pin one rule set for all dates, or "by-date"
    eligibility: str | None = None          #: rule set of validations/rules.toml
    publication: Literal["per-competition", "monthly"] | None = None   #: how editions are published
    lists: list[str] | None = None          #: the lists it publishes (FIDE: standard, rapid, blitz)
    # BARRUF parameters (engine.barruf.BarrufParameters.from_config)
    newcomer_rating: float | None = None
    season_start: str | None = None         #: "MM-DD"
    inactive_after_seasons: int | None = None   #: pins the window; unset: the engine's dated windows
    k_games_threshold: int | None = None
    k_bands: list[list[float | str]] | None = None
    k_above_2000: list[float] | None = None
    # EGF classic GoR parameters (engine.egf_gor)
    epsilon: float | None = None
    epsilon_mode: Literal["stronger", "split"] | None = None
    #: ``false``: this federation's reports are not e-mailed (they are still written)
    deliver: bool | None = None


#: The installation's mail settings (``delivery.DeliverySettings``), beside the federations' tables.
DELIVERY_TABLE = "delivery"


def _delivery_settings(path: Path, table: object) -> DeliverySettings:
    """``[delivery]`` of ``path``, validated; a :class:`ConfigError` names the key."""
    from delivery import DeliverySettings

    if not isinstance(table, dict):
        raise ConfigError(f"{path}: key 'delivery' must be a [delivery] table, not {_describe(table)}")
    try:
        return DeliverySettings.model_validate(table)
    except ValidationError as error:
        first = error.errors()[0]
        key = ".".join(str(part) for part in first["loc"][:1])
        if first["type"] == "extra_forbidden":
            known = ", ".join(DeliverySettings.model_fields)
            raise ConfigError(f"{path}: unknown key [delivery].{key} (known keys: {known})") from None
        if first["type"] == "missing":
            raise ConfigError(f"{path}: [delivery] needs {key}") from None
        reason = str(first.get("msg", "")).removeprefix("Value error, ")
        raise ConfigError(f"{path}: [delivery].{key}: {reason} (given {_describe(table.get(key))})") from None


#: Keys every federation must end up with (packaged or added by an installation).
REQUIRED = ("name", "game", "system")


def _describe(value: Any) -> str:
    return f"{value!r} ({type(value).__name__})"


def _plural(annotation: Any) -> str:
    if get_origin(annotation) is list:
        return "lists of " + _plural(get_args(annotation)[0])
    names = {str: "strings", int: "integers", float: "numbers"}
    return " or ".join(names.get(a, str(a)) for a in (get_args(annotation) or (annotation,)))


def _expected(annotation: Any) -> str:
    """``float | None`` -> ``a number``: the type of a key in words, for the error message."""
    args = [a for a in get_args(annotation) if a is not type(None)] if get_origin(annotation) in (Union, UnionType) else [annotation]
    words = []
    for arg in args:
        if get_origin(arg) is Literal:
            words.append("one of " + ", ".join(repr(v) for v in get_args(arg)))
        elif get_origin(arg) is list:
            (item,) = get_args(arg)
            words.append("a list of " + _plural(item))
        else:
            words.append({str: "a string", int: "an integer", float: "a number", bool: "true or false"}.get(arg, str(arg)))
    return " or ".join(words)


def _read(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as handle:
            data = tomllib.load(handle)
    except OSError as error:
        raise ConfigError(f"{path}: cannot read the config file: {error.strerror or error}") from None
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{path}: not valid TOML: {error}") from None
    for federation, table in data.items():
        if federation == DELIVERY_TABLE:
            _delivery_settings(path, table)
            continue
        if not isinstance(table, dict):
            raise ConfigError(f"{path}: key {federation!r} must be a [federation] table, not {_describe(table)}")
        try:
            FederationTable.model_validate(table)
        except ValidationError as error:
            first = error.errors()[0]
            key = ".".join(str(part) for part in first["loc"][:1])
            where = f"[{federation}].{key}"
            if first["type"] == "extra_forbidden":
                known = ", ".join(FederationTable.model_fields)
                raise ConfigError(f"{path}: unknown key {where} (known keys: {known})") from None
            expected = _expected(FederationTable.model_fields[key].annotation)
            raise ConfigError(f"{path}: {where} must be {expected}, not {_describe(table[key])}") from None
    return data


def _check_merged(federation: str, table: dict[str, Any], origin: str) -> None:
    """Cross-key checks once the installation's table is laid over the packaged one."""
    from engine import rulesets

    missing = [k for k in REQUIRED if table.get(k) is None]
    if missing:
        raise ConfigError(f"{origin}: [{federation}] needs {', '.join(missing)} (a new federation's table must set them)")
    system = table["system"]
    if system not in rulesets.SYSTEMS:
        raise ConfigError(f"{origin}: [{federation}].system must be one of {list(rulesets.SYSTEMS)}, not {system!r}")
    rule_set = table.get("rule_set")
    if rule_set is not None and rule_set != BY_DATE:
        known = sorted(name for name, rs in rulesets.REGISTRY.items() if rs.system == system)
        if rule_set not in rulesets.REGISTRY or rulesets.REGISTRY[rule_set].system != system:
            raise ConfigError(
                f"{origin}: [{federation}].rule_set must be {BY_DATE!r} or a {system} rule set "
                f"({', '.join(known)}), not {rule_set!r}"
            )


@cache
def _load(installation: Path | None, stamp: float | None) -> dict[str, dict[str, Any]]:
    """The packaged tables overridden key by key by the installation's (``stamp``: its mtime,
    so that an edited file is read again)."""
    merged = {fed: dict(table) for fed, table in _read(CONFIG_PATH).items()}
    origin = str(CONFIG_PATH)
    if installation is not None:
        origin = str(installation)
        for fed, table in _read(installation).items():
            if fed != DELIVERY_TABLE:
                merged.setdefault(fed, {}).update(table)
    for fed, table in merged.items():
        _check_merged(fed, table, origin)
        if table.get("rule_set") == BY_DATE:
            del table["rule_set"]
    return merged


_active: list[Path | None] = []


def use_config(path: str | Path | None) -> None:
    """Make ``path`` the installation's config of this process (``None``: back to
    ``$RATINGS_CONFIG``, else the packaged file alone), and validate it now.

    Raises
    ------
    ConfigError
        The file cannot be read, or holds an unknown key or a wrong type.
    """
    _active[:] = [Path(path) if path is not None else None]
    federations()


def installation_config() -> Path | None:
    """The installation's config file in use: ``use_config``'s, else ``$RATINGS_CONFIG``."""
    if _active and _active[0] is not None:
        return _active[0]
    env = os.environ.get(CONFIG_ENV)
    return Path(env) if env else None


def federations() -> dict[str, dict[str, Any]]:
    """Every configured federation's table, keyed by federation id.

    Raises
    ------
    ConfigError
        A config file cannot be read, or holds an unknown key or a wrong type.

    Examples
    --------
    >>> sorted(federations())
    ['ajusc', 'egf', 'fide']
    >>> federations()["ajusc"]["system"]
    'barruf'
    """
    path = installation_config()
    stamp = None
    if path is not None:
        try:
            stamp = path.stat().st_mtime
        except OSError as error:
            raise ConfigError(f"{path}: cannot read the config file: {error.strerror or error}") from None
    from formats import use_federations

    tables = _load(path, stamp)
    # The readers accept a file of every configured federation: a new one is a table, no code.
    use_federations(tables)
    return tables


def delivery_settings() -> DeliverySettings | None:
    """The installation's ``[delivery]`` table, or ``None`` when it has none (nothing is
    e-mailed). The packaged file has none: mail needs an installation's own settings.

    Raises
    ------
    ConfigError
        The table holds an unknown key, a wrong type or an address that is not one.
    """
    path = installation_config()
    if path is None:
        return None
    data = _read(path)
    if DELIVERY_TABLE not in data:
        return None
    return _delivery_settings(path, data[DELIVERY_TABLE])


def federation_config(federation: str) -> dict[str, Any]:
    """The table of one federation (a copy, safe to mutate).

    Raises
    ------
    UnknownFederationError
        When ``federation`` is not configured.
    """
    known = federations()
    if federation not in known:
        raise UnknownFederationError(
            f"unknown federation {federation!r}: expected one of {', '.join(sorted(known))}"
        )
    return dict(known[federation])
