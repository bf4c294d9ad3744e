"""A minimal dBase III writer for test fixtures (Swiss Perfect ``.trn`` tables).

Layout (``../shared/rules/swissperfect.md``): 32-byte header (version 0x03, date,
record count uint32 LE at 4, header length uint16 at 8, record length uint16 at
10), 32-byte field descriptors ended by 0x0D, fixed-width records each starting
with a flag byte, 0x1A at the end. Only types C and N are written.
"""

from __future__ import annotations

import struct


def write_dbf(
    fields: list[tuple[str, str, int]], records: list[dict[str, object]], encoding: str = "cp1252"
) -> bytes:
    """The bytes of a dBase III table; ``fields`` are ``(name, type C|N, length)``."""
    header_len = 32 + 32 * len(fields) + 1
    record_len = 1 + sum(length for _, _, length in fields)
    out = bytearray(
        struct.pack("<BBBBIHH20x", 0x03, 125, 11, 30, len(records), header_len, record_len)
    )
    for name, kind, length in fields:
        out += struct.pack("<11sc4xBB14x", name.encode("ascii"), kind.encode("ascii"), length, 0)
    out += b"\r"
    for rec in records:
        out += b" "
        for name, kind, length in fields:
            value = rec.get(name)
            text = "" if value is None else str(value)
            raw = text.encode(encoding)
            out += raw.rjust(length) if kind == "N" else raw.ljust(length)
    out += b"\x1a"
    return bytes(out)
