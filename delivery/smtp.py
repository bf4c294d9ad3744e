"""Sending over SMTP, with STARTTLS or TLS, and errors in one line that never hold a credential."""

from __future__ import annotations

import smtplib
import socket
import ssl
from email.message import EmailMessage
from types import TracebackType
from typing import Self

from delivery.settings import Credentials, DeliverySettings

__all__ = ["Mailer", "SendError", "describe"]


class SendError(Exception):
    """A message the server did not take (the reason in one line, credentials removed)."""


def describe(error: BaseException, settings: DeliverySettings, secret: str | None = None) -> str:
    """One line for an SMTP or network error, with the server named and ``secret`` removed.

    Examples
    --------
    >>> s = DeliverySettings(sender="r@example.org", smtp_host="mail.example.org")
    >>> describe(smtplib.SMTPResponseException(554, b"5.7.1 rejected: s3cret"), s, "s3cret")
    'mail.example.org:587 answered 554 5.7.1 rejected: ***'
    >>> describe(ConnectionRefusedError(111, "Connection refused"), s)
    'mail.example.org:587: Connection refused'
    """
    where = f"{settings.smtp_host}:{settings.port}"
    if isinstance(error, smtplib.SMTPRecipientsRefused):
        parts = [f"{rcpt} refused ({code} {_text(msg)})" for rcpt, (code, msg) in error.recipients.items()]
        line = f"{where}: " + "; ".join(parts)
    elif isinstance(error, smtplib.SMTPResponseException):
        line = f"{where} answered {error.smtp_code} {_text(error.smtp_error)}"
    elif isinstance(error, (TimeoutError, socket.timeout)) or (
            isinstance(error, smtplib.SMTPServerDisconnected) and "timed out" in str(error)):
        line = f"{where} did not answer within {settings.timeout:g} s"
    elif isinstance(error, smtplib.SMTPServerDisconnected):
        line = f"{where} closed the connection ({error or 'before answering'})"
    elif isinstance(error, ssl.SSLError):
        line = f"{where}: TLS failed ({error.reason or error})"
    elif isinstance(error, OSError):
        line = f"{where}: {error.strerror or error}"
    else:
        line = f"{where}: {type(error).__name__}: {error}"
    line = " ".join(line.split())
    if secret:
        line = line.replace(secret, "***")
    return line


def _text(value: bytes | str) -> str:
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)


class Mailer:
    """One SMTP session for a night's messages: connect (TLS or STARTTLS), log in, send.

    A message the server refuses raises :class:`SendError` and the session goes on; a
    session the server dropped is opened again for the next message; a server that
    cannot be reached fails every message at once, without waiting again for each.
    """

    def __init__(self, settings: DeliverySettings, credentials: Credentials | None) -> None:
        self.settings = settings
        self.credentials = credentials
        self._smtp: smtplib.SMTP | None = None
        self._unreachable: str | None = None

    def __enter__(self) -> Self:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    def _secret(self) -> str | None:
        return self.credentials.password.get_secret_value() if self.credentials else None

    def _context(self) -> ssl.SSLContext:
        return ssl.create_default_context(cafile=self.settings.ca_file)

    def _connect(self) -> smtplib.SMTP:
        s = self.settings
        smtp: smtplib.SMTP
        if s.security == "tls":
            smtp = smtplib.SMTP_SSL(s.smtp_host, s.port, timeout=s.timeout, context=self._context())
        else:
            smtp = smtplib.SMTP(s.smtp_host, s.port, timeout=s.timeout)
        try:
            smtp.ehlo()
            if s.security == "starttls":
                smtp.starttls(context=self._context())
                smtp.ehlo()
            if self.credentials is not None:
                smtp.login(self.credentials.user, self.credentials.password.get_secret_value())
        except BaseException:
            _quietly_close(smtp)
            raise
        return smtp

    def send(self, message: EmailMessage) -> None:
        """Send one message.

        Raises
        ------
        SendError
            The server could not be reached, refused the message or dropped the session.
        """
        if self._unreachable is not None:
            raise SendError(self._unreachable)
        if self._smtp is None:
            try:
                self._smtp = self._connect()
            except (smtplib.SMTPException, OSError) as error:
                self._unreachable = describe(error, self.settings, self._secret())
                raise SendError(self._unreachable) from None
        try:
            refused = self._smtp.send_message(message)
        except smtplib.SMTPRecipientsRefused as error:
            raise SendError(describe(error, self.settings, self._secret())) from None
        except (smtplib.SMTPException, OSError) as error:
            # The session may be in any state now: the next message opens a new one.
            _quietly_close(self._smtp)
            self._smtp = None
            raise SendError(describe(error, self.settings, self._secret())) from None
        if refused:
            raise SendError(describe(smtplib.SMTPRecipientsRefused(refused), self.settings, self._secret()))

    def fail_all(self, reason: str) -> None:
        """Fail every message of this session with ``reason`` (the credentials cannot be read)."""
        self._unreachable = reason

    def close(self) -> None:
        """End the session (``QUIT``), ignoring a server that is gone already."""
        if self._smtp is not None:
            try:
                self._smtp.quit()
            except (smtplib.SMTPException, OSError):
                _quietly_close(self._smtp)
            self._smtp = None


def _quietly_close(smtp: smtplib.SMTP) -> None:
    try:
        smtp.close()
    except OSError:
        pass
