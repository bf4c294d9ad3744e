"""Domain errors of the rating engine (all subclass :class:`ValueError`)."""

from __future__ import annotations


class EngineError(ValueError):
    """Base class of every error the rating engine raises."""


class UnknownFederationError(EngineError):
    """The federation has no rating system and the config names none."""


class UnknownRuleSetError(EngineError):
    """A rule set name (pinned in a config or asked for) is not in the registry."""


class InvalidHistoryError(EngineError):
    """The competitions / games frames handed to the engine break its preconditions."""


class InvalidConfigError(EngineError):
    """A federation's config table holds a value the engine cannot use."""
