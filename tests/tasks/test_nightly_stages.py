"""The nightly's stage tasks through ``.fn()``, with no Prefect engine and no
server: ingest -> validate -> rate -> load -> publish on the bundled sample inbox
(``examples/make_sample_inbox.py`` says what each file holds)."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import polars as pl

import warehouse
from flows.config import federation_config
from tasks.ingest import ingest_inbox
from tasks.load import load_federation
from tasks.publish import publish_federation
from tasks.rate import rate_federation
from tasks.validate import validate_batch

SAMPLE = Path(__file__).resolve().parents[2] / "examples" / "inbox"
AS_OF = date(2026, 6, 30)


def test_the_stage_tasks_rate_load_and_publish_the_sample_inbox(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'warehouse.db'}"
    reports = tmp_path / "reports"
    config = federation_config("ajusc")

    ingested = ingest_inbox.fn(str(SAMPLE), url)
    assert ingested.files_seen == 5 and ingested.files_skipped == [] and set(ingested.batches) == {"ajusc"}

    batch = validate_batch.fn(ingested.batches["ajusc"], config, None, url)
    statuses = dict(batch.competitions.select("competition_id", "status").iter_rows())
    # CAT-2025-03 is the sample's ineligible championship: two rounds where AJUSC asks for more.
    assert statuses == {"CAT-2025-01": "accepted", "CAT-2025-02": "accepted",
                        "CAT-2025-03": "rejected", "CAT-2026-01": "accepted"}
    rejecting = batch.findings.filter((pl.col("competition_id") == "CAT-2025-03") & (pl.col("severity") == "reject"))
    assert rejecting.height >= 1 and all("round" in r for r in rejecting.get_column("rule").to_list())

    rated = rate_federation.fn(batch, url, config, AS_OF)
    assert rated.cut is None   # a first night: a full rating from the (empty) seed
    rated_ids = set(rated.run.changes.get_column("competition_id").unique().to_list())
    assert rated_ids == {"CAT-2025-01", "CAT-2025-02", "CAT-2026-01"}

    loaded = load_federation.fn(batch, rated.run, url, config, rated)
    assert (loaded.files_loaded, loaded.competitions_loaded) == (5, 4)

    published = publish_federation.fn(batch, rated.run, url, config, AS_OF, str(reports), rated.progress, rated)
    assert published.reports == statuses
    assert published.editions == [1, 2, 3]   # one edition per rated championship, in date order
    for cid in statuses:
        assert (reports / "ajusc" / f"{cid}.md").is_file() and (reports / "ajusc" / f"{cid}.html").is_file()
    listed = warehouse.rating_list(warehouse.get_engine(url), "ajusc")
    assert listed.height == published.players_listed > 0
    # Every listed player played in a rated championship; their ratings are the run's final ones.
    final = rated.run.ratings.select("player_id", "rating")
    joined = listed.select("player_id", "rating").join(final, on="player_id", suffix="_run")
    assert joined.height == listed.height
    assert ((joined.get_column("rating") - joined.get_column("rating_run")).abs() < 1).all()   # the list rounds

    again = ingest_inbox.fn(str(SAMPLE), url)
    assert sorted(again.files_skipped) == sorted(p.name for p in SAMPLE.iterdir() if p.is_file())
    assert all(b.competitions.height == 0 for b in again.batches.values())
