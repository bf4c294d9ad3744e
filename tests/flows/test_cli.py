"""The ``ratings`` command line: the documented commands, and one-line refusals for mistakes."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from flows.cli import app

runner = CliRunner()


def invoke(*args: str) -> Result:
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
        (("report", "NO-SUCH-COMPETITION"), "does not exist"),   # an empty warehouse is not created to search it
    ],
)
def test_user_mistakes_get_one_line_and_exit_code_1(args: tuple[str, ...], message: str, sqlite_url: str) -> None:
    result = runner.invoke(app, [*args, "--warehouse", sqlite_url] if args[0] != "run" else [*args])
    assert result.exit_code == (64 if "ISO date" in message else 1)   # a bad value on the command line: usage
    assert message in result.output
    assert "Traceback" not in result.output


def test_list_by_edition_date_and_as_html(sqlite_url: str) -> None:
    """``ratings list --edition N | --as-of D | --format html``."""
    from datetime import date

    import polars as pl

    import warehouse

    db = warehouse.get_engine(sqlite_url)
    seed = pl.DataFrame({"player_id": ["7"], "name": ["Anna"], "rating": [1100.0]})
    warehouse.load_seed(db, "ajusc", seed, source="s.ratings.csv", source_sha256="s", edition=190)
    for day, name, rating in ((date(2025, 10, 4), "<script>alert(1)</script> & Co", 1110.0),
                              (date(2025, 11, 8), "Anna", 1120.0)):
        frame = pl.DataFrame({"federation": ["ajusc"], "player_id": ["7"], "name": [name], "rating": [rating]})
        warehouse.publish_edition(db, "ajusc", frame, as_of=day, covers=f"{day}|{day}|C")

    first = invoke("list", "--federation", "ajusc", "--edition", "191", "--format", "json", "--warehouse", sqlite_url)
    assert first.exit_code == 0, first.output
    assert json.loads(first.stdout)[0]["rating"] == 1110.0
    in_force = invoke("list", "--federation", "ajusc", "--as-of", "2025-11-07", "--format", "json", "--warehouse", sqlite_url)
    assert json.loads(in_force.stdout) == json.loads(first.stdout)
    latest = invoke("list", "--federation", "ajusc", "--format", "json", "--warehouse", sqlite_url)
    assert json.loads(latest.stdout)[0]["rating"] == 1120.0

    page = invoke("list", "--federation", "ajusc", "--edition", "191", "--format", "html", "--warehouse", sqlite_url)
    assert page.exit_code == 0, page.output
    assert page.stdout.startswith("<!DOCTYPE html>") and "edition 191" in page.stdout
    assert "<script" not in page.stdout and "&lt;script&gt;alert(1)&lt;/script&gt; &amp; Co" in page.stdout
    assert "http" not in page.stdout  # self-contained: nothing to fetch

    missing = invoke("list", "--federation", "ajusc", "--edition", "999", "--warehouse", sqlite_url)
    assert missing.exit_code == 1 and "no list published for ajusc edition 999" in missing.output
    both = invoke("list", "--federation", "ajusc", "--edition", "191", "--as-of", "2025-11-07", "--warehouse", sqlite_url)
    assert both.exit_code == 64 and "not both" in both.output


def test_the_summary_gives_no_list_line_for_unknown_and_no_zero_count_for_an_unchanged_list(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from types import SimpleNamespace

    from flows.present import print_summary

    unchanged = SimpleNamespace(edition=None, players_listed=0, players_changed=0, players_new=0)
    summary = SimpleNamespace(
        as_of="2026-02-01", files_seen=2, files_skipped=[], competitions={}, file_outcomes={},
        published={"ajusc": unchanged, "unknown": unchanged}, report_paths=[],
    )
    print_summary(summary)
    out = capsys.readouterr().out
    assert "ajusc: list unchanged" in out and "0 player(s) listed" not in out, out
    assert "unknown:" not in out, out
