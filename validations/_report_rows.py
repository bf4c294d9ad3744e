"""The rows an organiser's report shows, formatted once for its text and HTML forms alike."""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

import polars as pl

from formats.schema import FINDINGS_SCHEMA, RATING_CHANGES_SCHEMA, conform, empty
from validations.rules import SEVERITIES

if TYPE_CHECKING:
    from validations.report import CompetitionReport


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
