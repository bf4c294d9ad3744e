"""No input stops the night: every reader, good and broken files, one inbox.

Every file's outcome is the same whether it is alone in the inbox or beside a good
and a broken file of every other reader and federation: the good competitions are
rated exactly as they are alone, every broken file gets its findings and a report.
"""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import cast

import polars as pl
import pytest

import warehouse
from flows.nightly import NightlyRun, nightly
from tests.reliability.inbox import broken_files, good_files

AS_OF = date(2026, 2, 1)
pytestmark = pytest.mark.usefixtures("prefect_harness")


def _night(tmp: Path, files: dict[str, tuple[str, bytes]], tag: str) -> tuple[NightlyRun, str, Path]:
    inbox = tmp / f"inbox-{tag}"
    inbox.mkdir()
    for name, data in files.values():
        (inbox / name).write_bytes(data)
    url = f"sqlite:///{tmp / f'{tag}.db'}"
    reports = tmp / f"reports-{tag}"
    run = nightly(inbox=str(inbox), warehouse_url=url, as_of=AS_OF, reports_dir=str(reports))
    return cast(NightlyRun, run), url, reports


CHANGE_COLUMNS = pl.Schema({"competition_id": pl.Utf8(), "player_id": pl.Utf8(),
                            "rating_before": pl.Float64(), "rating_after": pl.Float64()})


def _changes(url: str) -> pl.DataFrame:
    db = warehouse.get_engine(url)
    frames = [warehouse.rating_changes(db, f).select(list(CHANGE_COLUMNS)).cast(CHANGE_COLUMNS)
              for f in ("ajusc", "fide", "egf")]
    return pl.concat(frames).sort("competition_id", "player_id")


@pytest.mark.slow
def test_every_reader_good_and_broken_in_one_inbox(tmp_path: Path) -> None:
    good, broken = good_files(), broken_files()
    together, url, reports = _night(tmp_path, {**{f"g-{k}": v for k, v in good.items()},
                                               **{f"b-{k}": v for k, v in broken.items()}}, "all")
    statuses = {cid: s for comps in together.competitions.values() for cid, s in comps.items()}

    # Alone, each good file gives the same statuses and the same rating changes.
    expected_statuses: dict[str, str] = {}
    expected_changes = []
    for reader, file in good.items():
        alone, alone_url, _ = _night(tmp_path, {reader: file}, f"good-{reader}")
        got = {cid: s for comps in alone.competitions.values() for cid, s in comps.items()}
        assert got, f"{reader}: the good file gave no competition"
        expected_statuses.update(got)
        expected_changes.append(_changes(alone_url))
    for cid, status in expected_statuses.items():
        assert statuses.get(cid) == status, (cid, statuses)
    assert "accepted" in expected_statuses.values()
    assert _changes(url).equals(pl.concat(expected_changes).sort("competition_id", "player_id"))

    # Every broken file is accounted for: rejected (a competition or the file itself), with
    # a report on disk naming it.
    report_text = "\n".join(p.read_text(encoding="utf-8") for p in reports.rglob("*.md"))
    for reader, (name, _) in broken.items():
        assert name in report_text, f"{reader}: no report names {name}"
    assert "root:" not in report_text   # nothing of /etc/passwd came in through the XXE file
