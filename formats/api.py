"""One entry point: detect a file's format by its content and read it.

``read(path)`` accepts a file, or a Swiss Perfect tournament (a folder, or the
``.ini`` / any ``.rnd`` of a set sharing a stem). ``group_inbox(paths)`` tells the
flow which inbox entries belong together.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import polars as pl

from formats import limits
from formats._common import KNOWN_FEDERATIONS, FormatError
from formats._detect import detect
from formats._inbox import group_inbox, stand_in_bytes
from formats.egd import from_egd
from formats.interchange import from_interchange
from formats.opengotha import from_opengotha
from formats.pairgoth import from_pairgoth
from formats.ratinglists import from_egd_list
from formats.result import FieldValueError, ReadResult
from formats.schema import RATINGS_SCHEMA
from formats.swissperfect import from_swissperfect, from_swissperfect_set, stem_of
from formats.trf import from_trf
from formats.tsh import from_tsh, from_tsh_newt

__all__ = [
    "READERS",
    "RatingsFileError",
    "detect",
    "group_inbox",
    "read",
    "read_bytes",
    "read_list",
    "read_ratings",
    "stand_in_bytes",
]

Reader = Callable[..., ReadResult]


class RatingsFileError(FormatError):
    """A starting rating list cannot be read; the message lists file, line and field of each problem."""


#: Reader of each detected format: ``reader(data, name, federation=...) -> ReadResult``.
READERS: dict[str, Reader] = {
    "interchange-results": from_interchange,
    "interchange-players": from_interchange,
    "interchange-ratings": from_interchange,
    "interchange-aliases": from_interchange,
    "trf": from_trf,
    "opengotha": from_opengotha,
    "pairgoth": from_pairgoth,
    "swissperfect": from_swissperfect,
    "egd": from_egd,
    "egd-ratings": from_egd_list,
    "tsh": from_tsh,
    "tsh-newt": from_tsh_newt,
}


#: Federations whose files each native format carries (interchange files say it in every row).
HOME_FEDERATIONS: dict[str, frozenset[str]] = {
    "trf": frozenset({"fide"}),
    "opengotha": frozenset({"egf"}),
    "pairgoth": frozenset({"egf"}),
    "egd": frozenset({"egf"}),
    "egd-ratings": frozenset({"egf"}),
    "swissperfect": frozenset({"ajusc"}),
    "tsh": frozenset({"ajusc"}),
    "tsh-newt": frozenset({"ajusc"}),
}


def read_bytes(data: bytes, name: str, *, federation: str | None = None, own_list: bool = False) -> ReadResult:
    """Read one file's bytes into canonical frames; never raises for the file's content.

    Parameters
    ----------
    data
        The file's bytes.
    name
        Its file name (reported in findings and ``source``).
    federation
        The federation the file was sent to, when known.
    own_list
        The federation's own rating list (``ratings seed``): the limits of
        :data:`~formats.limits.MAX_LIST_PLAYERS` and :data:`~formats.limits.MAX_LIST_BYTES`
        instead of an organiser's file's.

    Examples
    --------
    >>> r = read_bytes(b"", "empty.results.csv")
    >>> r.findings.select("rule", "severity").row(0)
    ('format.empty', 'reject')
    """
    if not data.strip():
        return ReadResult.refused(
            name, data, "format.empty", "the file is empty", federation=federation
        )
    oversize = limits.too_large(len(data), own_list=own_list)
    if oversize is not None:
        return ReadResult.refused(name, data, "limits.file_too_large", oversize, federation=federation)
    fmt = detect(data, name)
    if fmt is None:
        return ReadResult.refused(
            name,
            data,
            "format.unknown",
            "not a results file of any supported format (interchange CSV, TRF, OpenGotha XML, pairgoth, "
            "EGD .h9, Swiss Perfect .rnd, TSH .t): check that the right file was sent",
            federation=federation,
            line=1,
        )
    rows = limits.too_many_rows(data, fmt, own_list=own_list)
    if rows is not None:   # refused before a million rows are parsed
        return ReadResult.refused(name, data, "limits.too_many", rows, fmt=fmt,
                                  federation=federation, field="rows")
    home = HOME_FEDERATIONS.get(fmt)
    if (
        federation is not None
        and home is not None
        and federation in KNOWN_FEDERATIONS
        and federation not in home
    ):
        # e.g. a TRF sent to the Go federation: rating it with another federation's rules would be wrong
        return ReadResult.refused(
            name,
            data,
            "format.federation_mismatch",
            f"a {fmt} file belongs to {', '.join(sorted(home))}, not {federation}: send it to the right federation",
            fmt=fmt,
            federation=federation,
            line=1,
        )
    return _run_reader(lambda: READERS[fmt](data, name, federation=federation), name, data, fmt, federation,
                       own_list=own_list)


def _run_reader(
    call: Callable[[], ReadResult], name: str, data: bytes, fmt: str, federation: str | None,
    *, own_list: bool = False,
) -> ReadResult:
    """Run a reader; whatever the file holds, the answer is a ReadResult, never an exception."""
    try:
        # Every value checked at the boundary: finite, in range, or a reject finding.
        return limits.enforce(call(), own_list=own_list)
    except FieldValueError as exc:
        return ReadResult.refused(
            name, data, "limits.value_out_of_range", f"{exc}: correct the value in the file",
            fmt=fmt, federation=federation, line=exc.line, field=exc.field,
        )
    except RecursionError:
        return ReadResult.refused(
            name, data, "limits.too_deep", "the file nests deeper than any results file does",
            fmt=fmt, federation=federation,
        )
    except MemoryError:
        return ReadResult.refused(
            name, data, "limits.too_large", "the file needs more memory than any results file does",
            fmt=fmt, federation=federation,
        )
    except Exception as exc:  # noqa: BLE001 - a reader bug must not stop the nightly run
        # Quarantine the file with a finding instead of aborting the whole run; the tests
        # (fuzzing every reader) assert this rule never fires, so it marks a bug to fix.
        return ReadResult.refused(
            name,
            data,
            "format.reader_error",
            f"the {fmt} reader failed on this file ({type(exc).__name__}: {exc}); it is kept for a later "
            "retry: please report it",
            fmt=fmt,
            federation=federation,
        )


def read(path: Path | Sequence[Path], *, federation: str | None = None, own_list: bool = False) -> ReadResult:
    """Read a file from disk (see :func:`read_bytes`), or a Swiss Perfect tournament.

    ``path`` may be

    * a file of any supported format;
    * a Swiss Perfect file (``.ini``, ``.rnd``, ``.stg``, ``.trn``): the whole
      tournament is read, i.e. every file beside it that shares its stem;
    * a directory: the Swiss Perfect tournament it holds (one stem);
    * a list of paths: one Swiss Perfect tournament's files, as grouped by
      :func:`formats.group_inbox`.

    An unreadable path (missing, a permission problem) is a ``format.io`` finding.
    ``own_list``: the federation's own rating list (see :func:`read_bytes`).

    Examples
    --------
    >>> read(Path("/nonexistent/x.results.csv")).findings["rule"].to_list()
    ['format.io']
    """
    if not isinstance(path, (str, Path)):
        return _read_set([Path(p) for p in path], federation)
    path = Path(path)
    if path.is_dir():
        members = sorted(p for p in path.iterdir() if p.is_file() and stem_of(p.name) is not None)
        if not members:
            return ReadResult.refused(
                path.name,
                b"",
                "format.unknown",
                "the folder holds no Swiss Perfect tournament (.ini/.rnd/.stg/.trn)",
                federation=federation,
            )
        return _read_set(members, federation)
    try:
        stat = path.stat()
        oversize = limits.too_large(stat.st_size, own_list=own_list)
        if oversize is not None:   # refused before it is read (or hashed) into memory
            return ReadResult.refused(path.name, stand_in_bytes(path.name, stat), "limits.file_too_large",
                                      oversize, federation=federation)
        data = path.read_bytes()
    except OSError as exc:
        return ReadResult.refused(
            path.name,
            stand_in_bytes(path.name, None, str(exc.strerror)),
            "format.io",
            f"cannot read the file: {exc.strerror}",
            federation=federation,
        )
    parts = stem_of(path.name)
    if parts is not None and detect(data, path.name) == "swissperfect":
        siblings = sorted(
            p
            for p in path.parent.iterdir()
            if p.is_file() and (stem_of(p.name) or ("",))[0] == parts[0]
        )
        return _read_set(siblings, federation)
    return read_bytes(data, path.name, federation=federation, own_list=own_list)


def _read_set(paths: list[Path], federation: str | None) -> ReadResult:
    files: dict[str, bytes] = {}
    for p in paths:
        try:
            files[p.name] = p.read_bytes()
        except OSError as exc:
            return ReadResult.refused(
                p.name,
                stand_in_bytes(p.name, None, str(exc.strerror)),
                "format.io",
                f"cannot read the file: {exc.strerror}",
                federation=federation,
            )
    if not files:
        return ReadResult.refused(
            "(no files)", b"", "format.io", "no file to read", federation=federation
        )
    if (
        federation is not None
        and federation in KNOWN_FEDERATIONS
        and federation not in HOME_FEDERATIONS["swissperfect"]
    ):
        first = min(files)
        return ReadResult.refused(
            first,
            files[first],
            "format.federation_mismatch",
            f"a Swiss Perfect tournament belongs to ajusc, not {federation}",
            fmt="swissperfect",
            federation=federation,
            line=1,
        )
    first = min(files)
    return _run_reader(lambda: from_swissperfect_set(files, federation=federation), first,
                       files[first], "swissperfect", federation)


def read_ratings(path: Path, *, federation: str | None = None) -> pl.DataFrame:
    """Read a starting rating list (``*.ratings.csv``) as a ``RATINGS_SCHEMA`` frame
    (:func:`read_list`'s ratings).

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
    return read_list(path, federation=federation).ratings.select(list(RATINGS_SCHEMA))


def read_list(path: Path, *, federation: str | None = None) -> ReadResult:
    """Read a federation's own rating list (``*.ratings.csv``, an EGD list), read whole at the
    list's limits (:data:`~formats.limits.MAX_LIST_PLAYERS`): its ratings and its edition.

    Raises
    ------
    RatingsFileError
        As :func:`read_ratings`.
    """
    result = read(path, federation=federation, own_list=True)
    rejects = result.findings.filter(pl.col("severity") == "reject")
    if result.format not in ("interchange-ratings", "egd-ratings") and rejects.height == 0:
        raise RatingsFileError(f"{result.source}: not a rating list (detected {result.format!r})")
    if rejects.height:
        # Each message names file, line and field already (``Findings.add``).
        problems = rejects.get_column("message").to_list()
        more = f" (and {len(problems) - 3} more)" if len(problems) > 3 else ""
        raise RatingsFileError("; ".join(problems[:3]) + more)
    return result
