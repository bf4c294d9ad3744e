"""What user text may do on a page: nothing. Safe file names and visible control characters.

Names, clubs and competition names come from organisers' files. HTML escaping
is Jinja2's autoescape; this module adds the two things escaping does not do:

- a page's file name derived from an id (``../x``, ``a/b``, ``con``, a name of
  400 characters) can never point outside its folder;
- control characters, which HTML cannot show and a browser may drop silently,
  print as U+FFFD (the replacement character: every font has it, unlike the
  Unicode *control pictures*, which showed as empty boxes in Chromium's
  default fonts); right-to-left marks stay
  (a name may need them) but the templates isolate every name in ``<bdi>``, so
  they cannot reorder the rest of the line.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any

from markupsafe import Markup

__all__ = ["PLAIN_ID", "folder_name", "page_name", "visible"]

# An id used as is: letters, digits, ``_ . -``, starting with a letter or digit, short.
# Everything else (and anything with ``..``) gets a hashed name starting with ``~``,
# a character no id used as is can start with, so the two kinds never collide.
PLAIN_ID = r"[A-Za-z0-9][A-Za-z0-9_.-]{0,79}"
_PLAIN_ID = re.compile(PLAIN_ID)

# C0 controls (except none: a tab or newline in a name is as wrong as a bell), DEL, C1 controls,
# and lone surrogates, which cannot be written as UTF-8 at all.
_CONTROL = re.compile("[\x00-\x1f\x7f\x80-\x9f\ud800-\udfff]")


def folder_name(identifier: str) -> str:
    """The folder of a federation's pages (its :func:`page_name` without ``.html``).

    Examples
    --------
    >>> folder_name("ajusc")
    'ajusc'
    """
    return page_name(identifier)[: -len(".html")]


def page_name(identifier: str) -> str:
    """The file name (``….html``) of the page of a player, competition or edition.

    Always a single path component inside the folder: never empty, never
    ``.``/``..``, no separator, at most 85 characters.

    Examples
    --------
    >>> page_name("1001"), page_name("BARRUF-191")
    ('1001.html', 'BARRUF-191.html')
    >>> page_name("../../etc/passwd")
    '~3754d6cb3a38e1185e5b382d5f3ef3f1.html'
    >>> page_name("<script>")[0]
    '~'
    """
    if _PLAIN_ID.fullmatch(identifier) and ".." not in identifier:
        return f"{identifier}.html"
    digest = hashlib.sha256(identifier.encode("utf-8", "surrogatepass")).hexdigest()[:32]
    return f"~{digest}.html"


def visible(value: Any) -> Any:
    """Jinja2 ``finalize``: None prints as nothing, a control character as U+FFFD.

    Markup (the templates' own, or ``tojson``) passes through untouched; autoescape
    escapes what this returns.

    Examples
    --------
    >>> visible("Bell\\x07Name"), visible(None), visible(3)
    ('Bell\ufffdName', '', 3)
    """
    if value is None:
        return ""
    if isinstance(value, Markup) or not isinstance(value, str):
        return value
    return _CONTROL.sub("\ufffd", value)
