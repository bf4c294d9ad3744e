"""The warehouse a read-only command reads: found, never created.

``ratings list``, ``report``, ``whatif`` and ``site`` read what the nightly run wrote. Opening
an SQLite file that is not there would create an empty warehouse (and, through the
migrations, its tables) where a typo in ``--warehouse`` was meant to find the real one.
"""

from __future__ import annotations

from pathlib import Path

from sqlalchemy.engine import make_url

from warehouse.db import in_memory, redact, resolve_url


class WarehouseNotFoundError(ValueError):
    """A read-only command named an SQLite warehouse whose file does not exist."""


def require_existing(url: str | None) -> str:
    """The resolved warehouse URL, once it is known to exist; raise when an SQLite file is missing.

    Parameters
    ----------
    url
        ``--warehouse`` as given (None: ``$RATINGS_WAREHOUSE_URL``, else the default).

    Returns
    -------
    str
        The URL that was searched. Server databases (PostgreSQL) are not probed here: the
        engine's own connection error names them.

    Raises
    ------
    WarehouseNotFoundError
        The URL names an SQLite file that is not there.
    """
    resolved = resolve_url(url)
    parsed = make_url(resolved)
    if parsed.get_backend_name() == "sqlite" and not in_memory(resolved):
        path = Path(parsed.database or "")
        if not path.is_file():
            raise WarehouseNotFoundError(
                f"no warehouse at {redact(resolved)} (file {str(path)!r} does not exist): "
                "check --warehouse or $RATINGS_WAREHOUSE_URL, or run `ratings seed` / `ratings run` first"
            )
    return resolved
