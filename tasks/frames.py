"""Small frame helpers shared by the tasks (concatenation across files, federation of a read)."""

from __future__ import annotations

from collections.abc import Iterable

import polars as pl

from formats.schema import conform, empty


def concat(frames: Iterable[pl.DataFrame], schema: dict[str, pl.DataType]) -> pl.DataFrame:
    """Concatenate frames that may carry extra columns; the result keeps the schema's
    columns first and any extra columns (``status``, ``rated``) after them.

    Examples
    --------
    >>> from formats.schema import BYES_SCHEMA
    >>> concat([], BYES_SCHEMA).height
    0
    """
    parts = [f for f in frames if f is not None and f.height > 0]
    if not parts:
        return empty(schema)
    extra: dict[str, pl.DataType] = {}
    for frame in parts:
        for name, dtype in frame.schema.items():
            if name not in schema:
                extra.setdefault(name, dtype)
    full = {**schema, **extra}
    return pl.concat([conform(f, full) for f in parts], how="vertical_relaxed")
