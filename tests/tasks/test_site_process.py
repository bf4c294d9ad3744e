"""A large federation's site is generated in a process of its own (``tasks.site_process``).

The child generates the same site as the calling process would, hands back the result or the
error, is chosen by the size of the lists (``RATINGS_SITE_OWN_PROCESS_FROM``), and goes without
the parent's crash and fault hooks. The real night and backfill take it ahead of their last
publication (``tests/flows/test_site_flows.py`` runs them with the threshold at 0).
"""

from __future__ import annotations

import filecmp
import signal
import sys
from datetime import date
from pathlib import Path

import pytest

import website
from tasks import site, site_process
from tests.website.conftest import SmallSeason

AS_OF = date(2026, 1, 1)


def _files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def _no_site_here(*_: object, **__: object) -> None:
    raise AssertionError("the site was generated in the calling process")


def test_the_child_generates_the_same_site_as_the_caller(
    small_season: SmallSeason, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    here = site.generate_site(small_season.url, tmp_path / "here", None, AS_OF, workers=1)
    monkeypatch.setenv(site_process.THRESHOLD_ENV, "0")
    monkeypatch.setattr(site, "generate_site", _no_site_here)   # the child imports its own
    apart = site.generate(small_season.url, tmp_path / "apart", None, AS_OF, workers=2)
    assert isinstance(apart, website.SiteResult)
    assert (apart.pages, apart.written, apart.players, apart.editions, apart.competitions) == (
        here.pages, here.written, here.players, here.editions, here.competitions)
    assert apart.out == tmp_path / "apart"
    assert _files(tmp_path / "apart") == _files(tmp_path / "here")


def test_a_small_site_stays_in_the_calling_process(
    small_season: SmallSeason, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(site_process.THRESHOLD_ENV, "9")   # the small season lists 8 players
    assert site_process.apart(small_season.url, "ajusc") is None
    calls: list[object] = []
    monkeypatch.setattr(site, "generate_site", lambda *a, **k: calls.append(a))
    site.generate(small_season.url, tmp_path / "site", "ajusc", AS_OF)
    assert len(calls) == 1
    monkeypatch.setenv(site_process.THRESHOLD_ENV, "8")
    assert site_process.apart(small_season.url, "ajusc") == small_season.url
    assert site_process.apart(small_season.url, "fide") is None    # no list: nothing to generate apart
    assert site_process.apart("sqlite://", None) is None           # a warehouse in memory: no other process sees it


def test_the_threshold_is_a_whole_number(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(site_process.THRESHOLD_ENV, raising=False)
    assert site_process.own_process_from() == site_process.OWN_PROCESS_FROM
    for bad in ("many", "-1"):
        monkeypatch.setenv(site_process.THRESHOLD_ENV, bad)
        with pytest.raises(ValueError, match=site_process.THRESHOLD_ENV):
            site_process.own_process_from()


def test_a_users_mistake_comes_back_as_itself(small_season: SmallSeason, tmp_path: Path) -> None:
    (tmp_path / "site").write_text("a file, not a folder", encoding="utf-8")
    with pytest.raises(website.SiteError, match="is a file, not a folder"):
        site_process.generate_in_child(small_season.url, tmp_path / "site", None, AS_OF, 1)
    with pytest.raises(website.SiteError, match="'fide' has no published edition"):
        site_process.generate_in_child(small_season.url, tmp_path / "other", "fide", AS_OF, 1)


def test_a_child_that_dies_says_so(small_season: SmallSeason, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "executable", "/bin/false")
    with pytest.raises(RuntimeError, match=r"site's process ended before it answered \(exit status 1\)"):
        site_process.generate_in_child(small_season.url, tmp_path / "site", None, AS_OF, 1)


def test_the_child_goes_without_the_parents_crash_hooks(
    small_season: SmallSeason, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``RATINGS_CRASH_AT=sql:1`` in the environment: the child still runs, for only ``tests.faults``
    reads it and the site's child is not started through it."""
    monkeypatch.setenv("RATINGS_CRASH_AT", "sql:1")
    result = site_process.generate_in_child(small_season.url, tmp_path / "site", None, AS_OF, 1)
    assert result.pages > 0 and (tmp_path / "site" / "ajusc" / "index.html").exists()


def test_a_child_started_ahead_is_used_or_ended(
    small_season: SmallSeason, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(site_process.THRESHOLD_ENV, "100")
    assert not site_process.start(small_season.url, None) and site_process._started is None
    monkeypatch.setenv(site_process.THRESHOLD_ENV, "0")
    assert site_process.start(small_season.url, None)
    started = site_process._started
    assert started is not None and site_process.start(small_season.url, None)   # one at a time
    assert site_process._started is started
    site_process.generate_in_child(small_season.url, tmp_path / "site", None, AS_OF, 1)
    assert site_process._started is None and started.process.returncode == 0   # that one answered
    # A child started and never asked ends with the parent (its atexit), at once.
    assert site_process.start(small_season.url, None)
    unused = site_process._started
    assert unused is not None
    site_process._close_unused()
    assert site_process._started is None and unused.process.returncode == 0
    # One that died meanwhile is replaced.
    assert site_process.start(small_season.url, None)
    dead = site_process._started
    assert dead is not None
    dead.process.send_signal(signal.SIGKILL)
    dead.process.wait()
    result = site_process.generate_in_child(small_season.url, tmp_path / "again", None, AS_OF, 1)
    assert result.pages > 0 and site_process._started is None
    assert filecmp.cmp(tmp_path / "site" / "ajusc" / "index.html", tmp_path / "again" / "ajusc" / "index.html",
                       shallow=False)


def test_the_child_leaves_when_its_parent_does() -> None:
    """The child watches its stdin, which the parent holds open until the reply: closed (the
    reply came, or the parent ended however it ended), the child leaves at once, busy or not.
    Workers forked while it watches start (the site forks them for 2,000 cards or more): a
    watch through ``sys.stdin`` made each wait for ever in ``multiprocessing``'s closing of it."""
    import select
    import subprocess

    code = ("import multiprocessing, sys, time; from tasks.site_process import _end_with_parent; "
            "_end_with_parent(); print('watching', flush=True); time.sleep(0.5); "
            "pool = multiprocessing.get_context('fork').Pool(2); "
            "print(sum(pool.map(abs, range(-9, 1))), flush=True); pool.close(); pool.join(); time.sleep(120)")
    busy = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            cwd=Path(__file__).resolve().parents[2], bufsize=0)   # unbuffered: select sees all

    def line() -> bytes:
        assert busy.stdout is not None
        # poll, not select: select refuses a descriptor above 1023, and a test worker that ran many
        # servers and databases before this test holds that many.
        watch = select.poll()
        watch.register(busy.stdout, select.POLLIN)
        if not watch.poll(60_000):
            busy.kill()
            pytest.fail("no line within 60 s: the forked workers hang")
        return busy.stdout.readline()

    with busy:
        assert busy.stdin is not None
        assert line() == b"watching\n"
        assert line() == b"45\n"   # the pool's workers started and answered
        busy.stdin.close()
        assert busy.wait(timeout=30) == 0
