"""Shared helpers of the readers: findings, decoding, line splitting and dates.

Every reader is pure (bytes in, frames and findings out). A reader never raises
for a user's file: what it cannot read becomes a finding naming the file, the
line and the field, collected with :class:`Findings`.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Iterator
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from datetime import date

import polars as pl

from formats.schema import FINDINGS_SCHEMA, empty, plain_frame

__all__ = [
    "KNOWN_FEDERATIONS",
    "Decoded",
    "Findings",
    "FormatError",
    "decode",
    "is_digits",
    "parse_date",
    "parse_iso_date",
    "split_lines",
    "use_federations",
]

class _Federations(AbstractSet[str]):
    """The federations this process is configured for: a live, read-only set.

    The readers accept a file's ``federation`` column only for these. The packaged
    config's three are known from the start (``../shared/DESIGN.md``); loading an
    installation's config (``flows.config.federations``) calls :func:`use_federations`,
    so a federation that is only a ``federations.toml`` table is read like the others.
    """

    def __init__(self, names: frozenset[str]) -> None:
        self._names = names

    def __contains__(self, name: object) -> bool:
        return name in self._names

    def __iter__(self) -> Iterator[str]:
        return iter(self._names)

    def __len__(self) -> int:
        return len(self._names)

    def __repr__(self) -> str:
        return f"KNOWN_FEDERATIONS({', '.join(sorted(self._names))})"


#: Federations the readers accept (see :class:`_Federations`); set by :func:`use_federations`.
_KNOWN = _Federations(frozenset({"ajusc", "fide", "egf"}))
KNOWN_FEDERATIONS: AbstractSet[str] = _KNOWN


def use_federations(names: Iterable[str]) -> None:
    """Make ``names`` the federations the readers accept (the configured ones).

    Examples
    --------
    >>> use_federations(["ajusc", "fide", "egf", "nsw"]); "nsw" in KNOWN_FEDERATIONS
    True
    >>> use_federations(["ajusc", "fide", "egf"]); sorted(KNOWN_FEDERATIONS)
    ['ajusc', 'egf', 'fide']
    """
    _KNOWN._names = frozenset(name.lower() for name in names)


def is_digits(s: str) -> bool:
    """Whether ``s`` is one or more ASCII digits (``str.isdigit`` also accepts "¹", which ``int`` refuses).

    Examples
    --------
    >>> is_digits("0042"), is_digits("¹"), is_digits("")
    (True, False, False)
    """
    return s.isascii() and s.isdigit()


class FormatError(ValueError):
    """A file's content cannot be turned into the canonical frames."""


@dataclass
class Findings:
    """Collects the findings of one file, in the order they were found.

    Parameters
    ----------
    source
        File name reported in every finding.
    federation
        Federation reported when a finding does not name one.

    Examples
    --------
    >>> f = Findings("a.results.csv", "ajusc")
    >>> f.add("format.csv.bad_score", "reject", "score_a must be 1, 0.5 or 0, not 'x'", line=3, field="score_a")
    >>> f.frame().select("rule", "line", "field").row(0)
    ('format.csv.bad_score', 3, 'score_a')
    """

    source: str
    federation: str | None = None
    rows: list[dict[str, object]] = field(default_factory=list)

    def add(
        self,
        rule: str,
        severity: str,
        message: str,
        *,
        line: int | None = None,
        field: str | None = None,
        competition_id: str | None = None,
        federation: str | None = None,
        source: str | None = None,
    ) -> None:
        """Record one finding (``severity``: ``reject``, ``hold``, ``exclude`` or ``warn``).

        ``source`` names another file of the same set (Swiss Perfect) than the default.
        """
        assert severity in ("reject", "hold", "exclude", "warn"), severity
        src = source or self.source
        where = f"{src}" + (f", line {line}" if line is not None else "")
        where += f", field {field!r}" if field is not None else ""
        self.rows.append(
            {
                "federation": federation or self.federation,
                "competition_id": competition_id,
                "rule": rule,
                "severity": severity,
                "message": f"{where}: {message}",
                "source": src,
                "line": line,
                "field": field,
            }
        )

    def __len__(self) -> int:
        return len(self.rows)

    def has_reject(self) -> bool:
        """Whether any finding rejects the competition."""
        return any(r["severity"] == "reject" for r in self.rows)

    def frame(self) -> pl.DataFrame:
        """The findings as a ``FINDINGS_SCHEMA`` frame."""
        if not self.rows:
            return empty(FINDINGS_SCHEMA)
        built = plain_frame(self.rows, FINDINGS_SCHEMA)
        if built is not None:
            return built
        return pl.DataFrame([pl.Series(n, [r.get(n) for r in self.rows], dtype=dtype, strict=False)
                             for n, dtype in FINDINGS_SCHEMA.items()])


@dataclass(frozen=True)
class Decoded:
    """Text decoded from a file's bytes."""

    text: str
    encoding: str  #: ``utf-8``, ``utf-8-sig``, ``utf-16-le``, ``utf-16-be``, ``cp1252`` or ``latin-1``
    first_non_utf8_line: (
        int | None
    )  #: 1-based line of the first byte that is not UTF-8; None if all is
    #: The first bytes that are not UTF-8, as hex (``"e9 20"``): what the warning names.
    bad_bytes: str | None = None

    def warning(self) -> str | None:
        """The one-line warning a reader adds when the file was not UTF-8 (None when it was).

        Examples
        --------
        >>> print(decode(b"id,name\\n1,Mar\\xe7al\\n").warning())
        the file is not UTF-8: bytes e7 61 on line 2 were read as cp1252 ('ça'); check the names, or save the file as UTF-8
        """
        if self.first_non_utf8_line is None:
            return None
        raw = bytes.fromhex(self.bad_bytes or "")
        return (
            f"the file is not UTF-8: bytes {self.bad_bytes} on line {self.first_non_utf8_line} were read as "
            f"{self.encoding} ({raw.decode(self.encoding, errors='replace')!r}); check the names, or save the file as UTF-8"
        )


def _line_of_offset(data: bytes, offset: int) -> int:
    head = data[:offset]
    # CR-only files count CRs; CRLF counts once per pair.
    return head.count(b"\n") + head.replace(b"\r\n", b"\n").count(b"\r") + 1


def _utf16_without_bom(data: bytes) -> str | None:
    """``utf-16-le`` / ``utf-16-be`` when the bytes look like BOM-less UTF-16 text (ASCII
    characters leave every other byte NUL), else None."""
    sample = data[:4096]
    if len(sample) < 4:
        return None
    even, odd = sample[0::2], sample[1::2]
    if odd.count(0) > 0.4 * len(odd) and even.count(0) < 0.05 * len(even):
        return "utf-16-le"
    if even.count(0) > 0.4 * len(even) and odd.count(0) < 0.05 * len(odd):
        return "utf-16-be"
    return None


def decode(data: bytes) -> Decoded:
    """Decode a file's bytes without mangling names.

    A byte-order mark decides first (UTF-8, UTF-16 LE/BE; UTF-16 without a BOM is
    recognised by its NUL bytes): spreadsheet programs save "Unicode text" as
    UTF-16. Then UTF-8 is tried: legacy single-byte text almost never forms valid
    multi-byte UTF-8 sequences. Otherwise Windows-1252 is used (a superset of
    Latin-1 for printable characters, the encoding of Swiss Perfect and older EGD
    files); bytes that cp1252 leaves undefined (0x81, 0x8D, 0x8F, 0x90, 0x9D) fall
    back to Latin-1. :meth:`Decoded.warning` names the first bytes that were not UTF-8.

    Examples
    --------
    >>> decode("Xurí".encode("utf-8")).text, decode("Xurí".encode("cp1252")).encoding
    ('Xurí', 'cp1252')
    >>> decode(b"Ma\\xefs\\n").first_non_utf8_line, decode(b"Ma\\xefs\\n").bad_bytes
    (1, 'ef 73')
    >>> d = decode("\\ufeffid,nom\\n1,Xurí\\n".encode("utf-16-le"))
    >>> d.encoding, d.text
    ('utf-16-le', 'id,nom\\n1,Xurí\\n')
    >>> decode("id,nom\\n".encode("utf-16-be")).encoding
    'utf-16-be'
    """
    for bom, encoding in ((b"\xef\xbb\xbf", "utf-8-sig"), (b"\xff\xfe", "utf-16-le"), (b"\xfe\xff", "utf-16-be")):
        if data.startswith(bom):
            body = data[len(bom):]
            if encoding == "utf-8-sig":
                data = body
                break
            return Decoded(body[: len(body) - len(body) % 2].decode(encoding, errors="replace"), encoding, None)
    else:
        guessed = _utf16_without_bom(data)
        if guessed is not None:
            return Decoded(data[: len(data) - len(data) % 2].decode(guessed, errors="replace"), guessed, None)
    try:
        return Decoded(data.decode("utf-8"), "utf-8", None)
    except UnicodeDecodeError as exc:
        line = _line_of_offset(data, exc.start)
        bad = data[exc.start: max(exc.end, exc.start + 2)].hex(" ")
    try:
        return Decoded(data.decode("cp1252"), "cp1252", line, bad)
    except UnicodeDecodeError:
        return Decoded(data.decode("latin-1"), "latin-1", line, bad)


_EOL = re.compile(r"\r\n|\r|\n")


def split_lines(text: str) -> list[str]:
    """Split on CRLF, LF or CR alone (real files use all three).

    A final line ending does not make an extra empty line.

    Examples
    --------
    >>> split_lines("a\\rb\\r\\nc\\nd\\n")
    ['a', 'b', 'c', 'd']
    """
    lines = _EOL.split(text)
    if lines and lines[-1] == "":
        lines.pop()
    return lines


_ISO = re.compile(r"^(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})$")
_DMY = re.compile(r"^(\d{1,2})[-/.](\d{1,2})[-/.](\d{4})$")
_YMD2 = re.compile(r"^(\d{2})[-/.](\d{2})[-/.](\d{2})$")
_COMPACT = re.compile(r"^(\d{4})(\d{2})(\d{2})$")
_MONTHS = {
    m: i
    for i, m in enumerate(
        ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"),
        start=1,
    )
}
_SPACED_DOTS = re.compile(r"\d{1,4}\.\s*\d{1,2}\.\s*\d{1,4}")
_SPACES = re.compile(r"\s+")
_MDY_NAMED = re.compile(r"^([a-z]{3})[a-z]*\.? (\d{1,2}),? (\d{4})$")
_DMY_NAMED = re.compile(r"^(\d{1,2}) ([a-z]{3})[a-z]*\.?,? (\d{4})$")


_ISO_ONLY = re.compile(r"\d{4}-\d{2}-\d{2}")


@functools.lru_cache(maxsize=4096)  # a file repeats its dates on every row
def parse_iso_date(value: str) -> date | None:
    """A date as the interchange CSV documents it (FORMATS.md, DESIGN.md): ``YYYY-MM-DD`` only.

    ``03/04/2026`` is not read as 3 April or 4 March: None, and the reader names the line
    and field, as for any value that is not a date.

    Examples
    --------
    >>> parse_iso_date("2026-04-03"), parse_iso_date(" 2026-04-03 "), parse_iso_date("03/04/2026")
    (datetime.date(2026, 4, 3), datetime.date(2026, 4, 3), None)
    >>> parse_iso_date("2026-02-30"), parse_iso_date("20260403")
    (None, None)
    """
    s = value.strip()
    if not _ISO_ONLY.fullmatch(s):
        return None
    try:
        return date.fromisoformat(s)
    except ValueError:
        return None


@functools.lru_cache(maxsize=4096)  # a file repeats its dates on every row
def parse_date(value: str, *, two_digit: str = "ymd") -> date | None:
    """Parse a date in any style the real files use; None when it is not one.

    Styles: ``YYYY-MM-DD``, ``YYYY/MM/DD``, ``YYYY.MM.DD``, ``DD/MM/YYYY``,
    ``DD.MM.YYYY``, ``DD. MM. YYYY``, ``DD-MM-YYYY``, ``YYYYMMDD``, ``May 29, 2020``,
    ``29 May 2020`` and two-digit years
    ``YY/MM/DD`` (TRF ``132`` records; ``two_digit="dmy"`` reads ``DD/MM/YY``).
    Two-digit years are 20YY below 70, else 19YY.

    Examples
    --------
    >>> parse_date("2010/07/03"), parse_date("03/07/2010"), parse_date("2005.11.26")
    (datetime.date(2010, 7, 3), datetime.date(2010, 7, 3), datetime.date(2005, 11, 26))
    >>> parse_date("28. 07. 2005"), parse_date("May 29, 2020")
    (datetime.date(2005, 7, 28), datetime.date(2020, 5, 29))
    >>> parse_date("18/09/25"), parse_date("2025-02-30")
    (datetime.date(2018, 9, 25), None)
    """
    s = value.strip()
    # "28. 07. 2005" (German style with spaces after the dots)
    if _SPACED_DOTS.fullmatch(s):
        s = _SPACES.sub("", s)
    low = _SPACES.sub(" ", s.lower())
    try:
        if (m := _MDY_NAMED.match(low)) and m[1] in _MONTHS:
            return date(int(m[3]), _MONTHS[m[1]], int(m[2]))
        if (m := _DMY_NAMED.match(low)) and m[2] in _MONTHS:
            return date(int(m[3]), _MONTHS[m[2]], int(m[1]))
        if m := _ISO.match(s) or _COMPACT.match(s):
            return date(int(m[1]), int(m[2]), int(m[3]))
        if m := _DMY.match(s):
            return date(int(m[3]), int(m[2]), int(m[1]))
        if m := _YMD2.match(s):
            a, b, c = int(m[1]), int(m[2]), int(m[3])
            y, mo, d = (a, b, c) if two_digit == "ymd" else (c, b, a)
            return date(2000 + y if y < 70 else 1900 + y, mo, d)
    except ValueError:
        return None
    return None
