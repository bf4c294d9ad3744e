"""``ratings list --format html``: one edition of a list as a self-contained page.

The page is rendered from ``templates/list_page.html`` with the site's autoescaping, so
every name and value read from a federation's file reaches the page escaped.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import jinja2

if TYPE_CHECKING:
    import polars as pl

_TEMPLATES = Path(__file__).parent / "templates"


def _cell(value: object) -> str:
    """A value as ``ratings list`` prints it: ratings whole, nothing for a missing one."""
    if value is None:
        return ""
    return f"{value:.0f}" if isinstance(value, float) else str(value)


def list_html(frame: pl.DataFrame, title: str) -> str:
    """One self-contained HTML page (inline style, no scripts), every value escaped.

    Examples
    --------
    >>> import polars as pl
    >>> page = list_html(pl.DataFrame({"player_id": ["1"], "name": ["<b>Anna</b>"], "rating": [1100.0]}), "a & b")
    >>> "&lt;b&gt;Anna&lt;/b&gt;" in page and "a &amp; b" in page and "<script" not in page
    True
    """
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(_TEMPLATES), autoescape=True, keep_trailing_newline=True)
    rows = [[_cell(v) for v in row] for row in frame.iter_rows()]
    return str(env.get_template("list_page.html").render(title=title, columns=frame.columns, rows=rows))
