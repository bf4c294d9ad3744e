"""The rating stage's policy: which part of a federation's history a night re-rates, from which
state, and each of its lists with its rules (:mod:`engine.lists`), over the engine.

No Prefect: the nightly's task (``tasks.rate``) is one call of :func:`rate_federation`, and a
data scientist can call :func:`rate` on a :class:`warehouse.History` and a batch of frames.
"""

from __future__ import annotations

from engine.lists import StandardInForce, list_of_competitions, lists_of
from rating.history import history_to_rate
from rating.run import adjusted_at, rate, rate_federation
from rating.state import Rated, Stored, rating_basis

__all__ = [
    "Rated",
    "StandardInForce",
    "Stored",
    "adjusted_at",
    "history_to_rate",
    "list_of_competitions",
    "lists_of",
    "rate",
    "rate_federation",
    "rating_basis",
]
