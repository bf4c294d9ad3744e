"""Which editions a night publishes, and publishing them (DESIGN.md *Publication*).

AJUSC and EGF publish an edition after each rated competition (dated at its end date),
FIDE a list on the 1st of each month. Editions are numbered on from the seeded list's
edition. A published edition is never rewritten: when a late or corrected competition
changes figures already published, ONE correcting edition is published (dated the run's
day) with the diff of every published edition it touched (``edition_corrections``).

No Prefect: ``tasks.publish`` adds the logs and artifacts.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import date

import polars as pl
from sqlalchemy import Engine

import engine
import warehouse
from engine.fide_periods import next_list
from formats.schema import RATING_LIST_SCHEMA, conform, empty
from publication.diffs import Replay, diffs_one_by_one, named, one_pass_diffs
from rating import Rated

__all__ = ["EditionPlan", "EditionsDone", "apply_editions", "plan_editions"]

#: A list the new editions store: in full, or as the lines that changed since the one before.
Stored = pl.DataFrame | warehouse.ListLines


@dataclass
class EditionPlan:
    """What to publish: ordinary editions at new points, and maybe one correcting edition."""

    ordinary: list[tuple[str, date, Stored]]           # (covers, as_of, list), in order
    correcting: tuple[str, date, pl.DataFrame] | None  # (covers, as_of, list)
    corrections: pl.DataFrame                          # CORRECTIONS_SCHEMA (empty: nothing touched)
    warnings: list[str] = field(default_factory=list)  # for the run's log: a check that fell back


def _new_lists(
    federation: str, rated: Rated, config: dict[str, object], changes: pl.DataFrame, names: pl.DataFrame,
    points: list[str], first_state: pl.DataFrame, full_lists: dict[str, pl.DataFrame],
) -> tuple[dict[str, Stored], list[str]]:
    """The lists of the new points: the first in full (the warehouse compares it with the last
    edition), each later one as the lines that changed since the point before, the last with
    its full list too. A night that rates an archive publishes thousands of editions: their
    changes fit in memory, their full lists do not, and one pass over the history's changes
    (``engine.list_changes``) finds them, instead of a list per point.

    The pass is checked: the first list with every change laid over it must be the last
    list. Should it not be (or the federation adjusts ratings no change row carries), the
    lists are made one by one, as before (the warning says so).
    """
    first, last = full_lists[points[0]], full_lists[points[-1]]
    out: dict[str, Stored] = {points[0]: first}
    if len(points) == 1:
        return out, []
    warnings: list[str] = []
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
                out[p] = warehouse.ListLines(
                    conform(own.with_columns(pl.lit(False).alias("removed")), warehouse.LINES_SCHEMA),
                    False, sizes[p], last if p == points[-1] else None)
            return out, []
        warnings.append(f"{federation}: the one-pass edition changes disagree with the last list; "
                        "making the lists one by one")
    before = first
    for point, state in engine.states_at(federation, first_state, changes.filter(pl.col("point") > points[0]),
                                         points[1:], config=config):
        full = engine.rating_list(federation, named(state, point, rated, changes, names),
                                  as_of=engine.point_date(point), config=config)
        stored = warehouse.list_lines(before, full)
        out[point] = stored if point != points[-1] else replace(stored, rating_list=full)
        before = full
    return out, warnings


def _month_after(published: pl.DataFrame) -> str | None:
    """The list date after the last one ``published`` covers (a monthly list); None: it covers none.

    Examples
    --------
    >>> _month_after(pl.DataFrame({"covers": ["2025-10-01", "2025-11-01", None]}))
    '2025-12-01'
    >>> _month_after(pl.DataFrame({"covers": []}, schema={"covers": pl.Utf8})) is None
    True
    """
    covered = published.get_column("covers").drop_nulls()
    if covered.len() == 0:
        return None
    return next_list(date.fromisoformat(str(covered.max())[:10])).isoformat()


def _new_points(publication: str, all_points: list[str], published: pl.DataFrame, as_of: date) -> list[str]:
    """The points after everything published: each gets an ordinary edition."""
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
    return new_points


@dataclass
class _States:
    """The states the plan reads, rebuilt in one walk over the changes (not every point's: memory)."""

    full_lists: dict[str, pl.DataFrame] = field(default_factory=dict)  # the lists of the first and last new points
    first_state: pl.DataFrame | None = None  # the state at the first new point
    final_state: pl.DataFrame | None = None  # the state at the last point
    first_now: pl.DataFrame | None = None    # the state at the first checked edition's point


def _states(
    federation: str, rated: Rated, config: dict[str, object], changes: pl.DataFrame, names: pl.DataFrame,
    all_points: list[str], new_points: list[str], first_check: str | None,
) -> _States:
    """The states at: the first and last new points (their lists in full; the ones between: their
    changes, :func:`_new_lists`), the first published edition a change can reach (the others:
    :func:`publication.diffs.one_pass_diffs`), and the last point (a correcting edition holds
    the state after everything)."""
    ends = set(new_points[:1] + new_points[-1:])
    out = _States()
    wanted = sorted(ends | set(all_points[-1:]) | ({first_check} if first_check else set()))
    for point, state in engine.states_at(federation, rated.start_state, changes, wanted, config=config):
        now = named(state, point, rated, changes, names)
        if all_points and point == all_points[-1]:
            out.final_state = now
        if point == first_check:
            out.first_now = now
        if point in ends:
            out.full_lists[point] = engine.rating_list(federation, now, as_of=engine.point_date(point),
                                                       config=config)
            if point == new_points[0]:
                out.first_state = now
    return out


def plan_editions(
    db: Engine, federation: str, rated: Rated, config: dict[str, object], as_of: date,
    *, list_name: str | None = None, first_list: str | None = None,
) -> EditionPlan:
    """Which editions ``rated`` calls for, given what the warehouse already published.

    Ordinary editions go to the points after everything published. Every published
    edition the run's changes can reach (``covers`` at or after ``rated.cut``, or after a re-rate
    from the seed at or after ``rated.unchanged_before``; all of them when that is not known) is rebuilt from the current history and compared, figure
    by figure, with what it published (as last corrected): any difference makes the
    diff of ONE correcting edition, dated ``as_of`` (or the latest date published, if
    later, so that editions stay in date order). ``list_name``: one of the federation's
    lists (``first_list`` its first), planned on its own.
    """
    publication = engine.publication_of(federation, config)
    points = engine.competition_points(rated.competitions, publication)
    changes = rated.run.changes.join(points, on="competition_id", how="inner", maintain_order="left")
    all_points = sorted(set(changes.get_column("point").to_list()))
    published = warehouse.editions(db, federation, list_name=list_name, first_list=first_list)
    if publication == "monthly" and all_points:
        # Every month from the list's first change to its last has an edition, as a run over the
        # whole history publishes it: a run whose own changes of this list start months after its last
        # edition (a night, a block) publishes the months between too, from the state it starts at.
        after = _month_after(published)
        first = all_points[0] if after is None else min(all_points[0], after)
        all_points = engine.monthly_points(first, all_points[-1])
    new_points = _new_points(publication, all_points, published, as_of)
    covered = published.filter(pl.col("covers").is_not_null())
    # Editions before the point the run starts at (or, re-rated from the seed, before the first point
    # whose rows can differ from the stored ones) cannot have changed.
    known = [p for p in (rated.cut, rated.unchanged_before) if p is not None]
    check = covered.filter(pl.col("covers") >= max(known)) if known else covered
    names = rated.players.select("player_id", pl.col("name").alias("_name")).filter(pl.col("_name").is_not_null())
    corrections_all = warehouse.edition_corrections(db, federation).filter(
        pl.col("edition").is_in(published.get_column("edition").to_list())
    )
    checked = check.sort("covers", "edition")
    one_pass = not rated.adjustments and checked.height > 1
    first_check = checked.get_column("covers")[0] if one_pass else None
    states = _states(federation, rated, config, changes, names, all_points, new_points, first_check)
    numbers = checked.get_column("edition").to_list()

    def replay(wanted: list[int]) -> Replay:
        """Published editions in full, replayed in edition order (each line read once)."""
        return Replay(db, warehouse.edition_contents(db, federation, wanted, list_name=list_name,
                                                     first_list=first_list))

    diffs: list[pl.DataFrame] | None = None
    if one_pass:
        assert states.first_now is not None
        # Only the first checked edition in full: the others come from their stored lines.
        diffs = one_pass_diffs(
            db, federation, checked, changes, states.first_now, replay(numbers[:1]).edition(checked.row(0, named=True)),
            corrections_all, names, list_name=list_name, first_list=first_list,
        )
    if diffs is None:
        diffs = diffs_one_by_one(federation, rated, config, changes, names, checked, replay(numbers), corrections_all)
    lists: dict[str, Stored] = {}
    warnings: list[str] = []
    if new_points:
        assert states.first_state is not None
        lists, warnings = _new_lists(federation, rated, config, changes, names, new_points, states.first_state,
                                     states.full_lists)
    ordinary = [(p, engine.point_date(p), lists[p]) for p in new_points]
    corrections = pl.concat(diffs) if diffs else pl.DataFrame(schema=warehouse.CORRECTIONS_SCHEMA)
    correcting = None
    if corrections.height:
        # Every competition may have been withdrawn: then the state is the start's.
        last = all_points[-1] if all_points else ""
        final = states.final_state if all_points and states.final_state is not None else rated.start_state
        days: list[date] = [as_of, *[d for _, d, _ in ordinary]]
        if published.height:
            days.append(published.get_column("as_of").max())  # type: ignore[arg-type]
        day = max(days)
        correcting = (last, day, engine.rating_list(federation, final, as_of=day, config=config))
    return EditionPlan(ordinary=ordinary, correcting=correcting, corrections=corrections, warnings=warnings)


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
    """Publish what :func:`plan_editions` calls for (no Prefect: ``tasks.publish`` adds logs and artifacts).

    A federation with several lists (``rated.lists``) publishes each list's editions.
    """
    if rated.lists and list_name is None:
        return _apply_lists(db, federation, rated, config, as_of)
    plan = plan_editions(db, federation, rated, config, as_of, list_name=list_name, first_list=first_list)
    before = warehouse.latest_edition(db, federation, list_name=list_name, first_list=first_list)
    previous = empty(RATING_LIST_SCHEMA) if before is None else before[1]
    # The first list is stored without a name: queries that name no list answer it.
    stored_name = None if list_name == first_list else list_name
    # Every edition of the run in one transaction: one commit, one bulk insert.
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
                    pl.concat([d.plan.corrections for d in done]), [w for d in done for w in d.plan.warnings]),
        [n for d in done for n in d.numbers], fixed[0].correcting if fixed else None,
        done[0].previous, done[0].latest,
    )
