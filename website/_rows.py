"""A frame's rows by key, made into Python rows only when (and where) a page asks for them, and
the digests of each key's rows that plan which pages render."""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

import polars as pl


def _grouped(rows: Iterable[dict[str, Any]], key: str) -> dict[Any, list[dict[str, Any]]]:
    out: dict[Any, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        out[row[key]].append(row)
    return out


class _Grouped(Mapping[Any, list[tuple[Any, ...]]]):
    """The rows of a frame by key, as tuples of ``columns``, made when asked.

    The frame is sorted by ``key`` (stably: each group keeps the frame's order). Its
    rows become plain Python columns, so that a forked worker can make the tuples of the
    keys it renders without polars: those of the keys given to :meth:`only` (the pages a
    night renders, a fraction of the archive), or every row on the first look-up in this
    process. A key of one column is the value itself, else a tuple.

    >>> rows = _Grouped(pl.DataFrame({"p": ["b", "a", "b"], "x": [1, 2, 3]}), ["p"], ["x"])
    >>> sorted(rows), rows["b"]
    (['a', 'b'], [(1,), (3,)])
    >>> rows = _Grouped(pl.DataFrame({"p": ["b", "a", "b"], "x": [1, 2, 3]}), ["p"], ["x"])
    >>> rows.only(["a"]); rows["a"], len(rows)
    ([(2,)], 2)
    >>> rows["b"]
    Traceback (most recent call last):
    ...
    RuntimeError: rows of 'b' were not made (only() left it out)
    """

    def __init__(self, frame: pl.DataFrame, key: Sequence[str], columns: Sequence[str]) -> None:
        frame = frame.sort(list(key), maintain_order=True, nulls_last=True)
        self._frame: pl.DataFrame | None = frame.select(list(columns))
        self._columns: list[list[Any]] = []
        self._index: dict[Any, tuple[int, int]] = {}
        #: Where each key's rows are in ``_columns`` (None: not made yet).
        self._made: dict[Any, tuple[int, int]] | None = None
        start = 0
        for *values, count in frame.group_by(list(key), maintain_order=True).len().iter_rows():
            self._index[tuple(values) if len(key) > 1 else values[0]] = (start, start + count)
            start += count

    def only(self, keys: Iterable[Any], *, more: bool = False) -> None:
        """Make the rows of ``keys`` (those of the index) and drop the frame: a later look-up of another
        key raises, so a page left out of a night's plan fails loudly instead of showing no rows.

        ``more``: keep the frame, for a later call to make the rows of another block of keys in
        place of these (the cards, rendered a block of players at a time).

        >>> rows = _Grouped(pl.DataFrame({"p": ["b", "a", "c"], "x": [1, 2, 3]}), ["p"], ["x"])
        >>> rows.only(["a"], more=True); rows["a"]
        [(2,)]
        >>> rows.only(["b", "c"]); rows["c"], "a" in rows
        ([(3,)], True)
        >>> rows["a"]
        Traceback (most recent call last):
        ...
        RuntimeError: rows of 'a' were not made (only() left it out)
        """
        assert self._frame is not None, "only() before any look-up, and again only after only(more=True)"
        made: dict[Any, tuple[int, int]] = {}
        taken: list[int] = []
        for key in sorted({k for k in keys if k in self._index}, key=lambda k: self._index[k]):
            start, end = self._index[key]
            made[key] = (len(taken), len(taken) + end - start)
            taken.extend(range(start, end))
        kept = self._frame[taken]
        self._columns = [kept.get_column(c).to_list() for c in kept.columns]
        self._made = made
        if not more:
            self._frame = None

    def release(self) -> None:
        """Drop the rows made and the frame, once the pages that use them are rendered: a later
        look-up raises, as one of a key :meth:`only` left out does; the keys stay known.

        >>> rows = _Grouped(pl.DataFrame({"p": ["b", "a"], "x": [1, 2]}), ["p"], ["x"])
        >>> rows.only(["a"]); rows.release(); "a" in rows
        True
        >>> rows["a"]
        Traceback (most recent call last):
        ...
        RuntimeError: rows of 'a' were not made (only() left it out)
        """
        self._frame, self._columns, self._made = None, [], {}

    def __getitem__(self, key: Any) -> list[tuple[Any, ...]]:
        if key not in self._index:
            raise KeyError(key)
        if self._made is None:
            assert self._frame is not None
            self._columns = [self._frame.get_column(c).to_list() for c in self._frame.columns]
            self._made, self._frame = self._index, None
        if key not in self._made:
            raise RuntimeError(f"rows of {key!r} were not made (only() left it out)")
        start, end = self._made[key]
        return list(zip(*(c[start:end] for c in self._columns), strict=True))

    def __contains__(self, key: object) -> bool:
        return key in self._index

    def __iter__(self) -> Iterator[Any]:
        return iter(self._index)

    def __len__(self) -> int:
        return len(self._index)


class _Dicts(Mapping[Any, list[dict[str, Any]]]):
    """:class:`_Grouped`, its rows as dicts of ``columns`` (the renderers' rows), made when asked."""

    def __init__(self, frame: pl.DataFrame, key: Sequence[str], columns: Sequence[str]) -> None:
        self._rows = _Grouped(frame, key, columns)
        self._names = tuple(columns)

    def only(self, keys: Iterable[Any], *, more: bool = False) -> None:
        """:meth:`_Grouped.only`."""
        self._rows.only(keys, more=more)

    def release(self) -> None:
        """:meth:`_Grouped.release`."""
        self._rows.release()

    def __getitem__(self, key: Any) -> list[dict[str, Any]]:
        return [dict(zip(self._names, row, strict=True)) for row in self._rows[key]]

    def __contains__(self, key: object) -> bool:
        return key in self._rows

    def __iter__(self) -> Iterator[Any]:
        return iter(self._rows)

    def __len__(self) -> int:
        return len(self._rows)


def _group_digests(frame: pl.DataFrame, by: str, columns: Sequence[str]) -> dict[Any, str]:
    """A digest of each ``by`` group's rows of ``frame`` (their ``columns``, in the frame's order).

    The planning key of the pages made from those rows: polars hashes every row at once
    (``hash_rows``, stable within one polars version, which :func:`_code_key` covers), and
    each group's row hashes are digested in order. Equal rows give equal digests in every run.

    >>> frame = pl.DataFrame({"ed": [1, 0, 1], "rating": [1500.0, 1400.0, None]})
    >>> keys = _group_digests(frame, "ed", ["rating"])
    >>> sorted(keys), keys == _group_digests(frame.clone(), "ed", ["rating"])
    ([0, 1], True)
    >>> keys[1] == _group_digests(frame.with_columns(pl.lit(1).alias("ed")).head(1), "ed", ["rating"])[1]
    False
    """
    if frame.is_empty():
        return {}
    frame = frame.select(list(dict.fromkeys([by, *columns]))).sort(by, maintain_order=True, nulls_last=True)
    hashes = frame.select(columns).hash_rows(seed=0).to_numpy()
    out: dict[Any, str] = {}
    start = 0
    for key, count in frame.group_by(by, maintain_order=True).len().iter_rows():
        out[key] = hashlib.blake2b(hashes[start:start + count].tobytes(), digest_size=16).hexdigest()
        start += count
    return out
