"""Every Examples section of the engine's docstrings runs and holds."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import engine

MODULES = sorted(
    m.name for m in pkgutil.iter_modules(engine.__path__, prefix="engine.")
) + ["engine"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE, verbose=False)
    assert result.failed == 0, f"{result.failed} docstring example(s) of {name} failed (run pytest --doctest-modules)"
