"""A list split into pages: at FIDE's size (400,000 players) one page of every row is a page no
browser opens, so an edition's page (and the federation's list) holds at most :data:`PAGE_SIZE`
rows, in the order the list shows them (its status sections, in :data:`STATUS_ORDER`).

Page 1 keeps the path the edition always had, so every link to it still leads there; page ``n``
is its sibling (``index.html`` -> ``list-n.html``, ``3.html`` -> ``3-n.html``). A list that fits
one page is the page it always was, byte for byte.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import polars as pl

from website.fragments import STATUS_ORDER, section_rank

#: Rows on one page of a list. Read at each call (a test makes it small).
PAGE_SIZE = 1_000


@dataclass(frozen=True)
class Page:
    """One page of an edition's list."""

    number: int     #: 1, 2, ...
    count: int      #: pages of the edition
    path: str       #: the page's file, relative to the site folder
    key: str        #: the digest of its inputs (the writer's key)


def page_count(rows: int) -> int:
    """Pages of a list of ``rows`` rows (one, even empty).

    Examples
    --------
    >>> page_count(0), page_count(PAGE_SIZE), page_count(PAGE_SIZE + 1)
    (1, 1, 2)
    """
    return max(1, -(-rows // PAGE_SIZE))


def page_path(first: str, number: int) -> str:
    """The file of page ``number`` of the list whose first page is ``first``.

    Examples
    --------
    >>> page_path("ajusc/index.html", 1), page_path("ajusc/index.html", 2), page_path("ajusc/editions/3.html", 12)
    ('ajusc/index.html', 'ajusc/list-2.html', 'ajusc/editions/3-12.html')
    """
    if number == 1:
        return first
    folder, _, name = first.rpartition("/")
    stem = "list" if name == "index.html" else name.removesuffix(".html")
    return f"{folder}/{stem}-{number}.html" if folder else f"{stem}-{number}.html"


def _status(status: Any) -> str:
    return status or "unrated"


def split_rows(rows: Sequence[Mapping[str, Any]]) -> list[list[Mapping[str, Any]]]:
    """The rows of each page: in the list's order of sections (stably: a section keeps the rows'
    order), :data:`PAGE_SIZE` at a time.

    Examples
    --------
    >>> rows = [{"status": "inactive", "i": 0}, {"status": "active", "i": 1}, {"status": None, "i": 2}]
    >>> [[r["i"] for r in page] for page in split_rows(rows)]
    [[1, 0, 2]]
    """
    ordered = sorted(rows, key=lambda r: section_rank(_status(r["status"])))
    size = PAGE_SIZE
    return [ordered[i:i + size] for i in range(0, len(ordered), size)] or [[]]


def with_pages(frame: pl.DataFrame) -> tuple[pl.DataFrame, dict[int, tuple[Any, int]]]:
    """:func:`split_rows` for the rows of every edition of ``frame`` at once (its ``ed`` column):
    the frame in the list's order with ``ed`` replaced by a key of each page, and what each key
    is (edition, page number), for :func:`website.fragments.list_rows_by_edition` to format the
    rows of each page as it formats those of each edition."""
    status = pl.when(pl.col("status").is_null() | (pl.col("status") == "")).then(pl.lit("unrated")).otherwise(
        pl.col("status"))
    known = pl.DataFrame({"_status": list(STATUS_ORDER), "_order": list(range(len(STATUS_ORDER)))},
                         schema={"_status": pl.Utf8(), "_order": pl.Int64()})
    ordered = (frame.with_columns(status.alias("_status"))
               .join(known, on="_status", how="left", maintain_order="left")
               .with_columns(pl.col("_order").fill_null(len(STATUS_ORDER)),
                             pl.when(pl.col("_order").is_null()).then(pl.col("_status")).otherwise(pl.lit(""))
                             .alias("_other"))
               .sort(["ed", "_order", "_other"], maintain_order=True)
               .with_columns((pl.int_range(pl.len()).over("ed") // PAGE_SIZE + 1).alias("_page")))
    pairs = ordered.select("ed", "_page").unique(maintain_order=True)
    keys = {(ed, number): n for n, (ed, number) in enumerate(pairs.iter_rows())}
    lookup = pl.DataFrame({"ed": [ed for ed, _ in keys], "_page": [p for _, p in keys], "_key": list(keys.values())},
                          schema={"ed": frame.schema["ed"], "_page": pl.Int64(), "_key": pl.Int64()})
    paged = (ordered.join(lookup, on=["ed", "_page"], how="left", maintain_order="left")
             .drop("ed", "_status", "_order", "_other", "_page").rename({"_key": "ed"}).select(frame.columns))
    return paged, {n: pair for pair, n in keys.items()}


def pager(number: int, count: int, first: str) -> dict[str, Any] | None:
    """What the pager of page ``number`` of ``count`` shows (None: a list of one page shows none):
    previous, next, and the numbers of the first, the last and the pages around this one (None
    where some are left out); ``first``: the first page's file name, which the others' are made
    from (:func:`page_path`), each a sibling of this page.

    Examples
    --------
    >>> p = pager(5, 9, "index.html")
    >>> p["previous"], p["next"], [n for n, _ in p["numbers"]]
    ('list-4.html', 'list-6.html', [1, None, 3, 4, 5, 6, 7, None, 9])
    >>> pager(1, 1, "3.html") is None
    True
    """
    if count <= 1:
        return None
    shown = sorted({1, count, *range(max(1, number - 2), min(count, number + 2) + 1)})
    numbers: list[tuple[int | None, str | None]] = []
    for n in shown:
        if numbers and numbers[-1][0] is not None and n - (numbers[-1][0] or 0) > 1:
            numbers.append((None, None))
        numbers.append((n, page_path(first, n)))
    return {"number": number, "count": count, "numbers": numbers,
            "previous": page_path(first, number - 1) if number > 1 else None,
            "next": page_path(first, number + 1) if number < count else None}
