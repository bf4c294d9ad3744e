"""The night's summary: one outcome per file, the Markdown summary and its artifact."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import date

import polars as pl

import validations
from formats.schema import COMPETITIONS_SCHEMA, FINDINGS_SCHEMA, RATING_CHANGES_SCHEMA, concat
from tasks.ingest import FILES_SCHEMA, FederationBatch
from tasks.runtime import create_markdown_artifact, task


def kept_for_summary(batch: FederationBatch) -> FederationBatch:
    """What :func:`summarise_night` reads of a finished batch: its files and competitions and, of
    its findings, the first of each rule per file and competition (``validations.summary_findings``).
    A night in blocks keeps this of each block, not its games, players and every finding."""
    return replace(batch, games=batch.games.clear(), players=batch.players.clear(), byes=batch.byes.clear(),
                   findings=validations.summary_findings(batch.findings))


@task(name="summarise_night")
def summarise_night(
    batches: Sequence[FederationBatch],
    changes: Mapping[str, pl.DataFrame],
    statuses: Mapping[str, Mapping[str, str]],
    *,
    as_of: date,
    skipped: Sequence[str] = (),
    ignored: Sequence[str] = (),
    failed: Mapping[str, str] | None = None,
    files: Sequence[pl.DataFrame] = (),
) -> tuple[dict[str, str], dict[str, str], str]:
    """One outcome per file, where each refused file is wrong (its deciding finding's rule, line
    and field), and the night's Markdown summary (also a Prefect artifact).

    Parameters
    ----------
    batches
        The federations' batches that ran to the end (validated; their competitions and findings).
    changes
        Federation -> its rating run's changes (only tonight's competitions of it are counted).
    statuses
        Report status by federation and competition id (``Published.reports``).
    as_of
        The night's date.
    skipped, ignored
        Files already loaded, and rating lists left to ``ratings seed``.
    failed
        File name -> its outcome, for the files of a federation a stage failed on
        (an internal error): they keep that outcome.
    files
        The ``files`` frames of every batch of the night, finished or not (default: ``batches``').
    """
    failed = dict(failed or {})
    every_file = concat(list(files) or [b.files for b in batches], FILES_SCHEMA)
    competitions = concat([b.competitions for b in batches], COMPETITIONS_SCHEMA)
    by_federation = {b.federation: b.competitions.get_column("competition_id").to_list() for b in batches}
    finished_files = every_file.filter(~pl.col("source").is_in(list(failed)))
    findings = concat([b.findings for b in batches], FINDINGS_SCHEMA)
    outcomes = validations.file_outcomes(
        files=finished_files, competitions=competitions, statuses=statuses, findings=findings,
        skipped=list(skipped), ignored=list(ignored),
    )
    deciding = validations.deciding_findings(outcomes, findings)
    outcomes.update(failed)
    night = validations.NightlySummary.from_frames(
        files=every_file, competitions=competitions,
        changes=concat([frame.filter(pl.col("competition_id").is_in(by_federation.get(fed, [])))
                        for fed, frame in changes.items()], RATING_CHANGES_SCHEMA),
        as_of=as_of, files_skipped=len(skipped),
    )
    markdown = validations.render_summary(replace(night, outcomes=outcomes))
    create_markdown_artifact(key="nightly-summary", markdown=markdown, description=f"Nightly run as of {as_of}")
    return outcomes, deciding, markdown
