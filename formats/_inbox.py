"""What the inbox holds, before any file is read (:mod:`formats.api`): which entries one
:func:`formats.read` call takes (:func:`group_inbox`), and what a file refused unread is known by
(:func:`stand_in_bytes`)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from formats.swissperfect import stem_of

__all__ = ["group_inbox", "stand_in_bytes"]


def stand_in_bytes(name: str, stat: os.stat_result | None, why: str = "") -> bytes:
    """What a file that is refused unread is known by in the load ledger (its checksum is
    taken of these bytes): its name, size and modification time, or why it could not be read.

    Two different files refused unread (two oversize files, an oversize file and an empty
    one) then never share one checksum, so neither passes for an identical re-send of the
    other; a file replaced under the same name (a new size or time) is read again.

    Examples
    --------
    >>> stand_in_bytes("a.results.csv", None, "Permission denied") != stand_in_bytes("b.results.csv", None, "")
    True
    """
    shape = f"{stat.st_size}:{stat.st_mtime_ns}" if stat is not None else why
    return f"\0unread\0{name}\0{shape}".encode("utf-8", "surrogateescape")


def group_inbox(paths: Sequence[Path]) -> list[Path | list[Path]]:
    """Group inbox entries into what one :func:`read` call takes.

    The files of one Swiss Perfect tournament (same folder, same stem:
    ``ManaCup_25-26.ini``, ``.N.rnd``, ``.N.stg``, ``.trn``) become one list; every
    other file stays on its own. A folder is opened: its files (recursively) are
    grouped the same way, so a club may drop a whole tournament folder or a
    federation a folder of result files. Hidden files (``.name``) are skipped.
    Order: as first seen.

    The nightly flow's ingest should call ``formats.read(entry)`` once per entry
    of ``group_inbox(sorted(inbox.iterdir()))``.

    Examples
    --------
    >>> group_inbox([Path("in/a.results.csv"), Path("in/T.1.rnd"), Path("in/T.ini"), Path("in/T.2.rnd")])
    [PosixPath('in/a.results.csv'), [PosixPath('in/T.1.rnd'), PosixPath('in/T.2.rnd'), PosixPath('in/T.ini')]]
    """
    out: list[Path | list[Path]] = []
    sets: dict[tuple[Path, str], list[Path]] = {}

    def visit(p: Path) -> None:
        if p.name.startswith("."):
            return
        if p.is_dir():
            for child in sorted(p.iterdir()):
                visit(child)
            return
        parts = stem_of(p.name)
        if parts is None:
            out.append(p)
            return
        key = (p.parent, parts[0])
        if key not in sets:
            sets[key] = []
            out.append(sets[key])
        sets[key].append(p)

    for p in map(Path, paths):
        visit(p)
    return [sorted(x) if isinstance(x, list) else x for x in out]
