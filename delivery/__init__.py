"""E-mail delivery of the organisers' reports and of the rating officer's digest.

No Prefect, no warehouse: the messages (:mod:`delivery.message`), the SMTP session
(:mod:`delivery.smtp`) and the installation's settings (:mod:`delivery.settings`).
``tasks/deliver.py`` wires them to the delivery record of the warehouse.
"""

from delivery.message import (
    Digest,
    DigestLine,
    clean_header,
    digest_message,
    message_id,
    report_message,
    report_subject,
)
from delivery.settings import Credentials, DeliverySettings, credentials_from_environment
from delivery.smtp import Mailer, SendError, describe

__all__ = [
    "Credentials",
    "DeliverySettings",
    "Digest",
    "DigestLine",
    "Mailer",
    "SendError",
    "clean_header",
    "credentials_from_environment",
    "describe",
    "digest_message",
    "message_id",
    "report_message",
    "report_subject",
]
