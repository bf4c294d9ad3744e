"""A helper child process and its pickled replies: how the Great Expectations process
(``validations.gx_process``) and the site's process (``tasks.site_process``) are started.

It lies in ``formats``, the lowest package, because both the validations and the tasks use it
and it uses nothing of the project: neither of those packages has to import the other for it.
"""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

__all__ = ["send", "spawn"]


def spawn(module: str) -> tuple[subprocess.Popen[bytes], IO[bytes]]:
    """Start ``python -c "from MODULE import main; main()" FD``: this checkout's package on its
    path, its stdin a pipe, ``FD`` the write end of another pipe, whose read end is returned for
    its replies."""
    read, write = os.pipe()
    package = str(Path(__file__).resolve().parents[1])
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (package, env.get("PYTHONPATH")) if p)
    try:
        process = subprocess.Popen(
            [sys.executable, "-c", f"from {module} import main; main()", str(write)],
            stdin=subprocess.PIPE, pass_fds=(write,), env=env, close_fds=True,
        )
    finally:
        os.close(write)
    return process, os.fdopen(read, "rb")


def send(replies: IO[bytes], reply: tuple[bool, Any], failed: Callable[[str], Exception]) -> None:
    """Write a child's ``(ok, value)`` reply to its parent; a reply that does not pickle goes as
    ``(False, failed("TypeName: message"))`` instead."""
    try:
        data = pickle.dumps(reply, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception as exc:  # noqa: BLE001 - a value that does not pickle
        data = pickle.dumps((False, failed(f"{type(exc).__name__}: {exc}")), protocol=pickle.HIGHEST_PROTOCOL)
    replies.write(data)
    replies.flush()
