"""Publication: which editions of the rating list a night publishes, their diffs and the
correcting edition, and the organisers' reports as the warehouse holds them.

No Prefect: the nightly's task (``tasks.publish.publish_federation``) calls
:func:`apply_editions` and writes the reports; a data scientist can call
:func:`plan_editions` on a warehouse and a :class:`rating.Rated` to see what a run would publish.
"""

from __future__ import annotations

from publication.diffs import effective
from publication.editions import EditionPlan, EditionsDone, apply_editions, plan_editions
from publication.reports import (
    changed_players,
    new_players,
    report_from_warehouse,
    reports_from_warehouse,
    spans,
    unreadable_file_reports,
    with_correction,
)

__all__ = [
    "EditionPlan",
    "EditionsDone",
    "apply_editions",
    "changed_players",
    "effective",
    "new_players",
    "plan_editions",
    "report_from_warehouse",
    "reports_from_warehouse",
    "spans",
    "unreadable_file_reports",
    "with_correction",
]
