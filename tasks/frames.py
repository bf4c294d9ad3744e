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

    Empty frames still bring their extra columns, so that a night whose batch holds no
    competition (only unreadable files) still has a ``status`` column downstream:

    >>> from formats.schema import COMPETITIONS_SCHEMA
    >>> validated = empty(COMPETITIONS_SCHEMA).with_columns(pl.lit("accepted").alias("status"))
    >>> "status" in concat([empty(COMPETITIONS_SCHEMA), validated], COMPETITIONS_SCHEMA).columns
    True
    """
    given = [f for f in frames if f is not None]
    extra: dict[str, pl.DataType] = {}
    for frame in given:
        for name, dtype in zip(frame.columns, frame.dtypes, strict=True):
            if name not in schema:
                extra.setdefault(name, dtype)
    full = {**schema, **extra}
    parts = [f for f in given if f.height > 0]
    if not parts:
        return empty(full)
    if all(f.columns == parts[0].columns and f.dtypes == parts[0].dtypes for f in parts):
        return conform(pl.concat(parts), full)  # one query for thousands of files, not one a file
    return pl.concat([conform(f, full) for f in parts], how="vertical_relaxed")
