"""Which format a file is (:func:`formats.detect`), judged by its content: each format's probe looks
at the first 4 KiB in turn; the name only breaks ties (a Swiss Perfect dBase table, an ``.ini``)."""

from __future__ import annotations

from collections.abc import Callable

from formats._common import decode
from formats.egd import looks_like_egd
from formats.interchange import kind_of_header
from formats.opengotha import looks_like_opengotha
from formats.pairgoth import looks_like_pairgoth
from formats.ratinglists import looks_like_egd_list
from formats.swissperfect import RND_HEADER, STG_HEADER, stem_of
from formats.trf import looks_like_trf
from formats.tsh import looks_like_tsh, looks_like_tsh_newt

__all__ = ["detect"]


def _head_text(data: bytes, n: int = 4096) -> str:
    return decode(data[:n]).text


def detect(data: bytes, name: str) -> str | None:
    """The format of a file, judged by its content (the extension only breaks ties).

    Returns one of ``interchange-results``, ``interchange-players``,
    ``interchange-ratings``, ``interchange-aliases``, or None when not recognised.

    Examples
    --------
    >>> detect(b"federation,player_id,name,rating,games,as_of\\n", "list.txt")
    'interchange-ratings'
    >>> detect(b"\\x00\\x01", "a.csv") is None
    True
    """
    parts = stem_of(name)
    if (
        parts is not None
        and parts[2] in ("trn", "sco")
        and data[:1] in (b"\x03", b"\x83", b"\x30", b"\xf5")
    ):
        return "swissperfect"  # a dBase table of a Swiss Perfect tournament
    head = _head_text(data).lstrip("\ufeff")
    first = head.splitlines()[0] if head.strip() else ""
    for probe in _PROBES:
        fmt = probe(head, first, name)
        if fmt is not None:
            return fmt
    return None


def _probe_interchange(head: str, first: str, name: str) -> str | None:
    if "," not in first:
        return None
    kind = kind_of_header([c.strip().strip('"').lower() for c in first.split(",")])
    return None if kind is None else f"interchange-{kind}"


def _probe_trf(head: str, first: str, name: str) -> str | None:
    return "trf" if looks_like_trf(head) else None


def _probe_opengotha(head: str, first: str, name: str) -> str | None:
    if looks_like_pairgoth(head):
        return "pairgoth"
    return "opengotha" if looks_like_opengotha(head) else None


def _probe_swissperfect(head: str, first: str, name: str) -> str | None:
    up = first.strip().upper()
    if up.startswith((RND_HEADER, STG_HEADER)):
        return "swissperfect"
    if "[tournament info]" in head.lower() and (
        "[textdump]" in head.lower()
        or "swiss" in head.lower()
        or (stem_of(name) or ("", 0, ""))[2] == "ini"
    ):
        return "swissperfect"
    return None


def _probe_egd(head: str, first: str, name: str) -> str | None:
    if looks_like_egd_list(head):
        return "egd-ratings"
    return "egd" if looks_like_egd(head) else None


def _probe_tsh(head: str, first: str, name: str) -> str | None:
    if looks_like_tsh_newt(head):
        return "tsh-newt"
    return "tsh" if looks_like_tsh(head, name) else None


_PROBES: list[Callable[[str, str, str], str | None]] = [
    _probe_interchange,
    _probe_opengotha,
    _probe_swissperfect,
    _probe_egd,
    _probe_trf,
    _probe_tsh,
]
