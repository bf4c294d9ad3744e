"""Read queries for the publication site (``website``): whole tables per federation, once.

The site renders thousands of pages from a few frames, so every function here
reads one federation's rows in one query (a per-player query would cost more
than the rendering). Everything returned is a polars frame with a fixed schema;
SQLAlchemy stays in this package.

Tables that another part of the warehouse may add later (a correction diff of
published editions, extra columns on ``rating_lists``) are read when they exist
and are otherwise empty, so the site shows them as soon as they land.
"""
from __future__ import annotations

from warehouse._site_lists import (
    CORRECTION_TABLES,
    EDITIONS_SCHEMA,
    ENTRIES_SCHEMA,
    SITE_LINES_SCHEMA,
    site_corrections,
    site_editions,
    site_entries,
    site_federations,
    site_lines,
    site_list_heads,
    site_sizes,
)
from warehouse._site_record import (
    SITE_CHANGES_SCHEMA,
    site_changes,
    site_competitions,
    site_derived_blocks,
    site_explained_from,
    site_explanations,
    site_finding_keys,
    site_findings,
    site_last_load,
    site_players,
)

__all__ = [
    "CORRECTION_TABLES",
    "EDITIONS_SCHEMA",
    "ENTRIES_SCHEMA",
    "SITE_CHANGES_SCHEMA",
    "SITE_LINES_SCHEMA",
    "site_changes",
    "site_competitions",
    "site_corrections",
    "site_derived_blocks",
    "site_editions",
    "site_entries",
    "site_explained_from",
    "site_explanations",
    "site_federations",
    "site_finding_keys",
    "site_findings",
    "site_last_load",
    "site_lines",
    "site_list_heads",
    "site_players",
    "site_sizes",
]
