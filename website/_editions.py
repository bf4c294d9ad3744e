"""The pages of a federation's editions: each edition, the current one as the federation's list, the
archive of every edition and the overview (distribution and activity)."""

from __future__ import annotations

import functools
import math
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import polars as pl
from markupsafe import Markup

from formats.list_exports import FORMAT_LABELS, SITE_DOWNLOADS, ListHeader, export_file_name
from website._context import _LIST_COLUMNS, _Pages, shown
from website._corrections import correction_reason, correction_rows
from website._paging import Page, pager, split_rows, with_pages
from website._reading import LEFT, _Federation
from website._templates import _json_block, _template
from website._writer import _Writer
from website.fragments import STATUS_ORDER, list_rows, list_rows_by_edition


def _facets(categories: Iterable[Any], statuses: Iterable[Any]) -> dict[str, list[str]]:
    """The filters of an edition's page: its categories, and its statuses in the list's order."""
    present = set(statuses)
    return {"categories": sorted({c for c in categories if c}),
            "statuses": [s for s in (*STATUS_ORDER, LEFT) if s in present]}


def _histogram(ratings: list[float]) -> dict[str, Any]:
    """Bins of the current edition's ratings (the data of the distribution chart)."""
    if not ratings:
        return {"labels": [], "counts": []}
    low, high = min(ratings), max(ratings)
    span = max(high - low, 1.0)
    width = next((w for w in (10, 25, 50, 100, 200, 500) if span / w <= 40), 1000)
    start = math.floor(low / width) * width
    n = int((high - start) // width) + 1
    counts = [0] * n
    for value in ratings:
        counts[int((value - start) // width)] += 1
    return {"labels": [f"{start + i * width:.0f}" for i in range(n)], "counts": counts, "width": width}


def _write_archive(fed: _Federation, writer: _Writer, common: Mapping[str, Any], editions: Sequence[Mapping[str, Any]],
                   extra_columns: Sequence[str]) -> None:
    """The federation's archive page: every edition, newest first."""
    base = common["dir"]
    writer.write(f"{base}/editions/index.html", _template("archive.html").render(
        root="../../", **common, editions=list(reversed(editions)),
        # Only the columns that say something: a column empty on every edition, or ``kind`` when
        # every edition is an ordinary one, stays off the table.
        extra_columns=[c for c in extra_columns
                       if any(e[c] and not (c == "kind" and e[c] == "ordinary") for e in editions)],
        has_corrections=fed.corrections is not None))


def _write_overview(fed: _Federation, writer: _Writer, common: Mapping[str, Any], latest: Mapping[str, Any] | None,
                    editions: Sequence[Mapping[str, Any]], current_rows: Sequence[Mapping[str, Any]]) -> None:
    """The federation's overview page: distribution on the current edition, activity by month."""
    base = common["dir"]
    hist = _histogram([r["rating"] for r in current_rows if r["rating"] is not None])
    monthly = _activity(fed)
    status_counts: dict[str, int] = defaultdict(int)
    for r in current_rows:
        status_counts[r["status"] or "unrated"] += 1
    writer.write(f"{base}/overview.html", _template("overview.html").render(
        root="../", **common, latest=latest, editions=editions,
        status_counts=[(s, status_counts[s]) for s in STATUS_ORDER if status_counts.get(s)],
        histogram=_json_block({"kind": "histogram", "target": "distribution-chart", "label":
                               "Players by rating on the current edition", **hist}),
        activity=_json_block({"kind": "activity", "target": "activity-chart", "label":
                              "Rated games and players by month", "labels": [row[0] for row in monthly],
                              "games": [row[2] for row in monthly], "players": [row[3] for row in monthly]}),
        months=monthly))


def _activity(fed: _Federation) -> list[tuple[str, int, int, int]]:
    """The overview's activity by month of the competitions that end then and were not rejected:
    (month, competitions, rated games, players rated), oldest first, counted by polars (a large
    archive has a million rating changes)."""
    comps = pl.DataFrame(
        {"competition_id": [c["competition_id"] for c in fed.competitions],
         "end_date": [c["end_date"] for c in fed.competitions], "status": [c["status"] for c in fed.competitions],
         "games_rated": [c["games_rated"] for c in fed.competitions]},
        schema={"competition_id": pl.Utf8(), "end_date": pl.Date(), "status": pl.Utf8(), "games_rated": pl.Int64()},
    ).filter(pl.col("end_date").is_not_null() & (pl.col("status") != "rejected").fill_null(True)).select(
        "competition_id", pl.col("end_date").dt.strftime("%Y-%m").alias("month"), "games_rated")
    counts = comps.group_by("month").agg(pl.len().alias("competitions"),
                                         pl.col("games_rated").fill_null(0).sum().alias("games"))
    players = (fed.change_frame.select("competition_id", "player_id").join(comps, on="competition_id", how="inner")
               .group_by("month").agg(pl.col("player_id").n_unique().alias("players")))
    monthly = (counts.join(players, on="month", how="left").sort("month")
               .select("month", "competitions", "games", pl.col("players").fill_null(0)))
    return [(m, int(c), int(g), int(p)) for m, c, g, p in monthly.iter_rows()]


def _ranks_script(latest: Mapping[str, Any] | None, rows: Sequence[Mapping[str, Any]]) -> str:
    """``ranks.js``: the current edition and each listed player's rank on it (null: listed, no rank)."""
    if latest is None:
        return "window.ratingsCurrent = null;\n"
    current = {"edition": str(latest["edition"]), "as_of": latest["as_of"].isoformat(),
               "ranks": {r["player_id"]: r["rank"] for r in rows}}
    return f"window.ratingsCurrent = {_json_block(current)};\n"


def downloads(pages: _Pages, e: Mapping[str, Any]) -> list[dict[str, str]]:
    """The edition in the federation's own list formats, beside it in ``downloads/``
    (the files are written by ``tasks.site.write_list_downloads``)."""
    fed = pages.fed
    header = ListHeader(fed.federation, int(e["edition"]), e["as_of"], e.get("list_name"))
    return [{"label": FORMAT_LABELS[f], "name": export_file_name(header, f)}
            for f in SITE_DOWNLOADS.get(str(fed.info.get("system")), ())]


def render_in_full(pages: _Pages, wanted: Sequence[tuple[dict[str, Any], bool, Sequence[Page]]],
                   ) -> set[tuple[int, bool]]:
    """Render, here and now, the pages of the full editions among ``wanted`` (edition, as the list,
    its pages to render), their rows formatted by polars for all of them at once
    (:func:`list_rows_by_edition`, a page at a time: :func:`website._paging.with_pages`) and made
    into text one page at a time. Returns the (edition, as the list) rendered; the others are left
    to :func:`list_rows` (jobs)."""
    done: set[tuple[int, bool]] = set()
    for as_list, names in ((False, pages.names_deep), (True, pages.names_top)):
        mine = [(e, todo) for e, flag, todo in wanted if flag == as_list and pages.edition_shape(e, as_list)[0]]
        if not mine:
            continue
        frame = pages.fed.entries.filter(pl.col("ed").is_in([e["index"] for e, _ in mine]))
        paged, which = with_pages(frame.select("ed", *_LIST_COLUMNS))
        formatted = list_rows_by_edition(paged, names)
        if formatted is None:
            continue
        keys = {pair: key for key, pair in which.items()}
        values = {ed: _facets(categories, statuses) for ed, categories, statuses in
                  frame.group_by("ed").agg(pl.col("category").unique(), pl.col("status").unique()).iter_rows()}
        for e, todo in mine:
            ed = e["index"]
            render_edition(pages, e, todo, as_list=as_list, formatted=(
                functools.partial(_page_rows, formatted, keys, ed), values[ed]))
            done.add((ed, as_list))
    return done


def _page_rows(formatted: Mapping[int, Markup], keys: Mapping[tuple[Any, int], int], ed: Any, number: int) -> Markup:
    """The rows of page ``number`` of edition ``ed``, as :func:`render_in_full` formatted them."""
    key = keys.get((ed, number))
    return Markup("") if key is None else formatted[key]


def render_edition(pages: _Pages, e: dict[str, Any], todo: Sequence[Page], *, as_list: bool = False,
                   formatted: tuple[Callable[[int], Markup], dict[str, list[str]]] | None = None) -> None:
    """Write the pages ``todo`` of an edition's list, or of the federation's list (``as_list``).
    ``formatted``: the rows of each page (by its number) and the filters, as :func:`render_in_full`
    made them (None: made here)."""
    in_full, previous = pages.edition_shape(e, as_list)
    if formatted is None:
        rows = (pages.slices if in_full or pages.changed_on is None else pages.changed_on).get(e["index"], [])
        names = pages.names_top if as_list else pages.names_deep
        split = split_rows(rows)
        formatted = (lambda number: list_rows(split[number - 1], names, ranked=in_full or as_list),
                     _facets((r["category"] for r in rows), (r["status"] for r in rows)))
    page_rows, filters = formatted
    ctx = {**pages.common, "edition": shown(e), **filters, "extra_columns": pages.extra_columns,
           "is_current": e is pages.latest, "changes_only": not in_full, "previous": previous,
           "downloads": downloads(pages, e)}
    if as_list:
        ctx.update(root="../", corrections=None, is_list=True)
    else:
        corrections = pages.diffs[e["index"]]
        ctx.update(root="../../", corrections=correction_rows(corrections),
                   correction_reason=correction_reason(corrections))
    first = pages.edition_path(e, as_list).rpartition("/")[2]
    for page in todo:
        pages.writer.write_keyed(page.path, page.key, functools.partial(
            _render_page, pages.edition_page, ctx, page_rows, page, first))


def _render_page(template: Any, ctx: Mapping[str, Any], page_rows: Callable[[int], Markup], page: Page,
                 first: str) -> str:
    return str(template.render(**ctx, rows=page_rows(page.number), pager=pager(page.number, page.count, first)))
