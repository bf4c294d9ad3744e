"""The canonical dump the crash tests compare: every warehouse row, every report and site file."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from warehouse.db import get_engine
from warehouse.testing import table_rows

#: The site shows when the last load happened (``loads.loaded_at``, left out of the rows too).
LOADED_AT = re.compile(rb"Loaded \d{4}-\d\d-\d\d \d\d:\d\d UTC")

Dump = tuple[dict[str, list[tuple[Any, ...]]], dict[str, bytes]]


def canonical_dump(url: str, out: Path) -> Dump:
    """Every row of the warehouse ``url`` and every file under ``out`` (reports, site), by path."""
    engine = get_engine(url)
    try:
        rows = table_rows(engine)
    finally:
        engine.dispose()
    files = {str(p.relative_to(out)): LOADED_AT.sub(b"Loaded <time>", p.read_bytes())
             for p in sorted(out.rglob("*")) if p.is_file()}
    return rows, files
