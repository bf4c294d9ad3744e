"""The orchestration's own tasks, through ``.fn()``, and a task called outside a Prefect run,
which runs in-process (``tasks.runtime``): no Prefect server is started here."""

from __future__ import annotations

import logging
import shutil
from datetime import date
from pathlib import Path

import polars as pl
import pytest

import warehouse
from flows.orchestration import use_prefect_engine
from tasks.backfill import differing_changes, stored_changes
from tasks.gx import prepare_gx_project
from tasks.ingest import read_inbox
from tasks.runtime import FLOW_LOGGER, TASK_LOGGER, create_markdown_artifact, get_run_logger, task
from tasks.summary import summarise_night
from tasks.whatif import WhatIfError, check_whatif, read_added_files, read_state

SAMPLE = Path(__file__).resolve().parents[2] / "examples" / "inbox"


def test_a_task_runs_in_process_with_its_retries_and_logs(caplog: pytest.LogCaptureFixture) -> None:
    attempts: list[int] = []

    @task(name="flaky", retries=2, retry_delay_seconds=0)
    def flaky(x: int) -> int:
        attempts.append(x)
        get_run_logger().info("attempt %d", len(attempts))
        if len(attempts) < 3:
            raise ConnectionError("the database restarted")
        return x * 2

    with caplog.at_level(logging.INFO, logger=TASK_LOGGER):
        assert flaky(21) == 42
    assert attempts == [21, 21, 21]
    records = [r for r in caplog.records if r.name == TASK_LOGGER]
    assert {getattr(r, "task_name", None) for r in records} == {"flaky"}   # the CLI's progress follows these
    assert records[-1].getMessage() == "Finished in state Completed()"
    assert sum("retry" in r.getMessage() for r in records) == 2


def test_an_in_process_task_gives_up_after_the_retries() -> None:
    @task(name="broken", retries=1, retry_delay_seconds=[0])
    def broken() -> None:
        raise RuntimeError("a bug")

    with pytest.raises(RuntimeError, match="a bug"):
        broken()


def test_outside_any_run_the_logger_is_plain_and_artifacts_are_not_kept() -> None:
    assert get_run_logger().name == FLOW_LOGGER
    assert create_markdown_artifact("# nothing", key="k") is None


def test_the_orchestrator_can_be_forced(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RATINGS_ORCHESTRATOR", "local")
    assert use_prefect_engine() is False
    monkeypatch.setenv("RATINGS_ORCHESTRATOR", "prefect")
    assert use_prefect_engine() is True
    monkeypatch.setenv("RATINGS_ORCHESTRATOR", "both")
    with pytest.raises(ValueError, match="RATINGS_ORCHESTRATOR"):
        use_prefect_engine()


def test_summarise_night_gives_one_outcome_per_file_and_keeps_a_failed_federations(tmp_path: Path) -> None:
    inbox = tmp_path / "inbox"
    shutil.copytree(SAMPLE, inbox)
    batch = read_inbox(inbox, set()).batches["ajusc"]
    statuses = {"ajusc": {cid: "accepted" for cid in batch.competitions.get_column("competition_id").to_list()}}
    outcomes, _deciding, markdown = summarise_night.fn([batch], {}, statuses, as_of=date(2026, 2, 1))
    assert set(outcomes) == set(batch.files.get_column("source").to_list())
    assert "2026-02-01" in markdown

    failed = {name: "not finished: internal error (RuntimeError: x)" for name in outcomes}
    outcomes, _, _ = summarise_night.fn([], {}, {}, as_of=date(2026, 2, 1), failed=failed, files=[batch.files])
    assert outcomes == failed


def test_stored_changes_and_the_backfill_diff(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'w.db'}"
    assert stored_changes.fn(url, "ajusc").height == 0
    before = pl.DataFrame({"competition_id": ["C"] * 2, "player_id": ["1", "2"], "rating_after": [1.0, 2.0]})
    after = before.with_columns(pl.Series("rating_after", [1.0, 2.5]))
    assert differing_changes(before, after).get_column("player_id").to_list() == ["2"]


def test_whatif_tasks_read_and_refuse(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'w.db'}"
    state = read_state.fn(url, "ajusc")
    assert state.history.competitions.height == 0 and state.ratings.height == 0
    assert read_added_files.fn([], "ajusc").competitions.height == 0
    with pytest.raises(WhatIfError, match="unknown ajusc player '9'"):
        check_whatif(url, "ajusc", set_rating={"9": 1200.0}, set_rank={}, exclude=[], add=[])
    assert warehouse.history(warehouse.get_engine(url), "ajusc").competitions.height == 0


def test_prepare_gx_project_is_idempotent(tmp_path: Path) -> None:
    first = prepare_gx_project.fn(str(tmp_path / "gx"))
    assert prepare_gx_project.fn(str(tmp_path / "gx")) == first and Path(first).is_dir()


def test_a_deterministic_error_is_not_retried() -> None:
    """A missing file fails the same way on every try: one attempt, no 35 s of waiting."""
    from types import SimpleNamespace

    from tasks.runtime import _retry_if_transient

    attempts: list[int] = []

    @task(name="reads_a_file", retries=2, retry_delay_seconds=[5, 30])
    def reads_a_file() -> None:
        attempts.append(1)
        raise FileNotFoundError("no such file: inbox/x.csv")

    with pytest.raises(FileNotFoundError, match="no such file"):
        reads_a_file()
    assert attempts == [1]
    # Prefect's own retries ask the same question of the failed state.
    assert _retry_if_transient(None, None, SimpleNamespace(data=FileNotFoundError("x"))) is False
    assert _retry_if_transient(None, None, SimpleNamespace(data=ConnectionResetError())) is True
