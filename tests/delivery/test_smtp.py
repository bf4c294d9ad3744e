"""The SMTP session against a real server on localhost: plain, STARTTLS with a login, and
servers that refuse, drop the connection halfway or are too slow."""

from __future__ import annotations

from email.message import EmailMessage
from pathlib import Path

import pytest
from pydantic import SecretStr

from delivery import Credentials, DeliverySettings, Mailer, SendError, report_message
from tests.delivery.smtp_server import SMTPServer

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")   # aiosmtpd's own, in its thread


def _settings(server: SMTPServer, **extra: object) -> DeliverySettings:
    values: dict[str, object] = {"smtp_host": "127.0.0.1", "smtp_port": server.port, "sender": "r@example.org",
                                 "security": "starttls" if server.cert else "none", "timeout": 1.5}
    if server.cert:
        values["ca_file"] = str(server.cert)
    values.update(extra)
    return DeliverySettings.model_validate(values)


def _message(n: int = 1) -> EmailMessage:
    return report_message(sender="r@example.org", recipient="club@example.org", subject=f"report {n}",
                          msgid=f"<r.{n}@example.org>", markdown=f"# report {n}\n", html_body=f"<h1>report {n}</h1>",
                          attachment_name="r.md")


def test_plain_session_sends_every_message() -> None:
    with SMTPServer() as server, Mailer(_settings(server), None) as mailer:
        for n in range(3):
            mailer.send(_message(n))
    assert [r.message["Subject"] for r in server.received] == ["report 0", "report 1", "report 2"]
    assert server.handler.sessions == 1   # one session for the night, not one per message


def test_starttls_and_login_and_a_wrong_password_never_shown(tmp_path: Path) -> None:
    with SMTPServer(tls_folder=tmp_path, password="correct horse") as server:
        with Mailer(_settings(server), Credentials("ratings", SecretStr("correct horse"))) as mailer:
            mailer.send(_message())
        assert len(server.received) == 1
        with Mailer(_settings(server), Credentials("ratings", SecretStr("hunter2-secret"))) as mailer, \
                pytest.raises(SendError) as refused:
            mailer.send(_message(2))
    assert "535" in str(refused.value) and "hunter2-secret" not in str(refused.value)
    assert "hunter2-secret" not in repr(Credentials("ratings", SecretStr("hunter2-secret")))


def test_tls_is_verified_against_the_ca_given(tmp_path: Path) -> None:
    with SMTPServer(tls_folder=tmp_path) as server:
        settings = _settings(server, ca_file=None)   # the system's CAs do not know this certificate
        with Mailer(settings, None) as mailer, pytest.raises(SendError, match="TLS failed|CERTIFICATE"):
            mailer.send(_message())
    assert server.received == []


def test_a_refusing_server_fails_the_message_in_one_line() -> None:
    with SMTPServer("refuse") as server, Mailer(_settings(server), None) as mailer, \
            pytest.raises(SendError) as refused:
        mailer.send(_message())
    assert str(refused.value) == f"127.0.0.1:{server.port}: club@example.org refused (550 5.1.1 mailbox unavailable)"


def test_a_dropped_connection_fails_that_message_and_the_next_one_reconnects() -> None:
    with SMTPServer("drop") as server, Mailer(_settings(server), None) as mailer:
        with pytest.raises(SendError, match="closed the connection|Connection"):
            mailer.send(_message(1))
        server.set_mood("accept")
        mailer.send(_message(2))
    assert [r.message["Subject"] for r in server.received] == ["report 2"]
    assert server.handler.sessions == 2


def test_a_slow_server_times_out_within_the_setting() -> None:
    with (SMTPServer("slow", delay=5.0) as server, Mailer(_settings(server, timeout=1.0), None) as mailer,
          pytest.raises(SendError, match="did not answer within 1 s")):
        mailer.send(_message())


def test_an_unreachable_server_fails_every_message_at_once() -> None:
    with SMTPServer() as server:
        port = server.port
    settings = DeliverySettings(smtp_host="127.0.0.1", smtp_port=port, security="none", sender="r@example.org")
    with Mailer(settings, None) as mailer:
        for n in range(3):
            with pytest.raises(SendError, match="Connection refused"):
                mailer.send(_message(n))
