"""The house's rooms and the arrows between them: every package of the repository has its
place, each imports only the rooms below it, and no arrow runs back up (no circle of packages).

``tests/test_layout.py`` holds the finer contracts (what a flow, a task or the CLI may call);
this is the map they live in.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: Each package and the packages it may import (its rooms below), from the pure core up.
BELOW: dict[str, set[str]] = {
    "engine": set(),                                             # the rating mathematics
    "formats": {"engine"},                                       # readers: bytes in, frames out
    "validations": {"engine", "formats"},                        # eligibility, Great Expectations, reports
    "warehouse": {"engine", "formats"},                          # the SQL record
    "delivery": {"formats"},                                     # composing and sending mail
    "website": {"engine", "formats", "warehouse"},               # the static site
    "rating": {"engine", "formats", "validations", "warehouse"},  # the rating stage's policy
    "publication": {"engine", "formats", "rating", "validations", "warehouse"},   # editions, reports read back
    "desk": {"formats", "warehouse"},                            # the web app (the pipeline's code handed in)
    "tasks": {"delivery", "engine", "formats", "publication", "rating", "validations", "warehouse", "website",
              "desk"},                                           # one-call Prefect tasks (desk: serve_desk)
    "flows": {"delivery", "engine", "formats", "tasks", "warehouse", "website"},   # the flows and the CLI
    "benchmarks": {"delivery", "engine", "formats", "flows", "publication", "rating", "tasks", "validations",
                   "warehouse", "website", "desk"},              # the harness: may drive anything shipped
}

def _packages() -> set[str]:
    return {p.name for p in ROOT.iterdir() if (p / "__init__.py").is_file() and p.name != "tests"}


def _arrows() -> set[tuple[str, str]]:
    packages = _packages()
    found: set[tuple[str, str]] = set()
    for package in packages:
        for path in (ROOT / package).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                names = ([alias.name for alias in node.names] if isinstance(node, ast.Import)
                         else [node.module] if isinstance(node, ast.ImportFrom) and node.module and node.level == 0
                         else [])
                found.update((package, top) for top in (n.split(".")[0] for n in names)
                             if top in packages and top != package)
    return found


def test_every_package_has_its_room() -> None:
    assert _packages() == set(BELOW)


def test_every_arrow_runs_down() -> None:
    up = {(a, b) for a, b in _arrows() if b not in BELOW[a]}
    assert up == set(), f"imports outside the layers: {sorted(up)}"


def test_no_circle_of_packages() -> None:
    graph: dict[str, set[str]] = {p: set() for p in BELOW}
    for a, b in _arrows():
        graph[a].add(b)
    state: dict[str, int] = {}

    def visit(node: str, path: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(graph[node]):
            assert state.get(nxt) != 1, f"a circle of imports: {' -> '.join([*path, node, nxt])}"
            if nxt not in state:
                visit(nxt, [*path, node])
        state[node] = 2

    for package in sorted(graph):
        if package not in state:
            visit(package, [])


def test_the_map_is_read_from_the_code() -> None:
    """The scan finds known arrows (the task that serves the desk, the flows on their tasks) and
    none the desk once had up to the pipeline (its pages get the pipeline's code handed in)."""
    arrows = _arrows()
    assert {("tasks", "desk"), ("flows", "tasks"), ("desk", "warehouse")} <= arrows
    assert {("desk", "tasks"), ("desk", "flows")} & arrows == set()
