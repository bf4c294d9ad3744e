"""Crash safety of e-mail delivery: ``ratings run`` killed with SIGKILL while it sends, then
run again, sends every message exactly once (the points: before a message is handed to the
server, ``deliver``, and after its outcome is recorded, ``delivered``; the sample night sends
four reports, then the digest: ``deliver:5``)."""

from __future__ import annotations

import shutil
import signal
from collections import Counter
from pathlib import Path

import pytest

from tests.delivery.smtp_server import SMTPServer
from tests.reliability.cli import TIMEOUT_S, ratings

pytestmark = [pytest.mark.crash, pytest.mark.filterwarnings("ignore::DeprecationWarning")]

SAMPLE = Path(__file__).resolve().parents[2] / "examples" / "inbox"


def _night(tmp: Path, config: Path, **env: str) -> int:
    done = ratings(tmp, "--config", str(config), "run", "--inbox", str(tmp / "inbox"), "--warehouse",
                   f"sqlite:///{tmp / 'w.db'}", "--as-of", "2026-02-01", "--reports", str(tmp / "reports"),
                   "--no-site", timeout=TIMEOUT_S, **env)
    assert done.returncode in (0, -signal.SIGKILL), done.stderr[-2000:]
    return done.returncode


@pytest.mark.parametrize("point", ["deliver:1", "delivered:2", "deliver:5"])
def test_killed_while_sending_then_rerun_sends_each_message_once(tmp_path: Path, point: str) -> None:
    shutil.copytree(SAMPLE, tmp_path / "inbox")
    added = ratings(tmp_path, "organiser", "add", "--federation", "ajusc", "--email", "club@example.org",
                    "--warehouse", f"sqlite:///{tmp_path / 'w.db'}")
    assert added.returncode == 0, added.stderr
    with SMTPServer() as server:
        config = server.config(tmp_path)
        assert _night(tmp_path, config, RATINGS_CRASH_AT=point) == -signal.SIGKILL
        assert _night(tmp_path, config) == 0
        assert _night(tmp_path, config) == 0   # and once more: nothing is left to send
        received = server.received
    reports = sorted((tmp_path / "reports" / "ajusc").glob("*.md"))
    ids = Counter(str(m.message["Message-ID"]) for m in received)
    assert set(ids.values()) == {1}, ids
    assert len(received) == len(reports) + 1   # every report, and the night's digest
    assert sum(m.recipients == ["officer@example.org"] for m in received) == 1
