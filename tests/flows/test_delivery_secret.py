"""The SMTP password from a Prefect Secret block (``[delivery].password_secret``), as a deployed
worker reads it, under the Prefect test harness."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import SecretStr

from delivery import DeliverySettings, Mailer, report_message
from tasks.deliver import _credentials
from tests.delivery.smtp_server import SMTPServer

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def test_the_password_comes_from_the_secret_block(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from prefect.blocks.system import Secret

    Secret(value=SecretStr("from-the-block")).save("ratings-smtp-test", overwrite=True)
    monkeypatch.setenv("RATINGS_SMTP_USER", "ratings")
    monkeypatch.delenv("RATINGS_SMTP_PASSWORD", raising=False)
    with SMTPServer(tls_folder=tmp_path, password="from-the-block") as server:
        settings = DeliverySettings(smtp_host="127.0.0.1", smtp_port=server.port, security="starttls",
                                    sender="r@example.org", ca_file=str(server.cert), password_secret="ratings-smtp-test")
        credentials = _credentials(settings)
        assert credentials is not None and "from-the-block" not in repr(credentials)
        with Mailer(settings, credentials) as mailer:
            mailer.send(report_message(sender="r@example.org", recipient="o@example.org", subject="s",
                                       msgid="<m@example.org>", markdown="x", html_body=None, attachment_name="r.md"))
        assert len(server.received) == 1
