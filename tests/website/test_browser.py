"""The site in a real browser: Debian's Chromium, driven by Playwright, from ``file://``.

Skipped where ``/usr/bin/chromium`` is absent, except under
``RATINGS_REQUIRE_BROWSER=1`` (set by ``.ci/run``), where that is a failure.
Never ``playwright install``: it downloads a browser, which cannot work here.
Screenshots of the list, a card and a competition page are saved under the
test's temporary folder (``screenshots``) for a person to look at.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

import polars as pl
import pytest

import warehouse
from tests.conftest import chromium
from tests.website.conftest import FED, PATH_ID, SCRIPT_NAME, SmallSeason
from website import page_name


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium() as launched:
        yield launched


class Watched:
    """A page whose console errors, page errors, dialogs and non-``file://`` requests are recorded."""

    def __init__(self, page: Any) -> None:
        self.page = page
        self.errors: list[str] = []
        self.requests: list[str] = []
        self.dialogs: list[str] = []
        page.on("console", lambda m: self.errors.append(f"console {m.type}: {m.text}")
                if m.type in ("error", "warning") else None)
        page.on("pageerror", lambda e: self.errors.append(f"page error: {e}"))
        page.on("request", lambda r: self.requests.append(r.url))
        page.on("dialog", self._dismiss)

    def _dismiss(self, dialog: Any) -> None:
        self.dialogs.append(dialog.message)
        dialog.dismiss()

    def check(self) -> None:
        assert self.errors == []
        assert self.dialogs == [], "a script from user text ran"
        leaving = [u for u in self.requests if not u.startswith("file://")]
        assert leaving == [], f"requests left file://: {leaving}"


@pytest.fixture
def watched(browser: Any) -> Iterator[Watched]:
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    # Anything that is not a local file is refused (and recorded by Watched first).
    context.route(lambda url: not url.startswith("file://"), lambda route: route.abort())
    page = context.new_page()
    yield Watched(page)
    context.close()


def _visible_ids(page: Any) -> list[str]:
    return cast(list[str], page.eval_on_selector_all("#list tr[data-s]:not([hidden])",
                                                     "rows => rows.map(r => r.cells[2].textContent)"))


def _plot_points(page: Any) -> dict[str, Any]:
    points: dict[str, Any] = page.evaluate("""() => {
        const canvas = document.querySelector('#history-chart canvas');
        if (!canvas) return null;
        const chart = Chart.getChart(canvas);
        const drawn = chart.getDatasetMeta(0).data.filter((p, i) => chart.data.datasets[0].data[i] !== null);
        const pixels = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
        let inked = 0;
        for (let i = 3; i < pixels.length; i += 4) if (pixels[i] > 0) inked++;
        return {labels: chart.data.labels.length, points: drawn.length, inked: inked,
                width: canvas.width, height: canvas.height};
    }""")
    return points


def test_index_search_card_and_plot(watched: Watched, small_site: Path, small_season: SmallSeason,
                                    tmp_path: Path) -> None:
    page = watched.page
    shots = tmp_path / "screenshots"
    shots.mkdir()
    page.goto((small_site / "index.html").as_uri())
    page.click(f"a[href='{FED}/index.html']")
    assert page.url.endswith(f"/{FED}/index.html")
    assert len(_visible_ids(page)) == 8
    page.fill("#list-filter input[type=search]", "newcomer")
    assert _visible_ids(page) == ["8"]
    assert page.locator("#list-filter output").inner_text() == "1 of 8 players"
    page.fill("#list-filter input[type=search]", "")
    page.select_option("#list-filter select[name=status]", "provisional")
    assert _visible_ids(page) == ["8"]
    page.select_option("#list-filter select[name=status]", "")
    page.fill("#list-filter input[type=search]", "path tr")
    assert _visible_ids(page) == [PATH_ID]
    page.screenshot(path=str(shots / "list.png"), full_page=True)
    page.click("#list tr[data-s]:not([hidden]) a")
    assert page.url.endswith(f"/players/{page_name(PATH_ID)}")
    page.wait_for_function("() => document.querySelector('#history-chart canvas') !== null")
    plot = _plot_points(page)
    db = warehouse.get_engine(small_season.url)
    editions = warehouse.site.site_editions(db, FED)
    listed = warehouse.site.site_entries(db, FED).filter(pl.col("player_id") == PATH_ID).height
    assert plot["labels"] == editions.height == 3
    assert plot["points"] == listed == 3
    assert plot["inked"] > 1000, "the canvas is blank"
    page.screenshot(path=str(shots / "card.png"), full_page=True)
    # A newcomer of the second competition: a point for each edition listed on, the axis has them all.
    page.goto((small_site / FED / "players" / page_name("8")).as_uri())
    page.wait_for_function("() => document.querySelector('#history-chart canvas') !== null")
    plot = _plot_points(page)
    assert (plot["labels"], plot["points"]) == (3, 2)
    page.goto((small_site / FED / "competitions" / page_name("C/2 <x>")).as_uri())
    assert page.locator("h1 bdi").inner_text().startswith("Open <img src=x onerror=alert(2)>")
    page.screenshot(path=str(shots / "competition.png"), full_page=True)
    page.goto((small_site / FED / "overview.html").as_uri())
    page.wait_for_function("() => document.querySelectorAll('.chart-box canvas').length === 2")
    page.screenshot(path=str(shots / "overview.png"), full_page=True)
    watched.check()
    assert sorted(p.name for p in shots.iterdir()) == ["card.png", "competition.png", "list.png", "overview.png"]
    assert all(p.stat().st_size > 10_000 for p in shots.iterdir())


def test_hostile_names_show_as_text(watched: Watched, small_site: Path) -> None:
    page = watched.page
    page.goto((small_site / FED / "index.html").as_uri())
    assert page.get_by_text(SCRIPT_NAME, exact=True).count() == 1
    assert page.evaluate("() => document.querySelectorAll('main script:not(.chart-data), main img, main b').length") == 0
    page.goto((small_site / FED / "players" / page_name("3")).as_uri())
    assert page.locator("h1 bdi.name").inner_text() == SCRIPT_NAME
    assert "<img src=x onerror=alert(1)>" in page.locator("p.lead").inner_text()   # the club, as text
    page.wait_for_function("() => document.querySelector('#history-chart canvas') !== null")
    label = page.get_attribute("#history-chart canvas", "aria-label")
    assert label == f"Rating of {SCRIPT_NAME} by edition"
    watched.check()


def test_every_page_loads_cleanly(watched: Watched, small_site: Path) -> None:
    for path in sorted(small_site.rglob("*.html")):
        watched.page.goto(path.as_uri())
        watched.page.wait_for_load_state("load")
    watched.check()


def test_the_list_reads_without_javascript(browser: Any, small_site: Path) -> None:
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto((small_site / FED / "index.html").as_uri())
    assert page.locator("#list tr[data-s]").count() == 8
    assert page.locator("#list tr[data-s]").first.is_visible()
    assert not page.locator("#list-filter").is_visible()   # no dead search box without the script
    page.goto((small_site / FED / "players" / page_name("1")).as_uri())
    assert page.locator("#editions-table tbody tr").count() == 3   # the plot's figures, as a table
    context.close()


def test_a_card_of_a_large_archive_shows_the_current_rank(browser: Any, small_season: SmallSeason,
                                                           tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A large archive's card does not change with the current edition: ranks.js gives the rank."""
    import website
    import website.build

    monkeypatch.setattr(website.build, "FULL_LINES", 8)
    out = tmp_path / "site"
    website.build_site(warehouse.get_engine(small_season.url), out)
    current = warehouse.rating_list(warehouse.get_engine(small_season.url), FED)
    ranks = dict(zip(current.get_column("player_id"), current.get_column("rank"), strict=True))
    as_of = warehouse.site.site_editions(warehouse.get_engine(small_season.url), FED).get_column("as_of")[-1]
    context = browser.new_context()
    context.route(lambda url: not url.startswith("file://"), lambda route: route.abort())
    watched = Watched(context.new_page())
    assert ranks["1"] is not None and ranks["8"] is None   # a newcomer, provisional: no rank
    for player_id, says in (("1", f"Rank {ranks['1']} on"), ("8", "On")):
        watched.page.goto((out / FED / "players" / page_name(player_id)).as_uri())
        assert watched.page.locator("span.current-rank").inner_text() == (
            f"{says} the current edition 3 ({as_of})" + ("." if ranks[player_id] else ", without a rank."))
    watched.page.screenshot(path=str(tmp_path / "card.png"), full_page=True)
    watched.check()
    context.close()
    # Without the script, the card says where the rank is.
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto((out / FED / "players" / page_name("1")).as_uri())
    assert page.locator("span.current-rank").inner_text() == "Rank: see the current list."
    context.close()


_FITS = """() => {
    const page = document.documentElement.scrollWidth <= window.innerWidth;
    const cut = [];
    for (const t of document.querySelectorAll('table')) {
        // A table wider than its box must scroll inside it, else its right columns are cut off.
        const box = t.parentElement.getBoundingClientRect().width;
        const scrolls = ['auto', 'scroll'].includes(getComputedStyle(t).overflowX)
            || ['auto', 'scroll'].includes(getComputedStyle(t.parentElement).overflowX);
        if (t.getBoundingClientRect().width > box + 1 || (t.scrollWidth > t.clientWidth + 1 && !scrolls))
            cut.push(t.id || t.className);
    }
    return {page: page, cut: cut};
}"""


@pytest.mark.parametrize("width", [1280, 390])
def test_no_page_overflows_and_no_table_is_cut_off(browser: Any, small_site: Path, width: int) -> None:
    context = browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    wrong = {}
    for path in sorted(small_site.rglob("*.html")):
        page.goto(path.as_uri())
        fits = page.evaluate(_FITS)
        if not fits["page"] or fits["cut"]:
            wrong[str(path.relative_to(small_site))] = fits
    context.close()
    assert wrong == {}


def _found(page: Any) -> list[list[str]]:
    return cast(list[list[str]], page.eval_on_selector_all(
        "#player-search ul.search-results a", "links => links.map(a => [a.textContent, a.getAttribute('href')])"))


def test_the_player_search_finds_a_player_from_file_urls(watched: Watched, small_site: Path) -> None:
    """The search box of the list loads its index shards as scripts (file:// refuses fetch()) and
    shows the players found as text; a hostile name stays text, and the link leads to the card."""
    page = watched.page
    page.goto((small_site / FED / "index.html").as_uri())
    box = "#player-search input[type=search]"
    assert page.locator("#player-search").is_visible()
    page.fill(box, "a")
    page.wait_for_function("() => document.querySelector('#player-search output').value.startsWith('Type')")
    page.fill(box, "ÀNNA")
    page.wait_for_function("() => document.querySelectorAll('#player-search ul.search-results a').length > 0")
    assert _found(page) == [["Anna Serra", f"players/{page_name('1')}"]]
    assert page.locator("#player-search output").inner_text() == "1 player for “ÀNNA”"
    page.fill(box, "<script>al")
    page.wait_for_function("() => document.querySelector('#player-search ul.search-results a bdi')?.textContent"
                           f" === {SCRIPT_NAME!r}")
    assert page.evaluate("() => document.querySelectorAll('main script, main b, main img').length") == 0
    page.fill(box, "../../../esc")
    page.wait_for_function("() => document.querySelector('#player-search ul.search-results a bdi')?.textContent"
                           " === 'Path Trick'")
    page.click("#player-search ul.search-results a")
    assert page.url.endswith(f"/players/{page_name(PATH_ID)}")
    watched.check()
    assert all(u.startswith("file://") for u in watched.requests)
    assert any(u.endswith("/search/i-es.js") for u in watched.requests)


def test_the_pages_of_a_long_list_are_walked_by_the_pager(watched: Watched, small_season: SmallSeason,
                                                          tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A list of more than a page: the pager leads from page to page, the filter works on the page
    shown (and says so), and the search still finds a player of another page."""
    import website
    import website._paging

    monkeypatch.setattr(website._paging, "PAGE_SIZE", 3)
    out = tmp_path / "site"
    website.build_site(warehouse.get_engine(small_season.url), out)
    page = watched.page
    page.goto((out / FED / "index.html").as_uri())
    first = _visible_ids(page)
    assert len(first) == 3
    assert page.locator("nav[aria-label=Pages]").first.locator("[aria-current=page]").inner_text() == "1"
    assert "this page only" in page.locator("#list-filter").inner_text()
    page.locator("nav[aria-label=Pages]").first.get_by_text("Next").click()
    assert page.url.endswith(f"/{FED}/list-2.html")
    second = _visible_ids(page)
    assert len(second) == 3 and not set(first) & set(second)
    assert page.locator("#list-filter output").inner_text() == "3 of 3 players"
    page.fill("#player-search input[type=search]", "anna")
    page.wait_for_function("() => document.querySelectorAll('#player-search ul.search-results a').length > 0")
    assert _found(page) == [["Anna Serra", f"players/{page_name('1')}"]]
    page.locator("nav[aria-label=Pages]").last.get_by_text("Previous").click()
    assert page.url.endswith(f"/{FED}/index.html")
    watched.check()
