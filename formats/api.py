"""One entry point: detect a file's format by its content and read it.

``read(path)`` accepts a file, or a Swiss Perfect tournament (a folder, or the
``.ini`` / any ``.rnd`` of a set sharing a stem). ``group_inbox(paths)`` tells the
flow which inbox entries belong together.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import polars as pl

from formats._common import FormatError, decode
from formats.interchange import from_interchange, kind_of_header
from formats.opengotha import from_opengotha, looks_like_opengotha
from formats.result import ReadResult
from formats.trf import from_trf, looks_like_trf
from formats.schema import RATINGS_SCHEMA

__all__ = ["read", "read_bytes", "read_ratings", "detect", "READERS", "RatingsFileError"]

Reader = Callable[..., ReadResult]


class RatingsFileError(FormatError):
    """A starting rating list cannot be read; the message lists file, line and field of each problem."""


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
    return "opengotha" if looks_like_opengotha(head) else None


_PROBES: list[Callable[[str, str, str], str | None]] = [_probe_interchange, _probe_opengotha, _probe_trf]

#: Reader of each detected format: ``reader(data, name, federation=...) -> ReadResult``.
READERS: dict[str, Reader] = {
    "interchange-results": from_interchange,
    "interchange-players": from_interchange,
    "interchange-ratings": from_interchange,
    "interchange-aliases": from_interchange,
    "trf": from_trf,
    "opengotha": from_opengotha,
}


def read_bytes(data: bytes, name: str, *, federation: str | None = None) -> ReadResult:
    """Read one file's bytes into canonical frames; never raises for the file's content.

    Parameters
    ----------
    data
        The file's bytes.
    name
        Its file name (reported in findings and ``source``).
    federation
        The federation the file was sent to, when known.

    Examples
    --------
    >>> r = read_bytes(b"", "empty.results.csv")
    >>> r.findings.select("rule", "severity").row(0)
    ('format.empty', 'reject')
    """
    if not data.strip():
        return ReadResult.refused(name, data, "format.empty", "the file is empty", federation=federation)
    fmt = detect(data, name)
    if fmt is None:
        return ReadResult.refused(
            name, data, "format.unknown",
            "not a results file of any supported format (interchange CSV, TRF, OpenGotha XML, EGD .h9, "
            "Swiss Perfect .rnd, TSH .t): check that the right file was sent",
            federation=federation, line=1,
        )
    return READERS[fmt](data, name, federation=federation)


def read(path: Path, *, federation: str | None = None) -> ReadResult:
    """Read a file from disk (see :func:`read_bytes`).

    An unreadable path (missing, a permission problem) is a ``format.io`` finding.

    Examples
    --------
    >>> read(Path("/nonexistent/x.results.csv")).findings["rule"].to_list()
    ['format.io']
    """
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        return ReadResult.refused(path.name, b"", "format.io", f"cannot read the file: {exc.strerror}",
                                  federation=federation)
    return read_bytes(data, path.name, federation=federation)


def read_ratings(path: Path, *, federation: str | None = None) -> pl.DataFrame:
    """Read a starting rating list (``*.ratings.csv``) as a ``RATINGS_SCHEMA`` frame.

    Raises
    ------
    RatingsFileError
        When the file is not a rating list or a row cannot be read (the
        message names file, line and field of every problem).

    Examples
    --------
    >>> import tempfile, os
    >>> p = Path(tempfile.mkdtemp()) / "seed.ratings.csv"
    >>> _ = p.write_text("federation,player_id,name,rating,games,as_of\\najusc,7,Ann,1100,40,2025-09-01\\n")
    >>> read_ratings(p).select("player_id", "rating", "games").row(0)
    ('7', 1100.0, 40)
    """
    result = read(path, federation=federation)
    rejects = result.findings.filter(pl.col("severity") == "reject")
    if result.format not in ("interchange-ratings", "egd-ratings") and rejects.height == 0:
        raise RatingsFileError(f"{result.source}: not a rating list (detected {result.format!r})")
    if rejects.height:
        raise RatingsFileError("\n".join(rejects["message"].to_list()))
    return result.ratings.select(list(RATINGS_SCHEMA))
