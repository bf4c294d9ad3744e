"""A run that dies after its load commits is published by the next run.

In process and quick: an unexpected error injected at a publication checkpoint
(:mod:`tests.faults`) stands for the SIGKILL of ``test_crash_run.py``, which
exercises the same path through the CLI. The load's ``pending_publications`` row
survives the failure, and the rerun (whose inbox brings nothing new) finishes the
editions and the reports: warehouse and reports then equal a clean run's.
"""

from __future__ import annotations

import shutil
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, cast

import pytest

import warehouse
from flows.backfill import backfill
from flows.nightly import NightlyRun, nightly
from tests import faults
from tests.reliability.dump import canonical_dump
from warehouse.load import pending_publications

if TYPE_CHECKING:
    from tests.reliability.conftest import FreshUrl

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "examples" / "inbox"
AS_OF = date(2026, 2, 1)




def _night(inbox: Path, url: str, out: Path) -> NightlyRun:
    run = nightly(inbox=str(inbox), warehouse_url=url, as_of=AS_OF, reports_dir=str(out / "reports"),
                  site_dir=str(out / "site"))
    return cast(NightlyRun, run)


@pytest.mark.parametrize("point", ["report:1", "report:4", "publish:1"])
def test_a_night_that_dies_in_publication_is_finished_by_the_next_run(
    point: str, fresh_url: FreshUrl, tmp_path: Path, prefect_harness: None,
) -> None:
    inbox = tmp_path / "inbox"
    shutil.copytree(SAMPLE, inbox)
    clean_url, url = fresh_url(), fresh_url()
    _night(inbox, clean_url, tmp_path / "clean")
    clean = canonical_dump(clean_url, tmp_path / "clean")

    with faults.armed(fault=point):
        # One federation's internal error no longer stops the night: it is recorded (exit 2).
        crashed = _night(inbox, url, tmp_path / "crashed")
    assert "fault injected" in crashed.internal_errors["ajusc"]
    assert crashed.internal_errors["ajusc"].startswith("internal error")
    db = warehouse.get_engine(url)
    # "publish:1" comes after the publication is done: nothing is left pending.
    assert pending_publications(db) == ({} if point == "publish:1" else {"ajusc": [1]})

    again = _night(inbox, url, tmp_path / "crashed")
    assert pending_publications(db) == {}
    assert again.published == {}   # tonight's inbox brought nothing new; the recovery did the work
    rows, files = canonical_dump(url, tmp_path / "crashed")
    assert rows == clean[0]
    assert files == clean[1]


def test_a_backfill_that_dies_before_publishing_is_finished_by_the_next_run(
    fresh_url: FreshUrl, tmp_path: Path, prefect_harness: None,
) -> None:
    inbox = tmp_path / "inbox"
    shutil.copytree(SAMPLE, inbox)
    clean_url, url = fresh_url(), fresh_url()
    for target, out in ((clean_url, tmp_path / "clean"), (url, tmp_path / "crashed")):
        _night(inbox, target, out)
    backfill(federation="ajusc", from_date=date(2025, 1, 1), warehouse_url=clean_url, as_of=AS_OF,
             reports_dir=str(tmp_path / "clean" / "reports"), site_dir=str(tmp_path / "clean" / "site"))
    clean = canonical_dump(clean_url, tmp_path / "clean")

    with faults.armed(fault="load:1"), pytest.raises(RuntimeError, match="fault injected"):
        backfill(federation="ajusc", from_date=date(2025, 1, 1), warehouse_url=url, as_of=AS_OF,
                 reports_dir=str(tmp_path / "crashed" / "reports"), site_dir=str(tmp_path / "crashed" / "site"))
    db = warehouse.get_engine(url)
    assert pending_publications(db) == {"ajusc": [0]}
    # The next run is a nightly with nothing new: it finishes the backfill's publication.
    _night(inbox, url, tmp_path / "crashed")
    assert pending_publications(db) == {}
    assert canonical_dump(url, tmp_path / "crashed") == clean
