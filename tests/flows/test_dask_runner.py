"""The nightly on a Dask task runner gives the sequential run's outcome.

A real nightly under the Prefect test harness on a local Dask cluster of two worker
processes (prefect-dask, no dashboard), on an inbox of three federations (AJUSC
interchange, FIDE TRF, EGF ``.h9``), against the same nightly run sequentially on a
copy of the inbox: the same statuses, file outcomes, rating changes and published
lists. The workers find the warehouse in ``$RATINGS_WAREHOUSE_URL``, never in a flow
parameter.
"""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any

import polars as pl
import pytest

import warehouse
from flows import orchestration
from flows.nightly import NightlyRun, nightly
from flows.orchestration import run_flow
from tests.reliability.inbox import good_files

AS_OF = date(2026, 2, 1)
FILES = {"ajusc": "interchange", "egf": "egd", "fide": "trf"}
#: Columns that name when or under which id a row was written, not what it says.
VOLATILE = {"list_id", "run_id", "published_at", "created_at", "loaded_at", "computed_at"}


def _night(root: Path, monkeypatch: pytest.MonkeyPatch, dask_workers: int) -> tuple[NightlyRun, str]:
    inbox = root / "inbox"
    inbox.mkdir(parents=True)
    good = good_files()
    for reader in FILES.values():
        name, data = good[reader]
        (inbox / name).write_bytes(data)
    url = f"sqlite:///{root / 'w.db'}"
    warehouse.get_engine(url)   # migrated before the flow, as ``ratings run`` does
    monkeypatch.setenv("RATINGS_WAREHOUSE_URL", url)   # what the Dask workers read
    summary = run_flow(nightly, dask_workers=dask_workers, inbox=str(inbox), warehouse_url=None, as_of=AS_OF,
                       reports_dir=str(root / "reports"), site_dir=None)
    assert isinstance(summary, NightlyRun)
    return summary, url


def _stable(frame: pl.DataFrame) -> list[dict[str, Any]]:
    return frame.drop([c for c in frame.columns if c in VOLATILE]).to_dicts()


def _outcomes(summary: NightlyRun) -> dict[str, str]:
    return {Path(file).name: outcome for file, outcome in summary.file_outcomes.items()}


@pytest.mark.slow
def test_dask_nightly_equals_the_sequential_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    assert orchestration.use_prefect_engine()   # the harness's API: the Prefect engine runs the flow
    sequential, seq_url = _night(tmp_path / "sequential", monkeypatch, dask_workers=0)
    assert not any(r.name.startswith("distributed") for r in caplog.records)
    with caplog.at_level("INFO"):
        parallel, dask_url = _night(tmp_path / "dask", monkeypatch, dask_workers=2)
    # The cluster really ran: its scheduler saw two workers join.
    joined = [r for r in caplog.records if r.name.startswith("distributed") and "Register worker" in r.getMessage()]
    assert len(joined) == 2, [r.getMessage() for r in caplog.records if r.name.startswith("distributed")][:20]

    assert not parallel.internal_errors and not sequential.internal_errors
    assert set(parallel.competitions) == set(FILES)
    assert parallel.competitions == sequential.competitions
    assert "accepted" in {s for statuses in parallel.competitions.values() for s in statuses.values()}
    assert _outcomes(parallel) == _outcomes(sequential)
    assert len(_outcomes(parallel)) == len(FILES)
    for fed in FILES:
        ours, theirs = parallel.published[fed], sequential.published[fed]
        assert (ours.edition, ours.players_listed, ours.players_changed, ours.players_new) == (
            theirs.edition, theirs.players_listed, theirs.players_changed, theirs.players_new)
    seq_db, dask_db = warehouse.get_engine(seq_url), warehouse.get_engine(dask_url)
    listed = 0
    for fed in FILES:
        changes = warehouse.rating_changes(dask_db, fed)
        assert _stable(changes) == _stable(warehouse.rating_changes(seq_db, fed))
        published = warehouse.rating_list(dask_db, fed)
        assert _stable(published) == _stable(warehouse.rating_list(seq_db, fed))
        listed += published.height
    assert listed > 0


def test_in_process_ignores_the_dask_workers_with_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv(orchestration.ORCHESTRATOR_ENV, "local")
    with caplog.at_level("INFO"):
        summary, _ = _night(tmp_path, monkeypatch, dask_workers=2)
    assert summary.competitions and not summary.internal_errors
    lines = [r.getMessage() for r in caplog.records if "Dask worker(s) ignored" in r.getMessage()]
    assert len(lines) == 1, lines


def test_a_negative_number_of_workers_is_refused() -> None:
    with pytest.raises(ValueError, match="0 or more"):
        run_flow(nightly, dask_workers=-1)


@pytest.mark.slow
def test_ratings_run_takes_the_option_and_refuses_a_negative_one(tmp_path: Path) -> None:
    from tests.reliability.cli import ratings

    inbox = tmp_path / "inbox"
    inbox.mkdir()
    for reader in FILES.values():
        name, data = good_files()[reader]
        (inbox / name).write_bytes(data)
    url = f"sqlite:///{tmp_path / 'w.db'}"
    args = ("run", "--inbox", "inbox", "--warehouse", url, "--as-of", AS_OF.isoformat(), "--no-site")
    done = ratings(tmp_path, *args, "--dask-workers", "2", RATINGS_ORCHESTRATOR="local")
    assert done.returncode == 0, done.stderr[-3000:]
    for fed in FILES:
        assert f"{fed}: " in done.stdout, done.stdout
    refused = ratings(tmp_path, *args, RATINGS_ORCHESTRATOR="local", RATINGS_DASK_WORKERS="-1")
    assert refused.returncode == 64 and "Traceback" not in refused.stdout + refused.stderr
    assert "--dask-workers" in refused.stderr, refused.stderr[-2000:]
