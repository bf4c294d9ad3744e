"""The federations this installation serves, read from ``federations.toml`` beside this file.

This is the single wiring point for what differs between federations: the flows
read a federation's table here and pass it down as a plain ``dict`` (``config``)
to the readers, the eligibility rules and the engine. Adding a federation means a
table in that file, a reader if it has its own format and a rule set if its
mathematics differ: no flow or warehouse change.
"""

from __future__ import annotations

import tomllib
from functools import cache
from pathlib import Path
from typing import Any

CONFIG_PATH = Path(__file__).with_name("federations.toml")


class UnknownFederationError(ValueError):
    """A federation id that is not configured in ``federations.toml``."""


@cache
def federations() -> dict[str, dict[str, Any]]:
    """Every configured federation's table, keyed by federation id.

    Examples
    --------
    >>> sorted(federations())
    ['ajusc', 'egf', 'fide']
    >>> federations()["ajusc"]["system"]
    'barruf'
    """
    with CONFIG_PATH.open("rb") as handle:
        return tomllib.load(handle)


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
