"""Measuring a row: one process, its wall time and peak memory, and what its output says."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import threading
import time
from pathlib import Path


class RowTimeout(RuntimeError):
    """A row ran past ``--row-timeout``: its process was stopped."""

    def __init__(self, seconds: float, peak_mb: float, output: str, command: str) -> None:
        super().__init__(f"{command} stopped after {seconds:.0f} s")
        self.seconds, self.peak_mb, self.output, self.command = seconds, peak_mb, output, command


#: The CLI's progress lines: ``[  14.8s] load: ...`` (time since the run started).
_STAGE_LINE = re.compile(r"^\[\s*([0-9.]+)s\] ([a-z_]+):", re.MULTILINE)


def stages(output: str) -> str:
    """Where a ``ratings`` run spent its time, from its progress lines: ``ingest 1.1, validate 8.8, ...``.

    >>> stages("[   1.1s] ingest: x\\n[   9.9s] validate: y\\n[  14.8s] load: z\\n[  15.0s] info: n")
    'ingest 1.1, validate 8.8, load 4.9'
    """
    out, last = [], 0.0
    for at, stage in _STAGE_LINE.findall(output.replace("\\n", "\n")):
        if stage in ("info", "warning", "error"):
            continue
        out.append(f"{stage} {float(at) - last:.1f}")
        last = float(at)
    return ", ".join(out)


#: The load stage's line: "load: ajusc: loaded 21 file(s), 20 competition(s), 2505 game(s)".
_LOADED = re.compile(r"load: \S+: loaded [^\n]*?([0-9]+) game\(s\)")


def loaded(output: str, expected: int) -> None:
    """A run must have loaded every game it was given: a refused file would time nothing."""
    got = sum(int(n) for n in _LOADED.findall(output))
    if got != expected:
        raise RuntimeError(f"the run loaded {got:,} games of {expected:,}; its output ends:\n{output[-3000:]}")


def tree_pss_mb(pid: int) -> float:
    """The proportional set size of process ``pid`` and every process under it, summed (MB): the
    memory they hold together, each shared page counted once in all (RSS counts it in each).
    0 when the process is gone."""
    import psutil

    try:
        root = psutil.Process(pid)
        processes = [root, *root.children(recursive=True)]
    except psutil.Error:
        return 0.0
    total = 0
    for process in processes:
        try:
            total += process.memory_full_info().pss
        except psutil.Error:   # ended meanwhile, or not ours to read
            continue
    return total / 2**20


def measured(cmd: list[str], *, env: dict[str, str] | None = None, cwd: Path | None = None,
             timeout: float | None = None, tree: list[float] | None = None) -> tuple[float, float, str]:
    """Run ``cmd`` as its own process: (wall seconds, peak RSS in MB, output); raises on failure,
    :class:`RowTimeout` when it runs past ``timeout`` seconds (then it is killed).

    The peak RSS is the largest single process's (``ru_maxrss``): a row whose work is spread over
    processes (the site's renderers, its own process) holds more. ``tree``: the peak of
    :func:`tree_pss_mb` over the run, sampled every half second, is appended to it."""
    start = time.perf_counter()
    peak_tree, sampled = 0.0, 0.0
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env, cwd=cwd, text=True,
                            start_new_session=True)
    assert proc.stdout is not None
    chunks: list[str] = []
    reader = threading.Thread(target=lambda: chunks.append(proc.stdout.read()) if proc.stdout else None,
                              daemon=True)
    reader.start()
    stopped = False
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        if tree is not None and time.perf_counter() - sampled >= 0.5:
            sampled = time.perf_counter()
            peak_tree = max(peak_tree, tree_pss_mb(proc.pid))
        if timeout is not None and time.perf_counter() - start > timeout:
            os.killpg(proc.pid, signal.SIGKILL)
            _, status, usage = os.wait4(proc.pid, 0)
            stopped = True
            break
        time.sleep(0.05)
    seconds = time.perf_counter() - start
    if tree is not None:
        tree.append(peak_tree)
    reader.join(timeout=30)
    output = "".join(chunks)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if stopped:
        words = cmd[3:5] if cmd[1:3] == ["-m", "flows.cli"] else cmd[:1]
        raise RowTimeout(seconds, usage.ru_maxrss / 1024.0, output, " ".join(["ratings", *words]))
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited {proc.returncode}:\n{output[-3000:]}")
    return seconds, usage.ru_maxrss / 1024.0, output
