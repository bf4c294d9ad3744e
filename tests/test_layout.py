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


#: Modules the flows may import from the stages: the run guard (the warehouse's run lock and
#: the crash checkpoints), which the flows take around and between their tasks.
FLOW_ALLOWED = {"warehouse.guard"}
#: The flow modules: they orchestrate tasks and import no stage (issue 13).
FLOW_MODULES = ("nightly.py", "backfill.py", "whatif.py", "orchestration.py")
#: The CLI commands that run a flow: they call the flow (and tasks), never a stage.
FLOW_COMMANDS = ("run", "backfill", "whatif")


def _imported_modules(tree: ast.AST) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
    return found


def _stage_imports(modules: set[str]) -> set[str]:
    stages = {"formats", "validations", "engine", "warehouse"}
    return {m for m in modules if m.split(".")[0] in stages and m not in FLOW_ALLOWED}


def test_flows_import_tasks_not_stages() -> None:
    for name in FLOW_MODULES:
        tree = ast.parse((ROOT / "flows" / name).read_text(encoding="utf-8"))
        assert _stage_imports(_imported_modules(tree)) == set(), name


def test_the_cli_runs_flows_not_stages() -> None:
    tree = ast.parse((ROOT / "flows" / "cli.py").read_text(encoding="utf-8"))
    commands = {node.name: node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)}
    for name in FLOW_COMMANDS:
        assert _stage_imports(_imported_modules(commands[name])) == set(), name
        called = {n.func.id for n in ast.walk(commands[name]) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
        assert "run_flow" in called, name
