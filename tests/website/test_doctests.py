"""The Examples sections of the site's docstrings (and of warehouse.site) are run."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import website

MODULES = [*sorted(m.name for m in pkgutil.walk_packages(website.__path__, "website.")), "warehouse.site"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0
