"""Eligibility rules, Great Expectations data-quality suites, findings and organiser reports.

Public API (``docs/CONTRACTS.md``):

- :func:`validate` -> :class:`Validation`
- :func:`render_report` of a :class:`CompetitionReport` (Markdown or escaped HTML)
- :func:`render_summary` of a :class:`NightlySummary`
- :func:`ensure_gx_project` / :func:`build_data_docs` for the file-based GX project
- :func:`initial_rating_progress` (FIDE unrated players' progress)
- the rule table: :func:`load_rules`, :func:`rules_for`, :func:`rules_frame`
"""

from validations.deciding import deciding_findings, summary_findings
from validations.egf import adjusted_time, tournament_class
from validations.errors import (
    GxProjectError,
    ReportError,
    RuleDefinitionError,
    UnknownFederationError,
    ValidationsError,
)
from validations.fide import initial_rating_progress
from validations.report import (
    CompetitionReport,
    NightlySummary,
    build_report,
    decision_lines,
    file_outcomes,
    file_report,
    render_report,
    render_summary,
    report_from_record,
    report_status,
    write_report,
)
from validations.rules import Rule, load_rules, render_rules, rules_for, rules_frame
from validations.suites import build_data_docs, ensure_gx_project
from validations.validate import Validation, validate

__all__ = [
    "CompetitionReport",
    "GxProjectError",
    "NightlySummary",
    "ReportError",
    "Rule",
    "RuleDefinitionError",
    "UnknownFederationError",
    "Validation",
    "ValidationsError",
    "adjusted_time",
    "build_data_docs",
    "build_report",
    "deciding_findings",
    "decision_lines",
    "ensure_gx_project",
    "file_outcomes",
    "file_report",
    "initial_rating_progress",
    "load_rules",
    "render_report",
    "render_rules",
    "render_summary",
    "report_from_record",
    "report_status",
    "rules_for",
    "rules_frame",
    "summary_findings",
    "tournament_class",
    "validate",
    "write_report",
]
