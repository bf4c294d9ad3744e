"""The Great Expectations side: suites built from the rules, a real file project, Data Docs."""

from __future__ import annotations

import json
import os
from datetime import date
from pathlib import Path

import polars as pl
import pytest

from tests.validations.conftest import Batch
from validations import build_data_docs, ensure_gx_project, validate
from validations.rules import editions
from validations.suites import suite_name, suite_rules


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One file project for the module: creating one writes ~150 files (seconds)."""
    root = tmp_path_factory.mktemp("gx_project")
    ensure_gx_project(root)
    return root


def test_one_suite_per_federation_table_and_edition(project: Path) -> None:
    gx_dir = project / "gx"
    # GX stores suite "a.b.c" as expectations/a/b/c.json.
    stored = {".".join(p.relative_to(gx_dir / "expectations").with_suffix("").parts)
              for p in (gx_dir / "expectations").rglob("*.json")}
    expected = {
        suite_name(fed, table, ed)
        for fed in ("ajusc", "fide", "egf") for ed in editions(fed)
        for table in ("games", "appearances", "competitions", "aggregate", "unrated_events", "players")
        if suite_rules(fed, table, ed)
    }
    assert stored == expected
    suite = json.loads((gx_dir / "expectations" / "ajusc" / "aggregate" / "base.json").read_text())
    by_rule = {e["meta"]["rule"]: e for e in suite["expectations"]}
    assert by_rule["ajusc.min_rounds"]["type"] == "expect_column_values_to_be_between"
    assert by_rule["ajusc.min_rounds"]["kwargs"]["min_value"] == 3
    # The FIDE 2024 edition asks for one rated opponent per event, the earlier one for three.
    fide_old = json.loads((gx_dir / "expectations" / "fide" / "unrated_events" / "base.json").read_text())
    fide_new = json.loads((gx_dir / "expectations" / "fide" / "unrated_events" / "2024-03-01.json").read_text())
    mins = [{e["meta"]["rule"]: e["kwargs"].get("min_value") for e in s["expectations"]}
            for s in (fide_old, fide_new)]
    assert mins[0]["fide.unrated_rated_opponents"] == 3 and mins[1]["fide.unrated_rated_opponents"] == 1
    # Progress bars off, persisted in the project's configuration.
    assert "progress_bars" in (gx_dir / "great_expectations.yml").read_text()


def test_ensure_is_idempotent(project: Path) -> None:
    before = {str(p): p.read_text() for p in (project / "gx" / "expectations").rglob("*.json")}
    assert ensure_gx_project(project) == project / "gx"
    after = {str(p): p.read_text() for p in (project / "gx" / "expectations").rglob("*.json")}
    assert before
    assert before.keys() == after.keys()
    def strip(text: str) -> list[dict[str, object]]:
        return [{k: v for k, v in e.items() if k != "id"} for e in json.loads(text)["expectations"]]

    assert all(strip(before[k]) == strip(after[k]) for k in before)


def test_file_project_validation_and_data_docs(project: Path) -> None:
    """validate() against a real file-based context: same findings as in memory, plus Data Docs."""
    b = Batch("ajusc")
    b.competition("GOOD")
    games = b.competition("BAD", rounds=2)
    games[0].update(status="unknown", score_a=None)
    f = b.frames()
    on_disk = validate(f["competitions"], f["games"], federation="ajusc", gx_root=project)
    in_memory = validate(f["competitions"], f["games"], federation="ajusc")
    assert on_disk.findings.equals(in_memory.findings)
    assert set(on_disk.findings.get_column("rule")) == {"ajusc.min_rounds", "ajusc.results_known"}
    stored = list((project / "gx" / "uncommitted" / "validations").rglob("*.json"))
    assert stored, "checkpoint runs store their results for Data Docs"
    index = build_data_docs(project)
    assert index.name == "index.html" and index.exists()
    assert "ajusc.aggregate.base" in index.read_text(encoding="utf-8")


@pytest.mark.slow
def test_missing_project_is_created_on_first_use(tmp_path: Path) -> None:
    b = Batch("egf")
    b.competition("E1", start=date(2024, 5, 18), event_class="A")
    f = b.frames()
    v = validate(f["competitions"], f["games"], federation="egf", gx_root=tmp_path / "fresh")
    assert (tmp_path / "fresh" / "gx" / "great_expectations.yml").exists()
    assert v.findings.is_empty()


@pytest.mark.parametrize("rows", [1, 5000])
def test_unexpected_rows_map_to_lines_at_any_size(rows: int) -> None:
    """Large batches: every unexpected row comes back, mapped to its own line."""
    b = Batch("ajusc")
    n = max(4, rows // 3 * 2 // 2 * 2)
    players = [str(i) for i in range(n)]
    b.competition("BIG", players=players, rounds=3)
    for g in b.games[::97]:
        g.update(score_a=0.25)
    f = b.frames()
    v = validate(f["competitions"], f["games"], federation="ajusc")
    bad_lines = sorted(g["source_line"] for g in b.games[::97])
    got = v.findings.filter(pl.col("rule") == "quality.score_domain").get_column("line").sort().to_list()
    assert got == bad_lines


def test_data_docs_keep_only_the_newest_results(project: Path) -> None:
    b = Batch("ajusc")
    b.competition("K1")
    f = b.frames()
    for _ in range(2):
        validate(f["competitions"], f["games"], federation="ajusc", gx_root=project)
    index = build_data_docs(project, keep=2)
    stored = list((project / "gx" / "uncommitted" / "validations").rglob("*.json"))
    assert len(stored) == 2 and index.exists()


def test_concurrent_validations_in_threads_agree() -> None:
    """Prefect runs tasks in threads: parallel validate calls give the same findings."""
    from concurrent.futures import ThreadPoolExecutor

    b = Batch("ajusc")
    b.competition("T1", rounds=2)
    g = b.competition("T2")
    g[0].update(status="forfeit")
    f = b.frames()
    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(lambda _: validate(f["competitions"], f["games"], federation="ajusc"), range(4)))
    assert all(r.findings.equals(results[0].findings) for r in results)
    assert set(results[0].findings.get_column("rule")) == {"ajusc.min_rounds", "ajusc.forfeit_not_rated"}


def test_suites_from_an_older_rule_table_are_rebuilt(project: Path) -> None:
    """A project whose suites predate the rule table is rebuilt before use: no rule goes unchecked."""
    from validations.suites import RULES_STAMP, file_context, rules_fingerprint

    stamp = project / "gx" / RULES_STAMP
    assert stamp.read_text() == rules_fingerprint()
    stamp.write_text("stale")
    file_context(project)
    assert stamp.read_text() == rules_fingerprint()


def test_no_progress_bars_on_the_terminal(project: Path, capfd: pytest.CaptureFixture[str]) -> None:
    """Progress bars are off: a nightly log must not fill with 'Calculating Metrics' bars."""
    b = Batch("ajusc")
    b.competition("P1", rounds=2)
    f = b.frames()
    validate(f["competitions"], f["games"], federation="ajusc", gx_root=project)
    validate(f["competitions"], f["games"], federation="ajusc")
    out, err = capfd.readouterr()
    assert "Calculating Metrics" not in out + err


def test_modules_no_suite_uses_are_imported_only_when_read() -> None:
    """``scipy.stats`` and ``altair`` (1.4 s of Great Expectations' 3.3 s import) stay stand-ins
    through the import and the building of every suite, and work as the real modules once read.
    (A night's suites run with them deferred in ``tests/flows/test_gx_in_its_own_process.py``.)"""
    import subprocess
    import sys

    script = """
import sys
from validations.suites import _gx, ephemeral_context
_gx()
assert "great_expectations" in sys.modules
for federation in ("ajusc", "fide", "egf"):
    ephemeral_context(federation)
print([type(sys.modules.get(n)).__name__ for n in ("scipy.stats", "altair")])
from scipy import stats
import scipy.stats.distributions
print(stats.norm.cdf(0.0), scipy.stats.distributions.norm.cdf(0.0), type(sys.modules["scipy.stats"]).__name__)
import altair
print(altair.Chart.__name__, type(sys.modules["altair"]).__name__)
"""
    done = subprocess.run([sys.executable, "-c", script], check=False, capture_output=True, text=True,
                          timeout=300, env={**os.environ, "GX_ANALYTICS_ENABLED": "false"}, cwd=Path(__file__).parents[2])
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["['_Deferred', '_Deferred']", "0.5 0.5 module", "Chart module"]
