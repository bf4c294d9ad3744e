"""A published rating list in the federations' own download formats.

- ``fide-txt``: FIDE's fixed-width TXT list (``standard_rating_list.txt``), the rating
  column labelled with the list's month (``JAN26``); read by :func:`formats.fide_lists.from_fide_txt`.
- ``fide-xml``: FIDE's XML list (``<playerslist><player>…``); read by
  :func:`formats.fide_lists.from_fide_xml` (the date comes from the file's name:
  :func:`export_file_name` puts it there).
- ``egd``: the EGD's ``allworld_lp`` page (a ``<pre>`` table: PIN, name, country,
  club, grade, P&D, GoR, NT, last appearance); read by :func:`formats.ratinglists.from_egd_list`.
- ``xlsx``: a spreadsheet, one sheet, the columns of ``ratings list --format csv``
  (ratings as numbers, ids and names as text); read back by :func:`read_xlsx`.

Every writer takes the export-ready rows of an edition (``player_id``, ``name``,
``rating``, ``games``, ``status``, …; whole ratings where the federation publishes
them) and returns the file's bytes, the same bytes for the same edition (the site
and ``ratings list`` write identical files). Names are written as they are, except
control characters, which no list format can carry and which are written escaped
(``\\x07``). The EGD list needs a country, a club and a grade that the warehouse
may not know: unknown ones are written as the EGD does (``XX``, ``xxx``), and the
grade is the one of the GoR (2100 is 1d, 100 points a grade). ``NT`` (the number
of tournaments) is not kept: it is written ``0``. A player without an EGD PIN
(an id of 5 to 9 digits) has no line in the EGD's list: :func:`egd_left_out` counts them.
"""

from __future__ import annotations

import html
import io
import math
import re
import zipfile
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

import polars as pl

from formats.fide_lists import MONTHS
from formats.safety import escape_controls

__all__ = [
    "BINARY_FORMATS", "EXPORT_FORMATS", "FORMAT_LABELS", "SITE_DOWNLOADS", "ListExportError", "ListHeader", "egd_left_out", "escape_controls",
    "export_file_name",
    "export_list", "gor_grade", "read_xlsx",
]

#: The formats :func:`export_list` writes, and the file name extension of each.
EXPORT_FORMATS: dict[str, str] = {"fide-txt": "txt", "fide-xml": "xml", "egd": "html", "xlsx": "xlsx"}
#: The list files the site offers beside each edition, by rating system: the formats the
#: federation's own readers take (pairing programs read FIDE's, Go clubs' tools the EGD's).
SITE_DOWNLOADS: dict[str, tuple[str, ...]] = {"fide-elo": ("fide-txt", "fide-xml"), "egf-gor": ("egd",),
                                             "barruf": ("xlsx",)}
#: How the site names each format.
FORMAT_LABELS: dict[str, str] = {"fide-txt": "FIDE TXT", "fide-xml": "FIDE XML", "egd": "EGD list",
                                 "xlsx": "spreadsheet (xlsx)"}

#: Formats that are not text (never written to a terminal).
BINARY_FORMATS = frozenset({"xlsx"})

_PIN = re.compile(r"\d{5,9}")
#: FIDE's TXT columns after the name: (label, width); the rating column's label is the month.
_TXT_TAIL = (("Fed", 4), ("Sex", 4), ("Tit", 5), ("WTit", 5), ("OTit", 15), ("FOA", 4), (None, 6), ("Gms", 4),
             ("K", 4), ("B-day", 6), ("Flag", 4))


class ListExportError(ValueError):
    """An edition cannot be written in the format asked for (one line: which player, which field)."""


@dataclass(frozen=True)
class ListHeader:
    """Which edition the rows are: the file's date, title and name come from it."""

    federation: str
    edition: int
    as_of: date
    list_name: str | None = None


def gor_grade(gor: float | None) -> str:
    """The EGF grade of a GoR: 2100 is 1d, each 100 points a grade (at most 9d, at least 30k).

    Examples
    --------
    >>> gor_grade(2072), gor_grade(2349), gor_grade(1484), gor_grade(-900), gor_grade(None)
    ('1d', '3d', '6k', '30k', '30k')
    """
    if gor is None or math.isnan(gor):
        return "30k"
    steps = math.floor((gor + 50) / 100) - 20   # 1 = 1d (2050..2149), 0 = 1k (1950..2049)
    return f"{min(steps, 9)}d" if steps >= 1 else f"{min(1 - steps, 30)}k"


def export_file_name(header: ListHeader, fmt: str) -> str:
    """The download's file name: federation, list, edition and date (FIDE's readers find the date there).

    Examples
    --------
    >>> export_file_name(ListHeader("fide", 3, date(2026, 1, 1), "rapid"), "fide-xml")
    'fide-rapid-edition-3-2026-01-01.xml'
    """
    parts = [header.federation, *([header.list_name] if header.list_name else []), f"edition-{header.edition}",
             header.as_of.isoformat()]
    return "-".join(re.sub(r"[^A-Za-z0-9_-]", "_", p) for p in parts) + "." + EXPORT_FORMATS[fmt]


def export_list(rows: pl.DataFrame, fmt: str, header: ListHeader, players: pl.DataFrame | None = None) -> bytes:
    """The edition's ``rows`` as a file in ``fmt`` (:data:`EXPORT_FORMATS`).

    ``players`` (``player_id``, ``country``, ``club``), where known, fills the EGD list's
    country and club.

    Raises
    ------
    ListExportError
        When a format cannot carry a row (a player without an id) or ``fmt`` is unknown.
    """
    if fmt not in EXPORT_FORMATS:
        raise ListExportError(f"unknown list format {fmt!r}: one of {', '.join(EXPORT_FORMATS)}")
    _check_ids(rows, header)
    if fmt == "fide-txt":
        return _fide_txt(rows, header)
    if fmt == "fide-xml":
        return _fide_xml(rows)
    if fmt == "egd":
        known = {} if players is None else {str(p["player_id"]): p for p in players.to_dicts()}
        return _egd(rows.to_dicts(), header, known)
    return _xlsx(rows, header)


def egd_left_out(rows: pl.DataFrame) -> int:
    """How many of ``rows`` the EGD list leaves out: players without an EGD PIN (5 to 9 digits).

    Examples
    --------
    >>> egd_left_out(pl.DataFrame({"player_id": ["13633719", "name:jose-munoz"]}))
    1
    """
    return sum(not _PIN.fullmatch(str(p).strip()) for p in rows.get_column("player_id").to_list())


def _whole(value: Any) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    number = float(value)
    return str(int(math.copysign(math.floor(abs(number) + 0.5), number)))


def _text(value: Any) -> str:
    return escape_controls(str(value)).strip() if value is not None else ""


def _check_ids(rows: pl.DataFrame, header: ListHeader) -> None:
    """Refuse the first row whose id no list can carry (none, empty, or with a space)."""
    if rows.height == 0:
        return
    ids = _column(rows, "player_id")
    text = ids.cast(pl.Utf8)
    # Python's whitespace (str.isspace) is Unicode's White_Space and the separators \x1c..\x1f.
    bad = (text.is_null() | (text == "") | text.str.contains(r"[\s\x1c-\x1f]")).fill_null(True)
    if bad.any():
        i = int(bad.arg_true()[0])
        pid = ids[i]
        raise ListExportError(f"{header.federation} edition {header.edition}, row {i + 1}, field 'player_id': "
                              f"{escape_controls(str(pid))!r} cannot be written as an id (empty or with spaces)")


def _column(rows: pl.DataFrame, name: str) -> pl.Series:
    return rows.get_column(name) if name in rows.columns else pl.Series(name, [None] * rows.height, pl.Utf8)


#: ``formats.safety``'s control characters in the regex syntax polars reads (Rust's). A
#: polars string holds no lone surrogate, so that range is left out.
_CONTROL_RS = r"[\x00-\x1f\x7f-\x{9f}\x{200e}\x{200f}\x{202a}-\x{202e}\x{2066}-\x{2069}\x{fffe}\x{ffff}]"


def _escaped(texts: pl.Series) -> pl.Series:
    """:func:`escape_controls` of every text (null stays null), in Python only for the rows that hold a control."""
    texts = texts.cast(pl.Utf8)
    hits = texts.str.contains(_CONTROL_RS).fill_null(False)
    if not hits.any():
        return texts
    index = hits.arg_true()
    shown = pl.Series([escape_controls(t) for t in texts.gather(index).to_list()], dtype=pl.Utf8)
    return texts.clone().scatter(index, shown)


def _stripped(texts: pl.Series) -> pl.Series:
    """``_text``: escaped, stripped, "" for none. Once the controls are escaped, polars' strip
    (Unicode's White_Space) removes what Python's ``str.strip`` does."""
    return _escaped(texts).str.strip_chars().fill_null("")


def _whole_column(rows: pl.DataFrame, name: str) -> pl.Series:
    """``_whole`` of a column: half away from zero, "" for none or NaN."""
    x = _column(rows, name).cast(pl.Float64)
    x = x.set(x.is_nan().fill_null(False), None)
    return ((x.abs() + 0.5).floor() * x.sign()).cast(pl.Int64).cast(pl.Utf8).fill_null("")


def _longest(texts: pl.Series) -> int:
    return int(texts.str.len_chars().max() or 0)  # type: ignore[arg-type]


def _flags(rows: pl.DataFrame) -> pl.Series:
    """FIDE's flag of each row: ``i`` for an inactive player, else empty."""
    inactive = (_column(rows, "status").cast(pl.Utf8) == "inactive").fill_null(False)
    return inactive.replace_strict({True: "i", False: ""}, return_dtype=pl.Utf8)


def _fide_txt(rows: pl.DataFrame, header: ListHeader) -> bytes:
    month = f"{MONTHS[header.as_of.month - 1]}{header.as_of.year % 100:02d}"
    ids = _stripped(_column(rows, "player_id"))
    names = _stripped(_column(rows, "name"))
    widths = [max(15, _longest(ids) + 1), max(61, _longest(names) + 1)]
    labels = ["ID Number", "Name"] + [label or month for label, _ in _TXT_TAIL]
    widths += [w for _, w in _TXT_TAIL]
    head = "".join(label.ljust(w) for label, w in zip(labels, widths, strict=True)).rstrip()
    tail = dict(zip(labels[2:], widths[2:], strict=True))
    blank = sum(tail[label] for label in ("Fed", "Sex", "Tit", "WTit", "OTit", "FOA"))
    frame = pl.DataFrame({"id": ids, "name": names, "rating": _whole_column(rows, "rating"),
                          "games": _whole_column(rows, "games"),
                          "flag": _flags(rows)})
    lines = frame.select(pl.concat_str(
        pl.col("id").str.pad_end(widths[0]), pl.col("name").str.pad_end(widths[1]), pl.lit(" " * blank),
        pl.col("rating").str.pad_end(tail[month]), pl.col("games").str.pad_end(tail["Gms"]),
        pl.lit(" " * (tail["K"] + tail["B-day"])), pl.col("flag"),
    ).str.strip_chars_end(" ").alias("line")).get_column("line")
    return ("\n".join([head, *lines.to_list()]) + "\n").encode("utf-8")


def _fide_xml(rows: pl.DataFrame) -> bytes:
    # The name keeps its spaces: &#32; would be the same; CR and tabs are written as references.
    fields = {"fideid": _stripped(_column(rows, "player_id")),
              "name": _escaped(_column(rows, "name")).fill_null(""),
              "rating": _whole_column(rows, "rating"), "games": _whole_column(rows, "games"), "flag": _flags(rows)}
    frame = pl.DataFrame(fields)

    def element(tag: str) -> pl.Expr:
        value = pl.col(tag)
        for char, entity in (("&", "&amp;"), ("<", "&lt;"), (">", "&gt;")):
            value = value.str.replace_all(char, entity, literal=True)
        return pl.when(pl.col(tag) == "").then(pl.lit(f"<{tag}/>")).otherwise(
            pl.concat_str(pl.lit(f"<{tag}>"), value, pl.lit(f"</{tag}>")))

    lines = frame.select(pl.concat_str(
        pl.lit("<player>"), element("fideid"), element("name"),
        pl.lit("<country/><sex/><title/><w_title/><o_title/><foa_title/>"), element("rating"), element("games"),
        pl.lit("<k/><birthday/>"), element("flag"), pl.lit("</player>"),
    ).alias("line")).get_column("line")
    return ("\n".join(['<?xml version="1.0" encoding="UTF-8"?>', "<playerslist>", *lines.to_list(), "</playerslist>"])
            + "\n").encode("utf-8")


def _egd(records: list[dict[str, Any]], header: ListHeader, players: Mapping[str, Mapping[str, Any]]) -> bytes:
    day = f"{header.as_of.day} {MONTHS[header.as_of.month - 1].title()} {header.as_of.year}"
    title = f"List of {header.federation.upper()} Players"
    rows = []
    for r in records:
        pid = _text(r["player_id"])
        if not _PIN.fullmatch(pid):
            continue   # not an EGD PIN: the EGD's list has no line for the player (egd_left_out)
        known = players.get(str(r["player_id"]), {})
        name = _text(r.get("name")) or "?"
        country = str(known.get("country") or "").upper()
        country = country if re.fullmatch(r"[A-Z]{2}", country) else "XX"
        club = re.sub(r"\s+", "_", _text(known.get("club"))) or "xxx"
        gor = _whole(r.get("rating")) or "0"
        grade = gor_grade(float(gor))
        rows.append(html.escape(f" {pid:>8}  {name:<36}  {country}  {club:<7} {grade:>4}   --  {gor:>5} "
                                f"{0:>5}  -", quote=False))
    page = [
        '<!DOCTYPE html>', '<html lang="en">', '<head><meta charset="utf-8">', f"<title> {html.escape(title)} </title>",
        "</head>", "<body>", "<center>", f"<h1>{html.escape(title)}</h1>", "<hr>", f"({day})", "<hr>", "</center>",
        "", "<pre>", "<b>", "                                                                                    Last",
        "   PIN          Name                              Club     Grade P&amp;D    GoR    NT appearance", "</b>",
        *rows, "</pre>", "</body>", "</html>",
    ]
    return ("\n".join(page) + "\n").encode("utf-8")


def _xlsx(rows: pl.DataFrame, header: ListHeader) -> bytes:
    from openpyxl import Workbook

    book = Workbook()
    sheet = book.active
    sheet.title = re.sub(r"[^A-Za-z0-9 _-]", "_", f"{header.federation} {header.list_name or ''}".strip())[:31]
    sheet.append(list(rows.columns))
    for record in rows.iter_rows():
        sheet.append([_cell(v) for v in record])
    for cells in sheet.iter_rows(min_row=2):
        for cell in cells:
            if isinstance(cell.value, str):
                cell.data_type = "s"   # text stays text: never a formula ("=...") nor an error code
    stamp = datetime(header.as_of.year, header.as_of.month, header.as_of.day)
    book.properties.creator = "Federation Ratings"
    book.properties.created = stamp
    buffer = io.BytesIO()
    book.save(buffer)
    return _fixed_zip(buffer.getvalue(), stamp)


def _cell(value: Any) -> Any:
    if isinstance(value, str):
        return escape_controls(value)
    if isinstance(value, date | datetime):
        return value.isoformat()
    return value


def _fixed_zip(data: bytes, stamp: datetime) -> bytes:
    """The same workbook with every member dated ``stamp`` (the save time otherwise)."""
    out = io.BytesIO()
    when = stamp.strftime("%Y-%m-%dT%H:%M:%SZ")
    with zipfile.ZipFile(io.BytesIO(data)) as src, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            body = src.read(info.filename)
            if info.filename == "docProps/core.xml":
                body = re.sub(rb"(<dcterms:modified[^>]*>)[^<]*", rb"\g<1>" + when.encode(), body)
            dst.writestr(zipfile.ZipInfo(info.filename, date_time=stamp.timetuple()[:6]), body,
                         compress_type=zipfile.ZIP_DEFLATED)
    return out.getvalue()


def read_xlsx(data: bytes) -> pl.DataFrame:
    """The rows of a spreadsheet :func:`export_list` wrote (its first sheet; the first row names the columns).

    Examples
    --------
    >>> rows = pl.DataFrame({"player_id": ["007"], "name": ["=1+1"], "rating": [1510]})
    >>> read_xlsx(export_list(rows, "xlsx", ListHeader("ajusc", 1, date(2025, 9, 1)))).row(0)
    ('007', '=1+1', 1510)
    """
    from openpyxl import load_workbook

    book = load_workbook(io.BytesIO(data), read_only=True, data_only=False)
    sheet = book.worksheets[0]
    values = [list(r) for r in sheet.iter_rows(values_only=True)]
    book.close()
    if not values:
        return pl.DataFrame()
    columns = [str(c) for c in values[0]]
    return pl.DataFrame([dict(zip(columns, r, strict=False)) for r in values[1:]], schema=columns,
                        infer_schema_length=None) if len(values) > 1 else pl.DataFrame(schema=columns)
