"""Great Expectations in its own process (``validations.gx_process``): what the caller
gets back when the child fails, and that the child never outlives the process that started it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import polars as pl
import pytest

from validations import gx_process
from validations.errors import GxProjectError


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie (ended, not yet reaped by its parent) has ended too.
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


def test_an_error_in_the_child_is_raised_again_in_the_caller() -> None:
    frame = pl.DataFrame({"row_id": [0], "competition_id": ["C1"]})
    # Great Expectations' own exception comes back as ours: unpickling it would import it here
    # (tests/flows/test_gx_in_its_own_process.py checks that a night's process never does).
    with pytest.raises(GxProjectError, match="run_suite: DataContextError: .*ajusc.nothing.base") as raised:
        gx_process.call("run_suite", "ajusc", None, "ajusc.nothing.base", frame)
    assert type(raised.value) is GxProjectError
    assert gx_process.call("ping") == "pong"   # the child goes on after an error


class _EndsTheChild:
    """Unpickled in the child, it ends it there: a child that dies in the middle of a request."""

    def __reduce__(self) -> tuple[object, tuple[int]]:
        return (os._exit, (3,))


def test_a_child_that_dies_gives_a_clear_error_and_the_next_call_starts_another() -> None:
    gx_process.start()
    child = gx_process._CHILD.process
    assert child is not None
    with pytest.raises(GxProjectError, match=r"ended before it answered \(ping; exit status 3\)"):
        gx_process.call("ping", _EndsTheChild())
    assert not gx_process.running()
    assert gx_process.call("ping") == "pong"
    assert gx_process._CHILD.process is not None and gx_process._CHILD.process.pid != child.pid
    # One that ended between two calls is replaced without a word.
    os.kill(gx_process._CHILD.process.pid, signal.SIGKILL)
    gx_process._CHILD.process.wait()
    assert gx_process.call("ping") == "pong"


def test_stop_ends_the_child() -> None:
    gx_process.start()
    child = gx_process._CHILD.process
    assert child is not None and gx_process.running()
    gx_process.stop()
    assert child.poll() is not None and not gx_process.running()


@pytest.mark.parametrize("how", ["killed", "exits"])
def test_the_child_ends_with_the_process_that_started_it(tmp_path: Path, how: str) -> None:
    """A run killed mid-night (the crash harness, an operator's kill -9) leaves no Great
    Expectations process behind: the child reads its requests from a pipe that closes then."""
    probe = (
        "import sys, time\n"
        "from validations import gx_process\n"
        "gx_process.start()\n"
        "print(gx_process._CHILD.process.pid, flush=True)\n"
        + ("time.sleep(600)\n" if how == "killed" else "assert gx_process.call('ping') == 'pong'\n")
    )
    with subprocess.Popen([sys.executable, "-c", probe], stdout=subprocess.PIPE, text=True, cwd=tmp_path) as parent:
        assert parent.stdout is not None
        child = int(parent.stdout.readline())
        if how == "killed":
            parent.kill()
        assert parent.wait(timeout=120) == (-9 if how == "killed" else 0)
    deadline = time.monotonic() + 120    # the child may be importing Great Expectations still
    while _alive(child) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not _alive(child), f"the Great Expectations process {child} outlived its parent ({how})"
