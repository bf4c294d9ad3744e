"""E-mail addresses where they enter: a file's ``organiser_email``, ``ratings organiser add``,
the ``[delivery]`` config.

Validated by email-validator (RFC 5321/5322 syntax, internationalised domains, the
normalised form), never by a regular expression of our own, and offline: no DNS lookup,
the pipeline runs without a network.
"""

from __future__ import annotations

from functools import lru_cache

__all__ = ["AddressError", "email_address"]


class AddressError(ValueError):
    """A text that is not a usable e-mail address."""


@lru_cache(maxsize=4096)
def email_address(text: str) -> str:
    """The normalised form of an e-mail address.

    Raises
    ------
    AddressError
        ``text`` is not an address (the message says why, in email-validator's words).

    Examples
    --------
    >>> email_address("Organiser@Example.ORG")
    'Organiser@example.org'
    >>> email_address("nobody at example.org")
    Traceback (most recent call last):
    ...
    formats.address.AddressError: not an e-mail address: 'nobody at example.org' (An email address must have an @-sign.)
    """
    import email_validator  # imported when an address is met: most files carry none

    if any(ch in text for ch in "\r\n\x00"):
        raise AddressError(f"not an e-mail address: {text!r} (it holds a line break or NUL)")
    try:
        result = email_validator.validate_email(text.strip(), check_deliverability=False)
    except email_validator.EmailNotValidError as error:
        raise AddressError(f"not an e-mail address: {text!r} ({error})") from None
    return str(result.normalized)
