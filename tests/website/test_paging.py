"""A list longer than a page is split into pages of at most ``PAGE_SIZE`` rows (the issue of the
site at FIDE's size), each its own keyed file; a list that shrinks loses its extra pages."""

from __future__ import annotations

import re
from datetime import date
from pathlib import Path

import polars as pl
import pytest

import warehouse
import website
import website._paging as paging
import website.build
from tests.website.conftest import FED, SmallSeason
from tests.website.pages import list_rows
from website.fragments import Names, list_rows_by_edition
from website.fragments import list_rows as format_rows

SMALL_PAGE = 3


def _pages_of(first: Path) -> list[Path]:
    """The pages of the list whose first page is ``first``, following the numbering of the files."""
    found, number = [first], 2
    while (page := first.parent / Path(paging.page_path(first.name, number)).name).is_file():
        found.append(page)
        number += 1
    return found


def _paged_site(small_season: SmallSeason, out: Path, monkeypatch: pytest.MonkeyPatch) -> website.SiteResult:
    monkeypatch.setattr(paging, "PAGE_SIZE", SMALL_PAGE)
    return website.build_site(warehouse.get_engine(small_season.url), out, generated=date(2026, 1, 1))


@pytest.mark.parametrize("full_lines", [8, website.build.FULL_LINES], ids=["large-archive", "full-lists"])
def test_a_long_list_is_split_into_pages_with_every_row_once(
    small_season: SmallSeason, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, full_lines: int,
) -> None:
    """Full editions (rows formatted by polars) and, in a large archive, editions shown by their
    changes (rows formatted in Python) alike."""
    monkeypatch.setattr(website.build, "FULL_LINES", full_lines)
    small_site = tmp_path / "one-page"
    website.build_site(warehouse.get_engine(small_season.url), small_site, generated=date(2026, 1, 1))
    site = tmp_path / "site"
    _paged_site(small_season, site, monkeypatch)
    firsts = [Path(FED) / "index.html", *(Path(FED) / "editions" / f"{n}.html" for n in (1, 2, 3))]
    for first in firsts:
        whole = list_rows(small_site / first)
        pages = _pages_of(site / first)
        assert len(pages) == -(-len(whole) // SMALL_PAGE) > 1, first
        on_pages = [list_rows(p) for p in pages]
        assert all(len(rows) <= SMALL_PAGE for rows in on_pages)
        # The same rows, in the same order (the list's sections), each exactly once.
        assert [row for rows in on_pages for row in rows] == whole
        for number, page in enumerate(pages, start=1):
            text = page.read_text(encoding="utf-8")
            (nav, *_) = re.findall(r'<nav class="pager" aria-label="Pages">(.*?)</nav>', text, re.DOTALL)
            assert f"Page {number} of {len(pages)}" in nav
            assert f'aria-current="page" href="{page.name}"' in nav
            links = re.findall(r'href="([^"]+)"', nav)
            assert {site / first.parent / link for link in links} == set(pages)
            assert ('rel="prev"' in nav) == (number > 1) and ('rel="next"' in nav) == (number < len(pages))
            assert "players of this page only" in text


def test_the_pages_of_a_list_link_only_to_files_that_are_there(
    small_season: SmallSeason, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    site = tmp_path / "site"
    _paged_site(small_season, site, monkeypatch)
    for page in sorted(site.rglob("*.html")):
        for href in re.findall(r'(?:href|src)="([^"]+)"', page.read_text(encoding="utf-8")):
            assert (page.parent / href.split("#")[0]).resolve().is_file(), f"{page}: {href}"


def test_each_page_is_kept_when_it_stands_and_a_shrinking_list_prunes_its_pages(
    small_site: Path, small_season: SmallSeason, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    site = tmp_path / "site"
    first = _paged_site(small_season, site, monkeypatch)
    extra = sorted(p.relative_to(site) for p in [*(site / FED).glob("list-*.html"),
                                                 *(site / FED / "editions").glob("*-*.html")])
    assert Path(FED) / "list-2.html" in extra
    again = _paged_site(small_season, site, monkeypatch)
    # Only the pages made without a key render again (the index, the archive, the overview).
    assert (again.written, again.rendered, again.removed, again.pages) == (0, 3, 0, first.pages)
    # The list shrinks back to one page: the other pages go, the first is the one-page list again.
    monkeypatch.setattr(paging, "PAGE_SIZE", 1_000)
    shrunk = website.build_site(warehouse.get_engine(small_season.url), site, generated=date(2026, 1, 1))
    assert shrunk.removed == len(extra)
    assert not any((site / p).exists() for p in extra)
    ours = {p.relative_to(small_site): p.read_bytes() for p in small_site.rglob("*.html")}
    assert {p.relative_to(site): p.read_bytes() for p in site.rglob("*.html")} == ours


def test_polars_and_python_split_and_format_the_pages_alike(monkeypatch: pytest.MonkeyPatch) -> None:
    """The pages of full editions are formatted by polars (:func:`paging.with_pages`), those of the
    others in Python (:func:`paging.split_rows`): the same rows, in the same order, on each page."""
    monkeypatch.setattr(paging, "PAGE_SIZE", 4)
    statuses = ["inactive", "active", None, "provisional", "odd", "active", "", "unrated", "active", "zzz", "odd"]
    frame = pl.DataFrame({
        "ed": [0] * len(statuses) + [1] * 2, "player_id": [str(i) for i in range(len(statuses) + 2)],
        "rank": list(range(1, len(statuses) + 3)), "rating": [1000.0 + i for i in range(len(statuses) + 2)],
        "change": [None] * (len(statuses) + 2), "new": [True] * (len(statuses) + 2), "category": "S",
        "status": [*statuses, "active", "inactive"], "games": 3,
    }, schema_overrides={"change": pl.Float64, "new": pl.Boolean})
    names = Names({}, "players/")
    paged, which = paging.with_pages(frame)
    formatted = list_rows_by_edition(paged, names)
    assert formatted is not None
    by_polars = {which[key]: str(formatted[key]) for key in formatted}
    by_python = {}
    for ed in (0, 1):
        rows = frame.filter(pl.col("ed") == ed).to_dicts()
        for number, page in enumerate(paging.split_rows(rows), start=1):
            by_python[(ed, number)] = str(format_rows(page, names))
    assert by_polars == by_python
    assert sorted(by_python) == [(0, 1), (0, 2), (0, 3), (1, 1)]
