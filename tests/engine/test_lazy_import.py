"""``import engine`` and the read-only commands' modules do not compile or even import numba:
the kernels' modules load on first use (``engine.__getattr__``), so ``ratings list`` and
``ratings report`` pay for polars and SQL, not for a compiler."""

from __future__ import annotations

import subprocess
import sys

import pytest


@pytest.mark.parametrize("modules", ["engine", "engine, rating, warehouse, website",
                                     "flows.lookup, flows.cli"])
def test_numba_is_not_imported_by(modules: str) -> None:
    code = f"import sys; import {modules}; print('numba' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False", out.stderr


def test_the_kernels_load_when_first_asked_for() -> None:
    code = ("import sys, engine; assert 'numba' not in sys.modules; "
            "m = engine.SYSTEM_MODULES['barruf']; print(m is engine.barruf, 'numba' in sys.modules, "
            "engine.states_at.__module__)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["True", "True", "engine._editions"]
