"""A held competition waits for the rating officer; approved, the next run rates it.

Source: a Catalan championship in a TSH ``.t`` file that names no lexicon (built here:
TSH ``.t`` files carry no lexicon unless the organiser adds a ``#lexicon`` line).
"""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path
from typing import cast

import polars as pl
import pytest
from typer.testing import CliRunner

import warehouse
from flows.cli import app
from flows.nightly import NightlyRun, nightly

runner = CliRunner()

# 4 players, 3 rounds, a round robin: Anna wins everything, Jan loses everything.
_T = """#date 2025-10-04
Puig, Anna 1200 2 3 4; 400 400 400
Vila, Pere 1100 1 4 3; 300 400 400
Roca, Marta 1000 4 1 2; 400 300 300
Soler, Jan 1000 3 2 1; 300 300 300
"""


def _inbox(tmp_path: Path, lexicon: str | None) -> Path:
    inbox = tmp_path / "inbox"
    (inbox / "ajusc").mkdir(parents=True)
    text = _T if lexicon is None else f"#lexicon {lexicon}\n{_T}"
    (inbox / "ajusc" / "lliga-manresa.t").write_text(text, encoding="utf-8")
    return inbox


def _night(inbox: Path, url: str, tmp_path: Path) -> NightlyRun:
    # ``warehouse.guard.exclusive`` types the flow's result as Any.
    return cast(NightlyRun, nightly(inbox=str(inbox), warehouse_url=url, as_of=date(2025, 10, 31),
                                    reports_dir=str(tmp_path / "reports")))


def test_held_competition_is_rated_after_approval_and_the_next_run_not_before(
    warehouse_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    inbox = _inbox(tmp_path, lexicon=None)
    first = _night(inbox, warehouse_url, tmp_path)
    ((cid, status),) = first.competitions["ajusc"].items()
    assert status == "held"
    assert first.file_outcomes == {"lliga-manresa.t": "held (ajusc.language_declared)"}
    db = warehouse.get_engine(warehouse_url)
    assert warehouse.rating_changes(db, "ajusc").height == 0
    report = (tmp_path / "reports" / "ajusc" / f"{cid}.md").read_text(encoding="utf-8")
    assert "**Held: loaded, not rated until the rating officer decides**" in report
    assert "ajusc.language_declared" in report and "Not rated." in report

    # A run before any decision rates nothing.
    second = _night(inbox, warehouse_url, tmp_path)
    assert second.published == {} and warehouse.rating_changes(db, "ajusc").height == 0

    monkeypatch.setenv("RATINGS_OFFICER", "Marta (AJUSC)")
    done = runner.invoke(app, ["approve", cid, "--federation", "ajusc", "--note", "played with DISC",
                               "--warehouse", warehouse_url])
    assert done.exit_code == 0, done.output
    assert "approved by Marta (AJUSC); now accepted" in done.output
    decided = warehouse.decisions.decisions(db, "ajusc", cid)
    assert decided.select("decision", "decided_by", "note").rows() == [("approve", "Marta (AJUSC)", "played with DISC")]
    assert decided.get_column("applied_at").to_list() == [None]

    # The next run, with nothing new in the inbox, rates it and says so in the report.
    third = _night(inbox, warehouse_url, tmp_path)
    assert third.competitions["ajusc"] == {cid: "accepted"}
    changes = warehouse.rating_changes(db, "ajusc")
    assert set(changes.get_column("competition_id")) == {cid} and changes.height == 4
    assert warehouse.decisions.decisions(db, "ajusc", cid).get_column("applied_at").null_count() == 0
    report = (tmp_path / "reports" / "ajusc" / f"{cid}.md").read_text(encoding="utf-8")
    assert "**Accepted: the competition is rated**" in report
    assert "- Rating officer: approved by Marta (AJUSC) on " in report and ": played with DISC" in report
    cli_report = runner.invoke(app, ["report", "lliga-manresa.t", "--warehouse", warehouse_url])
    assert cli_report.exit_code == 0 and "Rating officer: approved by Marta (AJUSC)" in cli_report.output

    # Approved once: a second decision is refused with one line.
    again = runner.invoke(app, ["decline", cid, "--federation", "ajusc", "--reason", "x", "--warehouse", warehouse_url])
    assert again.exit_code == 1 and again.output.count("\n") == 1 and "is accepted, not held" in again.output


def test_declined_competition_is_never_rated(sqlite_url: str, tmp_path: Path) -> None:
    inbox = _inbox(tmp_path, lexicon=None)
    (cid,) = _night(inbox, sqlite_url, tmp_path).competitions["ajusc"]
    no_reason = runner.invoke(app, ["decline", cid, "--federation", "ajusc", "--reason", " ", "--warehouse", sqlite_url])
    assert no_reason.exit_code == 1 and "needs a reason" in no_reason.output
    done = runner.invoke(app, ["decline", cid, "--federation", "ajusc", "--reason", "a duplicate tournament",
                               "--warehouse", sqlite_url])
    assert done.exit_code == 0, done.output
    _night(inbox, sqlite_url, tmp_path)
    db = warehouse.get_engine(sqlite_url)
    assert warehouse.rating_changes(db, "ajusc").height == 0
    shown = runner.invoke(app, ["report", cid, "--warehouse", sqlite_url])
    assert "Rejected" in shown.output and "declined by " in shown.output and "a duplicate tournament" in shown.output


def test_declared_catalan_lexicon_is_rated_and_another_language_rejected(sqlite_url: str, tmp_path: Path) -> None:
    catalan = _night(_inbox(tmp_path / "ca", lexicon="DISC"), sqlite_url, tmp_path / "ca")
    assert list(catalan.competitions["ajusc"].values()) == ["accepted"]
    english = _night(_inbox(tmp_path / "en", lexicon="CSW21"), f"sqlite:///{tmp_path / 'en.db'}", tmp_path / "en")
    assert english.file_outcomes == {"lliga-manresa.t": "rejected (ajusc.language)"}


def test_list_exports_integers_edition_and_as_of(sqlite_url: str, tmp_path: Path) -> None:
    _night(_inbox(tmp_path, lexicon="DISC"), sqlite_url, tmp_path)
    out = runner.invoke(app, ["list", "--federation", "ajusc", "--format", "json", "--warehouse", sqlite_url])
    assert out.exit_code == 0, out.output
    rows = json.loads(out.output)
    assert all(isinstance(r["rating"], int) for r in rows)
    # One edition per rated competition, dated at its end (DESIGN.md *Publication*).
    assert {(r["edition"], r["as_of"]) for r in rows} == {(1, "2025-10-04")}
    csv = runner.invoke(app, ["list", "--federation", "ajusc", "--format", "csv", "--warehouse", sqlite_url]).output
    header, first = csv.splitlines()[:2]
    assert header.endswith(",edition,as_of") and ".0," not in first


def test_version_and_seed_on_an_empty_warehouse(sqlite_url: str, tmp_path: Path) -> None:
    version = runner.invoke(app, ["--version"])
    assert version.exit_code == 0 and version.output.startswith("ratings ")
    seed = tmp_path / "start.ratings.csv"
    pl.DataFrame({"federation": ["ajusc"], "player_id": ["7"], "name": ["Anna"], "rating": [1100],
                  "games": [60], "as_of": ["2025-09-01"]}).write_csv(seed)
    out = runner.invoke(app, ["seed", str(seed), "--federation", "ajusc", "--warehouse", sqlite_url])
    assert out.exit_code == 0, out.output
    assert "backfill" not in out.output and "`ratings run` rates the next ones from this list" in out.output
