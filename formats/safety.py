"""File names from untrusted input, and writes that a crash cannot leave half done.

A competition id, a federation id or a file name comes from whoever ran the
tournament program. Used as a path, ``../../etc/x`` or ``a/b`` would write outside
the reports folder: :func:`safe_filename` makes any text one harmless
path component, and :func:`path_inside` refuses any path that resolves outside its
folder. :func:`atomic_write_text` writes a file so that a reader (or a rerun after
SIGKILL) sees the old content or the new one, never half of it.
"""

from __future__ import annotations

import errno
import hashlib
import os
import re
import tempfile
from pathlib import Path

__all__ = ["DiskFullError", "UnsafePathError", "atomic_write_bytes", "atomic_write_text", "disk_full", "escape_controls", "json_text",
           "path_inside", "safe_filename"]

#: Longest file name component written (bytes of UTF-8; most file systems allow 255).
MAX_NAME_BYTES = 120


#: What a terminal or a text viewer would act on instead of showing: C0 and C1 controls
#: (ESC starts a terminal sequence), DEL, lone surrogates, non-characters, and the
#: bidirectional overrides and isolates that reorder what is shown.
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff\ufffe\uffff]")


def escape_controls(text: str, *, keep: str = "") -> str:
    """``text`` with every control character written as its escape (``\\x1b``), so that text
    from a file reaches a terminal, a Markdown report or a list file as visible characters.
    The one helper for it: the nightly summary, ``ratings report``, ``ratings check``, the
    reports and the list exports all call it. ``keep``: controls left as they are (``"\\n"``
    in a whole report).

    Examples
    --------
    >>> escape_controls("Anna\\x07 <b>&"), escape_controls("Müller\\u0085")
    ('Anna\\\\x07 <b>&', 'Müller\\\\x85')
    >>> escape_controls("\\x1b[31mred\\n", keep="\\n"), escape_controls("a\\u202eb")
    ('\\\\x1b[31mred\\n', 'a\\\\u202eb')
    """
    def shown(match: re.Match[str]) -> str:
        char = match[0]
        if char in keep:
            return char
        return f"\\x{ord(char):02x}" if ord(char) < 0x100 else f"\\u{ord(char):04x}"

    return _CONTROL.sub(shown, text)


def json_text(value: object, **options: object) -> str:
    """``json.dumps(value, ensure_ascii=False, ...)`` with every control character of
    :func:`escape_controls` written as a JSON ``\\uXXXX`` escape: the same JSON once parsed,
    but a terminal that shows it acts on none of it (json escapes only C0 controls itself;
    C1's CSI ``\\u009b`` or a right-to-left override would pass raw).

    Examples
    --------
    >>> print(json_text({"id": "CAT\\u009b31m", "name": "Anna\\u202e"}))
    {"id": "CAT\\u009b31m", "name": "Anna\\u202e"}
    """
    import json

    text = json.dumps(value, ensure_ascii=False, **options)  # type: ignore[arg-type]
    # json escapes C0 inside strings itself: a raw newline is the layout of ``indent``.
    return _CONTROL.sub(lambda match: match[0] if match[0] == "\n" else f"\\u{ord(match[0]):04x}", text)


class DiskFullError(OSError):
    """The device of a folder the run writes (reports, the site) is full; the message names the folder."""

    def __str__(self) -> str:
        return str(self.strerror)


def disk_full(error: OSError, folder: Path) -> OSError:
    """``error`` as one line that names ``folder`` when it says the disk is full (``ENOSPC``
    alone says only ``[Errno 28]``); any other error as it is.

    Examples
    --------
    >>> str(disk_full(OSError(errno.ENOSPC, "No space left on device"), Path("reports/ajusc")))
    'no space left on the device of reports/ajusc: free some space, then run again'
    """
    if error.errno != errno.ENOSPC:
        return error
    return DiskFullError(errno.ENOSPC, f"no space left on the device of {folder}: free some space, then run again")


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


def atomic_write_text(path: Path, text: str, *, fsync: bool = True) -> None:
    """Write ``text`` to ``path`` through a temporary file and a rename (atomic on POSIX)."""
    atomic_write_bytes(path, text.encode("utf-8"), fsync=fsync)


def atomic_write_bytes(path: Path, data: bytes, *, fsync: bool = True) -> None:
    """Write ``data`` to ``path`` through a temporary file and a rename (atomic on POSIX).

    A process killed half-way leaves the old file or the new one, never half of one.
    ``fsync=False`` leaves the flush to disk to the system (thousands of reports a night):
    a power cut may then lose the newest file, never corrupt it.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name[:40]}.", suffix=".tmp", dir=path.parent)
    try:
        os.fchmod(fd, 0o644)   # readable like the site's pages, not mkstemp's 0600
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            if fsync:
                handle.flush()
                os.fsync(handle.fileno())
        os.replace(tmp, path)
    except OSError as error:
        Path(tmp).unlink(missing_ok=True)
        raise disk_full(error, path.parent) from None
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
