"""The organiser's report for one competition, and the nightly summary.

Names, ids and messages come from user files: the HTML is rendered with Jinja2
autoescaping and the Markdown escapes every character Markdown (or the HTML a
Markdown viewer lets through) would interpret, so a player called
``<script>`` or ``Smith | Jones`` prints as written.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date
from typing import Any

import polars as pl

from formats.schema import FINDINGS_SCHEMA, RATING_CHANGES_SCHEMA, empty
from validations._outcomes import NightlySummary, file_outcomes, render_summary
from validations._report_files import WrittenReport, report_name, sync_reports, write_report
from validations._report_render import STATUSES, md_escape, render_report
from validations._report_rows import (
    CORRECTION_LIMIT,
    WARN_LIMIT,
    _changes_with_names,
    _conform,
)
from validations.errors import ReportError

__all__ = [
    "CORRECTION_LIMIT", "STATUSES", "WARN_LIMIT", "CompetitionReport", "NightlySummary", "WrittenReport",
    "build_report", "decision_lines", "file_outcomes", "file_report", "md_escape", "render_report",
    "render_summary", "report_from_record", "report_name", "report_status", "sync_reports", "write_report",
]


@dataclass(frozen=True)
class CompetitionReport:
    """Everything the organiser's report shows for one competition."""

    federation: str                   #: federation id
    competition_id: str               #: the competition's id
    name: str | None                  #: the competition's name
    source: str | None                #: file it was read from
    status: str                       #: accepted | rejected | accepted_with_exclusions | superseded
    findings: pl.DataFrame            #: FINDINGS_SCHEMA
    changes: pl.DataFrame             #: RATING_CHANGES_SCHEMA (+ ``name``), empty when not rated
    start_date: date | None = None    #: first day (added to the contract: shown in the header)
    end_date: date | None = None      #: last day
    games: int | None = None          #: games read (shown in the header when known)
    excluded_games: int | None = None  #: games left out of the rating
    #: Byes read (rows of the file with one player, which are no game): said beside ``games``,
    #: so that a file of N result rows whose count of games is lower reads as it should.
    byes: int | None = None
    extra: dict[str, Any] = field(default_factory=dict)  #: further header lines (label -> value)
    #: FIDE: unrated players' progress toward an initial rating
    #: (:func:`validations.fide.initial_rating_progress`), listed when given.
    progress: pl.DataFrame | None = None
    #: A correcting edition published with this competition: what it changed in editions
    #: already published (``warehouse.CORRECTIONS_SCHEMA``), listed when given.
    corrections: pl.DataFrame | None = None


def report_from_record(
    competition: Mapping[str, Any], findings: pl.DataFrame | None, changes: pl.DataFrame | None,
    *, federation: str | None = None,
) -> CompetitionReport:
    """A report from stored records (``warehouse.competition_report``: row, findings, changes).

    The stored ``status`` wins when it is ``superseded`` or ``pending``; otherwise the
    findings decide (a stored ``rejected`` stays rejected).

    Examples
    --------
    >>> r = report_from_record({"federation": "egf", "competition_id": "E1", "status": "accepted"},
    ...                        pl.DataFrame({"competition_id": ["E1"], "severity": ["exclude"]}), None)
    >>> r.status, r.changes.height
    ('accepted_with_exclusions', 0)
    """
    stored = str(competition.get("status") or "accepted")
    found = _conform(findings, FINDINGS_SCHEMA)
    if stored in ("superseded", "pending", "held"):
        status = stored
    else:
        # An approved competition was held: its "hold" findings no longer stand in the way.
        status = report_status(found.filter(pl.col("severity") != "hold"), rated=stored != "rejected")
    return CompetitionReport(
        federation=str(federation or competition.get("federation") or ""),
        competition_id=str(competition.get("competition_id") or ""),
        name=competition.get("name"), source=competition.get("source"), status=status,
        findings=found, changes=_changes_with_names(changes, None),
        start_date=competition.get("start_date"), end_date=competition.get("end_date"),
    )


def file_report(source: str, findings: pl.DataFrame, *, federation: str | None = None) -> CompetitionReport:
    """The report of a file that could not be tied to a competition (unreadable: quarantined).

    Its findings (reader ``format.*`` rules, ``competition_id`` null) are those whose
    ``source`` is the file; the report is keyed by the file name.

    Examples
    --------
    >>> f = pl.DataFrame({"rule": ["format.trf.bad_result"], "severity": ["reject"],
    ...                   "message": ["round 3: result 'x' is not 1, =, 0, +, -"], "source": ["a.trf"],
    ...                   "line": [14], "field": ["result"]})
    >>> r = file_report("a.trf", f, federation="fide")
    >>> r.status, r.competition_id, r.findings.height
    ('rejected', 'a.trf', 1)
    """
    own = _conform(findings, FINDINGS_SCHEMA).filter(pl.col("source") == source)
    extra = {"Note": "the file could not be read into a competition; it is kept and "
                     "reprocessed when a corrected version arrives"}
    if federation in (None, "", "unknown"):
        # Nobody else would see it: the rating officer forwards it to the organiser.
        extra["For"] = ("the rating officer: the file names no federation and was not dropped in an "
                        "inbox/FEDERATION/ folder")
    return CompetitionReport(
        federation=str(federation or ""), competition_id=source, name=None, source=source,
        status="rejected", findings=own, changes=empty({**RATING_CHANGES_SCHEMA, "name": pl.Utf8()}),
        extra=extra,
    )


def decision_lines(decisions: pl.DataFrame | None) -> dict[str, str]:
    """Header lines for the rating officer's decisions on a held competition (oldest first).

    Examples
    --------
    >>> from datetime import datetime
    >>> d = pl.DataFrame({"decision": ["approve"], "decided_by": ["marta"],
    ...                   "decided_at": [datetime(2026, 12, 1, 9, 30)], "note": ["played in Catalan"]})
    >>> decision_lines(d)
    {'Rating officer': 'approved by marta on 2026-12-01 09:30 UTC: played in Catalan'}
    """
    if decisions is None or decisions.is_empty():
        return {}
    out: dict[str, str] = {}
    for i, r in enumerate(decisions.to_dicts()):
        verb = {"approve": "approved", "decline": "declined"}.get(str(r.get("decision")), str(r.get("decision")))
        when = r.get("decided_at")
        stamp = when.strftime("%Y-%m-%d %H:%M UTC") if when is not None else "?"
        text = f"{verb} by {r.get('decided_by') or '?'} on {stamp}"
        if r.get("note"):
            text += f": {r['note']}"
        out["Rating officer" if i == 0 else f"Rating officer ({i + 1})"] = text
    return out


def report_status(findings: pl.DataFrame, *, rated: bool = True) -> str:
    """The report status implied by a competition's findings.

    Examples
    --------
    >>> f = pl.DataFrame({"severity": ["warn", "exclude"]})
    >>> report_status(f), report_status(f.head(1)), report_status(pl.DataFrame({"severity": ["reject"]}))
    ('accepted_with_exclusions', 'accepted', 'rejected')
    >>> report_status(pl.DataFrame({"severity": ["hold", "exclude"]}))
    'held'
    """
    severities = set(findings.get_column("severity").to_list()) if "severity" in findings.columns else set()
    if "reject" in severities or not rated:
        return "rejected"
    if "hold" in severities:
        return "held"
    if "exclude" in severities:
        return "accepted_with_exclusions"
    return "accepted"


def build_report(
    validation_competitions: pl.DataFrame,
    findings: pl.DataFrame,
    competition_id: str,
    *,
    federation: str,
    changes: pl.DataFrame | None = None,
    games: pl.DataFrame | None = None,
    players: pl.DataFrame | None = None,
    progress: pl.DataFrame | None = None,
    byes: pl.DataFrame | None = None,
) -> CompetitionReport:
    """Assemble the report of ``competition_id`` from a validation's frames.

    Parameters
    ----------
    validation_competitions
        ``Validation.competitions`` (competitions + ``status``).
    findings
        ``Validation.findings`` (every competition; filtered here).
    changes
        The rating run's changes (any competitions; filtered here). Names come from
        its ``name`` column or from ``players``.
    games
        ``Validation.games`` (with ``rated``), to count games and exclusions.
    progress
        FIDE: :func:`validations.fide.initial_rating_progress` over the history;
        the rows of this competition's players (needs ``games``) are shown.
    byes
        The batch's byes (``formats.schema.BYES_SCHEMA``, any competitions; filtered here), counted
        beside the games.

    Raises
    ------
    ReportError
        When ``competition_id`` is not in ``validation_competitions``.
    """
    comp = validation_competitions.filter(pl.col("competition_id") == competition_id)
    if comp.is_empty():
        raise ReportError(f"competition {competition_id!r} is not in the validated batch")
    row = comp.row(0, named=True)
    own = _conform(findings, FINDINGS_SCHEMA).filter(pl.col("competition_id") == competition_id)
    status = report_status(own, rated=row.get("status", "accepted") != "rejected")
    own_changes = _changes_with_names(changes, players).filter(pl.col("competition_id") == competition_id)
    n_games = n_excluded = None
    if games is not None:
        mine = games.filter(pl.col("competition_id") == competition_id)
        n_games = mine.height
        if "rated" in mine.columns and status != "rejected":
            n_excluded = int((~mine.get_column("rated")).sum())
    own_progress = None
    if progress is not None and games is not None and not progress.is_empty():
        mine = games.filter(pl.col("competition_id") == competition_id)
        ids = set(mine.get_column("player_a").to_list()) | set(mine.get_column("player_b").to_list())
        own_progress = progress.filter(pl.col("player_id").is_in([i for i in ids if i is not None]))
        if players is not None and "name" in players.columns and "label" not in own_progress.columns:
            from validations.tables import player_labels

            own_progress = own_progress.join(player_labels(players), on="player_id", how="left")
    return CompetitionReport(
        progress=own_progress,
        federation=federation, competition_id=competition_id, name=row.get("name"),
        source=row.get("source"), status=status, findings=own,
        changes=own_changes if status != "rejected" else own_changes.clear(),
        start_date=row.get("start_date"), end_date=row.get("end_date"),
        games=n_games, excluded_games=n_excluded,
        byes=None if byes is None else byes.filter(pl.col("competition_id") == competition_id).height,
    )

