"""FIDE's published rating-list downloads: the fixed-width TXT and the XML.

TXT (``standard_rating_list.txt``, one list per file): a header line naming the
columns, then one player per line, each field at the column of its header label::

    ID Number      Name                  Fed Sex Tit  WTit OTit           FOA JAN26 Gms  K  B-day Flag

The rating column is labelled with the list's month (``JAN26``: the list of
1 January 2026, which becomes ``as_of``); ``Rtng``/``SRtng`` labels are read too.
The columns are found from the header, so a file with a wider ID or name column
reads the same. ``Flag`` ``i`` (``wi``) marks an inactive player.

XML (``players_list_xml``)::

    <playerslist><player><fideid>…</fideid><name>…</name><country>…</country>
      <rating>…</rating><games>…</games><k>…</k><flag>…</flag>…</player>…</playerslist>

The XML carries no date: ``as_of`` comes from the file's name (an ISO date, or
FIDE's ``jan26`` as in ``standard_jan26frl_xml.xml``), or from ``as_of=``.
Both are read as a ``RATINGS_SCHEMA`` frame (``player_id`` the FIDE id) with the
players' federation (``country``) and birth year in the players frame. XML is
parsed with defusedxml (no entity expansion).
"""

from __future__ import annotations

import re
from datetime import date
from typing import Any

from formats._common import Findings, decode, split_lines
from formats.result import ReadResult, frame, sha256
from formats.schema import PLAYERS_SCHEMA, RATINGS_SCHEMA

__all__ = ["MONTHS", "from_fide_txt", "from_fide_xml", "list_month", "looks_like_fide_txt", "looks_like_fide_xml"]

MONTHS = ("JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC")
_ANY_MONTH = "|".join(MONTHS)
_MONTH_LABEL = re.compile(rf"^({_ANY_MONTH})(\d{{2}})$")
_RATING_LABELS = ("Rtng", "SRtng", "Rating")
#: The TXT columns read, by header label (the rating column is found by its month label).
_TXT_FIELDS = ("ID Number", "Name", "Fed", "Sex", "Tit", "WTit", "OTit", "FOA", "Gms", "K", "B-day", "Flag")


def list_month(label: str) -> date | None:
    """The first day of a FIDE list month label (``JAN26``), else ``None``.

    Examples
    --------
    >>> list_month("SEP25"), list_month("Rtng")
    (datetime.date(2025, 9, 1), None)
    """
    m = _MONTH_LABEL.match(label.upper())
    return date(2000 + int(m[2]), MONTHS.index(m[1]) + 1, 1) if m else None


def looks_like_fide_txt(head: str) -> bool:
    """Whether a text starts with a FIDE TXT list header.

    Examples
    --------
    >>> looks_like_fide_txt("ID Number      Name   Fed Sex Tit  WTit OTit FOA JAN26 Gms  K  B-day Flag\\n")
    True
    """
    first = head.lstrip("\ufeff").split("\n", 1)[0]
    return first.startswith("ID Number") and " Name " in first and " Fed " in first


def looks_like_fide_xml(head: str) -> bool:
    """Whether a text is FIDE's XML list (``<playerslist>``)."""
    return "<playerslist" in head and "<player>" in head


def _name_date(name: str) -> date | None:
    m = re.search(r"(\d{4})-(\d{2})-(\d{2})", name)
    if m:
        try:
            return date(int(m[1]), int(m[2]), int(m[3]))
        except ValueError:
            return None
    m = re.search(rf"(?i)(?<![a-z])({_ANY_MONTH})(\d{{2}})(?!\d)", name)
    return list_month(f"{m[1]}{m[2]}") if m else None


def _int(text: str, f: Findings, line: int | None, field: str) -> int | None:
    text = text.strip()
    if not text:
        return None
    if re.fullmatch(r"-?\d+", text):
        return int(text)
    f.add("format.fidelist.bad_number", "reject", f"{field} {text!r} is not a whole number", line=line, field=field)
    return None


def _row(fed: str, pid: str, name: str, values: dict[str, str], as_of: date | None, rating: int | None,
         games: int | None, k: int | None, birth: int | None) -> tuple[dict[str, Any], dict[str, Any]]:
    flag = values.get("flag", "").strip().lower()
    country = values.get("country", "").strip() or None
    return (
        {"federation": fed, "player_id": pid, "name": name or None, "rating": None if rating is None else float(rating),
         "games": games, "as_of": as_of, "k": k, "status": "inactive" if "i" in flag else None},
        {"federation": fed, "player_id": pid, "name": name or None, "country": country, "birth_year": birth,
         "declared_rating": None if rating is None else float(rating), "declared_rating_origin": "FIDE"},
    )


def _build(name: str, digest: str, kind: str, f: Findings, rows: list[tuple[dict[str, Any], dict[str, Any]]],
           as_of: date | None) -> ReadResult:
    if as_of is None:
        f.add("format.fidelist.missing_date", "warn",
              "the list's date is neither in its header (a month like JAN26) nor in the file's name", field="as_of")
    if not rows:
        f.add("format.fidelist.empty", "reject", "no player in the list")
    return ReadResult.build(name, digest, kind, f, ratings=frame([r for r, _ in rows], RATINGS_SCHEMA),
                            players=frame([p for _, p in rows], PLAYERS_SCHEMA))


def from_fide_txt(data: bytes, name: str, *, federation: str | None = None, as_of: date | None = None) -> ReadResult:
    """Read FIDE's fixed-width TXT rating list.

    Examples
    --------
    >>> txt = (b"ID Number      Name             Fed Sex Tit  WTit OTit FOA SEP25 Gms  K  B-day Flag\\n"
    ...        b"1503014        Carlsen, Magnus  NOR M   GM                 2839  9    10 1990  i\\n")
    >>> from_fide_txt(txt, "standard.txt").ratings.select("player_id", "name", "rating", "games", "as_of",
    ...                                                  "k", "status").row(0)
    ('1503014', 'Carlsen, Magnus', 2839.0, 9, datetime.date(2025, 9, 1), 10, 'inactive')
    """
    fed = federation or "fide"
    digest = sha256(data)
    f = Findings(name, fed)
    lines = split_lines(decode(data).text)
    header_at = next((i for i, ln in enumerate(lines) if looks_like_fide_txt(ln)), None)
    if header_at is None:
        f.add("format.fidelist.no_header", "reject", "no header line starting 'ID Number  Name  Fed ...'", line=1)
        return _build(name, digest, "fide-txt", f, [], as_of)
    header = lines[header_at].lstrip("\ufeff")
    starts: dict[str, int] = {}
    for m in re.finditer(r"ID Number|\S+", header):
        label = m[0]
        key = ("rating" if list_month(label) or label in _RATING_LABELS else label)
        if key == "rating" and list_month(label) and as_of is None:
            as_of = list_month(label)
        if key in _TXT_FIELDS or key == "rating":
            starts.setdefault(key, m.start())
    for needed in ("ID Number", "Name", "rating"):
        if needed not in starts:
            f.add("format.fidelist.missing_column", "reject", f"the header has no {needed!r} column",
                  line=header_at + 1, field=needed)
    if f.has_reject():
        return _build(name, digest, "fide-txt", f, [], as_of)
    order = sorted(starts.items(), key=lambda kv: kv[1])
    spans = {key: (at, order[i + 1][1] if i + 1 < len(order) else None) for i, (key, at) in enumerate(order)}
    rows = []
    for n, ln in enumerate(lines[header_at + 1:], start=header_at + 2):
        if not ln.strip():
            continue
        v = {key: ln[a:b].strip() for key, (a, b) in spans.items()}
        pid = v["ID Number"]
        if not pid:
            f.add("format.fidelist.missing_id", "reject", "a player line has no ID number", line=n, field="ID Number")
            continue
        values = {"country": v.get("Fed", ""), "flag": v.get("Flag", "")}
        rows.append(_row(fed, pid, v["Name"], values, as_of, _int(v["rating"], f, n, "rating"),
                         _int(v.get("Gms", ""), f, n, "Gms"), _int(v.get("K", ""), f, n, "K"),
                         _int(v.get("B-day", ""), f, n, "B-day")))
    return _build(name, digest, "fide-txt", f, rows, as_of or _name_date(name))


def from_fide_xml(data: bytes, name: str, *, federation: str | None = None, as_of: date | None = None) -> ReadResult:
    """Read FIDE's XML rating list (``<playerslist>``).

    Examples
    --------
    >>> xml = (b"<playerslist><player><fideid>1503014</fideid><name>Carlsen, Magnus</name><country>NOR</country>"
    ...        b"<rating>2839</rating><games>9</games><k>10</k><birthday>1990</birthday><flag></flag>"
    ...        b"</player></playerslist>")
    >>> from_fide_xml(xml, "standard_sep25frl_xml.xml").ratings.select("player_id", "rating", "as_of").row(0)
    ('1503014', 2839.0, datetime.date(2025, 9, 1))
    """
    from xml.etree.ElementTree import ParseError

    from defusedxml import DefusedXmlException
    from defusedxml.ElementTree import fromstring

    fed = federation or "fide"
    digest = sha256(data)
    f = Findings(name, fed)
    as_of = as_of or _name_date(name)
    try:
        root = fromstring(data)
    except (ParseError, DefusedXmlException) as error:
        where = getattr(error, "position", (None, None))[0]
        f.add("format.fidelist.bad_xml", "reject", f"not well-formed XML: {error}", line=where)
        return _build(name, digest, "fide-xml", f, [], as_of)
    rows = []
    for i, player in enumerate(root.iter("player"), start=1):
        v = {child.tag: (child.text or "") for child in player}
        pid = v.get("fideid", "").strip()
        where = f"player {i}"
        if not pid:
            f.add("format.fidelist.missing_id", "reject", f"{where} has no <fideid>", field="fideid")
            continue
        rows.append(_row(fed, pid, v.get("name", ""), v, as_of, _int(v.get("rating", ""), f, None, f"{where} rating"),
                         _int(v.get("games", ""), f, None, f"{where} games"), _int(v.get("k", ""), f, None, f"{where} k"),
                         _int(v.get("birthday", ""), f, None, f"{where} birthday")))
    return _build(name, digest, "fide-xml", f, rows, as_of)
