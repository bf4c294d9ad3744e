"""The generated site shows what the warehouse holds, escapes what organisers wrote,
and rewrites only what changed."""

from __future__ import annotations

import json
import re
import shutil
from datetime import date
from pathlib import Path

import polars as pl
import pytest
import sqlalchemy as sa

import warehouse
import website
from tests.website.conftest import (
    FED,
    HOSTILE_COMPETITION,
    PATH_ID,
    QUOTES_NAME,
    RTL_NAME,
    SCRIPT_NAME,
    SmallSeason,
    build_small_season,
)
from tests.website.pages import charts, list_rows, row_links
from website import page_name


def _pages(site: Path) -> list[Path]:
    return sorted(site.rglob("*.html"))


def _files(site: Path) -> list[Path]:
    """The pages and the player search's index (``<fed>/search/*.js``): what a generation writes."""
    return sorted([*_pages(site), *site.glob("*/search/*.js")])


def _as_if_written(site: Path, relative: str) -> None:
    """Record ``relative`` in the site's manifest as a page an earlier run wrote (the site
    removes only those)."""
    manifest = json.loads((site / ".pages.json").read_text(encoding="utf-8"))
    manifest["files"].append(relative)
    (site / ".pages.json").write_text(json.dumps(manifest), encoding="utf-8")


def test_every_page_is_there(small_site: Path, small_season: SmallSeason) -> None:
    fed = small_site / FED
    for page in ("index.html", "overview.html", "editions/index.html", "editions/1.html", "editions/3.html"):
        assert (fed / page).is_file(), page
    assert (small_site / "index.html").is_file()
    assert len(list((fed / "players").glob("*.html"))) == 8
    assert sorted(p.name for p in (fed / "competitions").glob("*.html")) == sorted(
        page_name(cid) for cid, _, _ in small_season.competitions)
    for asset in ("site.js", "site.css", "chart.umd.min.js", "LICENSE.chart.js.md"):
        assert (small_site / "static" / asset).is_file()


def test_every_local_link_resolves(small_site: Path) -> None:
    import re

    for page in _pages(small_site):
        text = page.read_text(encoding="utf-8")
        for href in re.findall(r'(?:href|src)="([^"]+)"', text):
            assert "://" not in href, f"{page}: {href} leaves the site"
            target = (page.parent / href.split("#")[0]).resolve()
            assert target.is_file(), f"{page.relative_to(small_site)} links to missing {href}"
            assert target.is_relative_to(small_site.resolve())


def test_nothing_loads_from_the_network(small_site: Path) -> None:
    for page in [*_files(small_site), *(small_site / "static").glob("site.*")]:
        text = page.read_text(encoding="utf-8")
        assert "http://" not in text and "https://" not in text and "//cdn" not in text, page


def test_the_list_equals_the_published_list(small_site: Path, small_season: SmallSeason) -> None:
    published = warehouse.rating_list(warehouse.get_engine(small_season.url), FED)
    rows = list_rows(small_site / FED / "index.html")
    result = pl.DataFrame(
        {"player_id": [r[2] for r in rows], "rating": [float(r[3]) for r in rows],
         "rank": [int(r[0]) if r[0] else None for r in rows], "status": [r[6] for r in rows]},
        schema_overrides={"rank": pl.Int64},
    )
    expected = published.select("player_id", pl.col("rating").round(0), "rank", "status")
    from polars.testing import assert_frame_equal

    assert_frame_equal(result.sort("player_id"), expected.sort("player_id"))


def test_each_edition_page_equals_the_list_as_of_its_date(small_site: Path, small_season: SmallSeason) -> None:
    db = warehouse.get_engine(small_season.url)
    for number, (_, end, _) in enumerate(small_season.competitions, start=1):
        published = warehouse.rating_list(db, FED, as_of=end)
        rows = list_rows(small_site / FED / "editions" / f"{number}.html")
        assert {r[2]: float(r[3]) for r in rows} == dict(zip(
            published.get_column("player_id"), published.get_column("rating").round(0), strict=True))


def test_card_plot_has_one_point_per_edition_listed(small_site: Path, small_season: SmallSeason) -> None:
    db = warehouse.get_engine(small_season.url)
    editions = warehouse.site.site_editions(db, FED)
    lists = [warehouse.rating_list(db, FED, as_of=d) for d in editions.get_column("as_of")]
    for player_id in ("1", "8", PATH_ID):
        (chart,) = charts(small_site / FED / "players" / page_name(player_id))
        assert chart["labels"] == editions.get_column("edition").to_list()
        expected = []
        for lst in lists:
            mine = lst.filter(pl.col("player_id") == player_id).get_column("rating").to_list()
            expected.append(mine[0] if mine else None)
        assert chart["ratings"] == expected
    # The newcomer of the second competition is not on the first edition.
    (chart,) = charts(small_site / FED / "players" / page_name("8"))
    assert chart["ratings"][0] is None and all(v is not None for v in chart["ratings"][1:])


def test_contributions_add_up_to_the_change(small_site: Path, small_season: SmallSeason) -> None:
    import re

    db = warehouse.get_engine(small_season.url)
    changes = warehouse.rating_changes(db, FED)
    card = (small_site / FED / "players" / page_name("3")).read_text(encoding="utf-8")
    totals = re.findall(r'<td class="num total" data-change="([^"]+)">([^<]+)</td>', card)
    mine = changes.filter(pl.col("player_id") == "3")
    assert len(totals) == mine.height == 3
    for change, shown in totals:
        assert float(shown.replace("\u2212", "-")) == pytest.approx(float(change), abs=0.005)
    assert sorted(round(float(c), 6) for c, _ in totals) == sorted(round(c, 6) for c in mine.get_column("change"))


def test_hostile_text_is_escaped_everywhere(small_site: Path) -> None:
    for page in _files(small_site):
        text = page.read_text(encoding="utf-8")
        assert "<script>alert" not in text and "<img src=x" not in text and "<b>sons" not in text, page
        assert not any(ch in text for ch in "\x00\x07\x1b\x7f"), page
    card = (small_site / FED / "players" / page_name("3")).read_text(encoding="utf-8")
    assert "&lt;script&gt;alert(&#39;pwned&#39;)&lt;/script&gt;" in card
    assert "&lt;img src=x onerror=alert(1)&gt;" in card      # the club
    # Inside the chart's JSON block the name cannot close the script element.
    assert "\\u003cscript\\u003e" in card
    lst = (small_site / FED / "index.html").read_text(encoding="utf-8")
    assert "O&#39;Brien &#34;the rock&#34; &amp; &lt;b&gt;sons&lt;/b&gt;" in lst
    assert "Bell\ufffdEsc\ufffdDel\ufffdEnd" in lst
    assert f"<bdi>{RTL_NAME}</bdi>" in lst                   # kept, but isolated from the row
    comp = (small_site / FED / "competitions" / page_name("C/2 <x>")).read_text(encoding="utf-8")
    assert "Open &lt;img src=x onerror=alert(2)&gt; &#34;quoted&#34;" in comp
    assert "spelt" in comp                                     # the finding, with the fix


def test_ids_with_path_tricks_stay_inside(small_site: Path) -> None:
    assert (small_site / FED / "players" / page_name(PATH_ID)).is_file()
    assert page_name(PATH_ID).startswith("~")
    assert not (small_site.parent / "escape.html").exists()
    links = row_links(small_site / FED / "index.html")
    assert f"players/{page_name(PATH_ID)}" in links


def test_a_second_run_writes_nothing_and_removes_stale_pages(small_site: Path, small_season: SmallSeason,
                                                            tmp_path: Path) -> None:
    site = tmp_path / "site"
    shutil.copytree(small_site, site)
    stale = site / FED / "players" / "gone.html"
    stale.write_text("a player no longer in the warehouse", encoding="utf-8")
    _as_if_written(site, f"{FED}/players/gone.html")
    before = {p: p.stat().st_mtime_ns for p in _files(site) if p != stale}
    result = website.build_site(warehouse.get_engine(small_season.url), site, generated=date(2026, 1, 1))
    assert result.written == 0 and result.removed == 1 and not stale.exists()
    assert result.pages == len(before)
    assert {p: p.stat().st_mtime_ns for p in _files(site)} == before


def test_correction_diffs_show_on_their_edition(small_season: SmallSeason, tmp_path: Path) -> None:
    """The correcting edition shows, for each figure it corrects, the player, the edition and the
    figure published and now, whole as on the lists: not the stored table's own columns."""
    url = f"sqlite:///{tmp_path / 'corrected.db'}"
    shutil.copy(small_season.url.removeprefix("sqlite:///"), tmp_path / "corrected.db")
    db = warehouse.get_engine(url)
    published = warehouse.editions(db, FED)
    second = published.row(1, named=True)
    latest = warehouse.rating_list(db, FED)
    player_id, name = latest.select("player_id", "name").row(0)
    diff = pl.DataFrame({
        "edition": [second["edition"]], "edition_as_of": [second["as_of"]], "player_id": [player_id],
        "name": [name], "published": [1096.0], "now": [1101.4],
    })
    number = warehouse.publish_edition(db, FED, latest, as_of=date(2026, 6, 1), kind="correcting",
                                       corrections=diff, reason="LATE-1")
    website.build_site(db, tmp_path / "site")
    page = (tmp_path / "site" / FED / "editions" / f"{number}.html").read_text(encoding="utf-8")
    assert "Corrections in this edition" in page and "because of <bdi>LATE-1</bdi>" in page
    section = page[page.index('<section class="corrections">'):page.index("</section>")]
    headers = re.findall(r"<th[^>]*>([^<]*)</th>", section)
    assert headers == ["Player", "Id", "Edition", "In force from", "Published", "Now", "Change"]
    cells = [re.sub(r"<[^>]+>", "", c) for c in re.findall(r"<td[^>]*>(.*?)</td>", section)]
    assert cells == [name, player_id, str(second["edition"]), second["as_of"].isoformat(), "1096", "1101", "+5"]
    assert f'href="../../{FED}/players/{page_name(player_id)}"' in section
    for raw in ("list_id", "correcting_edition", "1096.0", "1101.4"):
        assert raw not in section
    assert "Corrections in this edition" not in (tmp_path / "site" / FED / "editions" / "2.html").read_text()


def test_postgresql_gives_the_same_site(small_site: Path, postgres_url: str, tmp_path: Path) -> None:
    build_small_season(postgres_url)
    website.build_site(warehouse.get_engine(postgres_url), tmp_path / "pg", generated=date(2026, 1, 1))
    ours = {p.relative_to(small_site): p.read_bytes() for p in _files(small_site)}
    theirs = {p.relative_to(tmp_path / "pg"): p.read_bytes() for p in _files(tmp_path / "pg")}
    assert ours.keys() == theirs.keys()
    # The root index shows when each warehouse was loaded (to the minute): a clock, not data.
    differing = [str(k) for k in ours if ours[k] != theirs[k] and str(k) != "index.html"]
    assert differing == []


def test_user_mistakes_are_one_line_errors(small_season: SmallSeason, tmp_path: Path) -> None:
    db = warehouse.get_engine(small_season.url)
    afile = tmp_path / "a-file"
    afile.write_text("x")
    with pytest.raises(website.SiteError, match="is a file, not a folder"):
        website.build_site(db, afile)
    with pytest.raises(website.SiteError, match=r"'fide' has no published edition .*published: ajusc"):
        website.build_site(db, tmp_path / "s", federations=["fide"])


def test_names_are_the_players_not_the_hostile_competition(small_site: Path) -> None:
    rows = list_rows(small_site / FED / "index.html")
    names = {r[2]: r[1] for r in rows}
    assert names["3"] == SCRIPT_NAME and names["4"] == QUOTES_NAME
    assert names["5"] == "Bell\ufffdEsc\ufffdDel\ufffdEnd"
    assert HOSTILE_COMPETITION not in names.values()


def test_cards_rendered_in_forked_workers_are_the_same_pages(
    small_site: Path, small_season: SmallSeason, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    import multiprocessing

    import website.build

    if "fork" not in multiprocessing.get_all_start_methods():
        pytest.skip("no fork on this platform: cards render in one process")
    monkeypatch.setattr(website.build, "PARALLEL_FROM", 0)
    site = tmp_path / "site"
    result = website.build_site(warehouse.get_engine(small_season.url), site, generated=date(2026, 1, 1), workers=3)
    assert result.pages == len(_files(small_site)) and result.written == result.pages
    ours = {p.relative_to(small_site): p.read_bytes() for p in _files(small_site)}
    assert {p.relative_to(site): p.read_bytes() for p in _files(site)} == ours
    (site / FED / "players" / "gone.html").write_text("stale")
    _as_if_written(site, f"{FED}/players/gone.html")
    again = website.build_site(warehouse.get_engine(small_season.url), site, generated=date(2026, 1, 1), workers=3)
    assert (again.written, again.removed) == (0, 1)


def test_archive_shows_no_column_that_says_nothing(small_site: Path) -> None:
    """Bookkeeping columns of the editions (an empty list name, ``kind`` = ordinary everywhere) stay off."""
    import re

    page = (small_site / FED / "editions" / "index.html").read_text(encoding="utf-8")
    body = page[page.index("<tbody>"):page.index("</tbody>")]
    rows = [re.findall(r"<td[^>]*>(.*?)</td>", row, re.DOTALL) for row in re.findall(r"<tr>(.*?)</tr>", body, re.DOTALL)]
    assert rows and all(len(r) == len(rows[0]) for r in rows)
    for column in range(len(rows[0])):
        assert any(r[column].strip() for r in rows), f"column {column} of the archive is empty on every edition"
    assert ">ordinary<" not in page


def test_a_new_edition_rewrites_only_the_pages_it_changes(small_season: SmallSeason, tmp_path: Path) -> None:
    """The night that publishes one more edition: its page, the previous one (no longer current), the
    archive, list, overview and index, and the cards of the players on it; never an older edition or a
    competition page."""
    import sqlite3

    from warehouse.site import site_editions, site_entries

    full = warehouse.get_engine(small_season.url)
    editions = site_editions(full, FED)
    last, previous = editions.row(-1, named=True), editions.row(-2, named=True)
    on_last = set(site_entries(full, FED).filter(pl.col("list_id") == last["list_id"]).get_column("player_id"))
    # The warehouse the night before: the same, less the last edition.
    before_db = tmp_path / "before.db"
    shutil.copy(small_season.url.removeprefix("sqlite:///"), before_db)
    with sqlite3.connect(before_db) as conn:
        # The copy only: a published edition is immutable (triggers), this one was never published.
        for (trigger,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'").fetchall():
            conn.execute(f'DROP TRIGGER "{trigger}"')
        conn.execute("DELETE FROM rating_list_lines WHERE list_id = ?", (last["list_id"],))
        conn.execute("DELETE FROM rating_lists WHERE id = ?", (last["list_id"],))
    site = tmp_path / "site"
    website.build_site(warehouse.get_engine(f"sqlite:///{before_db}"), site, generated=date(2026, 1, 1))
    before = {p.relative_to(site): p.read_bytes() for p in _files(site)}
    result = website.build_site(full, site, generated=date(2026, 1, 1))
    after = {p.relative_to(site): p.read_bytes() for p in _files(site)}
    written = {p for p in after if before.get(p) != after[p]}
    assert result.written == len(written)
    fed = Path(FED)
    assert {p for p in written if p.parent.name not in ("players", "search")} == {
        Path("index.html"), fed / "index.html", fed / "overview.html", fed / "editions" / "index.html",
        fed / "editions" / f"{last['edition']}.html", fed / "editions" / f"{previous['edition']}.html"}
    assert {fed / "players" / page_name(pid) for pid in on_last} <= written


def test_a_listed_player_missing_from_the_players_table_still_gets_a_card(
    small_season: SmallSeason, tmp_path: Path,
) -> None:
    """A published edition may name a player no players file described (a seeded list's
    player): the card says what the lists say, without club or country, instead of failing."""
    shutil.copy(small_season.url.removeprefix("sqlite:///"), tmp_path / "missing.db")
    db = warehouse.get_engine(f"sqlite:///{tmp_path / 'missing.db'}")
    with db.connect() as conn:
        listed = conn.execute(sa.text(
            "SELECT player_id FROM rating_list_entries WHERE federation = :f ORDER BY list_id DESC, position LIMIT 1"
        ), {"f": FED}).scalar_one()
    with db.begin() as conn:
        conn.execute(sa.text("DELETE FROM players WHERE federation = :f AND player_id = :p"), {"f": FED, "p": listed})
    website.build_site(db, tmp_path / "site")
    card = (tmp_path / "site" / FED / "players" / page_name(listed)).read_text(encoding="utf-8")
    assert "Club:" not in card and "Country:" not in card


def test_the_overview_counts_the_activity_of_each_month(small_site: Path, small_season: SmallSeason) -> None:
    """One competition a month, each a round robin: its games are pairs of its players."""
    (activity,) = [c for c in charts(small_site / FED / "overview.html") if c["kind"] == "activity"]
    months = [end.strftime("%Y-%m") for _, end, _ in small_season.competitions]
    assert activity["labels"] == months
    assert activity["games"] == [len(who) * (len(who) - 1) // 2 for _, _, who in small_season.competitions]
    assert activity["players"] == [len(who) for _, _, who in small_season.competitions]


def test_a_month_counts_each_player_once_and_leaves_out_rejected_and_undated_competitions() -> None:
    from types import SimpleNamespace

    from website._editions import _activity

    competitions = [
        {"competition_id": "a", "end_date": date(2025, 3, 1), "status": "accepted", "games_rated": 10},
        {"competition_id": "b", "end_date": date(2025, 3, 30), "status": None, "games_rated": None},
        {"competition_id": "c", "end_date": date(2025, 3, 9), "status": "rejected", "games_rated": 99},
        {"competition_id": "d", "end_date": None, "status": "accepted", "games_rated": 5},
        {"competition_id": "e", "end_date": date(2024, 12, 31), "status": "accepted", "games_rated": 3},
        {"competition_id": "f", "end_date": date(2025, 1, 2), "status": "accepted", "games_rated": 0},
    ]
    changes = pl.DataFrame({"competition_id": ["a", "a", "b", "b", "c", "d", "e"],
                            "player_id": ["p", "q", "q", "r", "s", "t", "p"]})
    fed = SimpleNamespace(competitions=competitions, change_frame=changes)
    assert _activity(fed) == [("2024-12", 1, 3, 1), ("2025-01", 1, 0, 0),  # type: ignore[arg-type]
                              ("2025-03", 2, 10, 3)]
