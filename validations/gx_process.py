"""Great Expectations in a process of its own.

Importing Great Expectations takes about 2 s and leaves some 250 MB of objects that live
as long as the process. In the process of a night, that import came before everything
else the night does (validating a 50-competition night took 4.5 s, 3.9 s of it the
import), and its memory stayed through the rating, the load and the site. Here a child
process imports it, started by the first request (a run's first validation); the suites
run there, and the child ends when the run has no more to validate (``tasks.gx``): its
memory goes with it.

The child is ``python -c "from validations.gx_process import main; main()"``, started by
:func:`formats.child_process.spawn`. Requests and replies are pickled
over its stdin and a duplicate of its stdout (its own stdout goes to stderr, so that
nothing Great Expectations prints can break the exchange). A request is the name of
an operation of :data:`_OPERATIONS` and its arguments; a reply is its value, or the
exception it raised, raised again in the caller (one of Great Expectations' own becomes a
:class:`~validations.errors.GxProjectError` that names it: unpickling it would import
Great Expectations in the caller). The child ends when its stdin
closes: when :func:`stop` is called, or when the process that started it ends,
however it ends.

>>> _OPERATIONS["ping"]()
'pong'
"""

from __future__ import annotations

import atexit
import functools
import os
import pickle
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from formats.child_process import send, spawn
from validations.errors import GxProjectError

__all__ = ["call", "running", "start", "stop"]


class _Child:
    """The child process, and the lock that makes one request at a time."""

    def __init__(self) -> None:
        self.process: subprocess.Popen[bytes] | None = None
        self.replies: IO[bytes] | None = None
        self.lock = threading.Lock()

    def start(self) -> None:
        if self.process is not None:
            if self.process.poll() is None:
                return
            self._close()   # ended since the last call: a new one takes its place
        self.process, self.replies = spawn("validations.gx_process")

    def call(self, operation: str, *args: Any) -> Any:
        with self.lock:
            self.start()
            assert self.process is not None and self.process.stdin is not None and self.replies is not None
            try:
                pickle.dump((operation, args), self.process.stdin, protocol=pickle.HIGHEST_PROTOCOL)
                self.process.stdin.flush()
                ok, value = pickle.load(self.replies)
            except (OSError, EOFError, pickle.UnpicklingError) as exc:
                try:
                    code: int | str | None = self.process.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    code = "none yet"
                self._close()
                raise GxProjectError(
                    f"the Great Expectations process ended before it answered ({operation}; "
                    f"exit status {code}); its error, if any, is above in stderr"
                ) from exc
        if not ok:
            raise value
        return value

    def stop(self) -> None:
        with self.lock:
            self._close()

    def _close(self) -> None:
        process, replies = self.process, self.replies
        self.process = self.replies = None
        if process is None:
            return
        try:
            if process.stdin is not None:
                process.stdin.close()
        except OSError:
            pass
        try:
            process.wait(timeout=1)
        except subprocess.TimeoutExpired:
            # Still importing Great Expectations (a run that ended before it validated): no request
            # is in flight (the lock), so nothing of its is left half done.
            process.terminate()
            process.wait()
        if replies is not None:
            replies.close()


_CHILD = _Child()
atexit.register(_CHILD.stop)


def start() -> None:
    """Start the child now (it imports Great Expectations while the caller goes on); no-op if it runs."""
    with _CHILD.lock:
        _CHILD.start()


def running() -> bool:
    """Whether the child is running."""
    return _CHILD.process is not None and _CHILD.process.poll() is None


def call(operation: str, *args: Any) -> Any:
    """Run ``operation`` of :data:`_OPERATIONS` in the child (started first if needed); its value.

    Raises
    ------
    GxProjectError
        The child ended before it answered (it is started again on the next call); or what
        the operation raised there.
    """
    return _CHILD.call(operation, *args)


def stop() -> None:
    """End the child (its memory goes with it); the next :func:`call` starts a new one."""
    _CHILD.stop()


# ------------------------------------------------------------------ in the child
#: The file projects opened in the child: root -> (the stamp of its rules when opened, context).
_FILE_CONTEXTS: dict[str, tuple[float, Any]] = {}


def _run_suite(federation: str | None, gx_root: str | None, name: str, frame: Any) -> Any:
    from validations import suites

    if gx_root is None:
        return suites.run_suite(suites.ephemeral_context(federation), name, frame, file_project=False)
    # A project is opened once (seconds), and again when its rules were rebuilt or it was removed.
    stamp = Path(gx_root) / "gx" / suites.RULES_STAMP
    when = stamp.stat().st_mtime if stamp.exists() else -1.0
    opened = _FILE_CONTEXTS.get(gx_root)
    if opened is None or opened[0] != when or when < 0:
        context = suites.file_context(Path(gx_root))
        opened = _FILE_CONTEXTS[gx_root] = (stamp.stat().st_mtime if stamp.exists() else -1.0, context)
    return suites.run_suite(opened[1], name, frame, file_project=True)


def _ensure_gx_project(root: str) -> str:
    from validations import suites

    return str(suites.ensure_gx_project(Path(root)))


def _build_data_docs(root: str) -> str:
    from validations import suites

    return str(suites.build_data_docs(Path(root)))


def _ping() -> str:
    return "pong"


#: What the child does on request.
_OPERATIONS: dict[str, Callable[..., Any]] = {
    "run_suite": _run_suite,
    "ensure_gx_project": _ensure_gx_project,
    "build_data_docs": _build_data_docs,
    "ping": _ping,
}


def _failed(operation: str, text: str) -> GxProjectError:
    return GxProjectError(f"{operation}: {text}")


def _serve(requests: IO[bytes], replies: IO[bytes]) -> None:
    from validations import suites

    suites._gx()   # the import first, before the first request arrives
    while True:
        try:
            operation, args = pickle.load(requests)
        except EOFError:
            return
        try:
            reply: tuple[bool, Any] = (True, _OPERATIONS[operation](*args))
        except Exception as exc:  # noqa: BLE001 - raised again in the caller
            if type(exc).__module__.split(".")[0] not in ("builtins", "validations"):
                exc = _failed(operation, f"{type(exc).__name__}: {exc}")
            reply = (False, exc)
        send(replies, reply, functools.partial(_failed, operation))


def main() -> None:
    """The child's entry point: serve requests until stdin closes (``argv[1]``: the replies' fd)."""
    replies = os.fdopen(int(sys.argv[1]), "wb")
    # Whatever Great Expectations prints goes to stderr, never into the replies.
    os.dup2(2, 1)
    _serve(sys.stdin.buffer, replies)
