"""The site's Jinja2 environment, its number formats and the JSON blocks its pages carry for site.js."""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from typing import Any

from markupsafe import Markup

from website.fragments import signed
from website.safe import page_name, visible


@functools.cache
def _environment() -> Any:
    import jinja2

    env = jinja2.Environment(
        loader=jinja2.PackageLoader("website", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        finalize=visible,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["rating"] = fmt_rating
    env.filters["signed"] = fmt_signed
    env.filters["num"] = fmt_num
    env.filters["page"] = page_name
    env.filters["plusminus"] = fmt_plusminus
    return env


def _template(name: str) -> Any:
    return _environment().get_template(name)


# ------------------------------------------------------------------ number formats
def fmt_rating(value: float | None) -> str:
    """A published rating as ``ratings list`` prints it (no decimals).

    Examples
    --------
    >>> fmt_rating(1066.0), fmt_rating(None), fmt_rating(2034.6)
    ('1066', '', '2035')
    """
    return "" if value is None else f"{value:.0f}"


fmt_signed = signed


def fmt_plusminus(value: float | None) -> str:
    """A change as a term of a sum (``+ 5.03``, ``− 2.50``).

    Examples
    --------
    >>> fmt_plusminus(5.031), fmt_plusminus(-2.5), fmt_plusminus(0.0)
    ('+ 5.03', '− 2.50', '+ 0.00')
    """
    if value is None:
        return ""
    return f"{'−' if value < 0 and round(value, 2) != 0 else '+'} {abs(value):.2f}"


def fmt_num(value: float | None, digits: int = 2) -> str:
    """A figure with ``digits`` decimals (empty for None)."""
    return "" if value is None else f"{value:.{digits}f}"


def _json_block(payload: Mapping[str, Any] | list[Any]) -> Markup:
    """Data for site.js, safe inside ``<script type="application/json">`` and as a literal in a
    script of the site's (``ranks.js``, the search index).

    ``<``, ``>`` and ``&`` are written as ``\\u003c``…, so no name can close the
    script element (the same rule as Jinja2's ``tojson``); everything outside ASCII,
    control characters included, is a ``\\u`` escape.
    """
    text = json.dumps(payload, ensure_ascii=True, separators=(",", ":"), allow_nan=False)
    text = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return Markup(text)
