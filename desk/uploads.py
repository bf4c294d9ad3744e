"""Uploaded files: their names checked, staged beside the inbox, and placed into it atomically.

An upload is staged in ``<inbox>/.desk/<id>/`` (a hidden folder: the nightly run skips
hidden entries) while the organiser reads the pre-check; its report stays there, for the
organiser's page, until :func:`remove_stale` removes it. Confirmed, its files move into
``<inbox>/<federation>/<user>/<stamp>-<id>/`` in one step: written with ``O_EXCL`` into
a hidden folder of their own, then that folder is renamed into place, so a night that
lists the inbox meanwhile sees all the files of the upload or none, never half a file,
and no file ever replaces another.
"""

from __future__ import annotations

import datetime as dt
import os
import shutil
import unicodedata
from pathlib import Path

from formats.limits import MAX_FILE_BYTES
from formats.safety import path_inside, safe_filename

__all__ = ["MAX_UPLOAD_BYTES", "MAX_UPLOAD_FILES", "STALE_HOURS", "UploadError", "check_name", "place_in_inbox",
           "remove_stale", "staging"]

#: Most files in one upload (a Swiss Perfect tournament is four or five files).
MAX_UPLOAD_FILES = 20
#: Largest request body of an upload: the readers' own limit on one file, for all its files
#: together, and room for the form's other fields.
MAX_UPLOAD_BYTES = MAX_FILE_BYTES + 64 * 1024
#: Hidden folder of the inbox where uploads wait for the organiser's confirmation.
STAGING = ".desk"
#: An upload not confirmed within this many hours is removed from the staging folder.
STALE_HOURS = 48


class UploadError(ValueError):
    """An upload the desk refuses (a file name, a size, a count): the message says what to change."""


def check_name(name: str | None) -> str:
    """The name an uploaded file is stored under; refuse a name that is not one plain file name.

    Raises
    ------
    UploadError
        No name, a folder in it (``../../x.csv``, ``a\\b.csv``), a hidden name, control characters,
        or a starting list (``*.ratings.csv``, which the officer imports with ``ratings seed``).

    Examples
    --------
    >>> check_name("Open Girona 2025.results.csv")
    'Open_Girona_2025.results.csv'
    >>> check_name("../../x.csv")
    Traceback (most recent call last):
    ...
    desk.uploads.UploadError: file name '../../x.csv' refused: send the file itself, with no folder in its name
    """
    if not name or not name.strip():
        raise UploadError("a file has no name: choose the result file again")
    if "/" in name or "\\" in name or name in (".", ".."):
        raise UploadError(f"file name {name!r} refused: send the file itself, with no folder in its name")
    if name.startswith("."):
        raise UploadError(f"file name {name!r} refused: a name that starts with a dot is a hidden file")
    if any(unicodedata.category(c) in ("Cc", "Cf") for c in name):
        raise UploadError(f"file name {name!r} refused: it holds control characters")
    safe = safe_filename(name, default="")
    if not safe:
        raise UploadError(f"file name {name!r} refused: no letter or digit in it")
    if safe.lower().endswith(".ratings.csv"):
        raise UploadError(f"{safe}: a starting rating list is imported by the rating officer, not sent here")
    return safe


def staging(inbox: Path, upload_id: str) -> Path:
    """The hidden folder where the upload ``upload_id`` waits for confirmation."""
    return path_inside(inbox / STAGING, upload_id)


def place_in_inbox(inbox: Path, federation: str, username: str, upload_id: str, staged: Path,
                   names: list[str], *, now: dt.datetime | None = None) -> list[str]:
    """Move the staged files ``names`` into ``<inbox>/<federation>/<username>/<stamp>-<id>/``.

    Returns the files' paths relative to ``inbox``. Every part of the path is made safe
    (:func:`formats.safety.path_inside`): nothing is written outside the inbox.

    Raises
    ------
    UploadError
        The target exists already (the upload was confirmed before).
    """
    stamp = (now or dt.datetime.now(dt.UTC)).strftime("%Y%m%dT%H%M%SZ")
    folder = path_inside(inbox, federation, username)
    folder.mkdir(parents=True, exist_ok=True)
    final = path_inside(folder, f"{stamp}-{upload_id[:12]}")
    hidden = path_inside(folder, f".incoming-{upload_id}")
    if final.exists() or hidden.exists():
        raise UploadError("this upload is in the inbox already")
    hidden.mkdir()
    try:
        for name in names:
            source = path_inside(staged, name)
            # O_EXCL: a file of that name in the folder is never replaced.
            with source.open("rb") as src, path_inside(hidden, name).open("xb") as out:
                shutil.copyfileobj(src, out)
                out.flush()
                os.fsync(out.fileno())
        if final.exists():
            raise UploadError("this upload is in the inbox already")
        os.rename(hidden, final)   # the whole upload appears at once
    except BaseException:
        shutil.rmtree(hidden, ignore_errors=True)
        raise
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)   # the rename itself survives a crash
    finally:
        os.close(fd)
    for name in names:   # the staged copies go; the pre-check's report stays for the organiser's page
        path_inside(staged, name).unlink(missing_ok=True)
    return [str((final / name).relative_to(inbox)) for name in names]


def remove_stale(inbox: Path, *, now: float | None = None) -> int:
    """Remove the staged uploads older than :data:`STALE_HOURS` (never confirmed); how many."""
    import time

    root = inbox / STAGING
    if not root.is_dir():
        return 0
    limit = (now if now is not None else time.time()) - STALE_HOURS * 3600
    removed = 0
    for entry in root.iterdir():
        try:
            if entry.is_dir() and not entry.is_symlink() and entry.stat().st_mtime < limit:
                shutil.rmtree(entry)
                removed += 1
        except OSError:
            continue   # another request removed or confirmed it meanwhile
    return removed
