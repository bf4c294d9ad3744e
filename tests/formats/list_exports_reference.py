"""The FIDE TXT and XML writers as they were written first, one row at a time in Python
(formats/list_exports.py before the writers became polars expressions): the reference the
vectorised writers must equal byte for byte (tests/formats/test_list_exports.py)."""

from __future__ import annotations

import html
import math
from typing import Any

from formats.fide_lists import MONTHS
from formats.list_exports import ListHeader
from formats.safety import escape_controls

_TXT_TAIL = (("Fed", 4), ("Sex", 4), ("Tit", 5), ("WTit", 5), ("OTit", 15), ("FOA", 4), (None, 6), ("Gms", 4),
             ("K", 4), ("B-day", 6), ("Flag", 4))


def _whole(value: Any) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    number = float(value)
    return str(int(math.copysign(math.floor(abs(number) + 0.5), number)))


def _text(value: Any) -> str:
    return escape_controls(str(value)).strip() if value is not None else ""


def fide_txt(records: list[dict[str, Any]], header: ListHeader) -> bytes:
    month = f"{MONTHS[header.as_of.month - 1]}{header.as_of.year % 100:02d}"
    ids = [_text(r["player_id"]) for r in records]
    names = [_text(r.get("name")) for r in records]
    widths = [max([15, *(len(x) + 1 for x in ids)]), max([61, *(len(x) + 1 for x in names)])]
    labels = ["ID Number", "Name"] + [label or month for label, _ in _TXT_TAIL]
    widths += [w for _, w in _TXT_TAIL]
    lines = ["".join(label.ljust(w) for label, w in zip(labels, widths, strict=True)).rstrip()]
    for pid, name, r in zip(ids, names, records, strict=True):
        tail = {"Gms": _whole(r.get("games")), month: _whole(r.get("rating")),
                "Flag": "i" if r.get("status") == "inactive" else ""}
        cells = [pid, name] + [tail.get(label, "") for label in labels[2:]]
        lines.append("".join(c.ljust(w) for c, w in zip(cells, widths, strict=True)).rstrip())
    return ("\n".join(lines) + "\n").encode("utf-8")


def fide_xml(records: list[dict[str, Any]]) -> bytes:
    out = ['<?xml version="1.0" encoding="UTF-8"?>', "<playerslist>"]
    for r in records:
        fields = {"fideid": _text(r["player_id"]), "name": escape_controls(str(r.get("name") or "")),
                  "country": "", "sex": "", "title": "", "w_title": "", "o_title": "", "foa_title": "",
                  "rating": _whole(r.get("rating")), "games": _whole(r.get("games")), "k": "", "birthday": "",
                  "flag": "i" if r.get("status") == "inactive" else ""}
        body = "".join(f"<{k}>{html.escape(v, quote=False)}</{k}>" if v else f"<{k}/>" for k, v in fields.items())
        out.append(f"<player>{body}</player>")
    out.append("</playerslist>")
    return ("\n".join(out) + "\n").encode("utf-8")
