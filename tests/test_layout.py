"""The layout contract of DESIGN.md: engine imports nothing of the other stages."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
STAGES = {"flows", "tasks", "formats", "validations", "engine", "warehouse"}


def _imported_top_levels(package: str) -> set[str]:
    found: set[str] = set()
    for path in (ROOT / package).rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                found.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                found.add(node.module.split(".")[0])
    return found


def test_engine_is_pure() -> None:
    forbidden = (STAGES - {"engine"}) | {"prefect", "sqlalchemy", "sqlmodel", "great_expectations"}
    assert _imported_top_levels("engine") & forbidden == set()


def test_stages_do_not_import_flows_or_tasks() -> None:
    for package in ("formats", "validations", "engine", "warehouse"):
        assert _imported_top_levels(package) & {"flows", "tasks"} == set(), package
