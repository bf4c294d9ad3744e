"""Large-archive mode: beyond ``FULL_LINES`` lines of full lists, only the recent
editions are full lists; older editions show their changes, cards the player's own lines."""

from __future__ import annotations

import json
from collections.abc import Collection
from datetime import date
from pathlib import Path

import polars as pl
import pytest
import sqlalchemy as sa
from sqlalchemy import Engine

import warehouse
import website
import website.build
from tests.website.conftest import FED, SmallSeason
from tests.website.pages import charts, list_rows
from website import frames, page_name
from website._manifest import MANIFEST
from website._reading import _own_lines


@pytest.fixture(scope="module")
def large_site(small_season: SmallSeason, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The small season's site with a budget that only the latest edition (8 players) fits."""
    out = tmp_path_factory.mktemp("large") / "site"
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(website.build, "FULL_LINES", 8)
        website.build_site(warehouse.get_engine(small_season.url), out, generated=date(2026, 1, 1))
    return out


def test_the_latest_edition_and_the_list_are_the_normal_pages(large_site: Path, small_site: Path) -> None:
    for page in ("index.html", "editions/3.html", "editions/index.html", "overview.html"):
        assert (large_site / FED / page).read_bytes() == (small_site / FED / page).read_bytes(), page


def test_an_older_edition_shows_exactly_its_changes(large_site: Path, small_season: SmallSeason) -> None:
    db = warehouse.get_engine(small_season.url)
    before, now = (warehouse.rating_list(db, FED, edition=n) for n in (1, 2))
    figures = ["player_id", "name", "rating", "games", "status", "category"]
    changed = now.join(before.select(figures), on=figures, how="anti", nulls_equal=True)
    page = large_site / FED / "editions" / "2.html"
    rows = list_rows(page)
    # No rank: name, id, rating, change, category, status, games.
    assert all(len(r) == 7 for r in rows)
    assert {r[1]: float(r[2]) for r in rows} == dict(zip(
        changed.get_column("player_id"), changed.get_column("rating").round(0), strict=True))
    assert 0 < len(rows) < now.height
    text = " ".join(page.read_text(encoding="utf-8").split())
    assert f"The edition listed {now.height} players" in text
    assert f"ratings list --federation {FED} --edition 2" in text
    assert '<th class="num">Rank</th>' not in text


def test_a_card_charts_the_players_own_editions(large_site: Path, small_season: SmallSeason) -> None:
    db = warehouse.get_engine(small_season.url)
    figures = ["name", "rating", "games", "status", "category"]
    lists = {n: warehouse.rating_list(db, FED, edition=n) for n in (1, 2, 3)}
    for player_id in ("1", "5", "8"):
        lines = {n: lst.filter(pl.col("player_id") == player_id).select(figures).rows()
                 for n, lst in lists.items()}
        own = [n for n in (1, 2, 3) if lines[n] and lines[n] != lines.get(n - 1)]
        (chart,) = charts(large_site / FED / "players" / page_name(player_id))
        assert chart["labels"] == own, player_id
        assert chart["ratings"] == [lines[n][0][1] for n in own]
    # Anna's rating did not change on edition 3: her card does not chart it.
    assert 3 not in charts(large_site / FED / "players" / page_name("1"))[0]["labels"]


def test_the_page_count_follows_editions_plus_players(large_site: Path, small_season: SmallSeason) -> None:
    """One page per edition, player and competition, and four more: never editions x players."""
    fed = large_site / FED
    editions = len(list((fed / "editions").glob("*.html"))) - 1
    players = len(list((fed / "players").glob("*.html")))
    assert (editions, players) == (3, 8)
    pages = len(list(large_site.rglob("*.html")))
    assert pages == editions + players + len(small_season.competitions) + 4   # root, list, overview, archive


def test_own_lines_from_changes_and_full_editions() -> None:
    """A removed line ends a stretch (status "left the list"); a full edition's unchanged lines are
    dropped and a player it omits has left."""
    from formats.schema import conform
    from warehouse.site import SITE_LINES_SCHEMA

    # Editions 1, 2 store changes (b leaves on 2); 3 and 4 are stored in full (a is not on 4).
    stored = conform(pl.DataFrame({
        "list_id": [1, 1, 2, 2, 3, 3, 4], "edition": [1, 1, 2, 2, 3, 3, 4],
        "player_id": ["a", "b", "a", "b", "a", "b", "b"],
        "rating": [1500.0, 1400.0, 1510.0, None, 1510.0, 1420.0, 1420.0],
        "status": ["active", "active", "active", None, "active", "active", "active"],
        "position": [None, None, None, None, 1, 2, 1],
        "removed": [False, False, False, True, False, False, False],
    }), SITE_LINES_SCHEMA).with_columns((pl.col("edition") - 1).alias("ed"))
    own = _own_lines(stored)
    got = own.select("ed", "player_id", "rating", "change", "new", "status").rows()
    assert got == [
        (0, "a", 1500.0, None, False, "active"), (0, "b", 1400.0, None, False, "active"),
        (1, "a", 1510.0, 10.0, False, "active"), (1, "b", None, None, False, "left the list"),
        (2, "b", 1420.0, None, True, "active"),           # a: the same line on the full edition 3
        (3, "a", None, None, False, "left the list"),    # not on the full edition 4
    ]


# ------------------------------------------------------------------ night after night
def _tree(root: Path) -> dict[str, bytes]:
    """Every file of a site folder but the frames kept for the next generation (their rows are
    checked in ``test_frames.py``; their bytes may follow how polars chunked them)."""
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and frames.FOLDER not in p.relative_to(root).parts}


@pytest.mark.parametrize("full_lines", [8, website.build.FULL_LINES], ids=["large-archive", "full-lists"])
def test_a_site_generated_night_after_night_is_the_site_generated_at_once(
        full_lines: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The pages left as they were (same inputs) and the pages rendered again make, byte for byte,
    the site generated in one go from the last night's warehouse, the manifest included."""
    from tests.website.conftest import COMPETITIONS, build_small_season

    monkeypatch.setattr(website.build, "FULL_LINES", full_lines)
    url = f"sqlite:///{tmp_path / 'ratings.db'}"
    kept = tmp_path / "kept"
    manifests = []
    for night in range(1, len(COMPETITIONS) + 1):
        build_small_season(url, night, loaded=night - 1)
        website.build_site(warehouse.get_engine(url), kept, generated=date(2026, 1, 1))
        manifests.append(json.loads((kept / MANIFEST).read_text(encoding="utf-8"))["pages"])
    fresh = tmp_path / "fresh"
    at_once = website.build_site(warehouse.get_engine(url), fresh, generated=date(2026, 1, 1))
    assert _tree(kept) == _tree(fresh)
    assert at_once.rendered == at_once.pages
    before, after = manifests[-2:]
    left_as_they_were = {page.removeprefix(f"{FED}/") for page in after if before.get(page) == after[page]}
    # The third night (C-3) leaves the pages of the first two competitions and of edition 1 as they
    # were. Every card changes: with full lists, every card charts every edition; in a large archive,
    # a player of C-3 gets a line, and the others' lines on edition 2 lose the rank that only a full
    # edition shows (2 is no longer the latest).
    assert {p for p in left_as_they_were if not p.startswith("search/")} == {
        "competitions/C-1.html", f"competitions/{page_name('C/2 <x>')}", "editions/1.html"}
    # The search index's shards of the players who did not play C-3 (Anna Serra 1, O'Brien 4: their
    # ratings stand), and the list of shards, which is the same.
    assert {p for p in left_as_they_were if p.startswith("search/")} == {
        "search/n-an.js", "search/i-1_.js", "search/n-ob.js", "search/i-4_.js", "search/index.js"}


def test_a_page_is_rendered_again_only_when_its_inputs_changed(small_season: SmallSeason, tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(website.build, "FULL_LINES", 8)
    db = warehouse.get_engine(small_season.url)
    out = tmp_path / "site"
    first = website.build_site(db, out, generated=date(2026, 1, 1))
    card = out / FED / "players" / page_name("1")
    good = card.read_bytes()
    # The manifest trusts the pages it wrote: a page changed by hand stays while its inputs do not change.
    card.write_text("changed by hand", encoding="utf-8")
    again = website.build_site(db, out, generated=date(2026, 1, 1))
    assert card.read_text(encoding="utf-8") == "changed by hand"
    # Only the pages made without a manifest entry (the root, the archive, the overview) and
    # ranks.js are made again; nothing else is rendered.
    assert (again.pages, again.rendered) == (first.pages, 4)
    # A missing page is rendered again; so is every page once the manifest is gone.
    (out / FED / "competitions" / page_name("C-1")).unlink()
    assert website.build_site(db, out, generated=date(2026, 1, 1)).rendered == 5
    (out / MANIFEST).unlink()
    assert website.build_site(db, out, generated=date(2026, 1, 1)).rendered == first.pages
    assert card.read_bytes() == good
    # A manifest written by other code or templates counts for nothing.
    manifest = json.loads((out / MANIFEST).read_text(encoding="utf-8"))
    card.write_text("changed by hand", encoding="utf-8")
    (out / MANIFEST).write_text(json.dumps({**manifest, "code": "other"}), encoding="utf-8")
    assert website.build_site(db, out, generated=date(2026, 1, 1)).rendered == first.pages
    assert card.read_bytes() == good


def test_a_card_of_a_large_archive_gets_its_rank_from_ranks_js(large_site: Path, small_season: SmallSeason) -> None:
    db = warehouse.get_engine(small_season.url)
    current = warehouse.rating_list(db, FED)
    script = (large_site / FED / "ranks.js").read_text(encoding="utf-8")
    assert script.startswith("window.ratingsCurrent = ") and script.endswith(";\n")
    data = json.loads(script[len("window.ratingsCurrent = "):-2])
    assert data["edition"] == "3"
    assert data["ranks"] == dict(zip(current.get_column("player_id"), current.get_column("rank"), strict=True))
    page = (large_site / FED / "players" / page_name("1")).read_text(encoding="utf-8")
    assert 'class="current-rank" data-player="1"' in page and '<script src="../ranks.js">' in page
    # Anna's line did not change on edition 3: "since edition 2".
    assert "since edition <a href=\"../editions/2.html\">2</a>" in " ".join(page.split())


def test_a_night_that_rewrites_some_games_reads_and_renders_only_those_cards(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A re-rate can change a game's explanation without changing the player's rating change (an
    opponent's rating beyond FIDE's 400-point cap). The next generation reads the explanations only
    from the first block whose checksum changed, renders the cards of the players with rows there,
    and the site is the one generated at once."""
    import warehouse.load
    from tests.website.conftest import build_small_season, load_derived_tail

    monkeypatch.setattr(website.build, "FULL_LINES", 8)
    monkeypatch.setattr(warehouse.load, "DERIVED_BLOCK", 5)
    url = f"sqlite:///{tmp_path / 'ratings.db'}"
    build_small_season(url)
    db = warehouse.get_engine(url)
    kept = tmp_path / "kept"
    website.build_site(db, kept, generated=date(2026, 1, 1))
    with db.connect() as conn:
        stored = pl.read_database("SELECT * FROM explanations ORDER BY seq", conn)
        n_changes = conn.execute(sa.text("SELECT count(*) FROM rating_changes")).scalar_one()
    last = stored.height - 1
    tail = stored.slice(last).with_columns(pl.col("opponent_rating") + 1.0).drop("seq")
    load_derived_tail(db, (n_changes, last), explanations=tail)
    with db.connect() as conn:
        assert conn.execute(sa.text("SELECT opponent_rating FROM explanations WHERE seq = :s"),
                            {"s": last}).scalar_one() == stored["opponent_rating"][last] + 1.0
    before = json.loads((kept / MANIFEST).read_text(encoding="utf-8"))["pages"]
    read: list[object] = []
    original = warehouse.site.site_explanations

    def spy(engine: Engine, federation: str, players: Collection[str] | None = None) -> pl.DataFrame:
        read.append(players)
        return original(engine, federation, players)

    monkeypatch.setattr(warehouse.site, "site_explanations", spy)
    website.build_site(db, kept, generated=date(2026, 1, 1))
    after = json.loads((kept / MANIFEST).read_text(encoding="utf-8"))["pages"]
    rendered = {p for p in after if p.startswith(f"{FED}/players/") and before.get(p) != after[p]}
    in_last_block = set(stored.slice(last - last % 5).get_column("player_id"))
    assert rendered == {f"{FED}/players/{page_name(p)}" for p in in_last_block}
    assert read == [in_last_block]
    fresh = tmp_path / "fresh"
    monkeypatch.setattr(warehouse.site, "site_explanations", original)
    website.build_site(db, fresh, generated=date(2026, 1, 1))
    assert _tree(kept) == _tree(fresh)


@pytest.mark.parametrize("full_lines", [8, website.build.FULL_LINES], ids=["large-archive", "full-lists"])
def test_a_renamed_competition_or_player_renders_again_every_page_that_shows_them(
        full_lines: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The planning keys hash the rows each page is made from, with the names they link: a name
    changed in the warehouse (here by hand, where a file's next version or a players list would)
    renders again the competition's page, the cards that list it and every page that links the
    player, and nothing is left stale: each time, the site is the one generated at once."""
    from tests.website.conftest import build_small_season

    monkeypatch.setattr(website.build, "FULL_LINES", full_lines)
    url = f"sqlite:///{tmp_path / 'ratings.db'}"
    build_small_season(url)
    db = warehouse.get_engine(url)
    kept = tmp_path / "kept"
    website.build_site(db, kept, generated=date(2026, 1, 1))
    renames = [("UPDATE competitions SET name = 'Renamed open' WHERE competition_id = 'C-1'",
                f"{FED}/competitions/C-1.html"),
               ("UPDATE players SET name = 'Anna Renamed' WHERE player_id = '1'", f"{FED}/players/{page_name('1')}")]
    for i, (update, page) in enumerate(renames):
        before = _tree(kept)
        with db.begin() as conn:
            conn.execute(sa.text(update))
        again = website.build_site(db, kept, generated=date(2026, 1, 1))
        fresh = tmp_path / f"fresh-{i}"
        website.build_site(db, fresh, generated=date(2026, 1, 1))
        after = _tree(kept)
        assert after == _tree(fresh)
        assert page in {p for p in after if before.get(p) != after[p]}
        # Pages that show neither name are left alone.
        assert again.rendered < again.pages
