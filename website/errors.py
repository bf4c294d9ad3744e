"""The site's domain errors (``ValueError``: the CLI prints them as one line)."""

from __future__ import annotations

__all__ = ["SiteError"]


class SiteError(ValueError):
    """The site cannot be generated as asked (a folder that is a file, a federation without a list)."""
