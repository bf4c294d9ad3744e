"""The night's outcome of each file, and the nightly summary."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date
from typing import Literal

import polars as pl

from formats.schema import FINDINGS_SCHEMA
from validations._report_render import md_escape
from validations._report_rows import _conform
from validations.errors import ReportError

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
