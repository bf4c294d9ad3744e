"""The SQL warehouse: SQLModel tables, migrations, exactly-once loads and the read API.

Public API (``docs/CONTRACTS.md``, "warehouse")::

    get_engine, redact, seen_checksums, load_seed, load_batch, history,
    publish_list, rating_list, competition_report
    LoadBatch, LoadResult, History, CompetitionDetail

plus the additions ``current_ratings``, ``player_history``, ``register_federation``
and the error classes of :mod:`warehouse.errors`.
"""

from warehouse import (
    accounts,  # noqa: F401 - registers the desk tables (accounts, sessions, uploads, audit)
    decisions,  # noqa: F401 - registers the officer_decisions table
    deliveries,  # noqa: F401 - registers the organisers and deliveries tables
    reprocess,  # noqa: F401 - registers the file_reprocessing table
)
from warehouse.checkpoints import Checkpoint, checkpoints
from warehouse.db import get_engine, redact
from warehouse.editions import (
    CORRECTIONS_SCHEMA,
    EDITIONS_SCHEMA,
    LINES_SCHEMA,
    Edition,
    ListLines,
    edition_contents,
    edition_corrections,
    edition_entries,
    editions,
    latest_edition,
    list_lines,
    publish_edition,
    publish_editions,
    publish_list,
    publish_seed_edition,
    rating_list,
    stored_lines,
)
from warehouse.errors import (
    AmbiguousCompetitionError,
    BatchError,
    MigrationError,
    UnknownCompetitionError,
    WarehouseError,
    WarehouseUnavailableError,
)
from warehouse.load import (
    FILES_SCHEMA,
    LoadBatch,
    LoadResult,
    load_batch,
    load_seed,
    register_federation,
    seen_checksums,
)
from warehouse.query import (
    CompetitionDetail,
    History,
    competition_report,
    count_explanations,
    current_ratings,
    derived_counts,
    games_per_competition,
    history,
    history_games,
    player_history,
    players_of_games,
    rating_basis,
    rating_changes,
    seed_date,
)

__all__ = [
    "CORRECTIONS_SCHEMA",
    "EDITIONS_SCHEMA",
    "FILES_SCHEMA",
    "LINES_SCHEMA",
    "AmbiguousCompetitionError",
    "BatchError",
    "Checkpoint",
    "CompetitionDetail",
    "Edition",
    "History",
    "ListLines",
    "LoadBatch",
    "LoadResult",
    "MigrationError",
    "UnknownCompetitionError",
    "WarehouseError",
    "WarehouseUnavailableError",
    "checkpoints",
    "competition_report",
    "count_explanations",
    "current_ratings",
    "derived_counts",
    "edition_contents",
    "edition_corrections",
    "edition_entries",
    "editions",
    "games_per_competition",
    "get_engine",
    "history",
    "history_games",
    "latest_edition",
    "list_lines",
    "load_batch",
    "load_seed",
    "player_history",
    "players_of_games",
    "publish_edition",
    "publish_editions",
    "publish_list",
    "publish_seed_edition",
    "rating_basis",
    "rating_changes",
    "rating_list",
    "redact",
    "register_federation",
    "seed_date",
    "seen_checksums",
    "stored_lines",
]
