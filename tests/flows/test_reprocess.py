"""The officer has a kept file processed again (``ratings reprocess FILE``), recorded like a
decision: one way out of a stuck state.

The stuck state here: a held championship declined by mistake. A declined competition is
no longer held, so it cannot be approved, and the kept file is an identical re-send on every
later run. Read again, it is a new version: held again, and the officer approves it.
Source: the held TSH championship of ``tests/flows/test_officer.py``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

import warehouse
from flows.cli import app
from tests.flows.test_officer import _inbox, _night
from warehouse.reprocess import reprocessing

runner = CliRunner()


def test_a_declined_file_read_again_is_held_again_and_can_be_approved(
    warehouse_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    inbox = _inbox(tmp_path, lexicon=None)
    ((cid, status),) = _night(inbox, warehouse_url, tmp_path).competitions["ajusc"].items()
    assert status == "held"
    monkeypatch.setenv("RATINGS_OFFICER", "Marta (AJUSC)")
    declined = runner.invoke(app, ["decline", cid, "--federation", "ajusc", "--reason", "no lexicon",
                                   "--warehouse", warehouse_url])
    assert declined.exit_code == 0, declined.output
    again = _night(inbox, warehouse_url, tmp_path)
    assert again.file_outcomes == {"lliga-manresa.t": "already loaded: identical re-send, nothing to do"}

    asked = runner.invoke(app, ["reprocess", "lliga-manresa.t", "--inbox", str(inbox), "--note", "declined by mistake",
                                "--warehouse", warehouse_url])
    assert asked.exit_code == 0, asked.output
    assert asked.output == ("ajusc: lliga-manresa.t will be read again by the next `ratings run` "
                            "(request 1, by Marta (AJUSC))\n")
    twice = runner.invoke(app, ["reprocess", str(inbox / "ajusc" / "lliga-manresa.t"), "--inbox", str(inbox),
                                "--warehouse", warehouse_url])
    assert twice.output == "ajusc: lliga-manresa.t is already waiting to be read again (request 1)\n"
    db = warehouse.get_engine(warehouse_url)
    (request,) = reprocessing(db).rows(named=True)
    assert (request["federation"], request["source"], request["requested_by"], request["note"], request["done"]) == (
        "ajusc", "lliga-manresa.t", "Marta (AJUSC)", "declined by mistake", False)

    read = _night(inbox, warehouse_url, tmp_path)
    assert read.competitions["ajusc"] == {cid: "held"}
    assert reprocessing(db).get_column("done").to_list() == [True]
    report = (tmp_path / "reports" / "ajusc" / f"{cid}.md").read_text(encoding="utf-8")
    assert "**Held: loaded, not rated until the rating officer decides**" in report

    approved = runner.invoke(app, ["approve", cid, "--federation", "ajusc", "--warehouse", warehouse_url])
    assert approved.exit_code == 0, approved.output
    rated = _night(inbox, warehouse_url, tmp_path)
    assert rated.competitions["ajusc"] == {cid: "accepted"}
    assert set(warehouse.rating_changes(db, "ajusc").get_column("competition_id")) == {cid}
    # Done once: the file is an identical re-send again.
    after = _night(inbox, warehouse_url, tmp_path)
    assert after.file_outcomes == {"lliga-manresa.t": "already loaded: identical re-send, nothing to do"}
    assert reprocessing(db).height == 1


def test_reprocess_names_a_file_missing_from_the_inbox_and_one_not_loaded(
    warehouse_url: str, tmp_path: Path
) -> None:
    inbox = _inbox(tmp_path, lexicon=None)
    missing = runner.invoke(app, ["reprocess", "nosuch.csv", "--inbox", str(inbox), "--warehouse", warehouse_url])
    assert missing.exit_code == 1
    assert missing.output.strip().splitlines() == [
        (f"ratings: nosuch.csv: no such file in the inbox {inbox}: a file is processed again from the inbox, "
         "where it is kept")]
    unread = runner.invoke(app, ["reprocess", "lliga-manresa.t", "--inbox", str(inbox), "--warehouse", warehouse_url])
    assert unread.exit_code == 0, unread.output
    assert unread.output == "lliga-manresa.t is not loaded yet: the next `ratings run` reads it\n"
    assert reprocessing(warehouse.get_engine(warehouse_url)).height == 0
