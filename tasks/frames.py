"""Frame helpers shared by the tasks: ``concat`` lives with the canonical frames it
conforms to (``formats.schema``) and is re-exported here for the tasks and flows."""

from __future__ import annotations

from formats.schema import concat

__all__ = ["concat"]
