"""The read API: history for the engine, lists, player histories, competition reports."""
from __future__ import annotations

from warehouse._query_history import (
    History,
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
from warehouse._query_reports import (
    REPORT_BATCH,
    CompetitionDetail,
    ReportRecords,
    competition_report,
    competition_reports,
)

__all__ = [
    "REPORT_BATCH",
    "CompetitionDetail",
    "History",
    "ReportRecords",
    "competition_report",
    "competition_reports",
    "count_explanations",
    "current_ratings",
    "derived_counts",
    "games_per_competition",
    "history",
    "history_games",
    "player_history",
    "players_of_games",
    "rating_basis",
    "rating_changes",
    "seed_date",
]
