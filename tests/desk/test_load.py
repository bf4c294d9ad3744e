"""A bounded load test on localhost: 20 organisers' uploads at once, against the desk under
uvicorn, while a night (``ratings run``, another process) holds the warehouse's run lock.

Nothing is lost: every confirmed file is in the inbox exactly once, none half written, no
upload left staged, and the next night loads every competition they hold. The desk never
takes the run lock: the night's guard stays in force while the uploads go in.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import httpx2 as httpx
import pytest

import warehouse
from tests.desk.conftest import PASSWORDS, REPO, SAMPLE, Installation, night
from warehouse.guard import WarehouseBusyError, hold

UPLOADS = 20
GOOD = (SAMPLE / "CAT-2025-01.results.csv").read_text(encoding="utf-8")


def _file(n: int) -> bytes:
    return GOOD.replace("CAT-2025-01", f"LOAD-{n:02d}").encode("utf-8")


def _send(base: str, n: int) -> tuple[int, str]:
    """One organiser's whole visit: sign in, upload, read the report, confirm."""
    user = ("anna", "bernat")[n % 2]
    with httpx.Client(base_url=base, timeout=180, follow_redirects=True) as client:
        page = client.get("/signin")
        token = re.search(r'name="csrf" value="([^"]+)"', page.text)
        assert token
        signed = client.post("/signin", data={"csrf": token.group(1), "username": user, "password": PASSWORDS[user]})
        assert signed.status_code == 200 and signed.url.path == "/upload", signed.text[-300:]
        csrf = re.search(r'name="csrf" value="([^"]+)"', signed.text)
        assert csrf
        shown = client.post("/upload", data={"csrf": csrf.group(1)},
                            files=[("files", (f"LOAD-{n:02d}.results.csv", _file(n), "text/csv"))])
        assert shown.status_code == 200 and 'id="outcome">accepted' in shown.text, shown.text[-500:]
        done = client.post(f"{shown.url.path}/confirm", data={"csrf": csrf.group(1)})
        return done.status_code, done.text


@pytest.mark.timeout(400)
def test_twenty_uploads_while_a_night_runs_lose_nothing(live_desk: str, installation: Installation) -> None:
    for sample in SAMPLE.iterdir():   # the night has a season to load meanwhile
        shutil.copy(sample, installation.inbox / sample.name)
    environment = {**os.environ, "RATINGS_ORCHESTRATOR": "local", "RATINGS_LOCK_WAIT_S": "300"}
    ratings = [sys.executable, "-c", "from flows.cli import main; main()"]
    run = subprocess.Popen([*ratings, "run", "--inbox", str(installation.inbox), "--warehouse", installation.url,
                            "--no-site", "--reports", str(installation.root / "reports"), "--as-of", "2025-10-31"],
                           cwd=REPO, env=environment, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    db = warehouse.get_engine(installation.url)
    busy_seen = 0

    def watch() -> None:
        nonlocal busy_seen
        while run.poll() is None:
            try:
                with hold(db, wait_s=0):
                    pass
            except WarehouseBusyError:
                busy_seen += 1
            time.sleep(0.2)

    watcher = threading.Thread(target=watch)
    watcher.start()
    deadline = time.monotonic() + 120
    while not busy_seen and run.poll() is None:   # the uploads start once the night holds the lock
        assert time.monotonic() < deadline
        time.sleep(0.1)
    started = time.monotonic()
    with ThreadPoolExecutor(max_workers=UPLOADS) as pool:
        results = list(pool.map(lambda n: _send(live_desk, n), range(UPLOADS)))
    seconds = time.monotonic() - started
    night_running_at_end = run.poll() is None
    output = run.communicate(timeout=300)[0].decode("utf-8", "replace")
    watcher.join()
    assert run.returncode == 0, output[-2000:]
    assert busy_seen, "the night never held the run lock"
    assert [code for code, _ in results] == [200] * UPLOADS
    assert all('id="placed"' in text for _, text in results)

    # Every file is in the inbox exactly once, whole, under its organiser; nothing left staged.
    sent = {hashlib.sha256(_file(n)).hexdigest(): n for n in range(UPLOADS)}
    found: dict[str, int] = {}
    for path in installation.inbox.rglob("*"):
        if path.is_file() and ".desk" not in path.relative_to(installation.inbox).parts:
            digest = hashlib.sha256(path.read_bytes()).hexdigest()
            found[digest] = found.get(digest, 0) + 1
    assert {d: found.get(d, 0) for d in sent} == dict.fromkeys(sent, 1)
    staged = [p for p in (installation.inbox / ".desk").rglob("*") if p.is_file() and p.name != ".report.json"]
    assert staged == []
    assert not [p for p in installation.inbox.rglob(".incoming-*")]

    # The next night loads what the first did not see: every competition, once.
    night(installation)
    loaded = warehouse.accounts.desk_competitions(db, limit=1000)
    ids = sorted(cid for cid in loaded.get_column("competition_id") if cid.startswith("LOAD-"))
    assert ids == [f"LOAD-{n:02d}" for n in range(UPLOADS)]
    print(f"\nload: {UPLOADS} uploads (sign-in, upload + pre-check, confirm) in {seconds:.1f} s while a night ran "
          f"(lock seen busy {busy_seen} times; night still running at the end: {night_running_at_end}); "
          f"files lost 0, duplicated 0")
