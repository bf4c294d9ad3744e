"""Whatever one file holds, the night goes on for the others.

Regressions named after what once stopped the night:
- a batch holding only refused files (an XML entity bomb, an external entity) failed in
  ``rate_federation`` with ``ColumnNotFoundError: status``;
- two different files of one competition in one inbox (a correction sent the same day)
  raised ``BatchError`` in ``load_federation``, retried twice, and failed the flow.
"""

from __future__ import annotations

import os
import shutil
from datetime import date
from pathlib import Path

import polars as pl

import warehouse
from flows.nightly import NightlyRun, nightly
from tests.reliability.inbox import BOMB, EXTERNAL


def _statuses(run: NightlyRun, federation: str) -> dict[str, str]:
    return dict(run.competitions.get(federation, {}))


def test_refused_files_alone_do_not_stop_the_night(warehouse_url: str, tmp_path: Path) -> None:
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    (inbox / "bomb.xml").write_bytes(BOMB)
    (inbox / "xxe.xml").write_bytes(EXTERNAL)
    run = nightly(inbox=str(inbox), warehouse_url=warehouse_url, federation="ajusc",
                  as_of=date(2026, 2, 1), reports_dir=str(tmp_path / "reports"))
    assert _statuses(run, "ajusc") == {"bomb.xml": "rejected", "xxe.xml": "rejected"}
    assert (tmp_path / "reports" / "ajusc" / "bomb.xml.md").exists()
    # Nothing of /etc/passwd reached the warehouse or the report.
    text = (tmp_path / "reports" / "ajusc" / "xxe.xml.md").read_text(encoding="utf-8")
    assert "root:" not in text


def test_refused_file_beside_good_ones_leaves_them_rated(
    warehouse_url: str, sample_inbox: Path, tmp_path: Path
) -> None:
    (sample_inbox / "bomb.xml").write_bytes(BOMB)
    run = nightly(inbox=str(sample_inbox), warehouse_url=warehouse_url, as_of=date(2026, 2, 1),
                  reports_dir=str(tmp_path / "reports"))
    # The bomb looks like OpenGotha (EGF) by its root element: filed there, refused.
    statuses = {k: v for fed in run.competitions for k, v in _statuses(run, fed).items()}
    assert statuses["bomb.xml"] == "rejected"
    assert statuses["CAT-2025-01"] == "accepted"
    changes = warehouse.rating_changes(warehouse.get_engine(warehouse_url), "ajusc")
    assert set(changes.get_column("competition_id")) == {"CAT-2025-01", "CAT-2025-02", "CAT-2026-01"}


def test_two_versions_of_one_competition_in_one_inbox_the_later_is_rated(
    warehouse_url: str, sample_inbox: Path, tmp_path: Path
) -> None:
    first = sample_inbox / "CAT-2025-01.results.csv"
    lines = first.read_text(encoding="utf-8").splitlines()
    # The correction: round 1's first game was won by player_a, not lost.
    corrected = [lines[0], lines[1].replace(",0,played", ",1,played"), *lines[2:]]
    assert corrected[1] != lines[1]
    second = sample_inbox / "CAT-2025-01-corrected.results.csv"
    second.write_text("\n".join(corrected) + "\n", encoding="utf-8")
    os.utime(first, (1_700_000_000, 1_700_000_000))
    os.utime(second, (1_700_000_600, 1_700_000_600))   # reached the inbox ten minutes later

    run = nightly(inbox=str(sample_inbox), warehouse_url=warehouse_url, as_of=date(2026, 2, 1),
                  reports_dir=str(tmp_path / "reports"))
    assert _statuses(run, "ajusc")["CAT-2025-01"] == "accepted"
    db = warehouse.get_engine(warehouse_url)
    report = warehouse.competition_report(db, "CAT-2025-01", federation="ajusc")
    assert report.competition["source"] == second.name
    noted = report.findings.filter(pl.col("rule") == "ingest.superseded_same_night")
    assert noted.height == 1 and first.name in noted.get_column("message")[0]

    # The same night run on a warehouse that only ever saw the corrected file rates alike.
    alone = tmp_path / "alone"
    shutil.copytree(sample_inbox, alone)
    (alone / first.name).unlink()
    fresh_url = f"sqlite:///{tmp_path / 'fresh.db'}"
    nightly(inbox=str(alone), warehouse_url=fresh_url, as_of=date(2026, 2, 1),
            reports_dir=str(tmp_path / "reports-fresh"))
    key = ["competition_id", "player_id"]
    both = warehouse.rating_changes(db, "ajusc").sort(key).select(*key, "rating_after")
    only = warehouse.rating_changes(warehouse.get_engine(fresh_url), "ajusc").sort(key).select(*key, "rating_after")
    assert both.equals(only)

    # Rerunning changes nothing: both files are in the ledger.
    again = nightly(inbox=str(sample_inbox), warehouse_url=warehouse_url, as_of=date(2026, 2, 1),
                    reports_dir=str(tmp_path / "reports"))
    assert sorted(again.files_skipped) == sorted(p.name for p in sample_inbox.iterdir())
