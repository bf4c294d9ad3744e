"""Read back what a generated page shows, with the standard library's HTML parser."""

from __future__ import annotations

import json
from html.parser import HTMLParser
from pathlib import Path
from typing import Any


class _Rows(HTMLParser):
    """Rows (``tr`` with ``data-s``: the list's player rows) of the table with id ``list``, as cell texts."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.rows: list[list[str]] = []
        self.links: list[str] = []
        self._in_row = False
        self._cell: list[str] | None = None
        self.chart_blocks: list[str] = []
        self._in_chart = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "tr" and "data-s" in a:
            self._in_row = True
            self.rows.append([])
        elif tag == "td" and self._in_row:
            self._cell = []
        elif tag == "a" and self._in_row and a.get("href"):
            self.links.append(str(a["href"]))
        elif tag == "script" and a.get("class") == "chart-data":
            self._in_chart = True
            self.chart_blocks.append("")

    def handle_endtag(self, tag: str) -> None:
        if tag == "td" and self._cell is not None:
            self.rows[-1].append("".join(self._cell))
            self._cell = None
        elif tag == "tr":
            self._in_row = False
        elif tag == "script":
            self._in_chart = False

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)
        if self._in_chart:
            self.chart_blocks[-1] += data


def list_rows(page: Path) -> list[list[str]]:
    """Cells of every player row: rank, name, id, rating, change, category, status, games."""
    parser = _Rows()
    parser.feed(page.read_text(encoding="utf-8"))
    return parser.rows


def row_links(page: Path) -> list[str]:
    parser = _Rows()
    parser.feed(page.read_text(encoding="utf-8"))
    return parser.links


def charts(page: Path) -> list[dict[str, Any]]:
    """The data blocks site.js draws from."""
    parser = _Rows()
    parser.feed(page.read_text(encoding="utf-8"))
    return [json.loads(block) for block in parser.chart_blocks]
