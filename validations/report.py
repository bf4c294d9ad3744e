"""The organiser's report for one competition, and the nightly summary.

Names, ids and messages come from user files: the HTML is rendered with Jinja2
autoescaping and the Markdown escapes every character Markdown (or the HTML a
Markdown viewer lets through) would interpret, so a player called
``<script>`` or ``Smith | Jones`` prints as written.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any, Literal

import polars as pl

from formats.safety import escape_controls
from formats.schema import FINDINGS_SCHEMA, RATING_CHANGES_SCHEMA, conform, empty
from validations.errors import ReportError
from validations.rules import SEVERITIES

#: Report statuses (``CompetitionReport.status``).
STATUSES: tuple[str, ...] = ("accepted", "rejected", "accepted_with_exclusions", "superseded", "pending", "held")

_HEADLINES = {
    "accepted": "Accepted: the competition is rated",
    "rejected": "Rejected: the competition is not rated",
    "accepted_with_exclusions": "Accepted with excluded games: rated without the games listed below",
    "superseded": "Superseded: a newer file for this competition replaced this one",
    "pending": "Pending: received, not yet validated",
    "held": "Held: loaded, not rated until the rating officer decides",
}
_NEXT_STEP = {
    "accepted": "Nothing to do.",
    "rejected": ("Correct the points marked “reject” and send the file again: the corrected file "
                 "replaces this one and is rated on the next run (retroactively if it is dated in the past)."),
    "accepted_with_exclusions": ("The excluded games are left out of the rating. If one of them was in fact "
                                 "played, correct it and send the file again: it replaces this one."),
    "superseded": "Nothing to do: see the report of the newer file.",
    "pending": "Nothing to do yet.",
    "held": ("Nothing to do unless a point marked “hold” is wrong in the file (then correct it and send it "
             "again). The rating officer approves the competition (it is rated on the next run) or declines it."),
}
_SEVERITY_TEXT = {
    "reject": "reject: the competition is not rated",
    "hold": "hold: not rated until the rating officer approves it",
    "exclude": "exclude: this game is not rated",
    "warn": "warning: reported only",
}


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


def _conform(frame: pl.DataFrame | None, schema: dict[str, pl.DataType]) -> pl.DataFrame:
    # conform() on a frame without columns yields one row of nulls: an empty frame stays empty.
    if frame is None or frame.height == 0:
        return _empty(tuple(schema.items()))
    if list(frame.schema.items()) == list(schema.items()):
        return frame   # already conforming (a bulk night's frames are): no polars query per report
    return conform(frame, schema)


@functools.lru_cache(maxsize=32)
def _empty(schema: tuple[tuple[str, pl.DataType], ...]) -> pl.DataFrame:
    return empty(dict(schema))


def _changes_with_names(changes: pl.DataFrame | None, players: pl.DataFrame | None) -> pl.DataFrame:
    schema = {**RATING_CHANGES_SCHEMA, "name": pl.Utf8()}
    out = _conform(changes, schema)
    if out.is_empty():
        return out
    if players is not None and "name" in players.columns and out.get_column("name").null_count() > 0:
        names = players.select("player_id", pl.col("name").alias("_n")).unique("player_id", keep="first")
        out = out.join(names, on="player_id", how="left").with_columns(
            pl.coalesce("name", "_n").alias("name")
        ).drop("_n")
    return out


# ------------------------------------------------------------------ formatting
def _num(value: Any, digits: int = 0, *, signed: bool = False) -> str:
    if value is None:
        return ""
    text = f"{float(value):+.{digits}f}" if signed else f"{float(value):.{digits}f}"
    return text


#: Warnings shown per rule before the rest are summarised (a FIDE open can hold hundreds
#: of "game against an unrated opponent" notes; rejections and exclusions are always listed).
WARN_LIMIT = 20


def _sorted_findings(findings: pl.DataFrame) -> list[dict[str, Any]]:
    order = {s: i for i, s in enumerate(SEVERITIES)}
    rows = _conform(findings, FINDINGS_SCHEMA).to_dicts()
    return sorted(rows, key=lambda r: (order.get(r["severity"], 9), r["line"] is None,
                                       r["line"] or 0, r["rule"] or ""))


def _shown_findings(
    findings: pl.DataFrame, warn_limit: int | None,
) -> tuple[list[dict[str, Any]], list[tuple[str, int]]]:
    """Findings to list, and (rule, count) of the warnings left out beyond ``warn_limit``."""
    shown: list[dict[str, Any]] = []
    per_rule: dict[str, int] = {}
    omitted: dict[str, int] = {}
    for row in _sorted_findings(findings):
        if row["severity"] == "warn" and warn_limit is not None:
            seen = per_rule.get(row["rule"], 0)
            per_rule[row["rule"]] = seen + 1
            if seen >= warn_limit:
                omitted[row["rule"]] = omitted.get(row["rule"], 0) + 1
                continue
        shown.append(row)
    return shown, sorted(omitted.items())


def _rating(value: Any) -> str:
    """A rating as the system keeps it: whole (BARRUF, FIDE) as is, fractional (EGF GoR) to 2 decimals.

    >>> _rating(1116.0), _rating(1750.5749), _rating(None)
    ('1116', '1750.57', '')
    """
    if value is None:
        return ""
    return f"{float(value):.0f}" if float(value).is_integer() else f"{float(value):.2f}"


def _change_rows(changes: pl.DataFrame) -> list[dict[str, str]]:
    rows = []
    # As the federation's lists and the site order players: by the rating before, highest
    # first (a player's first row in the engine's order), then by id; no id first; the engine's
    # order within a player. Sorted in Python: a polars sort per report costs more than the
    # whole rendering on a loaded machine.
    dicts = _changes_with_names(changes, None).to_dicts()
    first_before: dict[str, float] = {}
    for r in dicts:
        if r.get("player_id") is not None and r.get("rating_before") is not None:
            first_before.setdefault(str(r["player_id"]), float(r["rating_before"]))
    ordered = sorted(dicts, key=lambda r: (
        r.get("player_id") is not None,
        -first_before.get(str(r.get("player_id")), float("-inf")),
        str(r.get("player_id") or ""),
    ))
    for r in ordered:
        rows.append({
            "player_id": r.get("player_id") or "",
            "name": r.get("name") or "",
            "period": r.get("period") or "",
            "before": _rating(r.get("rating_before")),
            "games": "" if r.get("games") is None else str(r["games"]),
            "score": _num(r.get("score"), 1),
            "expected": _num(r.get("expected"), 2),
            "k": _num(r.get("k")),
            "change": _num(r.get("change"), 1, signed=True),
            "after": _rating(r.get("rating_after")),
        })
    return rows


def _header(report: CompetitionReport) -> list[tuple[str, str]]:
    lines = [("Federation", report.federation), ("Competition", report.competition_id)]
    if report.name:
        lines.append(("Name", report.name))
    if report.start_date or report.end_date:
        start = report.start_date.isoformat() if report.start_date else "?"
        end = report.end_date.isoformat() if report.end_date else start
        lines.append(("Dates", start if start == end else f"{start} – {end}"))
    lines.append(("File", report.source or "(unknown)"))
    if report.games is not None:
        games = str(report.games)
        if report.excluded_games:
            games += f" ({report.excluded_games} not rated)"
        if report.byes:
            games += " (and 1 bye, not a game)" if report.byes == 1 else f" (and {report.byes} byes, not games)"
        lines.append(("Games", games))
    lines.extend((str(k), str(v)) for k, v in report.extra.items())
    return lines


def _counts(findings: pl.DataFrame) -> dict[str, int]:
    counts = dict.fromkeys(SEVERITIES, 0)
    for sev in _conform(findings, FINDINGS_SCHEMA).get_column("severity").to_list():
        if sev in counts:
            counts[sev] += 1
    return counts


#: At most this many corrected figures are listed in a report: a correction dated far back
#: can change every figure of hundreds of editions, and each of the night's reports would
#: carry all of them. The competition's own players come first; the count of the rest is
#: given, and the correcting edition's page of the site and ``edition_corrections`` hold all.
CORRECTION_LIMIT = 50


def _correction_rows(
    corrections: pl.DataFrame | None, players: pl.DataFrame | None = None, limit: int = CORRECTION_LIMIT,
) -> tuple[list[dict[str, str]], int]:
    """The corrected figures to list (the competition's players first) and how many are left out."""
    if corrections is None or corrections.is_empty():
        return [], 0
    if players is not None and not players.is_empty() and "player_id" in players.columns:
        own = players.get_column("player_id").unique().implode()
        corrections = corrections.with_row_index("_order").sort(
            [pl.col("player_id").is_in(own).not_(), "_order"]
        ).drop("_order")
    shown = corrections.head(limit)
    rows = [
        {"player": f"{r.get('player_id') or ''} {r.get('name') or ''}".strip(), "edition": str(r.get("edition")),
         "published": f"{float(r['published']):g}" if r.get("published") is not None else "not listed",
         "now": f"{float(r['now']):g}" if r.get("now") is not None else "not listed"}
        for r in shown.to_dicts()
    ]
    return rows, corrections.height - shown.height


_MORE_FIXES = ("... and {n:,} more corrected figure(s) of other players: the correcting edition's page of "
               "the publication site (`ratings site`) and the warehouse table `edition_corrections` list them all.")


def _progress_rows(progress: pl.DataFrame | None) -> list[dict[str, str]]:
    if progress is None or progress.is_empty():
        return []
    rows = []
    for r in progress.to_dicts():
        first = r.get("first_event")
        rows.append({
            "player": str(r.get("label") or r.get("player_id") or ""),
            "rule_set": str(r.get("rule_set") or ""),
            "window": f"{r.get('window_start') or '?'} – {r.get('window_end') or '?'}",
            "games": str(r.get("games_vs_rated") or 0),
            "needed": str(r.get("games_needed") or ""),
            "first": f"{first} ({_num(r.get('first_event_points'), 1)})" if first else "none yet",
            "per_event": str(r.get("rated_opponents_per_event") or ""),
            "status": str(r.get("status") or ""),
        })
    return rows


# ------------------------------------------------------------------ markdown
_MD_SPECIAL = str.maketrans({
    "\\": "\\\\", "`": "\\`", "*": "\\*", "[": "\\[", "]": "\\]", "|": "\\|",
    "<": "&lt;", ">": "&gt;", "\n": " ", "\r": " ",
})
# Only what a Markdown viewer would act on is escaped, so that the report also reads
# cleanly as plain text: an underscore inside a word (``fide.unrated_opponent``) or a
# parenthesis never starts anything; "&" only before what looks like an entity.
_MD_ENTITY = re.compile(r"&(?=#?[A-Za-z0-9]+;)")
_MD_UNDERSCORE = re.compile(r"(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])")
_MD_TILDES = re.compile(r"~~")


def md_escape(text: Any) -> str:
    """Escape user text for a Markdown table cell or line, and only as much as needed.

    Examples
    --------
    >>> md_escape("Smith | <b>Jones</b> *x*")
    'Smith \\\\| &lt;b&gt;Jones&lt;/b&gt; \\\\*x\\\\*'
    >>> md_escape("fide.unrated_opponent (round 3), _x_ & &amp;")
    'fide.unrated_opponent (round 3), \\\\_x\\\\_ & &amp;amp;'
    >>> md_escape("HOST\\x1b[2J")   # a control character is shown, never acted on
    'HOST\\\\x1b\\\\[2J'
    """
    if text is None:
        return ""
    out = _MD_ENTITY.sub("&amp;", str(text))
    out = escape_controls(out.translate(_MD_SPECIAL))
    out = _MD_UNDERSCORE.sub(r"\\_", out)
    return _MD_TILDES.sub(r"\\~\\~", out)


def _groups(findings: pl.DataFrame, warn_limit: int | None) -> list[dict[str, Any]]:
    """Findings grouped by rule (most serious first): one group per rule with its count,
    the rows to list (warnings beyond ``warn_limit`` are counted, not listed)."""
    groups: dict[tuple[str, str], dict[str, Any]] = {}
    for row in _sorted_findings(findings):
        key = (str(row["severity"]), str(row["rule"]))
        group = groups.setdefault(key, {"severity": key[0], "rule": key[1], "count": 0, "rows": [], "omitted": 0})
        group["count"] += 1
        if row["severity"] == "warn" and warn_limit is not None and len(group["rows"]) >= warn_limit:
            group["omitted"] += 1
        else:
            group["rows"].append(row)
    return list(groups.values())


def _md_group(group: dict[str, Any]) -> list[str]:
    n = group["count"]
    out = [f"### {md_escape(group['rule'])}: {n} {_SEVERITY_WORD[group['severity']]}{'' if n == 1 else 's'}", "",
           "| Severity | File | Line | Field | Rule | What is wrong and how to fix it |",
           "|---|---|---:|---|---|---|"]
    for r in group["rows"]:
        out.append(
            f"| {md_escape(r['severity'])} | {md_escape(r['source'])} | "
            f"{'' if r['line'] is None else r['line']} | {md_escape(r['field'])} | "
            f"{md_escape(r['rule'])} | {md_escape(r['message'])} |"
        )
    if group["omitted"]:
        out += ["", (f"… and {group['omitted']} more warning(s) of {md_escape(group['rule'])} "
                     "(same situation, other lines).")]
    return [*out, ""]


_SEVERITY_WORD = {"reject": "rejection", "hold": "hold", "exclude": "exclusion", "warn": "warning"}


@dataclass(frozen=True)
class _Parts:
    """What both renderings of a report show, computed once when both are written."""

    changes: list[dict[str, str]]
    groups: list[dict[str, Any]]
    counts: dict[str, int]
    fixes: list[dict[str, str]]   #: corrected figures listed (at most CORRECTION_LIMIT)
    more_fixes: int               #: and how many more there are

    @classmethod
    def of(cls, report: CompetitionReport, warn_limit: int | None) -> _Parts:
        fixes, more_fixes = _correction_rows(report.corrections, report.changes)
        return cls(_change_rows(report.changes), _groups(report.findings, warn_limit), _counts(report.findings),
                   fixes, more_fixes)


def _markdown(report: CompetitionReport, warn_limit: int | None = WARN_LIMIT, parts: _Parts | None = None) -> str:
    """Decision first (status, officer, the findings that decided, rating changes), then the
    long tail of warnings, each rule once with its count."""
    out = [f"# Validation report: {md_escape(report.name or report.competition_id)}", ""]
    out.append(f"**{_HEADLINES.get(report.status, md_escape(report.status))}**")
    out.append("")
    out.extend(f"- {label}: {md_escape(value)}" for label, value in _header(report))
    parts = parts or _Parts.of(report, warn_limit)
    counts = parts.counts
    held = f"{counts['hold']} hold, " if counts["hold"] else ""
    out.append(f"- Findings: {counts['reject']} reject, {held}{counts['exclude']} exclude, {counts['warn']} warning")
    out += ["", f"Next step: {_NEXT_STEP.get(report.status, '')}", ""]
    groups = parts.groups
    decisive = [g for g in groups if g["severity"] != "warn"]
    warnings = [g for g in groups if g["severity"] == "warn"]
    out += ["## Findings that decide the outcome", ""]
    if not groups:
        out += ["No findings: the competition meets every rule.", ""]
    elif not decisive:
        out += ["None: only warnings (listed at the end).", ""]
    for group in decisive:
        out += _md_group(group)
    out += ["## Rating changes", ""]
    changes = parts.changes
    if not changes:
        out.append("Not rated." if report.status in ("rejected", "superseded", "pending", "held")
                   else "No rating changes recorded for this competition yet.")
    else:
        out.append("| Player | Name | Before | Games | Score | Expected | K | Change | After |")
        out.append("|---|---|---:|---:|---:|---:|---:|---:|---:|")
        for c in changes:
            out.append(
                f"| {md_escape(c['player_id'])} | {md_escape(c['name'])} | {c['before']} | {c['games']} | "
                f"{c['score']} | {c['expected']} | {c['k']} | {c['change']} | {c['after']} |"
            )
    progress = _progress_rows(report.progress)
    if progress:
        out += ["", "## Unrated players: progress toward an initial rating", "",
                ("| Player | Rules | Window | Games vs rated | Needed | First event (points) | "
                 "Rated opponents per event | Status |"),
                "|---|---|---|---:|---:|---|---|---|"]
        for p in progress:
            out.append(
                f"| {md_escape(p['player'])} | {p['rule_set']} | {p['window']} | {p['games']} | {p['needed']} | "
                f"{md_escape(p['first'])} | {md_escape(p['per_event'])} | {md_escape(p['status'])} |"
            )
    fixes, more_fixes = parts.fixes, parts.more_fixes
    if fixes:
        out += ["", "## Published editions corrected", "",
                "| Player | Edition | Published | Now |", "|---|---:|---:|---:|"]
        out += [f"| {md_escape(f['player'])} | {f['edition']} | {f['published']} | {f['now']} |" for f in fixes]
        if more_fixes:
            out += ["", _MORE_FIXES.format(n=more_fixes)]
    if warnings:
        out += ["", f"## Warnings ({sum(g['count'] for g in warnings)}): reported only", ""]
        for group in warnings:
            out += _md_group(group)
    return "\n".join(out).rstrip("\n") + "\n"


# ------------------------------------------------------------------ html
#: The HTML report's template and style sheet, package files beside this module (not strings in it).
_TEMPLATE_FILE, _CSS_FILE = "report.html", "report.css"


def _package_text(name: str) -> str:
    from importlib.resources import files

    return files("validations").joinpath(name).read_text(encoding="utf-8")


@functools.cache
def _template() -> Any:
    """The report template, compiled once per process (compiling costs ~40 ms a report)."""
    import jinja2

    environment = jinja2.Environment(autoescape=True, undefined=jinja2.StrictUndefined)
    return environment.from_string(_package_text(_TEMPLATE_FILE))


@functools.cache
def _css_markup() -> Any:
    """The style sheet, inlined in every report (a report is one self-contained file)."""
    import markupsafe

    return markupsafe.Markup(_package_text(_CSS_FILE))


def _html(report: CompetitionReport, warn_limit: int | None = WARN_LIMIT, parts: _Parts | None = None) -> str:
    parts = parts or _Parts.of(report, warn_limit)
    changes, groups = parts.changes, parts.groups
    template = _template()
    fixes, more_fixes = parts.fixes, parts.more_fixes
    return str(template.render(
        title=report.name or report.competition_id,
        css=_css_markup(),
        status=report.status if report.status in STATUSES else "pending",
        headline=_HEADLINES.get(report.status, report.status),
        header=_header(report),
        counts=parts.counts,
        next_step=_NEXT_STEP.get(report.status, ""),
        groups=groups,
        decisive=[g for g in groups if g["severity"] != "warn"],
        warnings=[g for g in groups if g["severity"] == "warn"],
        severity_word=_SEVERITY_WORD,
        severity_text=_SEVERITY_TEXT,
        changes=changes,
        progress=_progress_rows(report.progress),
        fixes=fixes,
        more_fixes=_MORE_FIXES.format(n=more_fixes).replace("`", "") if more_fixes else "",
        has_period=any(c["period"] for c in changes),
        no_changes=("Not rated." if report.status in ("rejected", "superseded", "pending", "held")
                    else "No rating changes recorded for this competition yet."),
    ))


def render_report(
    report: CompetitionReport, *, fmt: Literal["markdown", "html"] = "markdown",
    warn_limit: int | None = WARN_LIMIT,
) -> str:
    """Render the organiser's report of one competition.

    Parameters
    ----------
    report
        What to show: status, findings (file, line, field, fix) and rating changes.
    fmt
        ``"markdown"`` (Prefect artifact, ``ratings report``) or ``"html"``
        (self-contained page with inline CSS; user text escaped).
    warn_limit
        Warnings listed per rule before the rest are counted in one line (``None``:
        list all). Rejections and exclusions are always listed in full.

    Raises
    ------
    ReportError
        For an unknown ``fmt``.

    Examples
    --------
    >>> r = CompetitionReport(federation="ajusc", competition_id="C1", name="Open <b>",
    ...                       source="c1.results.csv", status="rejected",
    ...                       findings=pl.DataFrame({"competition_id": ["C1"], "rule": ["ajusc.min_rounds"],
    ...                                              "severity": ["reject"], "message": ["2 rounds"],
    ...                                              "source": ["c1.results.csv"]}),
    ...                       changes=pl.DataFrame())
    >>> print(render_report(r).splitlines()[0])
    # Validation report: Open &lt;b&gt;
    >>> "<b>" in render_report(r, fmt="html"), "Open &lt;b&gt;" in render_report(r, fmt="html")
    (False, True)
    """
    if fmt == "markdown":
        return _markdown(report, warn_limit)
    if fmt == "html":
        return _html(report, warn_limit)
    raise ReportError(f"report format must be 'markdown' or 'html', not {fmt!r}")


@dataclass(frozen=True)
class WrittenReport:
    """A report as written tonight: what e-mail delivery sends (``tasks/deliver.py``)."""

    federation: str
    competition_id: str   #: the competition (or, for a file that holds none, the file)
    name: str | None
    status: str
    source: str | None    #: the file it was read from
    markdown: str         #: path of the Markdown file
    html: str             #: path of the HTML file beside it


def write_report(report: CompetitionReport, folder: Path, *, sync: bool = True) -> tuple[Path, Path]:
    """Write ``<federation>/<competition_id>.md`` and ``.html`` under ``folder``.

    The competition id is user input: characters unsafe in a file name are replaced.

    Parameters
    ----------
    sync
        Flush each file to disk before it replaces the old one (``fsync``). A bulk
        writer passes ``False`` and calls :func:`sync_reports` once after the last
        report: an ``fsync`` costs more than rendering the report.

    Returns
    -------
    tuple[Path, Path]
        The Markdown and HTML paths.
    """
    from formats.safety import atomic_write_text, path_inside

    # Ids and federation come from the file: never a path outside ``folder``;
    # written atomically, so a run killed mid-write leaves no half report.
    safe = report_name(report.competition_id)
    target = path_inside(folder, report.federation or "unknown")
    md, html = target / f"{safe}.md", target / f"{safe}.html"
    parts = _Parts.of(report, WARN_LIMIT)   # both renderings show the same rows: derive them once
    write = atomic_write_text if sync else _replace_text
    write(md, _markdown(report, WARN_LIMIT, parts))
    write(html, _html(report, WARN_LIMIT, parts))
    return md, html


def report_name(competition_id: str | None) -> str:
    """The file name (no suffix) of a competition's report: the id itself when it is a safe file
    name, else its safe form and a short hash of the id, so that two ids that differ only in
    what a file name cannot hold (``HOST/1``, ``HOST_1``) never share one report file.

    Examples
    --------
    >>> report_name("CAT-2025-01"), report_name("HOST_1"), report_name("HOST/1")
    ('CAT-2025-01', 'HOST_1', 'HOST_1-eb1779dd')
    """
    import hashlib

    from formats.safety import safe_filename

    safe = safe_filename(competition_id)
    if competition_id is None or safe == competition_id:
        return safe
    return f"{safe}-{hashlib.sha256(competition_id.encode('utf-8', 'surrogatepass')).hexdigest()[:8]}"


def _replace_text(path: Path, text: str) -> None:
    """``path`` replaced by ``text`` through a temporary file and a rename: a process killed
    half-way leaves the old file or the new one, never half of one (no ``fsync``)."""
    import os
    import tempfile

    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name[:40]}.", suffix=".tmp", dir=path.parent)
    try:
        os.fchmod(fd, 0o644)   # readable like the site's pages, not mkstemp's 0600
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(tmp, path)
    except OSError as error:
        from formats.safety import disk_full

        Path(tmp).unlink(missing_ok=True)
        raise disk_full(error, path.parent) from None
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def sync_reports() -> None:
    """Flush reports written with ``write_report(..., sync=False)`` to disk, all at once."""
    import os

    os.sync()


# ------------------------------------------------------------------ one outcome per file
_KIND_OF_FORMAT = {
    "interchange-players": "a players list (names, clubs and grades for the lists and reports)",
    "interchange-aliases": "an alias table (one player under several ids)",
}


def file_outcomes(
    *,
    files: pl.DataFrame,
    competitions: pl.DataFrame,
    statuses: Mapping[str, Mapping[str, str]],
    findings: pl.DataFrame | None = None,
    skipped: list[str] | tuple[str, ...] = (),
    ignored: list[str] | tuple[str, ...] = (),
) -> dict[str, str]:
    """Exactly one outcome per file of the night, with its reason (the rules that decided).

    Parameters
    ----------
    files
        ``source`` (and ``federation``) of every file read tonight.
    competitions
        Competitions read tonight (``federation, competition_id, source``).
    statuses
        Report status by federation and competition id, or by file name for a file that
        could not be read into a competition (``tasks.publish.Published.reports``).
    findings
        Tonight's findings: the ``reject`` / ``hold`` / ``exclude`` rules behind a status.
    skipped, ignored
        File names already loaded (identical re-sends) and rating lists left to ``ratings seed``.

    Examples
    --------
    >>> files = pl.DataFrame({"federation": ["fide", "unknown"], "source": ["a.trf", "b.html"]})
    >>> comps = pl.DataFrame({"federation": ["fide"], "competition_id": ["A"], "source": ["a.trf"]})
    >>> found = pl.DataFrame({"federation": ["fide", "unknown"], "competition_id": ["A", None],
    ...                       "rule": ["fide.online", "format.unknown"], "severity": ["reject", "reject"],
    ...                       "source": ["a.trf", "b.html"]})
    >>> file_outcomes(files=files, competitions=comps, findings=found, ignored=["list.txt"],
    ...               statuses={"fide": {"A": "rejected"}, "unknown": {"b.html": "rejected"}})
    {'a.trf': 'rejected (fide.online)', 'b.html': 'unreadable: rejected (format.unknown)', 'list.txt': 'ignored: a rating list, imported with `ratings seed`'}
    """
    found = _conform(findings, FINDINGS_SCHEMA)
    # One group_by each instead of a filter per file and competition: a migration night
    # brings thousands of files.
    by_competition: dict[tuple[object, object], list[str]] = {
        (cid, severity): rules
        for cid, severity, rules in found.filter(pl.col("competition_id").is_not_null())
        .group_by("competition_id", "severity").agg(pl.col("rule").unique().sort()).iter_rows()
    }
    by_file: dict[object, list[str]] = dict(
        found.filter(pl.col("competition_id").is_null() & (pl.col("severity") == "reject"))
        .group_by("source").agg(pl.col("rule").unique().sort()).iter_rows()
    )
    comps_of = _competitions_by_file(competitions)
    out: dict[str, str] = {}
    for row in files.select(
        pl.col("source"),
        pl.col("federation") if "federation" in files.columns else pl.lit(None).alias("federation"),
        pl.col("format") if "format" in files.columns else pl.lit(None).alias("format"),
    ).unique("source", maintain_order=True).to_dicts():
        source, fed = str(row["source"]), row["federation"]
        mine = comps_of.get(source, [])
        if mine:
            out[source] = _competitions_outcome(mine, fed, statuses, by_competition)
            continue
        file_status = next((s.get(source) for s in statuses.values() if source in s), None)
        if file_status is None:
            # Read, holding no competition and no finding against it: a players or alias table.
            out[source] = f"loaded: {_KIND_OF_FORMAT.get(str(row.get('format')), 'read, nothing to rate')}"
            continue
        rules = by_file.get(source, [])
        out[source] = f"unreadable: {file_status}" + (f" ({', '.join(rules)})" if rules else "")
    for name in skipped:
        out.setdefault(name, "already loaded: identical re-send, nothing to do")
    for name in ignored:
        out.setdefault(name, "ignored: a rating list, imported with `ratings seed`")
    return out


def _competitions_by_file(competitions: pl.DataFrame) -> dict[str, list[tuple[object, object]]]:
    """File name -> the (federation, competition id) of each competition read from it."""
    comps_of: dict[str, list[tuple[object, object]]] = {}
    if "source" in competitions.columns:
        for source_, fed_, cid_ in competitions.select(
            "source",
            pl.col("federation") if "federation" in competitions.columns else pl.lit(None).alias("federation"),
            pl.col("competition_id") if "competition_id" in competitions.columns else pl.lit(None).alias("c"),
        ).iter_rows():
            comps_of.setdefault(str(source_), []).append((fed_, cid_))
    return comps_of


#: The severity of the findings that explain a report status.
_RULES_FOR_STATUS = {"rejected": "reject", "held": "hold", "accepted_with_exclusions": "exclude"}


def _competitions_outcome(mine: list[tuple[object, object]], fed: object, statuses: Mapping[str, Mapping[str, str]],
                          by_competition: Mapping[tuple[object, object], list[str]]) -> str:
    """The outcome of a file that holds competitions: each status once, with the rules behind it."""
    parts: dict[str, set[str]] = {}
    for comp_fed, cid in mine:
        status = statuses.get(str(comp_fed or fed), {}).get(str(cid), "pending")
        rules = by_competition.get((cid, _RULES_FOR_STATUS.get(status, "-")), [])
        parts.setdefault(status, set()).update(rules)
    texts = [f"{status} ({', '.join(sorted(rules))})" if rules else status for status, rules in parts.items()]
    return "; ".join(sorted(texts))


# ------------------------------------------------------------------ nightly summary
@dataclass(frozen=True)
class NightlySummary:
    """What one nightly run did (the flow's summary artifact)."""

    as_of: date | None                 #: the run's date
    files_seen: int                    #: files found in the inbox
    files_skipped: int                 #: identical re-sends (already loaded)
    files_unreadable: int              #: files quarantined because they could not be read
    competitions: pl.DataFrame         #: federation, competition_id, name, status, source
    players_affected: int              #: players whose rating changed
    federations: tuple[str, ...] = ()  #: federations the run covered
    #: one outcome per file (:func:`file_outcomes`), listed when given
    outcomes: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def from_frames(
        cls, *, files: pl.DataFrame, competitions: pl.DataFrame, changes: pl.DataFrame | None = None,
        as_of: date | None = None, files_skipped: int = 0,
    ) -> NightlySummary:
        """Summarise a run from its frames.

        ``files``: one row per file seen (``source``, optional ``n_findings`` and
        ``format``; a null format or a reject finding without a competition marks it
        unreadable). ``competitions``: competitions + ``status``. ``changes``: rating
        changes (players affected = distinct players with a non-zero change).

        Examples
        --------
        >>> s = NightlySummary.from_frames(
        ...     files=pl.DataFrame({"source": ["a.csv", "b.xml"], "format": ["interchange-results", None]}),
        ...     competitions=pl.DataFrame({"federation": ["ajusc"], "competition_id": ["C1"],
        ...                                "status": ["accepted"]}),
        ...     changes=pl.DataFrame({"player_id": ["1", "2", "2"], "change": [3.0, -1.0, 0.0]}))
        >>> (s.files_seen, s.files_unreadable, s.players_affected)
        (2, 1, 2)
        """
        unreadable = 0
        if "format" in files.columns:
            unreadable = int(files.get_column("format").is_null().sum())
        affected = 0
        if changes is not None and not changes.is_empty():
            moved = changes.filter(pl.col("change").fill_null(0) != 0) if "change" in changes.columns else changes
            keys = [c for c in ("federation", "player_id") if c in moved.columns]
            affected = moved.select(keys).unique().height
        feds: tuple[str, ...] = ()
        if "federation" in competitions.columns:
            feds = tuple(sorted(set(competitions.get_column("federation").drop_nulls().to_list())))
        return cls(as_of=as_of, files_seen=files.height, files_skipped=files_skipped,
                   files_unreadable=unreadable, competitions=competitions,
                   players_affected=affected, federations=feds)

    def counts(self) -> dict[str, int]:
        """Competitions per status (accepted, accepted_with_exclusions, rejected, pending, superseded)."""
        counts = {s: 0 for s in ("accepted", "accepted_with_exclusions", "held", "rejected", "pending", "superseded")}
        if "status" in self.competitions.columns:
            for status in self.competitions.get_column("status").to_list():
                key = status if status in counts else "pending"
                counts[key] += 1
        return counts


def render_summary(summary: NightlySummary, *, fmt: Literal["markdown"] = "markdown") -> str:
    """Render the nightly summary as Markdown.

    Examples
    --------
    >>> s = NightlySummary(as_of=date(2026, 1, 5), files_seen=3, files_skipped=1, files_unreadable=0,
    ...                    competitions=pl.DataFrame({"competition_id": ["C1"], "status": ["rejected"]}),
    ...                    players_affected=0)
    >>> print(render_summary(s).splitlines()[0])
    # Nightly run 2026-01-05
    """
    if fmt != "markdown":
        raise ReportError(f"the nightly summary renders as 'markdown', not {fmt!r}")
    counts = summary.counts()
    title = f"# Nightly run {summary.as_of.isoformat()}" if summary.as_of else "# Nightly run"
    out = [title, ""]
    if summary.federations:
        out.append(f"Federations: {md_escape(', '.join(summary.federations))}")
        out.append("")
    out += [
        "| | count |", "|---|---:|",
        f"| Files seen | {summary.files_seen} |",
        f"| Files already loaded (identical re-send) | {summary.files_skipped} |",
        f"| Files unreadable (quarantined) | {summary.files_unreadable} |",
        f"| Competitions accepted | {counts['accepted']} |",
        f"| Competitions accepted with excluded games | {counts['accepted_with_exclusions']} |",
        f"| Competitions held for the rating officer | {counts['held']} |",
        f"| Competitions rejected (quarantined) | {counts['rejected']} |",
        f"| Competitions pending | {counts['pending']} |",
        f"| Competitions superseded by a corrected file | {counts['superseded']} |",
        f"| Players affected | {summary.players_affected} |",
        "",
    ]
    if summary.outcomes:
        out += ["## Files", "", "| File | Outcome |", "|---|---|"]
        out += [f"| {md_escape(name)} | {md_escape(text)} |" for name, text in sorted(summary.outcomes.items())]
        out.append("")
    comps = summary.competitions
    if not comps.is_empty() and "competition_id" in comps.columns:
        out += ["## Competitions", "", "| Federation | Competition | Name | Status | File |", "|---|---|---|---|---|"]
        for r in comps.to_dicts():
            out.append(
                f"| {md_escape(r.get('federation'))} | {md_escape(r.get('competition_id'))} | "
                f"{md_escape(r.get('name'))} | {md_escape(r.get('status'))} | {md_escape(r.get('source'))} |"
            )
    return "\n".join(out) + "\n"
