"""Reports read in bulk are the reports read one by one, byte for byte.

A warehouse is filled through the stages themselves (no Prefect server: task bodies
through ``.fn``) from the bundled AJUSC inbox, a real FIDE tournament (unrated players'
progress, excluded games) and the EGF worked example; then every competition's report
is rendered both ways.
"""

from __future__ import annotations

import shutil
from datetime import date
from pathlib import Path

import polars as pl
import pytest

import validations
import warehouse
from publication import report_from_warehouse, reports_from_warehouse

ROOT = Path(__file__).resolve().parents[2]


def fill_warehouse(url: str, inbox: Path, as_of: dict[str, date]) -> dict[str, pl.DataFrame | None]:
    """Ingest, validate, rate and load ``inbox`` into ``url``; the FIDE progress by federation."""
    from prefect.logging import disable_run_logger

    from flows.config import federation_config
    from tasks.ingest import read_inbox
    from tasks.load import load_federation
    from tasks.rate import rate_federation
    from tasks.validate import validate_batch

    db = warehouse.get_engine(url)
    progress: dict[str, pl.DataFrame | None] = {}
    with disable_run_logger():
        ingested = read_inbox(inbox, warehouse.seen_checksums(db))
        for fed, batch in sorted(ingested.batches.items()):
            config = federation_config(fed)
            batch = validate_batch.fn(batch, config, None, url)
            rated = rate_federation.fn(batch, url, config, as_of[fed])
            load_federation.fn(batch, rated.run, url, config, rated)
            progress[fed] = rated.progress
    return progress


@pytest.fixture(scope="module")
def filled(tmp_path_factory: pytest.TempPathFactory, shared_data: Path) -> tuple[str, dict[str, pl.DataFrame | None]]:
    tmp = tmp_path_factory.mktemp("bulk-reports")
    inbox = tmp / "inbox"
    shutil.copytree(ROOT / "examples" / "inbox", inbox / "ajusc")
    (inbox / "fide").mkdir()
    shutil.copy(shared_data / "chess" / "karl_mala_frankfurt_2005.trf", inbox / "fide")
    shutil.copytree(ROOT / "tests" / "flows" / "data" / "egf_article" / "inbox", inbox / "egf")
    url = f"sqlite:///{tmp / 'w.db'}"
    # FIDE's progress toward an initial rating is shown while the window is open (2005).
    as_of = {"ajusc": date(2026, 2, 1), "fide": date(2005, 8, 31), "egf": date(2010, 12, 31)}
    return url, fill_warehouse(url, inbox, as_of)


def test_bulk_reports_equal_reports_read_one_by_one(filled: tuple[str, dict[str, pl.DataFrame | None]]) -> None:
    url, progress = filled
    db = warehouse.get_engine(url)
    seen = 0
    for fed in ("ajusc", "fide", "egf"):
        ids = warehouse.history(db, fed).competitions.get_column("competition_id").to_list()
        assert ids, fed
        prog = progress.get(fed)
        bulk = reports_from_warehouse(db, fed, [*ids, "no-such-competition"], prog)
        assert [r.competition_id for r in bulk] == ids
        for report in bulk:
            single = report_from_warehouse(db, report.competition_id, fed, prog)
            assert single is not None
            for fmt in ("markdown", "html"):
                assert validations.render_report(report, fmt=fmt) == validations.render_report(single, fmt=fmt)
            seen += 1
    fide = reports_from_warehouse(db, "fide", warehouse.history(db, "fide").competitions
                                  .get_column("competition_id").to_list(), progress["fide"])
    assert any(r.progress is not None and r.progress.height for r in fide)   # the progress path is exercised
    assert any(r.excluded_games for r in fide)
    assert seen >= 6


def test_bulk_reads_take_a_few_queries_per_batch_not_per_competition(filled: tuple[str, dict[str, pl.DataFrame | None]]) -> None:
    import sqlalchemy as sa

    url, _ = filled
    db = warehouse.get_engine(url)
    ids = warehouse.history(db, "ajusc").competitions.get_column("competition_id").to_list()
    statements: list[str] = []

    def count(*args: object) -> None:
        statements.append(str(args[2]))

    sa.event.listen(db, "before_cursor_execute", count)
    try:
        reports_from_warehouse(db, "ajusc", ids, None)
    finally:
        sa.event.remove(db, "before_cursor_execute", count)
    # One query per table (versions, findings, games, byes, changes, decisions) and the BEGIN.
    assert len(ids) >= 4 and len(statements) <= 7, statements


def test_a_bulk_night_makes_one_artifact_linking_every_report(
    tmp_path: Path, tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """More than ``BULK_ARTIFACTS`` reports: every file is written, and ONE artifact lists them."""
    from prefect import flow
    from prefect.client.orchestration import get_client
    from prefect.logging import disable_run_logger
    from prefect.testing.utilities import prefect_test_harness

    from benchmarks.bench_pipeline import write_inbox
    from flows.config import federation_config
    from tasks.ingest import read_inbox
    from tasks.load import load_federation
    from tasks.publish import BULK_ARTIFACTS, Published, publish_federation
    from tasks.rate import rate_federation
    from tasks.validate import validate_batch

    n = BULK_ARTIFACTS + 5
    write_inbox(tmp_path / "inbox", competitions=n, players=60, rounds=3, per_event=8)
    url = f"sqlite:///{tmp_path / 'w.db'}"
    config, as_of = federation_config("ajusc"), date(2026, 8, 31)
    with prefect_test_harness(server_startup_timeout=90), disable_run_logger():
        batch = read_inbox(tmp_path / "inbox", set()).batches["ajusc"]
        batch = validate_batch.fn(batch, config, None, url)
        rated = rate_federation.fn(batch, url, config, as_of)
        load_federation.fn(batch, rated.run, url, config, rated)

        @flow
        def publish_night() -> Published:   # artifacts belong to a run
            return publish_federation(batch, rated.run, url, config, as_of, str(tmp_path / "reports"),
                                      rated.progress, rated)

        published = publish_night()
        with get_client(sync_client=True) as client:
            keys = [a.key for a in client.read_artifacts()]
    files = sorted(p.name for p in (tmp_path / "reports" / "ajusc").iterdir())
    assert len(published.reports) == n and len(files) == 2 * n
    assert keys.count("ajusc-reports") == 1
    assert not [k for k in keys if k and k.endswith("-report")]   # no artifact per competition
