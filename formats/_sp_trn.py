"""The participants table of a Swiss Perfect tournament (``<stem>.trn``, :mod:`formats.swissperfect`):
a dBase III table read with :mod:`dbfread` in Windows-1252, giving names to the start numbers."""

from __future__ import annotations

import struct
import tempfile
from pathlib import Path
from typing import Any

from formats._common import Findings, is_digits
from formats.identity import player_id

__all__ = ["read_trn"]


def _dbase_header_problem(data: bytes) -> str | None:
    """Why ``data`` cannot be a whole dBase III table, or None.

    Checked before :mod:`dbfread` sees it: the reader trusts the header's record
    count, so a corrupt header would have it loop over billions of records.

    Examples
    --------
    >>> _dbase_header_problem(b"\\x03" + bytes(10))
    'shorter than its 32-byte header'
    """
    if len(data) < 32:
        return "shorter than its 32-byte header"
    count, header_len, record_len = struct.unpack_from("<IHH", data, 4)
    if header_len < 33 or record_len < 1:
        return f"header length {header_len} or record length {record_len} is impossible"
    if header_len + count * record_len > len(data):
        return f"{count} records of {record_len} bytes do not fit in {len(data)} bytes"
    return None


def read_trn(
    trns: list[tuple[str, int | None, bytes]], f: Findings, fed: str
) -> dict[int, dict[str, Any]]:
    if not trns:
        return {}
    from dbfread import DBF  # a dBase reader: the .trn is a dBase III table
    from dbfread.exceptions import DBFNotFound

    fname, _, data = trns[0]
    out: dict[int, dict[str, Any]] = {}
    problem = _dbase_header_problem(data)
    if problem is not None:
        f.add(
            "format.swissperfect.bad_trn",
            "warn",
            f"the participants table is not a complete dBase table ({problem}); players stay start "
            "numbers: send the .trn again",
            source=fname,
        )
        return {}
    try:
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "players.dbf"
            path.write_bytes(data)
            table = DBF(
                str(path),
                encoding="cp1252",
                ignore_missing_memofile=True,
                char_decode_errors="replace",
            )
            records = list(table)
    except (ValueError, DBFNotFound, OSError, KeyError, IndexError, EOFError, struct.error) as exc:
        f.add(
            "format.swissperfect.bad_trn",
            "warn",
            f"the participants table cannot be read ({exc}); players stay start numbers",
            source=fname,
        )
        return {}
    for i, rec in enumerate(records, start=1):
        surname = str(rec.get("SURNAME") or "").strip()
        if not surname:
            continue  # Swiss Perfect keeps blank spare records at the end of the table
        key = rec.get("ID") if isinstance(rec.get("ID"), int) else None
        if key is None:
            start_no = str(rec.get("START_NO") or "").strip()
            key = int(start_no) if is_digits(start_no) else None
        if key is None:
            f.add(
                "format.swissperfect.bad_trn",
                "reject",
                f"participant {surname!r} has no ID nor START_NO",
                line=i,
                field="ID",
                source=fname,
            )
            continue
        first = str(rec.get("FIRSTNAME") or "").strip()
        full = f"{first} {surname}".strip()
        loc = str(rec.get("LOC_ID") or "").strip()
        out[key] = {
            "player_id": player_id(loc, full) or full,
            "name": full,
            "club": str(rec.get("CLUB") or "").strip() or None,
            "country": str(rec.get("FEDER") or "").strip() or None,
        }
    return out
