"""Every ``ratings`` command runs a flow: seed, decide, site, rating-list, organiser-report.

The flows run in-process (``RATINGS_ORCHESTRATOR=local``, what the CLI does without a
Prefect API) and under the Prefect engine (the session's test harness) and end the same;
under the engine a user's mistake raised in a task reaches the CLI as its own exception
type, so the one-line messages and exit codes stay (``flows/errors.py``).
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import date
from pathlib import Path

import pytest
from typer.testing import CliRunner

import formats
import warehouse
from flows.cli import app
from flows.decide import decide
from flows.lookup import organiser_report, rating_list
from flows.orchestration import run_flow
from flows.seed import seed
from flows.site import site
from tests.cli_warehouse import SEED, held_competition, publish_two_editions, write_seed
from warehouse.guard import WarehouseBusyError

runner = CliRunner()


@pytest.fixture(params=["local", "prefect"])
def mode(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """In-process, or under the Prefect engine (the harness's API)."""
    monkeypatch.setenv("RATINGS_ORCHESTRATOR", request.param)
    return str(request.param)


@pytest.fixture
def seed_file(tmp_path: Path) -> Path:
    return write_seed(tmp_path)


def test_the_command_flows_in_process_and_under_the_engine(
    mode: str, seed_file: Path, sqlite_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # As the CLI runs them: the URL in the environment, never a flow parameter.
    monkeypatch.setenv("RATINGS_WAREHOUSE_URL", sqlite_url)
    loaded = run_flow(seed, file=str(seed_file), federation="ajusc", warehouse_url=None)
    assert (loaded.players, loaded.edition, loaded.as_of, loaded.competitions) == (2, 190, date(2025, 9, 1), 0)
    # The seeded list is its edition, in force from its date, until the first night's.
    seeded = run_flow(rating_list, federation="ajusc", warehouse_url=None)
    assert (seeded.edition, seeded.as_of, seeded.kind, seeded.entries.height) == (190, date(2025, 9, 1), "seed", 2)

    publish_two_editions(sqlite_url)
    latest = run_flow(rating_list, federation="ajusc", warehouse_url=None)
    assert (latest.edition, latest.as_of, latest.kind) == (192, date(2025, 11, 8), "ordinary")
    assert latest.entries.select("player_id", "rating").rows() == [("7", 1120.0)]
    exported = run_flow(rating_list, federation="ajusc", as_of=date(2025, 11, 1), export=True, warehouse_url=None)
    assert exported.entries.select("rating", "edition", "as_of").rows() == [(1111, 191, "2025-10-04")]

    cid = held_competition(tmp_path, sqlite_url)
    monkeypatch.setenv("RATINGS_OFFICER", "Marta (AJUSC)")
    done = run_flow(decide, federation="ajusc", competition_id=cid, decision="approve", note="DISC",
                    warehouse_url=None)
    assert (done.officer, done.status) == ("Marta (AJUSC)", "accepted")
    (report,) = run_flow(organiser_report, competition_id="lliga-manresa.t", warehouse_url=None)
    assert "Rating officer: approved by Marta (AJUSC)" in report
    assert run_flow(organiser_report, competition_id="NOPE", warehouse_url=None) is None

    built = run_flow(site, out=str(tmp_path / "site"), federation="ajusc", warehouse_url=None)
    assert built.federations == ["ajusc"] and (tmp_path / "site" / "ajusc" / "index.html").is_file()


def test_a_users_mistake_reaches_the_cli_as_its_own_exception_under_the_engine(
    seed_file: Path, sqlite_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RATINGS_ORCHESTRATOR", "prefect")
    bad = tmp_path / "bad.ratings.csv"
    bad.write_text(SEED.replace("1100,40", "nan,40"), encoding="utf-8")
    with pytest.raises(formats.RatingsFileError, match="line 3, field 'rating'"):
        run_flow(seed, file=str(bad), federation="ajusc", warehouse_url=sqlite_url)
    with pytest.raises(warehouse.UnknownCompetitionError, match="no competition 'NOPE' for ajusc"):
        run_flow(decide, federation="ajusc", competition_id="NOPE", decision="approve", warehouse_url=sqlite_url)

    # The command line: the same one line and exit code 1 as in-process.
    for orchestrator in ("prefect", "local"):
        monkeypatch.setenv("RATINGS_ORCHESTRATOR", orchestrator)
        approved = runner.invoke(app, ["approve", "NOPE", "--federation", "ajusc", "--warehouse", sqlite_url])
        assert approved.exit_code == 1, approved.output
        assert approved.output == "ratings: no competition 'NOPE' for ajusc in the warehouse\n", orchestrator
        seeded = runner.invoke(app, ["seed", "--federation", "ajusc", str(bad), "--warehouse", sqlite_url])
        assert seeded.exit_code == 1, seeded.output
        assert seeded.output.startswith("ratings: bad.ratings.csv, line 3, field 'rating'"), orchestrator
        assert len(seeded.output.splitlines()) == 1 and "Traceback" not in seeded.output


@contextmanager
def _run_lock_taken(url: str) -> Iterator[None]:
    """Another run holds the SQLite warehouse's run lock (``<database>.run-lock``, warehouse/guard.py)."""
    database = Path(url.removeprefix("sqlite:///"))
    fd = os.open(database.with_name(f"{database.name}.run-lock"), os.O_RDWR | os.O_CREAT, 0o644)
    fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        yield
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)


def test_seed_is_a_writing_run_and_the_lookups_are_not(
    seed_file: Path, sqlite_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RATINGS_ORCHESTRATOR", "local")
    monkeypatch.setenv("RATINGS_LOCK_WAIT_S", "0.3")
    assert run_flow(seed, file=str(seed_file), federation="ajusc", warehouse_url=sqlite_url).players == 2
    publish_two_editions(sqlite_url)
    again = tmp_path / "again.ratings.csv"
    again.write_text(SEED.replace("Bo", "Bob"), encoding="utf-8")
    with _run_lock_taken(sqlite_url):
        with pytest.raises(WarehouseBusyError):
            run_flow(seed, file=str(again), federation="ajusc", warehouse_url=sqlite_url)
        busy = runner.invoke(app, ["seed", "--federation", "ajusc", str(again), "--warehouse", sqlite_url])
        assert busy.exit_code == 3 and "another run holds the warehouse lock" in busy.output
        # Reading while a run writes: no lock taken, no wait.
        assert run_flow(rating_list, federation="ajusc", warehouse_url=sqlite_url).edition == 192
        assert run_flow(organiser_report, competition_id="NOPE", warehouse_url=sqlite_url) is None
        built = run_flow(site, out=str(tmp_path / "site"), warehouse_url=sqlite_url)
        assert built.federations == ["ajusc"]
        listed = runner.invoke(app, ["list", "--federation", "ajusc", "--format", "csv", "--warehouse", sqlite_url])
        assert listed.exit_code == 0 and listed.stdout.splitlines()[1].startswith("ajusc,7,Ann,1120,")


def test_the_flows_take_simple_parameters_and_never_need_the_url() -> None:
    """Deployable as they are: JSON-able parameters, the warehouse from the environment."""
    for fl in (seed, decide, site, rating_list, organiser_report):
        schema = fl.parameters.model_dump()
        assert "warehouse_url" in schema["properties"], fl.name
        assert "warehouse_url" not in schema.get("required", []), fl.name
        assert not schema.get("definitions"), fl.name   # no model types, plain values only
    assert {fl.name for fl in (seed, decide, site, rating_list, organiser_report)} == {
        "seed", "decide", "site", "rating-list", "organiser-report"}
