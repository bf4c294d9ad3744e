"""``ratings account add|reset|disable`` and ``ratings serve``: the first officer, from the command line."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx2 as httpx
from typer.testing import CliRunner

import warehouse
from flows.cli import app
from tests.desk.conftest import REPO, free_port
from warehouse import accounts

runner = CliRunner()


def test_account_add_reset_disable(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'w.db'}"
    done = runner.invoke(app, ["account", "add", "marta", "--role", "officer", "--password-stdin", "--warehouse", url],
                         input="a long officer password\n")
    assert done.exit_code == 0, done.output
    assert "account marta (officer): created" in done.output
    db = warehouse.get_engine(url)
    found = accounts.account(db, "marta")
    assert found is not None and found.role == "officer" and not found.disabled
    assert accounts.record_login(db, "marta", "a long officer password", "cli-test") is not None
    # The password is stored hashed, never as given.
    with db.connect() as conn:
        stored = conn.exec_driver_sql("SELECT password_hash FROM desk_accounts").scalar()
    assert str(stored).startswith("$argon2id$") and "a long officer password" not in str(stored)

    again = runner.invoke(app, ["account", "add", "marta", "--role", "officer", "--password-stdin",
                                "--warehouse", url], input="another password!\n")
    assert again.exit_code == 1 and "exists already" in again.output
    short = runner.invoke(app, ["account", "add", "anna", "--role", "organiser", "--federation", "ajusc",
                                "--password-stdin", "--warehouse", url], input="short\n")
    assert short.exit_code == 1 and "at least 10 characters" in short.output
    no_fed = runner.invoke(app, ["account", "add", "anna", "--role", "organiser", "--password-stdin",
                                 "--warehouse", url], input="a good password\n")
    assert no_fed.exit_code == 1 and "needs --federation" in no_fed.output
    bad_fed = runner.invoke(app, ["account", "add", "anna", "--role", "organiser", "--federation", "ajsuc",
                                  "--password-stdin", "--warehouse", url], input="a good password\n")
    assert bad_fed.exit_code == 1 and "ajsuc" in bad_fed.output
    no_stdin = runner.invoke(app, ["account", "add", "anna", "--role", "officer", "--warehouse", url])
    assert no_stdin.exit_code == 64

    reset = runner.invoke(app, ["account", "reset", "marta", "--warehouse", url], input="a brand new password\n")
    assert reset.exit_code == 0 and "password reset" in reset.output
    assert accounts.record_login(db, "marta", "a long officer password", "cli-test") is None
    assert accounts.record_login(db, "marta", "a brand new password", "cli-test") is not None
    disabled = runner.invoke(app, ["account", "disable", "marta", "--warehouse", url])
    assert disabled.exit_code == 0 and "disabled" in disabled.output
    assert accounts.record_login(db, "marta", "a brand new password", "cli-test") is None
    unknown = runner.invoke(app, ["account", "disable", "nobody", "--warehouse", url])
    assert unknown.exit_code == 1 and "no account 'nobody'" in unknown.output
    actions = accounts.audit_log(db).get_column("action").to_list()
    assert actions == ["account.disable", "account.reset", "account.add"]


def test_ratings_serve_serves_the_sign_in_page_and_stops_on_sigint(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'w.db'}"
    port = free_port()
    environment = {**os.environ, "RATINGS_ORCHESTRATOR": "local"}
    server = subprocess.Popen(
        [sys.executable, "-c", "from flows.cli import main; main()", "serve", "--port", str(port), "--inbox",
         str(tmp_path / "inbox"), "--warehouse", url],
        cwd=REPO, env=environment, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                page = httpx.get(f"http://127.0.0.1:{port}/signin", timeout=5)
                break
            except httpx.TransportError:
                assert server.poll() is None and time.monotonic() < deadline, server.stdout.read() if server.stdout else ""
                time.sleep(0.3)
        assert page.status_code == 200
        assert page.text.count('type="text"') == 1 and page.text.count('type="password"') == 1
        assert (tmp_path / "inbox").is_dir()
    finally:
        server.send_signal(signal.SIGINT)
        out = server.communicate(timeout=30)[0].decode("utf-8", "replace")
    assert server.returncode == 0, out
    assert "Traceback" not in out
