"""The layout contract of DESIGN.md: engine imports nothing of the other stages, the flows and the
CLI go through tasks."""

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
    for package in ("formats", "validations", "engine", "warehouse", "publication"):
        # Publication publishes what the rating stage produced (rating.Rated): it sits above rating.
        forbidden = {"flows", "tasks"} | (set() if package == "publication" else {"rating"})
        assert _imported_top_levels(package) & forbidden == set(), package


def test_rating_policy_is_below_the_orchestration() -> None:
    """The rating stage's policy (rating/) runs without Prefect and imports no task or flow."""
    assert _imported_top_levels("rating") & {"flows", "tasks", "prefect", "website"} == set()


def test_delivery_is_below_the_orchestration() -> None:
    """Composing and sending mail (delivery/) runs without Prefect, a warehouse or a task; only
    tasks/deliver.py wires it to the record."""
    assert _imported_top_levels("delivery") & {"flows", "tasks", "prefect", "warehouse", "sqlalchemy",
                                                "website", "rating", "engine"} == set()
    for package in ("formats", "validations", "engine", "warehouse", "rating", "website"):
        assert "delivery" not in _imported_top_levels(package), package


def test_tasks_rate_is_one_call() -> None:
    """tasks/rate.py wraps rating.rate_federation and holds no rule of a federation."""
    text = (ROOT / "tasks" / "rate.py").read_text(encoding="utf-8")
    tree = ast.parse(text)
    functions = [n for n in tree.body if isinstance(n, ast.FunctionDef)]
    assert [f.name for f in functions] == ["rate_federation"]
    assert '"fide"' not in text


#: Modules the flows may import from the stages: the run guard (the warehouse's run lock and
#: the crash checkpoints), which the flows take around and between their tasks.
FLOW_ALLOWED = {"warehouse.guard"}
#: The flow modules: they orchestrate tasks and import no stage (DESIGN.md, the layout).
FLOW_MODULES = ("nightly.py", "backfill.py", "whatif.py", "check.py", "orchestration.py", "seed.py", "decide.py", "site.py",
                "lookup.py", "deployments.py", "delivery.py", "desk.py", "reprocess.py")
#: The CLI's modules (flows/<module>.py): the entry point, the app and the modules of its commands.
CLI_MODULES = ("cli", "cli_app", "cli_runs", "cli_lists", "cli_admin")
#: Every CLI command (its function's name in the CLI's modules): each runs a flow, never a stage.
CLI_COMMANDS = ("run", "seed", "backfill", "whatif", "check", "list_", "report", "approve", "decline", "reprocess", "site",
                "organiser_add", "organiser_list", "organiser_remove", "deliveries",
                "account_add", "account_reset", "account_disable", "serve")
#: The CLI's own modules of helpers (flows/<module>.py) that its commands call.
CLI_HELPER_MODULES = ("exits", "progress", "present")
#: The one helper of the CLI (flows/cli_app.py) that may open the warehouse: commands call it to migrate (or
#: refuse, in one line) before their flow starts, as ``run`` always did; it reads nothing.
CLI_OPENS_WAREHOUSE = {"_engine", "_read_engine"}   # _read_engine: _engine once the file is found


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


def _called_names(node: ast.AST) -> set[str]:
    return {n.func.id for n in ast.walk(node) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}


def test_flows_import_tasks_not_stages() -> None:
    for name in FLOW_MODULES:
        tree = ast.parse((ROOT / "flows" / name).read_text(encoding="utf-8"))
        assert _stage_imports(_imported_modules(tree)) == set(), name


def test_every_flow_module_is_checked() -> None:
    """A new flow module joins FLOW_MODULES (the CLI and the config are not flows)."""
    not_flows = {"__init__", "config", "errors", *CLI_MODULES, *CLI_HELPER_MODULES}
    flows = {p.name for p in (ROOT / "flows").glob("*.py")} - {f"{m}.py" for m in not_flows}
    assert flows == set(FLOW_MODULES)


def test_the_cli_runs_flows_not_stages() -> None:
    functions: dict[str, ast.FunctionDef] = {}
    for module in CLI_MODULES:
        tree = ast.parse((ROOT / "flows" / f"{module}.py").read_text(encoding="utf-8"))
        for node in tree.body:
            if isinstance(node, ast.FunctionDef):
                assert node.name not in functions, (module, node.name)
                functions[node.name] = node
    commands = {name for name, node in functions.items()
                if any("command" in ast.unparse(d) for d in node.decorator_list)}
    # The helpers the commands call from the CLI's own modules (how it ends, shows progress, presents)
    # are walked as the CLI's own: a stage reached through them is reached by the command.
    for module in CLI_HELPER_MODULES:
        helpers = ast.parse((ROOT / "flows" / f"{module}.py").read_text(encoding="utf-8"))
        for node in helpers.body:
            if isinstance(node, ast.FunctionDef):
                assert node.name not in functions, (module, node.name)
                functions[node.name] = node
    assert commands == set(CLI_COMMANDS)   # a new command is checked too
    for name in CLI_COMMANDS:
        assert _stage_imports(_imported_modules(functions[name])) == set(), name
        # The helpers of the CLI it calls, and theirs, present what the flow returned: no stage either.
        seen: set[str] = set()
        todo = [name]
        reached = set(_called_names(functions[name]))
        while todo:
            for called in _called_names(functions[todo.pop()]) & set(functions):
                if called not in seen and called not in CLI_OPENS_WAREHOUSE:
                    seen.add(called)
                    todo.append(called)
                    reached |= _called_names(functions[called])
        # It runs a flow: itself, or through the one helper that runs a command's flow.
        assert "run_flow" in reached, name
        for helper in sorted(seen):
            assert _stage_imports(_imported_modules(functions[helper])) == set(), (name, helper)


def test_only_the_desks_task_imports_the_desk() -> None:
    """Nothing of the pipeline depends on the desk (web app), except the task that serves it
    (``tasks/desk.py``, run by the ``desk`` flow of ``ratings serve``); the desk imports no flow
    or task: the pipeline's code its pages run is handed in (``desk.pipeline.Pipeline``)."""
    importers = set()
    for package in ("flows", "tasks", "formats", "validations", "engine", "rating", "warehouse", "website", "delivery"):
        for path in (ROOT / package).rglob("*.py"):
            if "desk" in {m.split(".")[0] for m in _imported_modules(ast.parse(path.read_text(encoding="utf-8")))}:
                importers.add(str(path.relative_to(ROOT)))
    assert importers == {"tasks/desk.py"}
    assert _imported_top_levels("desk") <= {
        "desk", "warehouse", "formats", "website", "starlette", "uvicorn", "itsdangerous",
        "jinja2", "__future__", "contextvars", "hashlib", "json", "os", "secrets", "shutil", "tempfile",
        "threading", "time", "collections", "dataclasses", "pathlib", "typing", "datetime", "unicodedata",
    }


def test_tasks_publish_is_thin() -> None:
    """Edition planning and the reports' contents are publication/ (no Prefect, no task, no
    site); tasks/publish.py holds the task, its logging and its artifacts."""
    assert _imported_top_levels("publication") & {"flows", "tasks", "prefect", "website"} == set()
    text = (ROOT / "tasks" / "publish.py").read_text(encoding="utf-8")
    tree = ast.parse(text)
    functions = [n.name for n in tree.body if isinstance(n, ast.FunctionDef)]
    assert functions == ["artifact_key", "reports_index", "publish_editions", "publish_federation",
                         "_write_reports"]
    for planning in ("states_at", "list_changes", "competition_points", "edition_corrections"):
        assert planning not in text, planning


#: The packages the project ships (``[tool.setuptools.packages.find]``): everything but the tests,
#: the benchmarks and the scripts.
SHIPPED = ("flows", "tasks", "formats", "validations", "engine", "warehouse", "website", "rating", "publication",
           "delivery", "desk")
#: The variables of the test suite's fault injector (``tests/faults.py``), which alone reads them.
FAULT_VARIABLES = ("RATINGS_CRASH_AT", "RATINGS_FAULT_AT", "RATINGS_HOOK", "RATINGS_SQL_COUNT_FILE")
#: Every shipped module that starts, signals or ends a process, and what it uses, with why.
PROCESS_CONTROL = {
    # spawn(): starts the helper children (``python -c "from MODULE import main; main()"``).
    "formats/child_process.py": {"subprocess"},
    # Its own site child, started through spawn(): killed when it does not end once asked.
    "tasks/site_process.py": {"subprocess", ".kill"},
    # Its own Great Expectations child, started through spawn(): ended when it does not answer.
    "validations/gx_process.py": {"subprocess", ".terminate"},
    # The site's pages rendered by a pool of forked workers of this process (no command).
    "website/_writer.py": {"multiprocessing"},
}
_PROCESS_MODULES = {"subprocess", "signal", "multiprocessing", "pty"}
_ENDS_A_PROCESS = {"kill", "killpg", "terminate", "send_signal", "abort"}


def _process_control(tree: ast.AST) -> set[str]:
    """What a module uses to start, signal or end a process (``subprocess``, ``.kill``, ``os.system``)."""
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(top for alias in node.names if (top := alias.name.split(".")[0]) in _PROCESS_MODULES)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            top = node.module.split(".")[0]
            if top in _PROCESS_MODULES:
                found.add(top)
            elif top == "os":
                found.update(f"os.{a.name}" for a in node.names if a.name in _ENDS_A_PROCESS
                             or a.name.startswith(("exec", "spawn", "posix_spawn", "system", "popen", "fork")))
        elif isinstance(node, ast.Attribute):
            if node.attr in _ENDS_A_PROCESS:
                found.add(f".{node.attr}")
            elif isinstance(node.value, ast.Name) and node.value.id == "os" and node.attr.startswith(
                    ("exec", "spawn", "posix_spawn", "system", "popen", "fork")):
                found.add(f"os.{node.attr}")
    return found


def test_shipped_code_injects_no_fault_and_runs_no_command() -> None:
    """Fault injection is test machinery (``tests/faults.py``): no shipped module reads its
    variables, imports the tests, kills a process or runs a command, except the child-process
    helpers of :data:`PROCESS_CONTROL`, which end only the children they started."""
    mentions, control = [], {}
    for package in SHIPPED:
        for path in sorted((ROOT / package).rglob("*.py")):
            name = str(path.relative_to(ROOT))
            tree = ast.parse(path.read_text(encoding="utf-8"))
            mentions += [f"{name}:{node.lineno}" for node in ast.walk(tree) if isinstance(node, ast.Constant)
                         and isinstance(node.value, str) and any(v in node.value for v in FAULT_VARIABLES)]
            if used := _process_control(tree):
                control[name] = used
        assert "tests" not in _imported_top_levels(package), package
    assert mentions == []
    assert control == PROCESS_CONTROL
