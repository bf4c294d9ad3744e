"""The nightly flow end to end, under the Prefect test harness, on real databases."""

from __future__ import annotations

import re
import shutil
from datetime import date
from pathlib import Path

import polars as pl
import sqlalchemy as sa

import warehouse
from flows.nightly import nightly

AS_OF = date(2026, 2, 1)


def test_sample_inbox_rates_eligible_and_rejects_the_short_championship(
    sample_inbox: Path, warehouse_url: str, tmp_path: Path
) -> None:
    summary = nightly(inbox=str(sample_inbox), warehouse_url=warehouse_url, as_of=AS_OF,
                      reports_dir=str(tmp_path / "reports"))

    assert summary.competitions["ajusc"] == {
        "CAT-2025-01": "accepted", "CAT-2025-02": "accepted",
        "CAT-2025-03": "rejected", "CAT-2026-01": "accepted",
    }
    db = warehouse.get_engine(warehouse_url)
    rejected = warehouse.competition_report(db, "CAT-2025-03", federation="ajusc")
    findings = rejected.findings
    assert "ajusc.min_rounds" in findings.get_column("rule").to_list()
    assert findings.filter(pl.col("rule") == "ajusc.min_rounds").get_column("source").to_list() == ["CAT-2025-03.results.csv"]
    assert rejected.changes.height == 0

    listed = warehouse.rating_list(db, "ajusc")
    # Every player who played a rated game is on the list, with a name from the players file.
    assert listed.height == 12 and listed.get_column("name").null_count() == 0
    # One edition per rated championship, dated at its end (DESIGN.md *Publication*).
    assert summary.published["ajusc"].editions == [1, 2, 3]
    published = warehouse.editions(db, "ajusc")
    assert published.get_column("as_of").to_list() == [date(2025, 10, 4), date(2025, 11, 15), date(2026, 1, 24)]
    # The documented "list in force on a date" query (docs/operations.md) answers the edition in force on 2026-02-01.
    readme = (Path(__file__).resolve().parents[2] / "docs" / "operations.md").read_text(encoding="utf-8")
    query = re.search(r"-- The list in force on a date.*?\n(SELECT.*?;)", readme, flags=re.DOTALL)
    assert query is not None
    with db.connect() as conn:
        rows = conn.execute(sa.text(query.group(1))).all()
    in_force = warehouse.rating_list(db, "ajusc", edition=3)
    assert [(r.player_id, r.rating) for r in rows] == list(zip(in_force["player_id"], in_force["rating"], strict=True))
    # Newcomers start at 950 and points are only moved by the three accepted championships.
    changes = warehouse.rating_changes(db, "ajusc")
    assert set(changes.get_column("competition_id")) == {"CAT-2025-01", "CAT-2025-02", "CAT-2026-01"}
    first = changes.filter(pl.col("competition_id") == "CAT-2025-01")
    assert first.get_column("rating_before").unique().to_list() == [950.0]

    reports = tmp_path / "reports" / "ajusc"
    assert {p.name for p in reports.iterdir()} >= {"CAT-2025-03.md", "CAT-2025-03.html", "CAT-2025-01.md"}
    assert "ajusc.min_rounds" in (reports / "CAT-2025-03.md").read_text(encoding="utf-8").replace("\\", "")


def test_running_twice_changes_nothing(sample_inbox: Path, sqlite_url: str, tmp_path: Path) -> None:
    gx_root = tmp_path / "gx-project"   # a real file-based Great Expectations project, Data Docs built per run
    first = nightly(inbox=str(sample_inbox), warehouse_url=sqlite_url, as_of=AS_OF,
                    reports_dir=str(tmp_path / "reports"), gx_root=str(gx_root))
    docs = gx_root / "gx" / "uncommitted" / "data_docs" / "local_site" / "index.html"
    assert docs.is_file() and "ajusc" in docs.read_text(encoding="utf-8").lower()
    db = warehouse.get_engine(sqlite_url)
    before = warehouse.rating_list(db, "ajusc")
    second = nightly(inbox=str(sample_inbox), warehouse_url=sqlite_url, as_of=AS_OF,
                     reports_dir=str(tmp_path / "reports"), gx_root=str(gx_root))

    assert first.published["ajusc"].edition == 3
    assert sorted(second.files_skipped) == sorted(p.name for p in sample_inbox.iterdir())
    assert second.published == {}
    assert warehouse.rating_list(db, "ajusc").equals(before)


def test_late_championship_rerates_everything_after_it(sample_inbox: Path, sqlite_url: str, tmp_path: Path) -> None:
    late = sample_inbox / "CAT-2025-02.results.csv"
    held_back = tmp_path / "held" / late.name
    held_back.parent.mkdir()
    shutil.move(late, held_back)
    nightly(inbox=str(sample_inbox), warehouse_url=sqlite_url, as_of=AS_OF, reports_dir=str(tmp_path / "r"))
    db = warehouse.get_engine(sqlite_url)
    without = warehouse.rating_changes(db, "ajusc")

    shutil.move(held_back, late)   # arrives late, dated before CAT-2026-01 which is already rated
    summary = nightly(inbox=str(sample_inbox), warehouse_url=sqlite_url, as_of=AS_OF, reports_dir=str(tmp_path / "r"))
    with_late = warehouse.rating_changes(db, "ajusc")

    assert summary.competitions["ajusc"] == {"CAT-2025-02": "accepted"}
    # Editions 1 (CAT-2025-01) and 2 (CAT-2026-01) were published: edition 2 is corrected by ONE
    # correcting edition, never rewritten.
    published = summary.published["ajusc"]
    assert published.editions == [3] and published.correcting_edition == 3
    diff = warehouse.edition_corrections(db, "ajusc")
    assert set(diff.get_column("edition").to_list()) == {2} and diff.height > 0
    report = (tmp_path / "r" / "ajusc" / "CAT-2025-02.md").read_text(encoding="utf-8")
    assert "Correcting edition" in report and "## Published editions corrected" in report
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import ArtifactFilter, ArtifactFilterKey

    with get_client(sync_client=True) as client:
        artifacts = client.read_artifacts(
            artifact_filter=ArtifactFilter(key=ArtifactFilterKey(any_=["ajusc-correcting-edition"]))
        )
    # Other tests of the session publish under the same key: this run's artifact is the one to check.
    ours = [a for a in artifacts if (a.description or "").startswith("ajusc correcting edition 3 (")
            and "of edition(s) 2 changed" in (a.description or "")]
    assert ours and all(a.type == "table" for a in ours)
    first = diff.row(0, named=True)
    assert f"| {first['player_id']} " in report
    later_before = without.filter(pl.col("competition_id") == "CAT-2026-01").sort("player_id")
    later_after = with_late.filter(pl.col("competition_id") == "CAT-2026-01").sort("player_id")
    assert not later_before.get_column("rating_before").equals(later_after.get_column("rating_before"))
    # A fresh warehouse that receives everything at once agrees with the late arrival.
    fresh = f"sqlite:///{tmp_path / 'fresh.db'}"
    nightly(inbox=str(sample_inbox), warehouse_url=fresh, as_of=AS_OF, reports_dir=str(tmp_path / "r2"))
    everything = warehouse.rating_changes(warehouse.get_engine(fresh), "ajusc")
    cols = ["competition_id", "player_id", "rating_before", "change", "rating_after"]
    assert everything.select(cols).sort(cols[:2]).equals(with_late.select(cols).sort(cols[:2]))


def test_corrected_file_replaces_a_rejected_competition(sample_inbox: Path, sqlite_url: str, tmp_path: Path) -> None:
    nightly(inbox=str(sample_inbox), warehouse_url=sqlite_url, as_of=AS_OF, reports_dir=str(tmp_path / "r"))
    short = sample_inbox / "CAT-2025-03.results.csv"
    lines = short.read_text(encoding="utf-8").splitlines()
    # The organiser sends the complete file: a third round was missing.
    third_round = [line.replace(",2,", ",3,", 1) for line in lines[1:] if ",2," in line]
    third_round = [",".join(r.split(",")[:6] + [r.split(",")[7], r.split(",")[6]] + r.split(",")[8:]) for r in third_round]
    short.write_text("\n".join(lines + third_round) + "\n", encoding="utf-8")

    summary = nightly(inbox=str(sample_inbox), warehouse_url=sqlite_url, as_of=AS_OF, reports_dir=str(tmp_path / "r"))

    assert summary.competitions["ajusc"] == {"CAT-2025-03": "accepted"}
    db = warehouse.get_engine(sqlite_url)
    assert warehouse.competition_report(db, "CAT-2025-03", federation="ajusc").competition["status"] == "accepted"
    assert "CAT-2025-03" in set(warehouse.rating_changes(db, "ajusc").get_column("competition_id"))


def test_unreadable_file_is_quarantined_and_the_batch_goes_on(sample_inbox: Path, sqlite_url: str, tmp_path: Path) -> None:
    broken = sample_inbox / "CAT-2026-02.results.csv"
    broken.write_text(
        "federation,competition_id,competition_name,start_date,end_date,round,player_a,player_b,score_a\n"
        "ajusc,CAT-2026-02,Obert de Primavera,2026-03-07,2026-03-07,1,1001,1002,1\n"
        "ajusc,CAT-2026-02,Obert de Primavera,2026-03-07,2026-03-07,1,1003,1004,7\n",
        encoding="utf-8",
    )
    summary = nightly(inbox=str(sample_inbox), warehouse_url=sqlite_url, as_of=AS_OF, reports_dir=str(tmp_path / "r"))

    assert summary.competitions["ajusc"]["CAT-2026-02"] == "rejected"
    assert summary.competitions["ajusc"]["CAT-2025-01"] == "accepted"
    report = (tmp_path / "r" / "ajusc" / "CAT-2026-02.md").read_text(encoding="utf-8").replace("\\", "")
    assert "CAT-2026-02.results.csv" in report and "3" in report and "score_a" in report


def test_go_newcomer_without_grade_rejects_only_that_competition(sqlite_url: str, tmp_path: Path) -> None:
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    header = "federation,competition_id,competition_name,start_date,end_date,round,player_a,player_b,score_a,event_class\n"
    pairs = [("1", "2", "3", "4"), ("1", "3", "2", "4"), ("1", "4", "2", "3")]
    for cid, ids in (("GO-A", ("a1", "a2", "a3", "a4")), ("GO-B", ("b1", "b2", "b3", "b4"))):
        rows = [f"egf,{cid},Torneig {cid},2025-03-01,2025-03-02,{r},{ids[int(p)-1]},{ids[int(q)-1]},1,A\n"
                f"egf,{cid},Torneig {cid},2025-03-01,2025-03-02,{r},{ids[int(s)-1]},{ids[int(t)-1]},0,A\n"
                for r, (p, q, s, t) in enumerate(pairs, start=1)]
        (inbox / f"{cid}.results.csv").write_text(header + "".join(rows), encoding="utf-8")
    (inbox / "go.players.csv").write_text(
        "federation,player_id,name,country,club,birth_year,declared_rank\n"
        + "".join(f"egf,a{i},Jugador A{i},ES,Barcelona,,{g}\n" for i, g in zip(range(1, 5), ("5k", "3k", "1d", "10k")))
        + "".join(f"egf,b{i},Jugador B{i},ES,Girona,,{g}\n" for i, g in zip(range(1, 5), ("2k", "", "4k", "1k"))),
        encoding="utf-8",
    )

    summary = nightly(inbox=str(inbox), warehouse_url=sqlite_url, as_of=date(2025, 3, 31),
                      reports_dir=str(tmp_path / "reports"))

    assert summary.competitions["egf"] == {"GO-A": "accepted", "GO-B": "rejected"}
    detail = warehouse.competition_report(warehouse.get_engine(sqlite_url), "GO-B", federation="egf")
    finding = detail.findings.filter(pl.col("rule") == "egf.newcomer_grade")
    assert finding.select("line", "field").rows() == [(2, "declared_rank")]
    assert "Jugador B2 (b2)" in finding.get_column("message").item()


def test_alias_file_makes_one_player_of_two_spellings(sample_inbox: Path, sqlite_url: str, tmp_path: Path) -> None:
    # A club's file names a player by name instead of id; the officer drops an alias table.
    results = sample_inbox / "CAT-2026-01.results.csv"
    results.write_text(results.read_text(encoding="utf-8").replace(",1001,", ",name:nuria-puigdomenech,"),
                       encoding="utf-8")
    (sample_inbox / "ajusc.aliases.csv").write_text(
        "federation,alias,player_id\najusc,name:nuria-puigdomenech,1001\n", encoding="utf-8")

    nightly(inbox=str(sample_inbox), warehouse_url=sqlite_url, as_of=AS_OF, reports_dir=str(tmp_path / "r"))

    changes = warehouse.rating_changes(warehouse.get_engine(sqlite_url), "ajusc")
    assert "name:nuria-puigdomenech" not in set(changes.get_column("player_id"))
    assert {"CAT-2025-01", "CAT-2026-01"} <= set(
        changes.filter(pl.col("player_id") == "1001").get_column("competition_id"))
