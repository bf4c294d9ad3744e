"""An organiser's report rendered: Markdown (every character Markdown would interpret escaped)
and a self-contained HTML page (Jinja2, autoescaped)."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

import polars as pl

from formats.safety import escape_controls
from validations._report_rows import (
    _MORE_FIXES,
    WARN_LIMIT,
    _change_rows,
    _correction_rows,
    _counts,
    _header,
    _progress_rows,
    _sorted_findings,
)
from validations.errors import ReportError

if TYPE_CHECKING:
    from validations.report import CompetitionReport

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
    >>> from validations.report import CompetitionReport
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
