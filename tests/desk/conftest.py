"""The desk under test: a real warehouse (SQLite file, or PostgreSQL), a real inbox, the real app.

The flows run in-process (``RATINGS_ORCHESTRATOR=local``), as ``ratings serve`` and ``ratings
run`` do on a machine without a Prefect server: no test harness to start.
"""

from __future__ import annotations

import re
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

import warehouse
from tests.conftest import postgres_database
from warehouse import accounts

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "examples" / "inbox"
PASSWORDS = {"anna": "anna-password-1", "bernat": "bernat-password-1", "marta": "marta-password-1"}

# A Catalan championship in TSH format that names no lexicon: held for the officer
# (tests/flows/test_officer.py).
HELD_T = """#date 2025-10-04
Puig, Anna 1200 2 3 4; 400 400 400
Vila, Pere 1100 1 4 3; 300 400 400
Roca, Marta 1000 4 1 2; 400 300 300
Soler, Jan 1000 3 2 1; 300 300 300
"""


@pytest.fixture(autouse=True)
def _in_process(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RATINGS_ORCHESTRATOR", "local")


@dataclass
class Installation:
    """A warehouse with three accounts and an inbox."""

    url: str
    inbox: Path
    root: Path

    @property
    def engine(self) -> Any:
        return warehouse.get_engine(self.url)


@pytest.fixture
def installation(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Installation]:
    """SQLite by default; ``indirect`` parametrisation with ``"postgresql"``: a fresh PostgreSQL database."""
    if getattr(request, "param", "sqlite") == "postgresql":
        with postgres_database() as url:
            yield _installation(url, tmp_path)
        return
    yield _installation(f"sqlite:///{tmp_path / 'ratings.db'}", tmp_path)


def _installation(url: str, tmp_path: Path) -> Installation:
    db = warehouse.get_engine(url)
    accounts.add_account(db, "anna", accounts.hash_password(PASSWORDS["anna"]), "organiser", "ajusc")
    accounts.add_account(db, "bernat", accounts.hash_password(PASSWORDS["bernat"]), "organiser", "ajusc")
    accounts.add_account(db, "marta", accounts.hash_password(PASSWORDS["marta"]), "officer")
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    return Installation(url=url, inbox=inbox, root=tmp_path)


def csrf_of(html: str) -> str:
    found = re.search(r'name="csrf" value="([^"]+)"', html)
    assert found, "the page has no form with a CSRF token"
    return found.group(1)


def sign_in(client: Any, username: str, password: str | None = None) -> Any:
    page = client.get("/signin")
    return client.post("/signin", data={"csrf": csrf_of(page.text), "username": username,
                                        "password": PASSWORDS[username] if password is None else password},
                       follow_redirects=False)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def live_desk(installation: Installation) -> Iterator[str]:
    """The desk under uvicorn on a free port of localhost (as ``ratings serve`` runs it)."""
    import uvicorn

    from desk.app import create_app
    from flows.desk import desk_pipeline

    port = free_port()
    server = uvicorn.Server(uvicorn.Config(create_app(installation.inbox, installation.url, pipeline=desk_pipeline()),
                                           host="127.0.0.1",
                                           port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert time.monotonic() < deadline, "the desk did not start"
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(timeout=30)


def night(installation: Installation, day: str = "2025-10-31") -> Any:
    """A real night over the inbox (the ``nightly`` flow, as ``ratings run`` runs it)."""
    from datetime import date

    from flows.nightly import nightly
    from flows.orchestration import run_flow

    return run_flow(nightly, inbox=str(installation.inbox), warehouse_url=installation.url,
                    as_of=date.fromisoformat(day), reports_dir=str(installation.root / "reports"), site_dir=None)
