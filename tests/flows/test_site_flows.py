"""The nightly run regenerates the publication site; on the real AJUSC season it has a card
for every player, and every figure on it equals ``ratings list --as-of`` of its edition.

Source: ``../shared/data/ajusc/barruf_2025_26/`` (see tests/flows/test_official_season.py).
"""

from __future__ import annotations

import csv
import io
import re
import shutil
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

import warehouse
from flows.cli import app
from tests.website.pages import charts, list_rows
from warehouse.site import site_editions, site_entries
from website import page_name

runner = CliRunner()


def test_run_writes_the_site_beside_the_reports_unless_no_site(
    sample_inbox: Path, sqlite_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    skipped = runner.invoke(app, ["run", "--inbox", str(sample_inbox), "--warehouse", sqlite_url,
                                  "--as-of", "2026-02-01", "--no-site"])
    assert skipped.exit_code == 0, skipped.output
    assert (tmp_path / "reports").is_dir() and not (tmp_path / "site").exists()
    (sample_inbox / "late.players.csv").write_text("federation,player_id,name\najusc,9999,Late Comer\n")
    ran = runner.invoke(app, ["run", "--inbox", str(sample_inbox), "--warehouse", sqlite_url, "--as-of", "2026-02-02"])
    assert ran.exit_code == 0, ran.output
    assert (tmp_path / "site" / "index.html").is_file()
    assert (tmp_path / "site" / "ajusc" / "index.html").is_file()
    # The configured name, not the id, heads the federation's pages.
    assert "Associació de Jugadors" in (tmp_path / "site" / "ajusc" / "index.html").read_text(encoding="utf-8")


def _list_csv(url: str, as_of: str | None = None) -> list[dict[str, str]]:
    args = ["list", "--federation", "ajusc", "--format", "csv", "--warehouse", url]
    if as_of:
        args += ["--as-of", as_of]
    listed = runner.invoke(app, args)
    assert listed.exit_code == 0, listed.output
    return list(csv.DictReader(io.StringIO(listed.stdout)))


@pytest.mark.slow
def test_real_season_site_has_every_player_and_every_edition(shared_data: Path, tmp_path: Path) -> None:
    season = shared_data / "ajusc" / "barruf_2025_26"
    inbox = tmp_path / "inbox"
    shutil.copytree(season / "results", inbox)
    shutil.copy(season / "season.players.csv", inbox)
    url = f"sqlite:///{tmp_path / 'ratings.db'}"
    site = tmp_path / "site"
    seeded = runner.invoke(app, ["seed", "--federation", "ajusc", str(season / "season.ratings.csv"), "--warehouse", url])
    assert seeded.exit_code == 0, seeded.output
    ran = runner.invoke(app, ["run", "--inbox", str(inbox), "--warehouse", url, "--as-of", "2026-08-31",
                              "--reports", str(tmp_path / "reports"), "--site", str(site)])
    assert ran.exit_code == 0, ran.output
    regenerated = runner.invoke(app, ["site", "--out", str(site), "--warehouse", url])
    assert regenerated.exit_code == 0, regenerated.output
    # The night already wrote exactly these pages; only the index's "generated" date may differ.
    assert re.search(r", [01] written, 0 removed", regenerated.output), regenerated.output

    fed = site / "ajusc"
    cards = sorted((fed / "players").glob("*.html"))
    assert len(cards) == 630
    db = warehouse.get_engine(url)
    editions = site_editions(db, "ajusc")
    numbers = editions.get_column("edition").to_list()
    # The seeded list's edition 190, then one edition per championship.
    assert numbers == list(range(190, 211))
    entries = site_entries(db, "ajusc").join(editions.select("list_id", "edition"), on="list_id")

    # The list page and every edition page equal `ratings list --as-of` of that edition's date.
    current = {r["player_id"]: r for r in _list_csv(url)}
    shown = {r[2]: r for r in list_rows(fed / "index.html")}
    assert shown.keys() == current.keys()
    for pid, row in shown.items():
        assert row[3] == f"{float(current[pid]['rating']):.0f}" and row[0] == current[pid]["rank"]
    by_edition: dict[int, dict[str, float]] = {}
    for number, as_of in editions.select("edition", "as_of").iter_rows():
        published = {r["player_id"]: float(r["rating"]) for r in _list_csv(url, as_of.isoformat())}
        page = {r[2]: float(r[3]) for r in list_rows(fed / "editions" / f"{number}.html")}
        assert page == {pid: round(v) for pid, v in published.items()}, f"edition {number}"
        by_edition[number] = published

    # Every card: all editions on the axis, a point for each edition the player is on, the published figure.
    listed = entries.group_by("player_id").agg(pl.col("edition"))
    on = dict(zip(listed.get_column("player_id"), listed.get_column("edition").to_list(), strict=True))
    assert len(on) == 630
    for player_id, theirs in on.items():
        (chart,) = charts(fed / "players" / page_name(player_id))
        assert chart["labels"] == numbers
        points = [(n, r) for n, r in zip(chart["labels"], chart["ratings"], strict=True) if r is not None]
        assert [n for n, _ in points] == sorted(theirs, key=numbers.index)
        assert all(by_edition[n][player_id] == r for n, r in points)


def _site_files(root: Path) -> dict[str, str]:
    """Every file of a site, the time of its last load aside (two runs, two times)."""
    return {str(p.relative_to(root)): re.sub(r"Loaded \d{4}-\d\d-\d\d \d\d:\d\d UTC", "Loaded <time>",
                                              p.read_text(encoding="utf-8", errors="replace"))
            for p in sorted(root.rglob("*")) if p.is_file() and ".frames" not in p.parts}


def test_a_site_generated_apart_equals_one_generated_in_the_run(
    sample_inbox: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The night and the backfill with the site in a process of its own (``tasks.site_process``,
    threshold 0) publish the same site as with it in their own process."""
    import tasks.site

    sites = {}
    for mode, threshold in (("apart", "0"), ("here", "1000000")):
        folder = tmp_path / mode
        folder.mkdir()
        monkeypatch.chdir(folder)
        monkeypatch.setenv("RATINGS_SITE_OWN_PROCESS_FROM", threshold)
        url = f"sqlite:///{folder / 'w.db'}"
        with monkeypatch.context() as m:
            if mode == "apart":   # the child imports its own; this one must not be called
                m.setattr(tasks.site, "generate_site", lambda *a, **k: pytest.fail("generated in the run's process"))
            ran = runner.invoke(app, ["run", "--inbox", str(sample_inbox), "--warehouse", url, "--as-of", "2026-02-01"])
            assert ran.exit_code == 0, ran.output
            back = runner.invoke(app, ["backfill", "--federation", "ajusc", "--from", "2025-01-01", "--to", "2026-02-01",
                                       "--warehouse", url])
            assert back.exit_code == 0, back.output
        sites[mode] = _site_files(folder / "site")
    assert sites["apart"] and sites["apart"] == sites["here"]
