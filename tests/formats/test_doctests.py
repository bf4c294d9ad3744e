"""The Examples sections of the readers' docstrings are run, so they cannot drift from the code."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import formats

MODULES = sorted(m.name for m in pkgutil.walk_packages(formats.__path__, "formats."))


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0
