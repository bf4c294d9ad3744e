"""Publish: the editions of the rating list and the organisers' reports, logged, with Prefect artifacts.

What to publish and the reports' contents are :mod:`publication` (no Prefect). Each
competition of tonight's batch gets its report written to the reports folder (Markdown and
HTML) and attached to the flow run as a Prefect artifact keyed per competition; a
correcting edition's diff goes to a Prefect table artifact.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from datetime import date
from pathlib import Path

import polars as pl
from sqlalchemy import Engine

import engine
import validations
import warehouse
from formats.batch import FederationBatch
from publication import (
    apply_editions,
    changed_players,
    new_players,
    reports_from_warehouse,
    spans,
    unreadable_file_reports,
    with_correction,
)
from rating import Rated
from tasks.runtime import create_markdown_artifact, create_table_artifact, get_run_logger, task
from validations.report import WrittenReport, md_escape, sync_reports
from warehouse.guard import checkpoint
from warehouse.load import finish_publication


@dataclass
class Published:
    """What one federation's publish step produced."""

    federation: str
    edition: int | None                      # the last edition published (None: none)
    players_listed: int                      # on the last edition (none tonight: on the one in force)
    players_changed: int                     # rating differs from the previous edition
    players_new: int = 0                     # not on the previous edition
    reports: dict[str, str] = field(default_factory=dict)   # competition (or file) -> status
    report_paths: list[str] = field(default_factory=list)
    written: list[WrittenReport] = field(default_factory=list)   # every report written, for delivery
    editions: list[int] = field(default_factory=list)       # every edition published by this run
    correcting_edition: int | None = None    # the correcting edition, when one was published
    corrections: pl.DataFrame | None = None  # its diff (CORRECTIONS_SCHEMA)
    #: the list in force before the run and the last one after it (the figures above compare
    #: them; :meth:`followed_by` compares the first block's with the last's)
    lists: tuple[pl.DataFrame, pl.DataFrame] | None = field(default=None, repr=False, compare=False)

    def followed_by(self, later: Published) -> Published:
        """What this block and a later block of one night published for the federation, as one run
        would say it: the later block's last edition, the figures of the list in force before this
        block against the last list, every edition, report and correction of both.

        Examples
        --------
        >>> before = pl.DataFrame({"player_id": ["a", "b"], "rating": [1000.0, 1100.0]})
        >>> middle = pl.DataFrame({"player_id": ["a", "b"], "rating": [1010.0, 1100.0]})
        >>> after = pl.DataFrame({"player_id": ["a", "b", "c"], "rating": [1000.0, 1120.0, 900.0]})
        >>> one = Published("x", 1, 2, 1, editions=[1], reports={"A": "accepted"}, lists=(before, middle))
        >>> two = Published("x", 2, 3, 2, 1, editions=[2], reports={"B": "accepted"}, lists=(middle, after))
        >>> both = one.followed_by(two)
        >>> both.edition, both.editions, both.players_listed, both.players_changed, both.players_new, both.reports
        (2, [1, 2], 3, 1, 1, {'A': 'accepted', 'B': 'accepted'})
        """
        merged = replace(
            later,
            edition=later.edition if later.edition is not None else self.edition,
            reports={**self.reports, **later.reports},
            report_paths=[*self.report_paths, *later.report_paths],
            written=[*self.written, *later.written],
            editions=[*self.editions, *later.editions],
            correcting_edition=later.correcting_edition if later.correcting_edition is not None
            else self.correcting_edition,
            corrections=later.corrections if later.corrections is not None else self.corrections,
        )
        if later.lists is None:   # the later block published nothing of its own: the earlier's figures stand
            return replace(merged, players_listed=self.players_listed, players_changed=self.players_changed,
                           players_new=self.players_new, lists=self.lists)
        if self.lists is None:
            return merged
        before, after = self.lists[0], later.lists[1]
        numbers = bool(merged.editions) or merged.edition is not None
        return replace(merged, players_listed=after.height, lists=(before, after),
                       players_changed=changed_players(before, after) if numbers else 0,
                       players_new=new_players(before, after) if numbers else 0)


def artifact_key(*parts: str) -> str:
    """Prefect artifact keys allow lowercase letters, digits and dashes only.

    Examples
    --------
    >>> artifact_key("ajusc", "BARRUF-191", "report")
    'ajusc-barruf-191-report'
    """
    return re.sub(r"[^a-z0-9]+", "-", "-".join(parts).lower()).strip("-")


#: Reports per federation and night above which the night makes ONE summary artifact
#: linking the report files instead of one Prefect artifact (one API call) per report.
BULK_ARTIFACTS = 20


def reports_index(federation: str, reports: list[validations.CompetitionReport], paths: list[str]) -> str:
    """The Markdown of a bulk night's one report artifact: each competition, its status and files.

    Examples
    --------
    >>> r = validations.file_report("a|b.trf", pl.DataFrame(), federation="fide")
    >>> print(reports_index("fide", [r], ["/r/fide/a_b.trf.md", "/r/fide/a_b.trf.html"]))
    # fide: 1 organiser report(s)
    <BLANKLINE>
    | Competition | Status | Report |
    |---|---|---|
    | a\\|b.trf | rejected | [Markdown](file:///r/fide/a_b.trf.md) · [HTML](file:///r/fide/a_b.trf.html) |
    <BLANKLINE>
    """
    from urllib.parse import quote

    def link(path: str) -> str:
        return "file://" + quote(Path(path).resolve().as_posix())

    out = [f"# {md_escape(federation)}: {len(reports)} organiser report(s)", ""]
    out += ["| Competition | Status | Report |", "|---|---|---|"]
    for report, (md, html) in zip(reports, zip(paths[0::2], paths[1::2], strict=True), strict=True):
        out.append(f"| {md_escape(report.competition_id)} | {report.status} | "
                   f"[Markdown]({link(md)}) · [HTML]({link(html)}) |")
    return "\n".join(out) + "\n"


def publish_editions(db: Engine, federation: str, rated: Rated, config: dict[str, object], as_of: date) -> Published:
    """:func:`apply_editions`, logged; a correction's diff also goes to a Prefect table artifact."""
    logger = get_run_logger()
    done = apply_editions(db, federation, rated, config, as_of)
    plan, numbers, correcting = done.plan, done.numbers, done.correcting
    for warning in plan.warnings:
        logger.warning("%s", warning)
    if correcting is not None and plan.correcting is not None:
        day = plan.correcting[1]
        reason = ", ".join(rated.changed)
        touched = sorted(set(plan.corrections.get_column("edition").to_list()))
        create_table_artifact(
            key=artifact_key(federation, "correcting-edition"),
            table=plan.corrections.with_columns(pl.col("edition_as_of").cast(pl.Utf8)).to_dicts(),
            description=(
                f"{federation} correcting edition {correcting} ({day}): {plan.corrections.height} figure(s) of "
                f"edition(s) {spans(touched)} changed" + (f" by {reason}" if reason else "")
            ),
        )
        logger.info("%s: correcting edition %d changes %d figure(s) of %d published edition(s)",
                    federation, correcting, plan.corrections.height, len(touched))
    listed = done.latest.height   # no edition tonight: the one in force (``latest`` is ``previous``)
    changed = changed_players(done.previous, done.latest) if numbers else 0
    added = new_players(done.previous, done.latest) if numbers else 0
    if numbers:
        logger.info("%s: published edition(s) %s", federation, spans(numbers))
    return Published(
        federation, numbers[-1] if numbers else None, listed, changed, added, editions=numbers,
        correcting_edition=correcting, corrections=plan.corrections if correcting is not None else None,
        lists=(done.previous, done.latest),
    )


@task(name="publish_federation")
def publish_federation(
    batch: FederationBatch,
    run: engine.RatingRun | None,
    warehouse_url: str | None,
    config: dict[str, object],
    as_of: date,
    reports_dir: str,
    progress: pl.DataFrame | None = None,
    rated: Rated | None = None,
    also_report: list[str] | None = None,
) -> Published:
    """Publish the editions ``rated`` calls for and every report of tonight's batch (and of
    ``also_report``: competitions the rating officer approved, rated tonight).

    Without ``rated`` (a caller that only has a rating run), the run's final list is
    published as of ``as_of`` when it differs from the latest edition.
    """
    logger = get_run_logger()
    db = warehouse.get_engine(warehouse_url)
    if rated is not None:
        published = publish_editions(db, batch.federation, rated, config, as_of)
    elif run is not None:
        rating_list = engine.rating_list(batch.federation, run.ratings, as_of=as_of, config=config)
        previous = warehouse.rating_list(db, batch.federation)
        edition = warehouse.publish_list(db, batch.federation, rating_list, as_of=as_of)
        published = Published(batch.federation, edition, rating_list.height, changed_players(previous, rating_list),
                              new_players(previous, rating_list), lists=(previous, rating_list))
        logger.info("%s: list as of %s, edition %s", batch.federation, as_of, edition)
    else:
        published = Published(batch.federation, None, 0, 0)
    ids = [*batch.competitions.get_column("competition_id").unique(maintain_order=True).to_list(),
           *(also_report or [])]
    if published.correcting_edition is not None and run is not None:
        # A late competition changed figures already published: the reports of the competitions
        # it re-rated are written again (their rating changes are not the ones sent), and e-mail
        # delivery sends those whose content changed as a new version.
        known = set(ids)
        rewritten = [cid for cid in run.changes.get_column("competition_id").unique(maintain_order=True).to_list()
                     if cid not in known]
        ids += rewritten
    else:
        rewritten = []
    again = set(rewritten)   # written again, not tonight's: not among the night's outcomes
    reports = reports_from_warehouse(db, batch.federation, ids, progress)
    reports += unreadable_file_reports(batch)
    _write_reports(batch.federation, reports, Path(reports_dir), published, again)
    # Last: everything of the load is out. A kill before this line leaves the load's
    # ``pending_publications`` row, and the next run finishes the job (tasks/recover.py).
    finish_publication(db, batch.federation)
    return published


def _write_reports(
    federation: str, reports: list[validations.CompetitionReport], root: Path, published: Published,
    again: set[str],
) -> None:
    """Write every report under ``root`` and attach it (a bulk night: one index) as a Prefect
    artifact; ``published`` records each (``again``: written again, not among its outcomes)."""
    bulk = len(reports) > BULK_ARTIFACTS
    for report in reports:
        if published.correcting_edition is not None and published.corrections is not None:
            report = with_correction(report, published.correcting_edition, published.corrections)
        checkpoint("report")
        # A bulk night flushes its files once at the end instead of an fsync per file.
        paths = validations.write_report(report, root, sync=not bulk)
        if report.competition_id not in again:
            published.reports[report.competition_id] = report.status
        published.report_paths += [str(p) for p in paths]
        published.written.append(WrittenReport(report.federation, report.competition_id, report.name, report.status,
                                               report.source, str(paths[0]), str(paths[1])))
        if not bulk:
            create_markdown_artifact(
                key=artifact_key(report.federation, report.competition_id, "report"),
                markdown=paths[0].read_text(encoding="utf-8"),
                description=f"{report.federation} {report.competition_id}: {report.status}",
            )
    if bulk:
        sync_reports()   # on disk before the load is marked published (finish_publication, after this)
        # One API call for the night instead of one per competition: the organisers
        # still get every report file, the UI one table linking them.
        create_markdown_artifact(
            key=artifact_key(federation, "reports"),
            markdown=reports_index(federation, reports, published.report_paths),
            description=f"{federation}: {len(reports)} organiser report(s) in {root}",
        )
