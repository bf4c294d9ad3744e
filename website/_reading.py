"""One federation's frames, read from the warehouse once and turned into the rows its pages use."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import polars as pl

from warehouse import site as queries
from website import frames
from website._rows import _Dicts

if TYPE_CHECKING:  # the warehouse's engine type; SQLAlchemy itself stays in warehouse/
    from sqlalchemy.engine import Engine


#: What a removed line (a player who left the list) shows as its status, in large-archive mode.
LEFT = "left the list"


@dataclass
class _Federation:
    """One federation's frames, read once, turned into the rows the pages use."""

    federation: str
    info: dict[str, Any]
    editions: list[dict[str, Any]]
    entries: pl.DataFrame                     # + ed (0-based edition index), prev_rating, new
    players: dict[str, dict[str, Any]]
    competitions: list[dict[str, Any]]
    changes: _Dicts  # player -> changes (rating order)
    changes_by_competition: _Dicts
    #: The frame the two above are made from (the pages' planning keys hash it).
    change_frame: pl.DataFrame
    #: What identifies each competition's findings (``warehouse.site.site_finding_keys``): the pages'
    #: planning keys hash it; the findings themselves are read for the pages rendered only
    #: (``findings``, by :func:`website._federation._plan`).
    finding_frame: pl.DataFrame
    last_load: dict[str, Any] | None
    corrections: pl.DataFrame | None
    #: Large-archive mode only (None within ``website.build.FULL_LINES``): every player's own lines, one per edition
    #: where it changed (+ ed, change, new, was_listed; rank where the edition is in ``entries``).
    lines: pl.DataFrame | None = None
    #: (player, competition, period) -> GAME_COLUMNS tuples, read for the cards that are rendered
    #: (:func:`_plan_cards`), after everything else, one block of players at a time
    #: (:func:`website._federation._render_cards`).
    explanations: Mapping[tuple[str, str, str | None], list[tuple[Any, ...]]] = field(default_factory=dict)
    #: competition -> its findings (FINDINGS_SCHEMA rows), of the competition pages rendered.
    findings: Mapping[str, list[dict[str, Any]]] = field(default_factory=dict)


def _read(engine: Engine, federation: str, info: dict[str, Any], out: Path, full_lines: int) -> _Federation:
    """The federation's frames; the stored lines and the rating changes through what the last
    generation kept in ``out`` (:mod:`website.frames`: only what changed since is read).
    ``full_lines``: the lines of full lists the site renders at most (``website.build.FULL_LINES``)."""
    editions = queries.site_editions(engine, federation)
    index = editions.select("list_id", pl.int_range(pl.len()).alias("ed"))
    lines = None
    if (editions.get_column("n_players").sum() or 0) <= full_lines:
        entries = _every_edition(engine, federation, index)
    else:
        stored = frames.lines(engine, federation, out)
        lines = _own_lines(stored.join(index, on="list_id", how="inner"))
        entries = _recent_editions(engine, federation, editions, index, lines, stored, full_lines)
        lines = lines.drop("rank").join(entries.select("player_id", "ed", "rank"), on=["player_id", "ed"],
                                        how="left", maintain_order="left")
    players = {r["player_id"]: r for r in queries.site_players(engine, federation).to_dicts()}
    competitions = queries.site_competitions(engine, federation).to_dicts()
    finding_frame = queries.site_finding_keys(engine, federation)
    change_frame = frames.changes(engine, federation, out)
    return _Federation(
        federation=federation, info=info, editions=editions.to_dicts(), entries=entries,
        players=players, competitions=competitions,
        changes=_Dicts(change_frame, ["player_id"], change_frame.columns),
        changes_by_competition=_Dicts(change_frame, ["competition_id"], change_frame.columns),
        change_frame=change_frame, finding_frame=finding_frame,
        last_load=queries.site_last_load(engine, federation),
        corrections=queries.site_corrections(engine, federation), lines=lines,
    )


def _every_edition(engine: Engine, federation: str, index: pl.DataFrame) -> pl.DataFrame:
    """Every edition in full, each line with its change since the previous edition (``new``: not on it)."""
    entries = queries.site_entries(engine, federation).join(index, on="list_id", how="inner")
    previous = entries.select(
        "player_id", (pl.col("ed") + 1).alias("ed"), pl.col("rating").alias("prev_rating"),
        pl.lit(True).alias("was_listed"),
    )
    return (
        entries.join(previous, on=["player_id", "ed"], how="left")
        .with_columns(
            (pl.col("rating") - pl.col("prev_rating")).alias("change"),
            ((pl.col("ed") > 0) & pl.col("was_listed").is_null()).alias("new"),
        )
        .drop("was_listed")
        .sort("ed", "position")
    )


def _recent_editions(
    engine: Engine, federation: str, editions: pl.DataFrame, index: pl.DataFrame, lines: pl.DataFrame,
    stored: pl.DataFrame, full_lines: int,
) -> pl.DataFrame:
    """The most recent editions whose ``n_players`` add up to ``full_lines`` (at least the latest), in full,
    as :func:`_every_edition` gives them: the change and ``new`` come from each player's line in
    force on the edition before, the newest of ``lines`` before it. ``stored``: the lines as
    stored (:func:`warehouse.site.site_lines`), replayed into those editions without a second read."""
    recent = editions.join(index, on="list_id").sort("ed", descending=True).filter(
        (pl.col("n_players").cum_sum() <= full_lines) | (pl.int_range(pl.len()) == 0))
    entries = (queries.site_entries(engine, federation, editions=recent.get_column("edition").to_list(),
                                    lines=stored)
               .join(index, on="list_id", how="inner").sort("ed", "position"))
    before = lines.select("player_id", "ed", pl.col("rating").alias("prev_rating"),
                          pl.col("removed").not_().alias("was_listed"))
    return (
        entries.join_asof(before, on="ed", by="player_id", strategy="backward", allow_exact_matches=False,
                          check_sortedness=False)
        .with_columns(
            pl.when(pl.col("was_listed")).then(pl.col("rating") - pl.col("prev_rating")).alias("change"),
            ((pl.col("ed") > 0) & ~pl.col("was_listed").fill_null(False)).alias("new"),
        )
        .drop("was_listed")
        .sort("ed", "position")
    )


def _own_lines(stored: pl.DataFrame) -> pl.DataFrame:
    """Each player's own lines (``stored`` by edition, + ``ed``), one per edition where the line changed.

    A ``changes`` edition stores exactly those; a ``full`` one (its lines have a ``position``) stores
    every line, so a line equal to the player's previous one is dropped there, and a player it no
    longer lists gets the ``removed`` line a ``changes`` edition would have stored. Each line gets its
    ``change`` since the player's previous line, ``was_listed`` (that line was not a removal) and
    ``new``; a removed line's status reads :data:`LEFT`.
    """
    lines = pl.concat([stored, _left_at_full(stored)], how="diagonal_relaxed").sort("ed", "removed",
                                                                                     maintain_order=True)

    def before(column: str) -> pl.Expr:
        return pl.col(column).shift(1).over("player_id")

    same = pl.all_horizontal(pl.col(c).eq_missing(before(c)) for c in ("name", "rating", "games", "status",
                                                                       "category"))
    listed = before("removed").not_().fill_null(False)
    return (
        lines.with_columns(listed.alias("was_listed"), before("rating").alias("prev_rating"))
        .filter(pl.col("removed") | ~pl.col("was_listed") | ~same)
        .with_columns(
            pl.when(pl.col("was_listed") & ~pl.col("removed")).then(pl.col("rating") - pl.col("prev_rating"))
            .alias("change"),
            (~pl.col("removed") & ~pl.col("was_listed") & (pl.col("ed") > 0)).alias("new"),
            pl.when(pl.col("removed")).then(pl.lit(LEFT)).otherwise(pl.col("status")).alias("status"),
        )
    )


def _left_at_full(stored: pl.DataFrame) -> pl.DataFrame:
    """The ``removed`` lines a ``full`` edition implies: a player listed before it (a line that is no
    removal) whose next line comes after it, or never, is not on it."""
    full = stored.filter(pl.col("position").is_not_null()).select(
        pl.col("ed").alias("full_ed"), pl.col("list_id").alias("full_list")).unique().sort("full_ed")
    if full.is_empty():
        return stored.clear()
    listed = (stored.sort("ed", maintain_order=True)
              .with_columns(pl.col("ed").shift(-1).over("player_id").alias("next_ed"))
              .filter(~pl.col("removed")))
    return (
        listed.join_asof(full, left_on="ed", right_on="full_ed", strategy="forward", allow_exact_matches=False)
        .filter(pl.col("full_ed").is_not_null() & (pl.col("next_ed").is_null() | (pl.col("full_ed") < pl.col("next_ed"))))
        .select(pl.col("full_list").alias("list_id"), "player_id", pl.col("full_ed").alias("ed"),
                pl.lit(True).alias("removed"))
    )


def _edition_summaries(fed: _Federation) -> list[dict[str, Any]]:
    """Each edition with how many players it listed, and how many were new, changed or left since the
    edition before (``index``: its 0-based place)."""
    if fed.lines is None:
        stats = _stats_from_entries(fed)
    else:
        counted = _stats_from_lines(fed)
        stats = {i: {"listed": e["n_players"], **counted.get(i, {"new": 0, "changed": 0, "left": 0})}
                 for i, e in enumerate(fed.editions)}
    return [{**edition, "index": i, **stats[i]} for i, edition in enumerate(fed.editions)]


def _stats_from_entries(fed: _Federation) -> dict[int, dict[str, int]]:
    """Summaries counted on the full editions (the players who left: listed before, not now)."""
    stats = (
        fed.entries.group_by("ed")
        .agg(
            pl.len().alias("listed"),
            pl.col("new").sum().alias("new"),
            (pl.col("change").fill_null(0) != 0).sum().alias("changed"),
        )
        .sort("ed")
    )
    by_ed = {r["ed"]: r for r in stats.to_dicts()}
    out = {}
    previous_listed = 0
    for i in range(len(fed.editions)):
        s = by_ed.get(i, {"listed": 0, "new": 0, "changed": 0})
        # Players on the previous edition and not on this one.
        left = previous_listed - (s["listed"] - s["new"]) if i else 0
        out[i] = {"listed": s["listed"], "new": s["new"] if i else 0, "changed": s["changed"], "left": max(left, 0)}
        previous_listed = s["listed"]
    return out


def _stats_from_lines(fed: _Federation) -> dict[int, dict[str, int]]:
    """Summaries counted on the stored lines: new (no previous line on the list), changed (a rating
    other than the previous line's), left (removed lines)."""
    assert fed.lines is not None
    stats = fed.lines.group_by("ed").agg(
        pl.col("new").sum(), (pl.col("change").fill_null(0) != 0).sum().alias("changed"),
        pl.col("removed").sum().alias("left"),
    )
    return {r.pop("ed"): r for r in stats.to_dicts()}
