"""The benchmark harness stays runnable (a smoke run on a tiny history; not a timed test)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_engine.py"


def test_bench_engine_runs_on_a_small_history(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    spec = importlib.util.spec_from_file_location("bench_engine", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    monkeypatch.setattr(sys, "argv", ["bench_engine.py", "--games", "3000", "--players", "300"])
    module.main()
    out = capsys.readouterr().out
    assert "3,000 games" in out
    for federation in ("ajusc", "fide", "egf"):
        assert any(line.startswith(federation) and "M games/s" in line for line in out.splitlines()), out
