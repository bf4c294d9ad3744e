"""Writing the site's pages: only those whose bytes changed, inside the site folder, and in forked
workers for a large federation; what a generation did (:class:`SiteResult`)."""

from __future__ import annotations

import gc
import multiprocessing
import os
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from formats.safety import disk_full
from website.errors import SiteError


@dataclass
class SiteResult:
    """What one generation did."""

    out: Path                                   #: the site folder
    federations: list[str] = field(default_factory=list)
    pages: int = 0                              #: pages generated
    written: int = 0                            #: pages whose content changed (written)
    rendered: int = 0                           #: pages rendered (the others' inputs had not changed)
    removed: int = 0                            #: stale pages removed
    players: dict[str, int] = field(default_factory=dict)       #: federation -> player cards
    competitions: dict[str, int] = field(default_factory=dict)  #: federation -> competition pages
    editions: dict[str, int] = field(default_factory=dict)      #: federation -> editions
    seconds: float = 0.0
    #: CPU seconds per phase (read, editions, cards, competitions, overview), summed over federations
    phases: dict[str, float] = field(default_factory=dict)


class _Writer:
    """Writes pages under ``root``, only when their bytes differ from what is there."""

    def __init__(self, root: Path, keys: Mapping[str, str] | None = None) -> None:
        self.root = root.resolve()
        self.pages = 0
        self.written = 0
        #: Pages rendered (the others were left as they were: same inputs, file there).
        self.rendered = 0
        #: Pages generated in this run (written or kept), relative to ``root``: prune() keeps them.
        self.seen: set[str] = set()
        #: The ``*.html`` names in each folder, listed once (exists() on 60,000 pages).
        self._listed: dict[str, set[str]] = {}
        #: The digest of each page's inputs when it was last rendered (the manifest read at the start) ...
        self.old_keys: Mapping[str, str] = keys or {}
        #: ... and now, for the pages written with :meth:`write_keyed` in this run.
        self.keys: dict[str, str] = {}
        #: Set while cards render in forked children: each child writes through its own writer.
        self.delegate: list[Any] | None = None
        #: Every file an earlier run wrote (the manifest's): the only ones :meth:`prune` removes.
        self.owned: frozenset[str] = frozenset()

    def _checked(self, relative: str) -> str:
        # Every name comes from page_name() (one component, never ``..``); this is the belt to its braces.
        if any(part in ("", ".", "..") or "\\" in part for part in relative.split("/")):
            raise SiteError(f"page {relative!r} would be written outside the site folder {self.root}")
        return relative

    def _path(self, relative: str) -> Path:
        return inside(self.root, self.root.joinpath(*self._checked(relative).split("/")))

    def exists(self, relative: str) -> bool:
        folder, _, name = self._checked(relative).rpartition("/")
        names = self._listed.get(folder)
        if names is None:
            try:
                names = self._listed[folder] = {e.name for e in os.scandir(self.root / folder) if e.is_file()}
            except (FileNotFoundError, NotADirectoryError):
                names = self._listed[folder] = set()
        return name in names

    def keep(self, relative: str, key: str) -> None:
        """Leave page ``relative`` as it is (not rendered: its inputs, ``key``, did not change)."""
        self.pages += 1
        self.seen.add(self._checked(relative))
        self.keys[relative] = key

    def stands(self, relative: str, key: str) -> bool:
        """Keep page ``relative`` (and say so) when it was made from the same inputs (``key``) last
        time and its file is still there."""
        if self.old_keys.get(relative) == key and self.exists(relative):
            self.keep(relative, key)
            return True
        return False

    def write_keyed(self, relative: str, key: str, render: Callable[[], str]) -> None:
        """Write the page ``render()`` makes, unless it was made from the same inputs (``key``, a
        :func:`_digest` of everything ``render`` reads) last time and its file is still there."""
        if self.delegate is not None and self.delegate[0] is not None:
            self.delegate[0].write_keyed(relative, key, render)
            return
        if self.stands(relative, key):
            return
        self.keys[relative] = key
        self.write(relative, render())

    def write(self, relative: str, text: str) -> None:
        if self.delegate is not None and self.delegate[0] is not None:
            self.delegate[0].write(relative, text)
            return
        path = self._path(relative)
        self.rendered += 1
        data = text.encode("utf-8")
        self.pages += 1
        self.seen.add(relative)
        folder, _, name = relative.rpartition("/")
        if folder in self._listed:
            self._listed[folder].add(name)
        try:
            if path.stat().st_size == len(data) and path.read_bytes() == data:
                return
        except FileNotFoundError:
            path.parent.mkdir(parents=True, exist_ok=True)
        try:
            path.write_bytes(data)
        except OSError as error:
            raise disk_full(error, path.parent) from None
        self.written += 1

    def prune(self, folder: Path, pattern: str = "*.html") -> int:
        """Remove the files of ``folder`` matching ``pattern`` not written in this run that an earlier
        run wrote (the manifest's :attr:`owned`): a file the site did not write is never removed."""
        removed = 0
        folder = inside(self.root, folder).resolve()
        if folder.is_dir():
            prefix = folder.relative_to(self.root).as_posix()
            for page in folder.glob(pattern):
                relative = f"{prefix}/{page.name}"
                if relative not in self.seen and relative in self.owned and not page.is_symlink():
                    page.unlink()
                    removed += 1
        return removed


def inside(root: Path, path: Path) -> Path:
    """``path``, checked to stay inside the site folder ``root`` once symlinks are followed.

    Raises
    ------
    SiteError
        A symlink planted in the folder leads out of it.
    """
    resolved = path.resolve()
    base = root.resolve()
    if resolved != base and base not in resolved.parents:
        raise SiteError(f"{path} leads out of the site folder {root} (a symlink): refusing to write there; "
                        "remove the symlink")
    return path


class _Clock:
    """CPU time per phase, added into ``SiteResult.phases`` (for the benchmark and the logs)."""

    def __init__(self, result: SiteResult) -> None:
        self.result = result
        self.last = time.process_time()

    def lap(self, phase: str) -> None:
        now = time.process_time()
        self.result.phases[phase] = self.result.phases.get(phase, 0.0) + now - self.last
        self.last = now


#: Cards (or competition pages) per job handed to a worker: small enough to balance two workers.
_CHUNK = 1_000

#: The jobs the forked renderers run (set just before the fork, read by the children).
_JOBS: tuple[Sequence[Callable[[], None]], _Writer] | None = None

#: The child's own writer, which the jobs (holding the parent's writer) are pointed at.
_CHILD_WRITER: list[Any] = [None]


def _run_job(index: int) -> tuple[int, int, int, list[str], dict[str, str]]:
    """In a forked child: run job ``index`` through a writer of its own; report what it wrote."""
    assert _JOBS is not None
    jobs, parent = _JOBS
    writer = _CHILD_WRITER[0] = _Writer(parent.root, parent.old_keys)
    jobs[index]()
    return writer.pages, writer.written, writer.rendered, list(writer.seen), writer.keys


def _run_jobs(jobs: Sequence[Callable[[], None]], writer: _Writer, workers: int) -> None:
    """Run every job (each renders and writes some pages), in ``workers`` forked processes if > 1.

    The children only format strings and write files: no polars, no database, no
    Prefect call, so forking a process that has those threads is safe. The
    jobs are handed out one at a time (the first ones are the biggest), so the
    workers finish together. The objects read from the warehouse are frozen out
    of the garbage collector first: the children neither scan nor copy them. They
    are unfrozen when the workers are done, so that the rows made for the jobs
    (in cycles through the federation's :class:`website._context._Pages`) can be freed
    before the rest of the site.
    """
    global _JOBS
    if workers <= 1 or len(jobs) <= 1 or "fork" not in multiprocessing.get_all_start_methods():
        for job in jobs:
            job()
        return
    _JOBS = (jobs, writer)
    writer.delegate = _CHILD_WRITER
    gc.collect()
    gc.freeze()
    try:
        with multiprocessing.get_context("fork").Pool(min(workers, len(jobs))) as pool:
            for pages, written, rendered, seen, keys in pool.imap_unordered(_run_job, range(len(jobs))):
                writer.pages += pages
                writer.written += written
                writer.rendered += rendered
                writer.seen.update(seen)
                writer.keys.update(keys)
    finally:
        gc.unfreeze()
        _JOBS = None
        writer.delegate = None


def _each(render: Callable[[Any], None], items: Iterable[Any]) -> None:
    for item in items:
        render(item)
