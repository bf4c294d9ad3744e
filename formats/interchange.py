"""Interchange CSV: ``*.results.csv``, ``*.players.csv``, ``*.ratings.csv``, ``*.aliases.csv``.

The reference format every federation accepts (``../shared/DESIGN.md``,
"Interchange CSV"). UTF-8, a header row, ``,`` separated, quotes as in RFC 4180.
Line numbers count physical lines with the header as line 1.

Severity of reader findings, as an organiser would expect them:

* ``reject`` — a row that cannot be read (wrong number of fields, bad score,
  date, round or player id, unknown federation) or a missing required column:
  the competition's record is incomplete, so it is not rated until a corrected
  file arrives.
* ``exclude`` — a game listed twice (same round, same two players): the
  repetition is not rated, the first row is.
* ``warn`` — unknown columns, a file not in UTF-8 (decoded as Windows-1252),
  a competition name that differs between rows.
"""


from __future__ import annotations

from formats._common import (
    Findings,
    decode,
)
from formats.interchange_csv import (
    RESULTS_COLUMNS,
    RESULTS_REQUIRED,
    _rows,
    kind_of_header,
)
from formats.interchange_lists import _aliases, _players, _ratings
from formats.interchange_results import _results
from formats.result import ReadResult, sha256

__all__ = [
    "RESULTS_COLUMNS",
    "RESULTS_REQUIRED",
    "from_interchange",
    "kind_of_header",
]


def from_interchange(data: bytes, name: str, *, federation: str | None = None) -> ReadResult:
    """Read any interchange CSV file.

    Parameters
    ----------
    data
        The file's bytes.
    name
        File name, reported in findings and in ``source``.
    federation
        Expected federation: rows of another one are refused; a federation not
        among :data:`~formats._common.KNOWN_FEDERATIONS` is accepted only if it is this one.

    Returns
    -------
    ReadResult
        ``format`` is ``interchange-results``, ``-players``, ``-ratings`` or ``-aliases``.

    Examples
    --------
    >>> csv_ = (b"federation,competition_id,start_date,round,player_a,player_b,score_a\\n"
    ...         b"ajusc,C1,2025-10-04,1,7,9,1\\najusc,C1,2025-10-04,2,9,7,x\\n")
    >>> r = from_interchange(csv_, "c1.results.csv")
    >>> r.games.select("player_a", "player_b", "score_a", "source_line").rows()
    [('7', '9', 1.0, 2)]
    >>> r.findings.select("rule", "severity", "line", "field").rows()
    [('format.csv.bad_score', 'reject', 3, 'score_a')]
    """
    digest = sha256(data)
    f = Findings(name, federation)
    if not data.strip():
        f.add("format.csv.empty", "reject", "the file is empty: send the results with a header row")
        return ReadResult.build(name, digest, None, f)
    dec = decode(data)
    if dec.first_non_utf8_line is not None:
        f.add(
            "format.csv.encoding",
            "warn",
            str(dec.warning()),
            line=dec.first_non_utf8_line,
        )
    rows = _rows(dec.text)
    first = next(rows, None)
    if first is None:
        f.add("format.csv.empty", "reject", "the file has no header row")
        return ReadResult.build(name, digest, None, f)
    header = [h.strip().lower().lstrip("\ufeff") for h in first[1]]
    kind = kind_of_header(header)
    if kind is None:
        f.add(
            "format.csv.unknown_header",
            "reject",
            f"not an interchange file: header {','.join(first[1])!r} has none of the "
            "column sets of *.results.csv, *.players.csv, *.ratings.csv, *.aliases.csv",
            line=first[0],
        )
        return ReadResult.build(name, digest, None, f)
    if kind == "results":
        return _results(name, digest, header, first[0], dec.text, f, federation)
    reader = {"players": _players, "ratings": _ratings, "aliases": _aliases}[kind]
    return reader(name, digest, header, first[0], rows, f, federation)

