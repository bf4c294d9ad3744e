"""The Examples sections of the package's docstrings are tests too."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = ["validations.rules", "validations.egf", "validations.tables", "validations.fide",
           "validations.report", "validations.suites", "validations.validate"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0
