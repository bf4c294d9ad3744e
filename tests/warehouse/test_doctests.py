"""The Examples in the warehouse's docstrings run and print what they show."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = ["warehouse.bulk", "warehouse.db", "warehouse.load", "warehouse.query"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0
    assert result.failed == 0
