"""Where each refused file is wrong: the finding that decided its outcome, by line and field.

The night's outcome of a file names the rules that decided it (``rejected (ajusc.min_rounds)``,
:func:`validations.file_outcomes`); the officer reading the terminal also wants the place to
look: the first deciding finding of that file, the way the organiser's report lists it.
"""

from __future__ import annotations

from collections.abc import Mapping

import polars as pl

from formats.schema import FINDINGS_SCHEMA, conform

#: The severity of the findings that decide an outcome, by the outcome's first word.
_DECIDED_BY = {"rejected": "reject", "unreadable:": "reject", "held": "hold", "accepted_with_exclusions": "exclude"}
_ORDER = {"reject": 0, "hold": 1, "exclude": 2}


def where(line: object, field: object) -> str:
    """``line 14, field 'result'`` (either may be unknown: the whole file, or the whole line).

    >>> where(14, "result"), where(None, "end_date"), where(3, None), where(None, None)
    ("line 14, field 'result'", "field 'end_date'", 'line 3', 'the whole file')
    """
    parts = ([f"line {line}"] if line is not None else []) + ([f"field '{field}'"] if field else [])
    return ", ".join(parts) or "the whole file"


def summary_findings(findings: pl.DataFrame) -> pl.DataFrame:
    """The findings a night's summary reads (:func:`validations.file_outcomes`, :func:`deciding_findings`):
    for each file, competition, severity and rule, the first by line. Both give the same answers
    on them as on all the findings; a night in blocks keeps these of each block, not every
    finding (a FIDE archive has a forfeit finding every few games).

    >>> f = pl.DataFrame({"source": ["a.trf"] * 3, "competition_id": ["A"] * 3, "severity": ["exclude"] * 3,
    ...                   "rule": ["forfeit"] * 3, "line": [9, 4, 7], "field": ["result"] * 3})
    >>> summary_findings(f).select("rule", "line").rows()
    [('forfeit', 4)]
    """
    found = conform(findings, FINDINGS_SCHEMA)
    return found.sort("line", "rule", nulls_last=True, maintain_order=True).unique(
        subset=["source", "competition_id", "severity", "rule"], keep="first", maintain_order=True)


def deciding_findings(outcomes: Mapping[str, str], findings: pl.DataFrame | None) -> dict[str, str]:
    """File -> ``<rule> at line L, field 'F'`` of the first finding that decided its outcome.

    Only files refused, held or accepted with exclusions have one; of a file's deciding
    findings the most severe, then the first by line, is given (as the report lists them).

    >>> found = pl.DataFrame({"rule": ["quality.bye", "fide.online", "format.csv.bad_score"],
    ...                       "severity": ["warn", "reject", "reject"], "source": ["a.trf", "a.trf", "b.csv"],
    ...                       "line": [2, None, 14], "field": [None, "event_site", "score_a"]})
    >>> deciding_findings({"a.trf": "rejected (fide.online)", "b.csv": "rejected (format.csv.bad_score)",
    ...                    "c.csv": "accepted"}, found)
    {'a.trf': "fide.online at field 'event_site'", 'b.csv': "format.csv.bad_score at line 14, field 'score_a'"}
    """
    if findings is None or findings.is_empty():
        return {}
    wanted = {name: _DECIDED_BY[text.split(" ", 1)[0]] for name, text in outcomes.items()
              if text.split(" ", 1)[0] in _DECIDED_BY}
    if not wanted:
        return {}
    rows = (
        conform(findings, FINDINGS_SCHEMA)
        .filter(pl.col("source").is_in(list(wanted)) & pl.col("severity").is_in(list(_ORDER)))
        .with_columns(pl.col("severity").replace_strict(_ORDER, return_dtype=pl.Int8).alias("_order"))
        .sort("_order", "line", "rule", nulls_last=True, maintain_order=True)   # ties: in the file's order
    )
    out: dict[str, str] = {}
    for source, severity, rule, line, field in rows.select("source", "severity", "rule", "line", "field").iter_rows():
        if source not in out and wanted[source] == severity:
            out[source] = f"{rule} at {where(line, field)}"
    return dict(sorted(out.items()))
