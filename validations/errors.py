"""Domain errors of :mod:`validations` (all subclass :class:`ValueError`).

Validation itself never raises for a user's file: what is wrong with a file is a
*finding*. These errors are for callers that misuse the package (an unknown
federation, a malformed rule table, a broken Great Expectations project).
"""

from __future__ import annotations


class ValidationsError(ValueError):
    """Base class of every error raised by :mod:`validations`."""


class UnknownFederationError(ValidationsError):
    """The federation has no eligibility rules."""


class RuleDefinitionError(ValidationsError):
    """A rule in the rule table is malformed (unknown key, severity or expectation)."""


class GxProjectError(ValidationsError):
    """The Great Expectations project is missing a suite or cannot be opened."""


class ReportError(ValidationsError):
    """A report cannot be rendered (unknown format or inconsistent input)."""
