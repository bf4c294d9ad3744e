"""The site package renders; it does not run flows, talk to Prefect or write SQL (DESIGN.md layout)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _runtime_imports(package: str) -> set[str]:
    found: set[str] = set()
    for path in (ROOT / package).rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        skip = {id(n) for node in ast.walk(tree) if isinstance(node, ast.If)
                and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"
                for n in ast.walk(node)}
        for node in ast.walk(tree):
            if id(node) in skip:
                continue
            if isinstance(node, ast.Import):
                found.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                found.add(node.module.split(".")[0])
    return found


def test_website_imports_no_flows_tasks_prefect_or_sql() -> None:
    assert _runtime_imports("website") & {"flows", "tasks", "prefect", "sqlalchemy", "sqlmodel"} == set()


def test_static_assets_are_shipped_with_their_licence() -> None:
    static = ROOT / "website" / "static"
    head = (static / "chart.umd.min.js").read_text(encoding="utf-8")[:200]
    assert "Chart.js v4" in head and "MIT" in head
    assert "MIT License" in (static / "LICENSE.chart.js.md").read_text(encoding="utf-8")
