"""The repeated parts of the big pages, rendered with plain string formatting.

A site of 50,000 player cards and 50,000-row editions is mostly table rows.
A Jinja2 loop costs about 6 ms a card (every expression goes through
``finalize`` and ``escape``); these functions build the same rows in a tenth of
that, and the page templates insert them as ``Markup``. Every text that comes
from a file (names, ids, competition names) goes through :func:`text`, which
applies the same :func:`~website.safe.visible` and the same escaping as the
templates; numbers are formatted here and need none.
"""

from __future__ import annotations

import functools
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

import polars as pl
from markupsafe import Markup, escape

from website.safe import PLAIN_ID, page_name, visible

__all__ = ["FormattedRows", "Names", "change_rows", "competition_sections", "edition_cells", "edition_rows",
           "escaped", "list_rows", "list_rows_by_edition", "section_rank", "text"]

#: A player's line on one edition, as :func:`edition_rows` takes it (``ed``: the edition's index).
ENTRY_COLUMNS: tuple[str, ...] = ("ed", "rating", "change", "status", "category", "rank", "games", "new")
#: One game of an explanation, as :func:`competition_sections` takes it.
GAME_COLUMNS: tuple[str, ...] = ("round", "opponent_id", "opponent_rating", "rating", "handicap", "score",
                                 "expected", "k", "contribution", "rule_set")

#: The list's status sections, in the order the federations print them.
STATUS_ORDER: tuple[str, ...] = ("active", "provisional", "inactive", "unrated")


@functools.lru_cache(maxsize=1 << 16)
def text(value: Any) -> str:
    """Escaped, visible text of a value from a file (empty for None); cached, as the same
    statuses, categories, rule sets and names recur on thousands of pages.

    Examples
    --------
    >>> text("<b>A & B</b>\\x07"), text(None)
    ('&lt;b&gt;A &amp; B&lt;/b&gt;\\ufffd', '')
    """
    return str(escape(visible(value)))


def signed(value: float | None, digits: int = 0) -> str:
    """A change with its sign (``+12``, ``−3``, ``0``).

    Examples
    --------
    >>> signed(12.0), signed(-3.4), signed(0.0), signed(83.4297, 2), signed(-0.001, 2)
    ('+12', '−3', '0', '+83.43', '0.00')
    """
    if value is None:
        return ""
    if round(value, digits) == 0:
        return "0" if digits == 0 else f"{0:.{digits}f}"
    if value < 0:
        return f"\u2212{-value:.{digits}f}"
    return f"+{value:.{digits}f}"


def _num(value: float | None, digits: int) -> str:
    return "" if value is None else f"{value:.{digits}f}"


def _int(value: int | None) -> str:
    return "" if value is None else str(value)


#: An id that is its page's name as it is (without ``..``): :func:`~website.safe.page_name`'s test, for polars.
_PLAIN_PAGE = f"^{PLAIN_ID}$"


def escaped(texts: pl.Expr) -> pl.Expr:
    """:func:`text` in polars: control characters as U+FFFD, then escaped as markupsafe escapes
    (null: empty). Polars strings hold no lone surrogates, the rest of :data:`website.safe._CONTROL`."""
    return (texts.str.replace_all("[\\x00-\\x1f\\x7f-\\x9f]", "\ufffd")
            .str.replace_many(["&", "<", ">", '"', "'"], ["&amp;", "&lt;", "&gt;", "&#34;", "&#39;"])
            .fill_null(""))


class Names:
    """Links to player cards, escaped once per player and reused on every page that names them."""

    def __init__(self, names: Mapping[str, str | None], prefix: str) -> None:
        self._names = names
        self._prefix = prefix
        self._links: dict[str, str] = {}
        self._frame: pl.DataFrame | None = None

    def links(self, ids: Sequence[str | None]) -> pl.DataFrame:
        """:meth:`link` of each of ``ids`` (``player_id``, ``_link``), made by polars: a list names
        tens of thousands of players. Ids that are not used as their page's name as they are
        (:func:`~website.safe.page_name` hashes them) get theirs from Python."""
        if self._frame is None:
            self._frame = pl.DataFrame({"player_id": list(self._names), "_name": list(self._names.values())},
                                       schema={"player_id": pl.Utf8(), "_name": pl.Utf8()})
        pid = pl.col("player_id")
        frame = pl.DataFrame({"player_id": ids}, schema={"player_id": pl.Utf8()}).join(
            self._frame, on="player_id", how="left", maintain_order="left")
        odd = frame.filter(~(pid.str.contains(_PLAIN_PAGE) & ~pid.str.contains("..", literal=True))).get_column(
            "player_id").drop_nulls().unique().to_list()
        pages = pl.DataFrame({"player_id": odd, "_page": [page_name(i) for i in odd]},
                             schema={"player_id": pl.Utf8(), "_page": pl.Utf8()})
        name = pl.when(pl.col("_name").is_null() | (pl.col("_name") == "")).then(pid).otherwise(pl.col("_name"))
        return frame.join(pages, on="player_id", how="left", maintain_order="left").select(
            "player_id",
            pl.when(pid.is_null()).then(pl.lit("")).otherwise(pl.concat_str(
                pl.lit(f'<a href="{self._prefix}'), escaped(pl.coalesce("_page", pid + ".html")),
                pl.lit('"><bdi>'), escaped(name), pl.lit("</bdi></a>"))).alias("_link"))

    def link(self, player_id: str | None) -> str:
        """``<a href="…"><bdi>name</bdi></a>`` (the id when the name is unknown)."""
        if player_id is None:
            return ""
        found = self._links.get(player_id)
        if found is None:
            name = self._names.get(player_id) or player_id
            found = f'<a href="{self._prefix}{text(page_name(player_id))}"><bdi>{text(name)}</bdi></a>'
            self._links[player_id] = found
        return found


def list_rows(rows: Sequence[Mapping[str, Any]], names: Names, *, ranked: bool = True) -> Markup:
    """The ``<tbody>`` sections of a list table, one per status, in :data:`STATUS_ORDER`.

    Each row: rank, name (link to the card), id, rating, change since the previous
    edition (``new`` when not on it), category, status, games; ``data-s`` and
    ``data-c`` carry status and category for the filter of site.js. ``ranked=False``
    (an edition shown by its changes only) leaves the rank out: a rank needs the full list.
    """
    by_status: dict[str, list[Mapping[str, Any]]] = defaultdict(list)
    for row in rows:
        by_status[row["status"] or "unrated"].append(row)
    categories: dict[Any, str] = {}
    out: list[str] = []
    for status in _section_order(by_status):
        section = by_status[status]
        s = text(status)
        out.append(_heading(status, len(section), ranked))
        for r in section:
            change = r["change"]
            if change is None:
                delta = '<td class="num new">new</td>' if r["new"] else '<td class="num"></td>'
            else:
                cls = "pos" if change > 0 else "neg" if change < 0 else "zero"
                delta = f'<td class="num {cls}">{signed(change)}</td>'
            category = categories.get(r["category"])
            if category is None:
                category = categories[r["category"]] = text(r["category"])
            rating = r["rating"]
            rank = f'<td class="num">{_int(r["rank"])}</td>' if ranked else ""
            out.append(
                f'<tr data-s="{s}" data-c="{category}">{rank}'
                f'<td>{names.link(r["player_id"])}</td><td class="id">{text(r["player_id"])}</td>'
                f'<td class="num rating">{"" if rating is None else f"{rating:.0f}"}</td>{delta}'
                f'<td>{category}</td><td>{s}</td><td class="num">{_int(r["games"])}</td></tr>'
            )
        out.append("</tbody>")
    return Markup("".join(out))


def section_rank(status: str) -> tuple[int, str]:
    """Where a status's section comes in a list: :data:`STATUS_ORDER`, then any other by name."""
    return (STATUS_ORDER.index(status), "") if status in STATUS_ORDER else (len(STATUS_ORDER), status)


def _section_order(statuses: Iterable[str]) -> list[str]:
    return sorted(set(statuses), key=section_rank)


def _heading(status: str, count: int, ranked: bool) -> str:
    return (f'<tbody class="section" data-section="{text(status)}"><tr class="heading">'
            f'<th colspan="{8 if ranked else 7}" scope="rowgroup">{text(status.capitalize())} '
            f'<span class="count">({count})</span></th></tr>')


#: Figures beyond this (or not finite) are left to :func:`list_rows`: the vectorised formatting
#: below reproduces Python's ``f"{x:.0f}"`` for finite figures that fit an integer exactly.
_PLAIN_FIGURE = 2.0 ** 52


def _figure(column: str) -> pl.Expr:
    """``f"{x:.0f}"`` of a float column (half to even, like Python; ``-0`` for a negative figure
    that rounds to zero), empty for null."""
    x = pl.col(column)
    rounded = x.round(0, mode="half_to_even")
    digits = rounded.cast(pl.Int64).cast(pl.Utf8)
    negative_zero = (rounded == 0) & ((x < 0) | ((x == 0) & (1.0 / x < 0)))
    return pl.when(x.is_null()).then(pl.lit("")).when(negative_zero).then(pl.lit("-0")).otherwise(digits)


class FormattedRows(Mapping[Any, Markup]):
    """The list rows of editions as :func:`list_rows_by_edition` formats them. The figures (``rows``)
    and the escaped texts (``texts``: key, lookup) are prepared for every edition at once; each
    edition's rows are joined to the texts and put together by polars when asked, so that only the page being rendered holds its HTML (a full edition of
    44,000 lines is about 11 MB of it)."""

    def __init__(self, rows: pl.DataFrame, texts: Sequence[tuple[str, pl.DataFrame]], ranked: bool) -> None:
        self._rows = rows.sort("ed", maintain_order=True)
        self._texts = texts
        self._ranked = ranked
        self._index: dict[Any, tuple[int, int]] = {}
        start = 0
        for ed, count in self._rows.group_by("ed", maintain_order=True).len().iter_rows():
            self._index[ed] = (start, count)
            start += count

    def __getitem__(self, ed: Any) -> Markup:
        start, count = self._index[ed]
        rows = self._rows.slice(start, count)
        for key, lookup in self._texts:
            rows = rows.join(lookup, on=key, how="left", maintain_order="left", nulls_equal=True)
        rank = (pl.concat_str(pl.lit('<td class="num">'), pl.col("_rank"), pl.lit("</td>")) if self._ranked
                else pl.lit(""))
        sections = rows.select(
            "_status",
            pl.concat_str(
                pl.lit('<tr data-s="'), pl.col("_s"), pl.lit('" data-c="'), pl.col("_category"), pl.lit('">'), rank,
                pl.lit("<td>"), pl.col("_link"), pl.lit('</td><td class="id">'), pl.col("_id"),
                pl.lit('</td><td class="num rating">'), pl.col("_rating"), pl.lit("</td>"), pl.col("_delta"),
                pl.lit("<td>"), pl.col("_category"), pl.lit("</td><td>"), pl.col("_s"),
                pl.lit('</td><td class="num">'), pl.col("_games"), pl.lit("</td></tr>"),
            ).alias("html"),
        ).group_by("_status", maintain_order=True).agg(pl.col("html").str.join(""), pl.len())
        by_status = {status: (body, n) for status, body, n in sections.iter_rows()}
        return Markup("".join(f"{_heading(status, by_status[status][1], self._ranked)}{by_status[status][0]}</tbody>"
                              for status in _section_order(by_status)))

    def __iter__(self) -> Iterator[Any]:
        return iter(self._index)

    def __len__(self) -> int:
        return len(self._index)


def list_rows_by_edition(frame: pl.DataFrame, names: Names, *, ranked: bool = True) -> FormattedRows | None:
    """:func:`list_rows` of every edition of ``frame`` (its ``ed`` column; the rows in the frame's
    order), the rows formatted by polars rather than one by one in Python: the escaped texts are
    made once per distinct value, with the same :func:`text` and :meth:`Names.link`, and the
    figures in polars exactly as :func:`list_rows` formats them.

    None when the frame holds what the vectorised formatting is not made for (a figure that
    is not finite or too large, a rank or a count that is not an integer): the caller then
    renders with :func:`list_rows`.
    """
    schema = frame.schema
    if not (schema["rank"].is_integer() or schema["rank"] == pl.Null) or not (
            schema["games"].is_integer() or schema["games"] == pl.Null):
        return None
    for column in ("rating", "change"):
        values = frame.get_column(column)
        if not values.dtype.is_numeric() and values.dtype != pl.Null:
            return None
        figures = values.drop_nulls().cast(pl.Float64)
        if not figures.is_empty() and not (figures.is_finite().all() and figures.abs().max() < _PLAIN_FIGURE):  # type: ignore[operator]
            return None

    change = pl.col("change").cast(pl.Float64)
    size = change.abs().round(0, mode="half_to_even")
    delta = (
        pl.when(change.is_null() & pl.col("new").fill_null(False)).then(pl.lit('<td class="num new">new</td>'))
        .when(change.is_null()).then(pl.lit('<td class="num"></td>'))
        .otherwise(pl.concat_str(
            pl.lit('<td class="num '),
            pl.when(change > 0).then(pl.lit("pos")).when(change < 0).then(pl.lit("neg")).otherwise(pl.lit("zero")),
            pl.lit('">'),
            pl.when(size == 0).then(pl.lit("0"))
            .otherwise(pl.concat_str(pl.when(change < 0).then(pl.lit("\u2212")).otherwise(pl.lit("+")),
                                     size.cast(pl.Int64).cast(pl.Utf8))),
            pl.lit("</td>"),
        ))
    )
    rows = frame.select(
        "ed", "player_id", "category",
        pl.when(pl.col("status").is_null() | (pl.col("status") == "")).then(pl.lit("unrated"))
        .otherwise(pl.col("status")).alias("_status"),
        pl.col("rank").cast(pl.Int64).cast(pl.Utf8).fill_null("").alias("_rank"),
        pl.col("games").cast(pl.Int64).cast(pl.Utf8).fill_null("").alias("_games"),
        _figure("rating").alias("_rating"),
        delta.alias("_delta"),
    )

    def texts(key: str, name: str) -> tuple[str, pl.DataFrame]:
        """The distinct values of ``rows``' column ``key`` and their :func:`text` (column ``name``)."""
        keys = rows.get_column(key).unique().to_list()
        return key, pl.DataFrame({key: keys, name: [text(v) for v in keys]}, schema={key: pl.Utf8(), name: pl.Utf8()})

    ids = rows.get_column("player_id").unique().to_list()
    lookups = [
        ("player_id", names.links(ids).with_columns(escaped(pl.col("player_id")).alias("_id"))),
        texts("category", "_category"),
        texts("_status", "_s"),
    ]
    return FormattedRows(rows, lookups, ranked)


def edition_cells(editions: Sequence[Mapping[str, Any]]) -> list[str]:
    """The first two cells (edition, date) of a card's row for each edition, made once per federation."""
    return [f'<tr><td class="num"><a href="../editions/{e["edition"]}.html">{e["edition"]}</a></td>'
            f'<td>{e["as_of"]}</td>' for e in editions]


def edition_rows(listed: Sequence[tuple[Any, ...]], cells: Sequence[str]) -> Markup:
    """Rows of a card's table of editions: the player's lines (ENTRY_COLUMNS tuples), newest first;
    ``cells`` from :func:`edition_cells`."""
    out = []
    for index, rating, change, status, category, rank, games, new in listed:
        delta = signed(change) if change is not None else ("new" if new else "")
        out.append(
            f'{cells[index]}<td class="num rating">{"" if rating is None else f"{rating:.0f}"}</td>'
            f'<td class="num">{delta}</td><td>{text(status)}</td><td>{text(category)}</td>'
            f'<td class="num">{_int(rank)}</td><td class="num">{_int(games)}</td></tr>'
        )
    return Markup("".join(out))


def competition_sections(
    rated: Sequence[Mapping[str, Any]],
    competitions: Mapping[str, Mapping[str, Any]],
    explanations: Mapping[tuple[str, str, str | None], Sequence[tuple[Any, ...]]],
    player_id: str,
    names: Names,
) -> Markup:
    """A card's competitions, newest first, each with its game-by-game explanation.

    ``rated``: the player's rating changes in rating order. The footer of each
    table sums the games' contributions: that sum is the change (unrounded);
    the published rating is ``rating_before + change``, rounded.
    """
    if not rated:
        return Markup("<p>No rated competition in the warehouse for this player.</p>")
    out = []
    for n, change in enumerate(reversed(rated)):
        cid = change["competition_id"]
        comp = competitions.get(cid, {})
        games = explanations.get((player_id, cid, change["period"]), ())
        handicap = any(g[4] is not None for g in games)
        period = f' <span class="id">period {text(change["period"])}</span>' if change["period"] else ""
        before, delta, after = change["rating_before"], change["change"], change["rating_after"]
        out.append(
            f'<section class="rated" id="c-{len(rated) - n}">'
            f'<h3><a href="../competitions/{text(page_name(cid))}"><bdi>{text(comp.get("name") or cid)}</bdi></a> '
            f'<span class="id">{text(cid)}</span>{period}</h3>'
            f'<p class="meta">{comp.get("end_date") or ""} · rule set {text(change["rule_set"])} · '
            f'K {_num(change["k"], 0)} · {_int(change["games"])} game(s), score {_num(change["score"], 1)}, '
            f'expected {_num(change["expected"], 2)} · rating {_num(before, 0)} → <strong>{_num(after, 0)}</strong></p>'
            '<table class="data compact games"><thead><tr><th class="num">Round</th><th>Opponent</th>'
            '<th class="num">Opponent rating</th><th class="num">Rating used</th>'
            + ('<th class="num">Handicap</th>' if handicap else "")
            + '<th class="num">Score</th><th class="num">Expected</th><th class="num">K</th>'
            '<th class="num">Contribution</th><th>Rule set</th></tr></thead><tbody>'
        )
        total = 0.0
        for rnd, opponent, opp_rating, rating, stones, score, expected, k, contribution, rule_set in games:
            total += contribution or 0.0
            out.append(
                f'<tr><td class="num">{_int(rnd)}</td><td>{names.link(opponent)}</td>'
                f'<td class="num">{_num(opp_rating, 0)}</td><td class="num">{_num(rating, 0)}</td>'
                + (f'<td class="num">{_int(stones)}</td>' if handicap else "")
                + f'<td class="num">{_num(score, 1)}</td><td class="num">{_num(expected, 3)}</td>'
                f'<td class="num">{_num(k, 0)}</td><td class="num">{signed(contribution, 2)}</td>'
                f'<td>{text(rule_set)}</td></tr>'
            )
        term = ""
        if before is not None and delta is not None:
            sign = "\u2212" if delta < 0 and round(delta, 2) != 0 else "+"
            term = (f'<p class="meta">Rating {before:.2f} {sign} {abs(delta):.2f} = {before + delta:.2f}, '
                    f'published rounded as {_num(after, 0)}.</p>')
        out.append(
            f'</tbody><tfoot><tr><th colspan="{8 if handicap else 7}">Sum of the contributions: the change</th>'
            f'<td class="num total" data-change="{delta!r}">{signed(total, 2)}</td><td></td></tr></tfoot>'
            f'</table>{term}</section>'
        )
    return Markup("".join(out))


def change_rows(changes: Sequence[Mapping[str, Any]], names: Names, *, period: bool) -> Markup:
    """Rows of a competition's rating changes: player, id, (period,) before, games, score,
    expected, K, change, after."""
    out = []
    for c in changes:
        delta = c["change"]
        cls = "neg" if delta is not None and delta < 0 else "pos"
        out.append(
            f'<tr><td>{names.link(c["player_id"])}</td><td class="id">{text(c["player_id"])}</td>'
            + (f'<td>{text(c["period"])}</td>' if period else "")
            + f'<td class="num">{_num(c["rating_before"], 0)}</td><td class="num">{_int(c["games"])}</td>'
            f'<td class="num">{_num(c["score"], 1)}</td><td class="num">{_num(c["expected"], 2)}</td>'
            f'<td class="num">{_num(c["k"], 0)}</td><td class="num {cls}">{signed(delta, 1)}</td>'
            f'<td class="num">{_num(c["rating_after"], 0)}</td></tr>'
        )
    return Markup("".join(out))
