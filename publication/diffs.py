"""Check published editions against the re-rated history: the diff of every edition a run's
changes can reach (DESIGN.md *Publication*), in one pass or, where the stored editions do
not allow it, edition by edition.

A diff holds the players whose figure differs between what an edition published (as last
corrected) and what it would hold now (``warehouse.CORRECTIONS_SCHEMA``).
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date
from typing import Any

import polars as pl
from sqlalchemy import Engine

import engine
import warehouse
from formats.schema import conform
from rating import Rated, adjusted_at

__all__ = ["Replay", "diffs_one_by_one", "effective", "named", "one_pass_diffs"]


def effective(entries: pl.DataFrame, corrections: pl.DataFrame) -> pl.DataFrame:
    """An edition's figures as last corrected: ``player_id``, ``rating``.

    Examples
    --------
    >>> entries = pl.DataFrame({"player_id": ["1", "2"], "rating": [1100.0, 1200.0]})
    >>> fixed = pl.DataFrame({"player_id": ["2", "2"], "now": [1210.0, 1190.0]})
    >>> effective(entries, fixed).rows()
    [('1', 1100.0), ('2', 1190.0)]
    """
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


class Replay:
    """Published editions in full, from :func:`warehouse.edition_contents` (in edition order);
    one the replay has gone past (editions checked out of order) is read on its own."""

    def __init__(self, db: Engine, contents: Iterator[tuple[int, pl.DataFrame]]) -> None:
        self.db, self.contents = db, contents
        self.ahead: tuple[int, pl.DataFrame] | None = None

    def edition(self, row: dict[str, Any]) -> pl.DataFrame:
        """The entries of the edition of ``row`` (``edition``, ``list_id``)."""
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


def named(state: pl.DataFrame, point: str, rated: Rated, changes: pl.DataFrame, names: pl.DataFrame) -> pl.DataFrame:
    """The state at ``point`` as its list shows it: adjustments in force, names filled in."""
    state = adjusted_at(state, point, rated, changes)  # FIDE rapid/blitz: 1 October 2022
    return state.join(names, on="player_id", how="left").with_columns(
        pl.coalesce("name", "_name").alias("name")
    ).drop("_name")


def diffs_one_by_one(
    federation: str, rated: Rated, config: dict[str, object], changes: pl.DataFrame, names: pl.DataFrame,
    checked: pl.DataFrame, replay: Replay, corrections: pl.DataFrame,
) -> list[pl.DataFrame]:
    """Each checked edition's diff, from the list rebuilt at its point (see :func:`_diff`)."""
    diffs: list[pl.DataFrame] = []
    if checked.height == 0:
        return diffs
    by_point = {key[0]: part for key, part in checked.partition_by("covers", as_dict=True).items()}
    for point, state in engine.states_at(federation, rated.start_state, changes, sorted(by_point), config=config):
        now = named(state, point, rated, changes, names)
        for row in by_point[point].iter_rows(named=True):
            listed = engine.rating_list(federation, now, as_of=row["as_of"], config=config)
            fixed = corrections.filter(pl.col("edition") == row["edition"])
            diff = _diff(int(row["edition"]), row["as_of"], effective(replay.edition(row), fixed), listed)
            if diff.height:
                diffs.append(diff)
    return diffs


def _steps(events: pl.DataFrame, prefix: str) -> pl.DataFrame:
    """``j, player_id, <prefix>`` events (a null figure: not on the list, or unrated) as the
    figure in force from each ``j`` on, per player: NaN stands for a null that was set."""
    return events.select("j", "player_id", pl.col("figure").fill_null(float("nan")).alias(prefix))


def _published_events(editions: pl.Series, first_published: pl.DataFrame, lines: pl.DataFrame) -> pl.DataFrame:
    """``j, player_id, figure``: the published side's figure from the ``j``-th checked edition on."""
    return pl.concat([
        first_published.select(pl.lit(0, pl.Int64).alias("j"), "player_id", pl.col("rating").alias("figure")),
        lines.select(
            editions.search_sorted(lines.get_column("edition"), side="left").alias("j").cast(pl.Int64),
            "player_id",
            pl.when(pl.col("removed")).then(None).otherwise(pl.col("rating")).alias("figure"),
        ),
    ], how="vertical_relaxed").unique(["j", "player_id"], keep="last", maintain_order=True)


def _moved(covers: pl.Series, changes: pl.DataFrame) -> pl.DataFrame:
    """``j, player_id, rating_after``: each player's last figure among the changes up to the
    ``j``-th checked edition's point (after the first)."""
    later = changes.filter((pl.col("point") > covers[0]) & (pl.col("point") <= covers[-1]))
    return later.select(
        covers.search_sorted(later.get_column("point"), side="left").alias("j").cast(pl.Int64),
        pl.col("player_id").cast(pl.Utf8), pl.col("rating_after").cast(pl.Float64),
    ).group_by("j", "player_id", maintain_order=True).agg(pl.col("rating_after").drop_nulls().last())


def _rerated_events(first_now: pl.DataFrame, moved: pl.DataFrame) -> pl.DataFrame:
    """``j, player_id, figure``: the re-rated side's figure from the ``j``-th checked edition on."""
    return pl.concat([
        first_now.select(pl.lit(0, pl.Int64).alias("j"), "player_id", pl.col("rating").alias("figure")),
        # A player's first change brings them onto the list (unrated: a null figure).
        moved.join(first_now.select("player_id"), on="player_id", how="anti")
        .sort("j").unique("player_id", keep="first")
        .select("j", "player_id", pl.lit(None, pl.Float64).alias("figure")),
        moved.filter(pl.col("rating_after").is_not_null()).select("j", "player_id", pl.col("rating_after").alias("figure")),
    ], how="vertical_relaxed").unique(["j", "player_id"], keep="last", maintain_order=True)


def _with_corrections(
    found: pl.DataFrame, steps: pl.DataFrame, editions: pl.Series, corrections: pl.DataFrame,
) -> pl.DataFrame:
    """``found`` with a correcting edition's figure standing for the published one at its own
    edition only."""
    m = editions.len()
    fixed = corrections.select(
        editions.search_sorted(corrections.get_column("edition"), side="left").alias("j").cast(pl.Int64),
        "edition", "player_id", pl.col("now").alias("fixed"),
    ).filter(pl.col("j") < m)
    fixed = fixed.filter(editions.gather(fixed.get_column("j").clip(0, m - 1)) == fixed.get_column("edition")) \
        .unique(["j", "player_id"], keep="last", maintain_order=True).drop("edition")
    if fixed.height == 0:
        return found
    at = fixed.sort("j").join_asof(steps.select("j", "player_id", "now").sort("j"), on="j", by="player_id")
    return pl.concat([
        found.join(fixed, on=["j", "player_id"], how="anti"),
        at.filter(pl.col("fixed").ne_missing(pl.col("now"))).select(
            "j", "player_id", pl.col("fixed").alias("published"), "now"),
    ], how="vertical_relaxed")


def one_pass_diffs(
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
    published = _published_events(editions, first_published, lines)
    moved = _moved(checked.get_column("covers"), changes)
    steps = (
        _steps(published, "published")
        .join(_steps(_rerated_events(first_now, moved), "now"), on=["j", "player_id"], how="full", coalesce=True)
        .sort("player_id", "j")
        .with_columns(pl.col("published", "now").forward_fill().over("player_id"))
        .with_columns(pl.col("j").shift(-1).over("player_id").fill_null(m).alias("until"))
        .with_columns(pl.col("published", "now").fill_nan(None))
    )
    differ = steps.filter(pl.col("published").ne_missing(pl.col("now")))
    found = differ.select(pl.int_ranges("j", "until").alias("j"), "player_id", "published", "now").explode("j")
    found = _with_corrections(found, steps, editions, corrections)
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
