"""A real SMTP server on localhost for the delivery tests (aiosmtpd), in four moods.

``accept`` keeps every message it receives (parsed with :mod:`email`); ``refuse`` answers
550 to every recipient; ``drop`` closes the connection in the middle of the message's
data; ``slow`` waits longer than the client's timeout before answering the data. With
``tls`` it offers STARTTLS with a self-signed certificate (written beside, for the client's
``ca_file``); with ``password`` it requires AUTH LOGIN/PLAIN with that password.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import email
import ipaddress
import socket
import ssl
import threading
from dataclasses import dataclass, field
from email.message import EmailMessage
from email.policy import default
from pathlib import Path
from typing import Any, Self

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword

__all__ = ["Received", "SMTPServer", "self_signed"]


@dataclass
class Received:
    """One message the server took."""

    sender: str
    recipients: list[str]
    data: bytes
    message: EmailMessage


@dataclass
class _Handler:
    mood: str = "accept"
    delay: float = 0.0
    received: list[Received] = field(default_factory=list)
    sessions: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    async def handle_EHLO(self, server: Any, session: Any, envelope: Any, hostname: str, responses: list[str]) -> list[str]:
        with self.lock:
            self.sessions += 1
        session.host_name = hostname
        return responses

    async def handle_RCPT(self, server: Any, session: Any, envelope: Any, address: str, rcpt_options: list[str]) -> str:
        if self.mood == "refuse":
            return "550 5.1.1 mailbox unavailable"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        if self.mood == "drop":
            server.transport.close()
            return "421 closing"
        if self.mood == "slow":
            await asyncio.sleep(self.delay)
        data = bytes(envelope.original_content or envelope.content)
        parsed = email.message_from_bytes(data, policy=default)
        with self.lock:
            self.received.append(Received(envelope.mail_from, list(envelope.rcpt_tos), data, parsed))
        return "250 Message accepted"


def self_signed(folder: Path) -> tuple[Path, Path]:
    """A certificate for ``localhost`` / 127.0.0.1 and its key, written in ``folder``."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")])
    now = dt.datetime.now(dt.UTC)
    cert = (
        x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
        .serial_number(x509.random_serial_number()).not_valid_before(now - dt.timedelta(minutes=5))
        .not_valid_after(now + dt.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName([x509.DNSName("localhost"),
                                                    x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = folder / "smtp-cert.pem", folder / "smtp-key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return cert_path, key_path


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class SMTPServer:
    """The server, started on a free port of 127.0.0.1 (``with SMTPServer(...) as server``)."""

    def __init__(self, mood: str = "accept", *, delay: float = 3.0, tls_folder: Path | None = None,
                 password: str | None = None, user: str = "ratings") -> None:
        self.handler = _Handler(mood, delay)
        self.port = _free_port()
        self.cert: Path | None = None
        kwargs: dict[str, Any] = {}
        if tls_folder is not None:
            self.cert, key = self_signed(tls_folder)
            context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
            context.load_cert_chain(self.cert, key)
            kwargs["tls_context"] = context
            kwargs["require_starttls"] = True
        if password is not None:
            def authenticate(server: Any, session: Any, envelope: Any, mechanism: str, auth_data: Any) -> AuthResult:
                ok = isinstance(auth_data, LoginPassword) and auth_data.login == user.encode() \
                    and auth_data.password == password.encode()
                return AuthResult(success=ok, handled=False)

            kwargs["authenticator"] = authenticate
            kwargs["auth_required"] = True
            kwargs["auth_require_tls"] = tls_folder is not None
        self.controller = Controller(self.handler, hostname="127.0.0.1", port=self.port, **kwargs)

    @property
    def received(self) -> list[Received]:
        """Every message taken so far."""
        with self.handler.lock:
            return list(self.handler.received)

    def set_mood(self, mood: str) -> None:
        """Change how the server answers from the next message on."""
        self.handler.mood = mood

    def __enter__(self) -> Self:
        self.controller.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.controller.stop()

    def config(self, folder: Path, **delivery: object) -> Path:
        """An installation config file whose ``[delivery]`` table points at this server."""
        table: dict[str, object] = {"smtp_host": "127.0.0.1", "smtp_port": self.port,
                                    "security": "starttls" if self.cert else "none",
                                    "sender": "Ratings <ratings@example.org>", "officer": "officer@example.org",
                                    "timeout": 2.0}
        if self.cert is not None:
            table["ca_file"] = str(self.cert)
        table.update(delivery)
        lines = ["[delivery]"]
        for key, value in table.items():
            lines.append(f"{key} = {_toml(value)}")
        path = folder / "ratings.toml"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        return path


def _toml(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    return '"' + str(value).replace("\\", "\\\\").replace('"', '\\"') + '"'
