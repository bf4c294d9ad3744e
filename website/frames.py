"""The warehouse frames a site generation read, kept in the site folder for the next one.

A generation reads every line the federation's editions stored and every rating change, to
find what changed since the last one: on a 1M-game archive, 280,000 lines and 180,000
changes, though a night adds 50 editions and rewrites only the tail of the changes. Both can be told apart without reading them:

- **lines**: a published edition is never changed (the warehouse's triggers refuse it), and
  each carries the checksum of its content. The lines of the editions kept are reused when
  every one of those editions is still published with the same checksum and edition number;
  only the lines of later editions are read.
- **changes**: the loader records the checksum of each block of rows it writes
  (``derived_state``, :func:`warehouse.site.site_derived_blocks`). The rows kept are reused up
  to the first block whose checksum moved; the rest is read.

Anything that does not hold (another warehouse, a missing or damaged file, a warehouse
without block checksums) reads everything, as without this module. The files are
``.frames/<federation>.<what>.parquet`` with a JSON file beside it naming what they hold and
the Parquet file's checksum; deleting the folder only makes the next generation read
everything.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import polars as pl

from warehouse import site as queries

if TYPE_CHECKING:
    from sqlalchemy.engine import Engine

__all__ = ["FOLDER", "changes", "lines"]

#: The folder, inside the site folder, that keeps the frames.
FOLDER = ".frames"
#: Bumped when what is kept changes meaning: older files are then read as absent.
_VERSION = 1


def _paths(out: Path, federation: str, what: str) -> tuple[Path, Path]:
    folder = out / FOLDER
    return folder / f"{federation}.{what}.parquet", folder / f"{federation}.{what}.json"


def _load(out: Path, federation: str, what: str, schema: dict[str, pl.DataType]) -> tuple[pl.DataFrame, Any] | None:
    """The frame kept and what it holds, or None when absent, damaged or of another version."""
    frame_path, meta_path = _paths(out, federation, what)
    try:
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
        data = frame_path.read_bytes()
    except (OSError, ValueError):
        return None
    if (not isinstance(meta, dict) or meta.get("version") != _VERSION
            or meta.get("sha256") != hashlib.sha256(data).hexdigest()):
        return None
    try:
        frame = pl.read_parquet(data)
    except Exception:  # noqa: BLE001 - a damaged file is read as absent
        return None
    if dict(frame.schema) != schema or frame.height != meta.get("rows"):
        return None
    return frame, meta.get("holds")


def _save(out: Path, federation: str, what: str, frame: pl.DataFrame, holds: Any) -> None:
    """Keep ``frame`` and what it holds; each file is written whole, then renamed into place.
    Keeping them is an optimisation: where they cannot be written, none is kept."""
    frame_path, meta_path = _paths(out, federation, what)
    temporary = frame_path.with_name(frame_path.name + f".{os.getpid()}.tmp")
    meta_temporary = meta_path.with_name(meta_path.name + f".{os.getpid()}.tmp")
    try:
        frame_path.parent.mkdir(parents=True, exist_ok=True)
        frame.write_parquet(temporary, compression="lz4", statistics=False)
        digest = hashlib.sha256(temporary.read_bytes()).hexdigest()
        meta_temporary.write_text(json.dumps({"version": _VERSION, "rows": frame.height, "sha256": digest,
                                              "holds": holds}), encoding="utf-8")
        # The frame first: a process stopped between the two renames leaves a checksum that no
        # longer matches, read as absent.
        os.replace(temporary, frame_path)
        os.replace(meta_temporary, meta_path)
    except OSError:
        for path in (temporary, meta_temporary, frame_path, meta_path):
            with contextlib.suppress(OSError):
                path.unlink(missing_ok=True)


def _drop(out: Path, federation: str, what: str) -> None:
    for path in _paths(out, federation, what):
        path.unlink(missing_ok=True)


def _heads_digest(heads: pl.DataFrame) -> str:
    return hashlib.sha256(heads.write_csv().encode()).hexdigest()


def lines(engine: Engine, federation: str, out: Path) -> pl.DataFrame:
    """:func:`warehouse.site.site_lines`, reading only the lines of the editions not kept in ``out``."""
    heads = queries.site_list_heads(engine, federation)
    if heads.is_empty():
        _drop(out, federation, "lines")
        return pl.DataFrame(schema=queries.SITE_LINES_SCHEMA)
    upto = int(heads.get_column("list_id").max())  # type: ignore[arg-type]
    last_edition = int(heads.get_column("edition").max())  # type: ignore[arg-type]
    holds = {"upto": upto, "editions": heads.height, "last_edition": last_edition,
             "heads_sha256": _heads_digest(heads)}

    kept = _load(out, federation, "lines", queries.SITE_LINES_SCHEMA)
    if kept is not None and isinstance(kept[1], dict):
        frame, was = kept
        after = int(was.get("upto", 0))
        known, later = heads.filter(pl.col("list_id") <= after), heads.filter(pl.col("list_id") > after)
        # The editions kept are all still published, unchanged (same ids, numbers and checksums),
        # and every later one comes after them: the lines are in edition order.
        first_later = int(later.get_column("edition").min() or 0) if later.height else None  # type: ignore[arg-type]
        if (known.height == was.get("editions") and _heads_digest(known) == was.get("heads_sha256")
                and (first_later is None or first_later > int(was.get("last_edition") or 0))):
            if later.is_empty():
                return frame
            frame = pl.concat([frame, queries.site_lines(engine, federation, lists=(after, upto))])
            _save(out, federation, "lines", frame, holds)
            return frame
    frame = queries.site_lines(engine, federation, lists=(0, upto))
    _save(out, federation, "lines", frame, holds)
    return frame


def _first_moved(old: Sequence[Sequence[Any]], new: Sequence[Sequence[Any]]) -> int:
    """The index of the first block that differs (or is missing on one side)."""
    for i, (a, b) in enumerate(zip(old, new, strict=False)):
        if list(a) != list(b):
            return i
    return min(len(old), len(new))


def changes(engine: Engine, federation: str, out: Path) -> pl.DataFrame:
    """:func:`warehouse.site.site_changes`, reading only the rows from the first block whose
    checksum moved since the rows kept in ``out`` were read."""
    def read_blocks() -> list[tuple[str, int]] | None:
        return queries.site_derived_blocks(engine, federation, "rating_changes")

    before = read_blocks()
    if before is None:
        _drop(out, federation, "changes")
        return queries.site_changes(engine, federation)
    kept = _load(out, federation, "changes", queries.SITE_CHANGES_SCHEMA)
    start = 0
    frame = None
    if kept is not None and isinstance(kept[1], list):
        first = _first_moved(kept[1], before)
        start = sum(int(n) for _, n in before[:first])
        if first == len(before) == len(kept[1]):
            return kept[0]
        frame = kept[0].filter(pl.col("seq") < start)
    tail = queries.site_changes(engine, federation, from_seq=start)
    frame = tail if frame is None else pl.concat([frame, tail])
    # Blocks read before the rows and again after: rows rewritten in between (a load while the
    # site reads) are not kept under checksums they do not match.
    if read_blocks() == before and frame.height == sum(n for _, n in before):
        _save(out, federation, "changes", frame, [list(b) for b in before])
    else:
        _drop(out, federation, "changes")
    return frame
