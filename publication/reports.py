"""The organisers' reports of a night's publication, read back from the warehouse, and the
figures a publication step reports (how many players changed, which editions)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import polars as pl
from sqlalchemy import Engine

import validations
import warehouse
from formats.batch import FederationBatch
from warehouse.query import competition_reports

__all__ = [
    "changed_players", "new_players", "report_from_warehouse", "reports_from_warehouse", "spans",
    "unreadable_file_reports", "with_correction",
]


def changed_players(previous: pl.DataFrame, current: pl.DataFrame) -> int:
    """How many ratings changed between two lists: players on both whose rating differs
    (a player new to the list is counted by :func:`new_players`, not here).

    Examples
    --------
    >>> prev = pl.DataFrame({"player_id": ["a", "b"], "rating": [1000.0, 1100.0]})
    >>> cur = pl.DataFrame({"player_id": ["a", "b", "c"], "rating": [1000.0, 1112.0, 950.0]})
    >>> changed_players(prev, cur), new_players(prev, cur)
    (1, 1)
    """
    if previous.height == 0:
        return 0
    joined = current.select("player_id", "rating").join(
        previous.select("player_id", pl.col("rating").alias("previous")), on="player_id", how="inner"
    )
    return joined.filter(pl.col("rating").ne_missing(pl.col("previous"))).height


def new_players(previous: pl.DataFrame, current: pl.DataFrame) -> int:
    """How many players of ``current`` the previous list did not hold."""
    if previous.height == 0:
        return current.height
    return current.filter(~pl.col("player_id").is_in(previous.get_column("player_id").implode())).height


def unreadable_file_reports(batch: FederationBatch) -> list[validations.CompetitionReport]:
    """Files that could not be tied to any competition still get a report, keyed by file name."""
    orphans = batch.findings.filter(pl.col("competition_id").is_null())
    return [
        validations.file_report(str(source), findings, federation=batch.federation)
        for (source,), findings in orphans.group_by(["source"], maintain_order=True)
    ]


def report_from_warehouse(
    db: Engine, competition_id: str, federation: str | None, progress: pl.DataFrame | None = None
) -> validations.CompetitionReport | None:
    """The organiser's report of a competition as the warehouse holds it (None: unknown id).

    ``progress`` (FIDE) lists the unrated players of this competition with how far they
    are from an initial rating.
    """
    try:
        detail = warehouse.competition_report(db, competition_id, federation=federation)
    except warehouse.AmbiguousCompetitionError:
        raise   # two federations hold the id: the user must say which, never "no such competition"
    except warehouse.UnknownCompetitionError:
        return None
    report = validations.report_from_record(detail.competition, detail.findings, detail.changes)
    games = detail.games
    excluded = int((~games.get_column("rated").fill_null(True)).sum()) if games.height else 0
    own = None
    if progress is not None and progress.height and games.height:
        ids = pl.concat([games.get_column("player_a"), games.get_column("player_b")]).unique()
        own = progress.filter(pl.col("player_id").is_in(ids.to_list()))
    # The rating officer's decisions on a held competition, first in the header.
    decided = validations.decision_lines(
        warehouse.decisions.decisions(db, report.federation, competition_id))
    return replace(report, games=games.height, excluded_games=excluded, byes=detail.byes.height, progress=own,
                   extra={**decided, **report.extra})


def reports_from_warehouse(
    db: Engine, federation: str, competition_ids: list[str], progress: pl.DataFrame | None = None,
) -> list[validations.CompetitionReport]:
    """:func:`report_from_warehouse` for many competitions, read in bulk (a few queries per
    :data:`warehouse.query.REPORT_BATCH` competitions, not several per competition).

    The reports are those :func:`report_from_warehouse` makes, one by one, in the order
    of ``competition_ids``; ids the warehouse does not hold are left out.
    """
    with_players = progress is not None and progress.height > 0
    records = competition_reports(db, federation, competition_ids, with_players=with_players)

    def by_id(frame: pl.DataFrame) -> dict[tuple[object, ...], pl.DataFrame]:
        return frame.partition_by("competition_id", as_dict=True, maintain_order=True)

    findings, changes = by_id(records.findings), by_id(records.changes)
    decided = by_id(records.decisions)
    players = by_id(records.players) if records.players is not None else {}
    counts = {cid: (n, x) for cid, n, x in records.games.iter_rows()}
    byes = dict(records.byes.iter_rows())
    out = []
    for cid, row in ((c, records.competitions[c]) for c in dict.fromkeys(competition_ids)
                     if c in records.competitions):
        key = (cid,)
        report = validations.report_from_record(row, findings.get(key), changes.get(key))
        n_games, excluded = counts.get(cid, (0, 0))
        own = None
        if progress is not None and progress.height and n_games:
            ids = players[key].get_column("player_id") if key in players else pl.Series([], dtype=pl.Utf8)
            own = progress.filter(pl.col("player_id").is_in(ids.unique().to_list()))
        lines = validations.decision_lines(decided.get(key))
        out.append(replace(report, games=n_games, excluded_games=excluded, byes=byes.get(cid, 0), progress=own,
                           extra={**lines, **report.extra}))
    return out


def spans(numbers: Sequence[int]) -> str:
    """Edition numbers as runs: a migration night publishes thousands, one line must say so.

    >>> spans([1, 2, 3, 4, 7, 9, 10])
    '1-4, 7, 9-10'
    >>> spans([192])
    '192'
    """
    runs: list[list[int]] = []
    for n in numbers:
        if runs and n == runs[-1][1] + 1:
            runs[-1][1] = n
        else:
            runs.append([n, n])
    return ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in runs)


def with_correction(
    report: validations.CompetitionReport, correcting_edition: int, diff: pl.DataFrame,
) -> validations.CompetitionReport:
    """The report, with the correcting edition this night published and what it changed
    (``diff``: CORRECTIONS_SCHEMA)."""
    touched = sorted(set(diff.get_column("edition").to_list()))
    extra = dict(report.extra)
    extra["Correcting edition"] = (
        f"{correcting_edition}: {diff.height} figure(s) of published edition(s) "
        f"{spans(touched)} changed"
    )
    return replace(report, extra=extra, corrections=diff)
