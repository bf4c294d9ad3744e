"""The inbox's entries: what the readers take, what is left unread and why, and whose a file
is by where it was dropped (``inbox/<federation>/<folder>/``) or what its rows name.

Prefect-free policy of the ingest task (``tasks.ingest``, which re-exports the public names):
it sits beside the task rather than in ``formats`` because it is the night's inbox rules
(starting lists left to ``ratings seed``, symlinks out of the inbox never read), not a reader.
"""

from __future__ import annotations

import csv
import hashlib
import io
import re
import shutil
import stat
from collections import Counter
from collections.abc import Sequence
from collections.abc import Set as AbstractSet
from pathlib import Path

import formats
from formats._common import decode
from formats.limits import too_large

#: Starting lists are imported with ``ratings seed``, never by the nightly run.
SEED_SUFFIX = ".ratings.csv"


def inbox_units(inbox: Path) -> list[Path | list[Path]]:
    """The files (or file groups, as folders) of ``inbox`` that the readers take, sorted.

    Hidden files are ignored; starting lists (``*.ratings.csv``) are left to ``ratings seed``;
    what is not a regular file of the inbox is left out (:func:`inbox_entries` says why).
    """
    return inbox_entries(inbox)[0]


def inbox_entries(inbox: Path) -> tuple[list[Path | list[Path]], dict[str, str]]:
    """The units the readers take (see :func:`inbox_units`), and the entries left unread with
    their outcome line: special files (a FIFO, a socket, a device), dangling symlinks,
    symlinked folders, and symlinks that lead out of the inbox (never read: the inbox holds
    what was sent, not a way to read the rest of the machine)."""
    if not inbox.is_dir():
        return [], {}
    root = inbox.resolve()
    paths: list[Path] = []
    left_out: dict[str, str] = {}

    def visit(folder: Path) -> None:
        try:
            entries = sorted(folder.iterdir())
        except OSError as error:
            left_out[folder.name] = f"skipped: the folder cannot be read ({error.strerror})"
            return
        for entry in entries:
            if entry.name.startswith("."):
                continue
            try:
                mode = entry.lstat().st_mode
                if stat.S_ISDIR(mode):
                    visit(entry)
                    continue
                if stat.S_ISLNK(mode):
                    why = _symlink_left_out(entry, root)
                    if why is not None:
                        left_out[entry.name] = why
                        continue
                    paths.append(entry)
                elif stat.S_ISREG(mode):
                    paths.append(entry)
                else:
                    left_out[entry.name] = "skipped: not a regular file (a FIFO, socket or device)"
            except OSError as error:
                left_out[entry.name] = f"skipped: not a regular file ({error.strerror})"

    visit(inbox)
    return formats.group_inbox(paths), left_out


def _symlink_left_out(link: Path, root: Path) -> str | None:
    """Why the symlink ``link`` of the inbox ``root`` is not read (``None``: it is, a file inside)."""
    try:
        target = link.resolve(strict=True)
    except (OSError, RuntimeError):
        return "skipped: not a regular file (a dangling symlink)"
    if target.is_dir():
        return "skipped: not a regular file (a symlinked folder)"
    if root not in target.parents:
        return "skipped: a symlink to a file outside the inbox, not read"
    if not target.is_file():
        return "skipped: not a regular file (a FIFO, socket or device)"
    return None


def copy_to_inbox(paths: Sequence[str | Path], folder: Path, *, error: type[ValueError] = ValueError,
                  label: str = "") -> None:
    """Copy ``paths`` into the inbox ``folder`` for a run that reads files given on the command
    line: together, as in the inbox (the files of one Swiss Perfect tournament, ``.ini``,
    ``.rnd``, ``.stg``, are read as one unit), except that two files of the same name go to
    subfolders of their own and stay apart.

    Raises
    ------
    ValueError
        (``error``) A file is missing or unreadable: ``<label><name>: cannot read the file: ...``.
    """
    used: list[set[str]] = []
    for name in paths:
        path = Path(name)
        index = next((i for i, names in enumerate(used) if path.name not in names), len(used))
        if index == len(used):
            used.append(set())
        used[index].add(path.name)
        target = folder / f"{index:03d}"
        target.mkdir(exist_ok=True)
        try:
            if path.is_dir():
                shutil.copytree(path, target / path.name)
            else:
                shutil.copy(path, target / path.name)
        except OSError as failure:
            raise error(f"{label}{name}: cannot read the file: {failure.strerror or failure}") from None


def file_sha256(path: Path) -> str | None:
    """The checksum the readers record for a single file (sha256 of its bytes); ``None`` when
    the file is over the size limit (checked first, so an oversize file is never read) or
    cannot be read: the reader then refuses it with its finding."""
    try:
        if too_large(path.stat().st_size) is not None:
            return None
        digest = hashlib.sha256()
        with path.open("rb") as handle:
            while chunk := handle.read(1 << 20):
                digest.update(chunk)
        return digest.hexdigest()
    except OSError:
        return None


_COPY_NAME = re.compile(r"(?: \(\d+\)| - Copy(?: \(\d+\))?|\.~\d+~)(?=\.|$)")


def _original_first(path: Path) -> tuple[bool, float, str]:
    """Sort key among identical files: a name that says it is a copy last, then the newer, then by name."""
    try:
        mtime = path.stat().st_mtime
    except OSError:
        mtime = float("inf")
    return bool(_COPY_NAME.search(path.name)), mtime, path.name


def _federation_in_rows(path: Path) -> str | None:
    """The federation a CSV file's ``federation`` column names most often, even when the
    file cannot be read as a whole (a missing column, a wrong header): every row says it."""
    try:
        with path.open("rb") as handle:   # the head only: an oversize file is never read whole
            data = handle.read(1_000_000)
    except OSError:
        return None
    text = decode(data).text
    rows = csv.reader(io.StringIO(text))
    # A binary file, a compressed one or a field over the csv module's limit is the reader's
    # to report (with the file's name and line): here it only means no federation is read.
    try:
        header = [h.strip().lower().lstrip("\ufeff") for h in next(rows, [])]
        if "federation" not in header:
            return None
        at = header.index("federation")
        counts = Counter(r[at].strip().lower() for r in rows if len(r) > at and r[at].strip())
    except csv.Error:
        return None
    return counts.most_common(1)[0][0] if counts else None


def _subfolder_federation(unit: Path | list[Path], inbox: Path, known: AbstractSet[str]) -> str | None:
    """``inbox/<federation>/...``: the federation of the subfolder a file was dropped in."""
    first = Path(unit[0] if isinstance(unit, list) else unit)
    try:
        parts = first.relative_to(inbox).parts
    except ValueError:
        return None
    return parts[0].lower() if len(parts) > 1 and parts[0].lower() in known else None


def _organiser_folder(unit: Path | list[Path], inbox: Path, federation: str) -> str | None:
    """``inbox/<federation>/<folder>/...``: the organiser's subfolder a file was dropped in."""
    first = Path(unit[0] if isinstance(unit, list) else unit)
    try:
        parts = first.relative_to(inbox).parts
    except ValueError:
        return None
    return parts[1] if len(parts) > 2 and parts[0].lower() == federation else None
