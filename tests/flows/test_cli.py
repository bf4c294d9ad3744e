"""The ``ratings`` command line: the documented commands, and one-line refusals for mistakes."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from flows.cli import app

runner = CliRunner()


def invoke(*args: str):  # type: ignore[no-untyped-def]
    return runner.invoke(app, list(args))


def test_run_then_list_and_report(sample_inbox: Path, sqlite_url: str, tmp_path: Path) -> None:
    ran = invoke("run", "--inbox", str(sample_inbox), "--warehouse", sqlite_url, "--as-of", "2026-02-01",
                 "--reports", str(tmp_path / "reports"))
    assert ran.exit_code == 0, ran.output
    assert "CAT-2025-03" in ran.output and "rejected" in ran.output

    as_csv = invoke("list", "--federation", "ajusc", "--format", "csv", "--warehouse", sqlite_url)
    assert as_csv.exit_code == 0, as_csv.output
    rows = list(csv.DictReader(io.StringIO(as_csv.stdout)))
    assert len(rows) == 12
    ranked = [r for r in rows if r["rank"]]
    assert all(r["status"] == "active" for r in ranked)
    as_json = json.loads(invoke("list", "--federation", "ajusc", "--format", "json", "--warehouse", sqlite_url).stdout)
    assert {r["player_id"] for r in as_json} == {r["player_id"] for r in rows}
    table = runner.invoke(app, ["list", "--federation", "ajusc", "--warehouse", sqlite_url], env={"COLUMNS": "200"})
    assert table.exit_code == 0 and "Núria Puigdomènech" in table.stdout

    report = invoke("report", "CAT-2025-03", "--federation", "ajusc", "--warehouse", sqlite_url)
    assert report.exit_code == 0, report.output
    text = report.stdout.replace("\\", "")   # Markdown escapes: min\_rounds
    assert "ajusc.min_rounds" in text and "CAT-2025-03.results.csv" in text


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("list", "--federation", "nope"), "unknown federation 'nope'"),
        (("list", "--federation", "ajusc", "--as-of", "yesterday"), "--as-of expects an ISO date"),
        (("run", "--inbox", "/definitely/not/here"), "does not exist"),
        (("seed", "--federation", "ajusc", "/definitely/not/here.ratings.csv"), "no such file"),
        (("report", "NO-SUCH-COMPETITION"), "no competition 'NO-SUCH-COMPETITION'"),
    ],
)
def test_user_mistakes_get_one_line_and_exit_code_1(args: tuple[str, ...], message: str, sqlite_url: str) -> None:
    result = runner.invoke(app, [*args, "--warehouse", sqlite_url] if args[0] != "run" else [*args])
    assert result.exit_code == 1
    assert message in result.output
    assert "Traceback" not in result.output
