"""File names from untrusted input, and writes that a crash cannot leave half done.

A competition id, a federation id or a file name comes from whoever ran the
tournament program. Used as a path, ``../../etc/x`` or ``a/b`` would write outside
the reports folder (issue 9): :func:`safe_filename` makes any text one harmless
path component, and :func:`path_inside` refuses any path that resolves outside its
folder. :func:`atomic_write_text` writes a file so that a reader (or a rerun after
SIGKILL) sees the old content or the new one, never half of it.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path

__all__ = ["UnsafePathError", "atomic_write_bytes", "atomic_write_text", "path_inside", "safe_filename"]

#: Longest file name component written (bytes of UTF-8; most file systems allow 255).
MAX_NAME_BYTES = 120


class UnsafePathError(ValueError):
    """A path built from input would resolve outside the folder it must stay in."""


def safe_filename(text: str | None, *, default: str = "competition") -> str:
    """``text`` as one path component: letters, digits, ``-``, ``_`` and inner dots only.

    Path separators, control characters, right-to-left marks and anything else become
    ``_``; leading and trailing dots are dropped (no hidden file, never ``.`` or ``..``);
    a long name is cut and keeps a short hash of the whole, so two long ids stay apart.

    Examples
    --------
    >>> safe_filename("../../etc/passwd"), safe_filename("a/b\\\\c"), safe_filename("..")
    ('_.._etc_passwd', 'a_b_c', 'competition')
    >>> safe_filename("Open\\u202eCAT 2025"), safe_filename("CAT-2025-01")
    ('Open_CAT_2025', 'CAT-2025-01')
    >>> len(safe_filename("x" * 1000)) <= MAX_NAME_BYTES
    True
    """
    raw = text or ""
    # The mapping the reports always used (so ordinary ids keep their file names).
    out = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in raw).strip(".")
    if not out:
        return default
    if len(out.encode("utf-8")) > MAX_NAME_BYTES:
        digest = hashlib.sha256(raw.encode("utf-8", "surrogatepass")).hexdigest()[:12]
        out = out.encode("utf-8")[: MAX_NAME_BYTES - 13].decode("utf-8", "ignore") + "-" + digest
    return out


def path_inside(folder: Path, *parts: str) -> Path:
    """``folder / part / ...`` with every part made safe, checked to stay inside ``folder``.

    Raises
    ------
    UnsafePathError
        When the result would resolve outside ``folder`` (a symlink planted there).
    """
    target = folder.joinpath(*(safe_filename(p, default="unknown") for p in parts))
    root = folder.resolve()
    resolved = target.resolve()
    if resolved != root and root not in resolved.parents:
        raise UnsafePathError(f"{target} resolves outside {folder}: refusing to write there")
    return target


def atomic_write_text(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file and a rename (atomic on POSIX)."""
    atomic_write_bytes(path, text.encode("utf-8"))


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file and a rename (atomic on POSIX)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name[:40]}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
