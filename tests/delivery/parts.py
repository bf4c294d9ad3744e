"""The text of one part of an e-mail, for the tests to read."""

from __future__ import annotations

from email.message import EmailMessage


def body_text(message: EmailMessage, subtype: str = "plain") -> str:
    """The ``text/<subtype>`` body of ``message`` (it must have one)."""
    part = message.get_body((subtype,))
    assert part is not None, f"no text/{subtype} part in {message['Subject']!r}"
    text: str = part.get_content()
    return text
