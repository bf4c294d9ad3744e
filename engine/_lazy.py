"""A frame computed on first use (no numba, no kernel: ``import engine`` stays light)."""

from __future__ import annotations

from typing import Any

import polars as pl


class Lazy:
    """A frame computed on first use, then kept (shared by every holder of this object)."""

    __slots__ = ("_build", "_value")

    def __init__(self, build: Any) -> None:
        self._build = build
        self._value: pl.DataFrame | None = None

    @classmethod
    def of(cls, frame: pl.DataFrame) -> Lazy:
        """An already computed frame."""
        lazy = cls(None)
        lazy._value = frame
        return lazy

    @property
    def ready(self) -> bool:
        """Whether the frame was computed."""
        return self._value is not None

    def get(self) -> pl.DataFrame:
        """The frame (computed now if not yet)."""
        if self._value is None:
            self._value = self._build()
            self._build = None
        return self._value
