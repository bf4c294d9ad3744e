"""Publish: the editions of the rating list, as the federation publishes them, and the reports.

DESIGN.md *Publication*: AJUSC and EGF publish an edition after each rated competition
(dated at its end date), FIDE a list on the 1st of each month. Editions are numbered
on from the seeded list's edition. A published edition is never rewritten: when a late
or corrected competition changes figures already published, ONE correcting edition is
published (dated the run's day) with the diff of every published edition it touched,
stored in ``edition_corrections``, shown in the organisers' reports and in a Prefect
artifact.

Each competition of tonight's batch gets its report written to the reports folder
(Markdown and HTML) and attached to the flow run as a Prefect artifact keyed per
competition; the night gets one summary artifact.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from datetime import date
from pathlib import Path
from typing import Any

import polars as pl
from sqlalchemy import Engine

import engine
import validations
import warehouse
from formats.schema import RATING_LIST_SCHEMA, conform, empty
from rating import Rated, adjusted_at
from tasks.ingest import FederationBatch
from tasks.runtime import create_markdown_artifact, create_table_artifact, get_run_logger, task
from validations.report import WrittenReport, md_escape, sync_reports
from warehouse.guard import checkpoint
from warehouse.load import finish_publication
from warehouse.query import competition_reports


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


@dataclass
class EditionPlan:
    """What to publish: ordinary editions at new points, and maybe one correcting edition."""

    ordinary: list[tuple[str, date, pl.DataFrame | warehouse.ListLines]]  # (covers, as_of, list), in order
    correcting: tuple[str, date, pl.DataFrame] | None  # (covers, as_of, list)
    corrections: pl.DataFrame                          # CORRECTIONS_SCHEMA (empty: nothing touched)


def _effective(entries: pl.DataFrame, corrections: pl.DataFrame) -> pl.DataFrame:
    """An edition's figures as last corrected: ``player_id``, ``rating``."""
    figures = entries.select("player_id", "rating")
    if corrections.height == 0:
        return figures
    latest = corrections.select("player_id", pl.col("now").alias("_now"), pl.lit(True).alias("_fixed")).unique(
        subset="player_id", keep="last", maintain_order=True
    )
    joined = figures.join(latest, on="player_id", how="full", coalesce=True, maintain_order="left_right")
    return joined.select(
        "player_id", pl.when(pl.col("_fixed").fill_null(False)).then(pl.col("_now")).otherwise(pl.col("rating"))
        .alias("rating")
    ).filter(pl.col("rating").is_not_null() | pl.col("player_id").is_in(figures["player_id"].to_list()))


def _diff(edition: int, as_of: date, published: pl.DataFrame, now: pl.DataFrame) -> pl.DataFrame:
    """Players whose figure differs between what an edition published and what it would hold now."""
    joined = published.rename({"rating": "published"}).join(
        now.select("player_id", "name", pl.col("rating").alias("now")), on="player_id", how="full", coalesce=True
    )
    out = joined.filter(pl.col("published").ne_missing(pl.col("now"))).sort("player_id")
    return out.select(
        pl.lit(edition, pl.Int64).alias("edition"), pl.lit(as_of, pl.Date).alias("edition_as_of"),
        "player_id", "name", "published", "now",
    )


class _Replay:
    """Published editions in full, from :func:`warehouse.edition_contents` (in edition order);
    one the replay has gone past (editions checked out of order) is read on its own."""

    def __init__(self, db: Engine, contents: Iterator[tuple[int, pl.DataFrame]]) -> None:
        self.db, self.contents = db, contents
        self.ahead: tuple[int, pl.DataFrame] | None = None

    def edition(self, row: dict[str, Any]) -> pl.DataFrame:
        while True:
            if self.ahead is None:
                self.ahead = next(self.contents, None)
                if self.ahead is None:
                    break
            number, entries = self.ahead
            if number > row["edition"]:
                break
            self.ahead = None
            if number == row["edition"]:
                return entries
        return warehouse.edition_entries(self.db, int(row["list_id"]))


def _named(state: pl.DataFrame, point: str, rated: Rated, changes: pl.DataFrame, names: pl.DataFrame) -> pl.DataFrame:
    """The state at ``point`` as its list shows it: adjustments in force, names filled in."""
    state = adjusted_at(state, point, rated, changes)  # FIDE rapid/blitz: 1 October 2022
    return state.join(names, on="player_id", how="left").with_columns(
        pl.coalesce("name", "_name").alias("name")
    ).drop("_name")


def _diffs_one_by_one(
    federation: str, rated: Rated, config: dict[str, object], changes: pl.DataFrame, names: pl.DataFrame,
    checked: pl.DataFrame, replay: _Replay, corrections: pl.DataFrame,
) -> list[pl.DataFrame]:
    """Each checked edition's diff, from the list rebuilt at its point (see :func:`_diff`)."""
    diffs: list[pl.DataFrame] = []
    if checked.height == 0:
        return diffs
    by_point = {key[0]: part for key, part in checked.partition_by("covers", as_dict=True).items()}
    for point, state in engine.states_at(federation, rated.start_state, changes, sorted(by_point), config=config):
        named = _named(state, point, rated, changes, names)
        for row in by_point[point].iter_rows(named=True):
            now = engine.rating_list(federation, named, as_of=row["as_of"], config=config)
            fixed = corrections.filter(pl.col("edition") == row["edition"])
            diff = _diff(int(row["edition"]), row["as_of"], _effective(replay.edition(row), fixed), now)
            if diff.height:
                diffs.append(diff)
    return diffs


def _new_lists(
    federation: str, rated: Rated, config: dict[str, object], changes: pl.DataFrame, names: pl.DataFrame,
    points: list[str], first_state: pl.DataFrame, full_lists: dict[str, pl.DataFrame],
) -> dict[str, pl.DataFrame | warehouse.ListLines]:
    """The lists of the new points: the first in full (the warehouse compares it with the last
    edition), each later one as the lines that changed since the point before, the last with
    its full list too. A night that rates an archive publishes thousands of editions: their
    changes fit in memory, their full lists do not, and one pass over the history's changes
    (``engine.list_changes``) finds them, instead of a list per point.

    The pass is checked: the first list with every change laid over it must be the last
    list. Should it not be (or the federation adjusts ratings no change row carries), the
    lists are made one by one, as before.
    """
    first, last = full_lists[points[0]], full_lists[points[-1]]
    out: dict[str, pl.DataFrame | warehouse.ListLines] = {points[0]: first}
    if len(points) == 1:
        return out
    if engine.publication_of(federation, config) == "per-competition" and not rated.adjustments:
        lines, sizes = engine.list_changes(
            federation, first_state, first, changes, points,
            names=names.rename({"_name": "name"}), config=config,
        )
        figures = list(engine.LINE_FIGURES)
        replayed = pl.concat([first.select(figures), lines.select(figures)]).unique(
            "player_id", keep="last").sort("player_id")
        if replayed.equals(last.select(figures).sort("player_id")):
            parts = lines.partition_by("point", as_dict=True, include_key=False)
            for p in points[1:]:
                own = parts.get((p,), lines.clear().drop("point"))
                stored = warehouse.ListLines(
                    conform(own.with_columns(pl.lit(False).alias("removed")), warehouse.LINES_SCHEMA),
                    False, sizes[p], last if p == points[-1] else None)
                out[p] = stored
            return out
        get_run_logger().warning("%s: the one-pass edition changes disagree with the last list; "
                                 "making the lists one by one", federation)
    before = first
    for point, state in engine.states_at(federation, first_state, changes.filter(pl.col("point") > points[0]),
                                         points[1:], config=config):
        full = engine.rating_list(federation, _named(state, point, rated, changes, names),
                                  as_of=engine.point_date(point), config=config)
        stored = warehouse.list_lines(before, full)
        out[point] = stored if point != points[-1] else replace(stored, rating_list=full)
        before = full
    return out


#: Check published editions against the re-rated history in one pass (tests switch it off to
#: compare with the editions checked one by one).
ONE_PASS = True


def _steps(events: pl.DataFrame, prefix: str) -> pl.DataFrame:
    """``j, player_id, <prefix>`` events (a null figure: not on the list, or unrated) as the
    figure in force from each ``j`` on, per player: NaN stands for a null that was set."""
    return events.select("j", "player_id", pl.col("figure").fill_null(float("nan")).alias(prefix))


def _one_pass_diffs(
    db: Engine, federation: str, checked: pl.DataFrame, changes: pl.DataFrame, first_now: pl.DataFrame,
    first_published: pl.DataFrame, corrections: pl.DataFrame, names: pl.DataFrame,
    *, list_name: str | None, first_list: str | None,
) -> list[pl.DataFrame] | None:
    """The diffs of every checked edition (see :func:`_diff`), from the figures' changes alone.

    A published edition and the re-rated history agree on a player's figure until one of
    them changes it: the published side changes at the lines an edition stored, the
    re-rated side at the changes of a competition. So the diffs come from those events,
    each side's figure carried forward, instead of from a full list per edition (after
    a backfill, every edition of the archive is checked). ``first_now``: the state at the
    first checked edition's point; ``first_published``: that edition in full. None when a
    checked edition after the first is stored in full (then each is checked on its own).
    """
    editions = checked.get_column("edition")
    lines, heads = warehouse.stored_lines(db, federation, int(editions[0]) + 1, int(editions[-1]),
                                          list_name=list_name, first_list=first_list)
    if heads.filter(pl.col("lines") == "full").height:
        return None
    m = checked.height
    covers = checked.get_column("covers")
    published = pl.concat([
        first_published.select(pl.lit(0, pl.Int64).alias("j"), "player_id", pl.col("rating").alias("figure")),
        lines.select(
            editions.search_sorted(lines.get_column("edition"), side="left").alias("j").cast(pl.Int64),
            "player_id",
            pl.when(pl.col("removed")).then(None).otherwise(pl.col("rating")).alias("figure"),
        ),
    ], how="vertical_relaxed").unique(["j", "player_id"], keep="last", maintain_order=True)
    later = changes.filter((pl.col("point") > covers[0]) & (pl.col("point") <= covers[-1]))
    moved = later.select(
        covers.search_sorted(later.get_column("point"), side="left").alias("j").cast(pl.Int64),
        pl.col("player_id").cast(pl.Utf8), pl.col("rating_after").cast(pl.Float64),
    ).group_by("j", "player_id", maintain_order=True).agg(pl.col("rating_after").drop_nulls().last())
    now = pl.concat([
        first_now.select(pl.lit(0, pl.Int64).alias("j"), "player_id", pl.col("rating").alias("figure")),
        # A player's first change brings them onto the list (unrated: a null figure).
        moved.join(first_now.select("player_id"), on="player_id", how="anti")
        .sort("j").unique("player_id", keep="first")
        .select("j", "player_id", pl.lit(None, pl.Float64).alias("figure")),
        moved.filter(pl.col("rating_after").is_not_null()).select("j", "player_id", pl.col("rating_after").alias("figure")),
    ], how="vertical_relaxed").unique(["j", "player_id"], keep="last", maintain_order=True)
    steps = (
        _steps(published, "published").join(_steps(now, "now"), on=["j", "player_id"], how="full", coalesce=True)
        .sort("player_id", "j")
        .with_columns(pl.col("published", "now").forward_fill().over("player_id"))
        .with_columns(pl.col("j").shift(-1).over("player_id").fill_null(m).alias("until"))
        .with_columns(pl.col("published", "now").fill_nan(None))
    )
    differ = steps.filter(pl.col("published").ne_missing(pl.col("now")))
    found = differ.select(pl.int_ranges("j", "until").alias("j"), "player_id", "published", "now").explode("j")
    # A correcting edition's figure stands for the published one at its own edition only.
    fixed = corrections.select(
        editions.search_sorted(corrections.get_column("edition"), side="left").alias("j").cast(pl.Int64),
        "edition", "player_id", pl.col("now").alias("fixed"),
    ).filter(pl.col("j") < m)
    fixed = fixed.filter(editions.gather(fixed.get_column("j").clip(0, m - 1)) == fixed.get_column("edition")) \
        .unique(["j", "player_id"], keep="last", maintain_order=True).drop("edition")
    if fixed.height:
        at = fixed.sort("j").join_asof(steps.select("j", "player_id", "now").sort("j"), on="j", by="player_id")
        found = pl.concat([
            found.join(fixed, on=["j", "player_id"], how="anti"),
            at.filter(pl.col("fixed").ne_missing(pl.col("now"))).select(
                "j", "player_id", pl.col("fixed").alias("published"), "now"),
        ], how="vertical_relaxed")
    if found.height == 0:
        return []
    # The name the re-rated list shows, for a player on it by then (the state never loses one).
    known = pl.concat([first_now.select("player_id", "name"), names.rename({"_name": "name"})],
                      how="vertical_relaxed").unique("player_id", keep="first")
    entry = pl.concat([first_now.select("player_id", pl.lit(0, pl.Int64).alias("entry")),
                       moved.group_by("player_id").agg(pl.col("j").min().alias("entry"))],
                      how="vertical_relaxed").unique("player_id", keep="first")
    dated = checked.select(pl.int_range(pl.len(), dtype=pl.Int64).alias("j"), "edition",
                           pl.col("as_of").alias("edition_as_of"))
    out = found.join(dated, on="j").join(known, on="player_id", how="left").join(
        entry, on="player_id", how="left").with_columns(
        pl.when(pl.col("j") >= pl.col("entry")).then(pl.col("name")).otherwise(None).alias("name"))
    out = out.sort("j", "player_id").select(list(warehouse.CORRECTIONS_SCHEMA))
    return [conform(out, warehouse.CORRECTIONS_SCHEMA)]


def plan_editions(
    db: Engine, federation: str, rated: Rated, config: dict[str, object], as_of: date,
    *, list_name: str | None = None, first_list: str | None = None,
) -> EditionPlan:
    """Which editions ``rated`` calls for, given what the warehouse already published.

    Ordinary editions go to the points after everything published. Every published
    edition the run's changes can reach (``covers`` at or after ``rated.cut``; all of
    them after a full re-rate) is rebuilt from the current history and compared, figure
    by figure, with what it published (as last corrected): any difference makes the
    diff of ONE correcting edition, dated ``as_of`` (or the latest date published, if
    later, so that editions stay in date order). ``list_name``: one of the federation's
    lists (``first_list`` its first), planned on its own.
    """
    publication = engine.publication_of(federation, config)
    points = engine.competition_points(rated.competitions, publication)
    changes = rated.run.changes.join(
        points, on="competition_id", how="inner", maintain_order="left"
    )
    all_points = sorted(set(changes.get_column("point").to_list()))
    if publication == "monthly" and all_points:
        all_points = engine.monthly_points(all_points[0], all_points[-1])
    published = warehouse.editions(db, federation, list_name=list_name, first_list=first_list)
    covered = published.filter(pl.col("covers").is_not_null())
    last_covered = covered.get_column("covers").max() if covered.height else None
    if last_covered is not None:
        new_points = [p for p in all_points if p > str(last_covered)]
    elif published.height:
        # Editions published before editions followed competitions: go on after the latest.
        latest_day = published.get_column("as_of").max()
        new_points = [p for p in all_points if engine.point_date(p) > latest_day]  # type: ignore[operator]
    else:
        new_points = all_points
    if publication == "monthly":
        # The list of the 1st holds the periods that ended before it: it is published on its date,
        # not while its last period runs (each later night of that month would correct it).
        new_points = [p for p in new_points if engine.point_date(p) <= as_of]
    check = covered if rated.cut is None else covered.filter(pl.col("covers") >= rated.cut)
    names = rated.players.select("player_id", pl.col("name").alias("_name")).filter(pl.col("_name").is_not_null())
    corrections_all = warehouse.edition_corrections(db, federation).filter(
        pl.col("edition").is_in(published.get_column("edition").to_list())
    )
    # The states at: the first and last new points (their lists in full; the ones between: their
    # changes, below), the first published edition a change can reach (the others: below), and
    # the last point (a correcting edition holds the state after everything).
    ends = set(new_points[:1] + new_points[-1:])
    full_lists: dict[str, pl.DataFrame] = {}
    first_state: pl.DataFrame | None = None
    final_state: pl.DataFrame | None = None   # the state at the last point (not every point's: memory)
    checked = check.sort("covers", "edition")
    one_pass = ONE_PASS and not rated.adjustments and checked.height > 1
    first_check = checked.get_column("covers")[0] if checked.height else None
    first_now: pl.DataFrame | None = None
    wanted = sorted(ends | set(all_points[-1:]) | ({first_check} if one_pass and first_check else set()))
    for point, state in engine.states_at(federation, rated.start_state, changes, wanted, config=config):
        named = _named(state, point, rated, changes, names)
        if all_points and point == all_points[-1]:
            final_state = named
        if point == first_check:
            first_now = named
        if point in ends:
            full_lists[point] = engine.rating_list(federation, named, as_of=engine.point_date(point), config=config)
            if point == new_points[0]:
                first_state = named
    numbers = checked.get_column("edition").to_list()

    def replay(wanted: list[int]) -> _Replay:
        """Published editions in full, replayed in edition order (each line read once)."""
        return _Replay(db, warehouse.edition_contents(db, federation, wanted, list_name=list_name,
                                                      first_list=first_list))

    diffs: list[pl.DataFrame] | None = None
    if one_pass:
        assert first_now is not None
        # Only the first checked edition in full: the others come from their stored lines.
        diffs = _one_pass_diffs(
            db, federation, checked, changes, first_now, replay(numbers[:1]).edition(checked.row(0, named=True)),
            corrections_all, names, list_name=list_name, first_list=first_list,
        )
    if diffs is None:
        diffs = _diffs_one_by_one(federation, rated, config, changes, names, checked, replay(numbers),
                                  corrections_all)
    lists: dict[str, pl.DataFrame | warehouse.ListLines] = {}
    if new_points:
        assert first_state is not None
        lists = _new_lists(federation, rated, config, changes, names, new_points, first_state, full_lists)
    ordinary = [(p, engine.point_date(p), lists[p]) for p in new_points]
    corrections = pl.concat(diffs) if diffs else pl.DataFrame(schema=warehouse.CORRECTIONS_SCHEMA)
    correcting = None
    if corrections.height:
        # Every competition may have been withdrawn: then the state is the start's.
        last = all_points[-1] if all_points else ""
        final = final_state if all_points and final_state is not None else rated.start_state
        days: list[date] = [as_of, *[d for _, d, _ in ordinary]]
        if published.height:
            days.append(published.get_column("as_of").max())  # type: ignore[arg-type]
        day = max(days)
        correcting = (last, day, engine.rating_list(federation, final, as_of=day, config=config))
    return EditionPlan(ordinary=ordinary, correcting=correcting, corrections=corrections)


def artifact_key(*parts: str) -> str:
    """Prefect artifact keys allow lowercase letters, digits and dashes only.

    Examples
    --------
    >>> artifact_key("ajusc", "BARRUF-191", "report")
    'ajusc-barruf-191-report'
    """
    return re.sub(r"[^a-z0-9]+", "-", "-".join(parts).lower()).strip("-")


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
    # The rating officer's decisions on a held competition (issue 14), first in the header.
    decided = validations.decision_lines(
        warehouse.decisions.decisions(db, report.federation, competition_id))
    return replace(report, games=games.height, excluded_games=excluded, progress=own,
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
        out.append(replace(report, games=n_games, excluded_games=excluded, progress=own,
                           extra={**lines, **report.extra}))
    return out


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


@dataclass
class EditionsDone:
    """What :func:`apply_editions` stored."""

    plan: EditionPlan
    numbers: list[int]                 # every edition published, in order
    correcting: int | None             # the correcting edition's number
    previous: pl.DataFrame             # the latest edition before (RATING_LIST_SCHEMA)
    latest: pl.DataFrame               # the latest edition now


def apply_editions(
    db: Engine, federation: str, rated: Rated, config: dict[str, object], as_of: date,
    *, list_name: str | None = None, first_list: str | None = None,
) -> EditionsDone:
    """Publish what :func:`plan_editions` calls for (no Prefect: the task below adds logs and artifacts).

    A federation with several lists (``rated.lists``) publishes each list's editions.
    """
    if rated.lists and list_name is None:
        return _apply_lists(db, federation, rated, config, as_of)
    plan = plan_editions(db, federation, rated, config, as_of, list_name=list_name, first_list=first_list)
    before = warehouse.latest_edition(db, federation, list_name=list_name, first_list=first_list)
    previous = empty(RATING_LIST_SCHEMA) if before is None else before[1]
    # The first list is stored without a name: queries that name no list answer it.
    stored_name = None if list_name == first_list else list_name
    # Every edition of the run in one transaction (issue 11: one commit, one bulk insert).
    editions = [warehouse.Edition(frame, day, list_name=stored_name, covers=covers) if isinstance(frame, pl.DataFrame)
                else warehouse.Edition(frame.rating_list, day, list_name=stored_name, covers=covers, lines=frame)
                for covers, day, frame in plan.ordinary]
    if plan.correcting is not None:
        covers, day, frame = plan.correcting
        editions.append(warehouse.Edition(
            frame, day, list_name=stored_name, kind="correcting", covers=covers, corrections=plan.corrections,
            reason=", ".join(rated.changed) if rated.changed else None,
        ))
    numbers = warehouse.publish_editions(db, federation, editions, known={stored_name: before} if before else None)
    latest = editions[-1].rating_list if editions and editions[-1].rating_list is not None else previous
    correcting = numbers[-1] if plan.correcting is not None else None
    return EditionsDone(plan, numbers, correcting, previous, latest)


def _apply_lists(db: Engine, federation: str, rated: Rated, config: dict[str, object], as_of: date) -> EditionsDone:
    """Several lists (FIDE): each list's editions on their own; edition numbers run on per federation."""
    names = list(rated.lists)
    done = [apply_editions(db, federation, part, config, as_of, list_name=name, first_list=names[0])
            for name, part in rated.lists.items()]
    fixed = [d for d in done if d.correcting is not None]
    return EditionsDone(
        EditionPlan([o for d in done for o in d.plan.ordinary], fixed[0].plan.correcting if fixed else None,
                    pl.concat([d.plan.corrections for d in done])),
        [n for d in done for n in d.numbers], fixed[0].correcting if fixed else None,
        done[0].previous, done[0].latest,
    )


def publish_editions(db: Engine, federation: str, rated: Rated, config: dict[str, object], as_of: date) -> Published:
    """:func:`apply_editions`, logged; a correction's diff also goes to a Prefect table artifact."""
    logger = get_run_logger()
    done = apply_editions(db, federation, rated, config, as_of)
    plan, numbers, correcting = done.plan, done.numbers, done.correcting
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
    )


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


def with_correction(report: validations.CompetitionReport, published: Published) -> validations.CompetitionReport:
    """The report, with the correcting edition this night published and what it changed."""
    diff = published.corrections
    assert diff is not None
    touched = sorted(set(diff.get_column("edition").to_list()))
    extra = dict(report.extra)
    extra["Correcting edition"] = (
        f"{published.correcting_edition}: {diff.height} figure(s) of published edition(s) "
        f"{spans(touched)} changed"
    )
    return replace(report, extra=extra, corrections=diff)


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
                              new_players(previous, rating_list))
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
    root = Path(reports_dir)
    bulk = len(reports) > BULK_ARTIFACTS
    for report in reports:
        if published.correcting_edition is not None and published.corrections is not None:
            report = with_correction(report, published)
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
        sync_reports()   # on disk before the load is marked published (below)
        # One API call for the night instead of one per competition (issue 11): the
        # organisers still get every report file, the UI one table linking them.
        create_markdown_artifact(
            key=artifact_key(batch.federation, "reports"),
            markdown=reports_index(batch.federation, reports, published.report_paths),
            description=f"{batch.federation}: {len(reports)} organiser report(s) in {root}",
        )
    # Last: everything of the load is out. A kill before this line leaves the load's
    # ``pending_publications`` row, and the next run finishes the job (tasks/recover.py).
    finish_publication(db, batch.federation)
    return published
