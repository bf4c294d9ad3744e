"""The installation's mail settings: the ``[delivery]`` table of its config file.

```toml
[delivery]
smtp_host = "mail.example.org"
smtp_port = 587
security = "starttls"           # none | starttls | tls
sender = "Rating officer <ratings@example.org>"
officer = "officer@example.org"  # the nightly digest's address
site_url = "https://ratings.example.org/"   # optional: the digest links into the site
```

The credentials are never in the file: ``RATINGS_SMTP_USER`` and
``RATINGS_SMTP_PASSWORD`` in the environment, or a Prefect Secret block named by
``password_secret`` (the deployment's worker reads it). No ``[delivery]`` table, or
``enabled = false``: nothing is sent, and the reports stay on disk as before.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Literal

from pydantic import BaseModel, ConfigDict, SecretStr, field_validator

from formats.address import AddressError, email_address

__all__ = ["PASSWORD_ENV", "USER_ENV", "Credentials", "DeliverySettings", "credentials_from_environment"]

#: The SMTP account's user name.
USER_ENV = "RATINGS_SMTP_USER"
#: Its password (never logged, never in an artifact, an exception or the record).
PASSWORD_ENV = "RATINGS_SMTP_PASSWORD"


class DeliverySettings(BaseModel):
    """The keys of ``[delivery]``, with their types."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    smtp_host: str = "localhost"
    smtp_port: int | None = None            #: default by ``security``: 25, 587 (starttls), 465 (tls)
    security: Literal["none", "starttls", "tls"] = "starttls"
    sender: str                             #: the From address (``Name <address>`` allowed)
    officer: str | None = None              #: the rating officer's address: the nightly digest
    site_url: str | None = None             #: the public site, for links in the digest
    enabled: bool = True                    #: ``false``: the installation sends nothing
    timeout: float = 30.0                   #: seconds for each SMTP exchange
    ca_file: str | None = None              #: a private CA's certificate for the server's TLS
    password_secret: str | None = None      #: a Prefect Secret block holding the password
    max_attempts: int = 8                   #: then the row stays failed until ``ratings deliveries`` shows it

    @field_validator("officer")
    @classmethod
    def _officer(cls, value: str | None) -> str | None:
        if value is None:
            return None
        try:
            return email_address(value)
        except AddressError as error:
            raise ValueError(str(error)) from None

    @field_validator("sender")
    @classmethod
    def _sender(cls, value: str) -> str:
        from email.utils import parseaddr

        _, address = parseaddr(value)
        try:
            email_address(address or value)
        except AddressError as error:
            raise ValueError(str(error)) from None
        if any(ch in value for ch in "\r\n"):
            raise ValueError("the sender holds a line break")
        return value

    @property
    def port(self) -> int:
        """The port, by ``security`` when the table gives none."""
        if self.smtp_port is not None:
            return self.smtp_port
        return {"none": 25, "starttls": 587, "tls": 465}[self.security]


@dataclass(frozen=True)
class Credentials:
    """The SMTP login; ``repr`` never shows the password."""

    user: str
    password: SecretStr = field(repr=False)


def credentials_from_environment() -> Credentials | None:
    """``RATINGS_SMTP_USER`` / ``RATINGS_SMTP_PASSWORD``; ``None`` when no user is set
    (a server that takes mail from this host without a login)."""
    user = os.environ.get(USER_ENV, "").strip()
    if not user:
        return None
    return Credentials(user, SecretStr(os.environ.get(PASSWORD_ENV, "")))
