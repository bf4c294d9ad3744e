"""Readers: a federation's file bytes -> the canonical frames of :mod:`formats.schema`. No Prefect, no database.

Public API (``docs/CONTRACTS.md``)::

    formats.read(path, *, federation=None, own_list=False) -> ReadResult
    formats.read_bytes(data, name, *, federation=None, own_list=False) -> ReadResult
    formats.read_ratings(path, *, federation=None) -> pl.DataFrame
    formats.read_list(path, *, federation=None) -> ReadResult   # a federation's own list, whole
    formats.detect(data, name) -> str | None
    formats.group_inbox(paths) -> list[Path | list[Path]]   # Swiss Perfect sets together
    formats.identity                                        # player ids, name keys, aliases
"""

from formats import identity
from formats._common import KNOWN_FEDERATIONS, FormatError, use_federations
from formats.api import (
    READERS,
    RatingsFileError,
    detect,
    group_inbox,
    read,
    read_bytes,
    read_list,
    read_ratings,
)
from formats.result import ReadResult

__all__ = [
    "KNOWN_FEDERATIONS",
    "READERS",
    "FormatError",
    "RatingsFileError",
    "ReadResult",
    "detect",
    "group_inbox",
    "identity",
    "read",
    "read_bytes",
    "read_list",
    "read_ratings",
    "use_federations",
]
