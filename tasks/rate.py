"""Rate: bring a federation's ratings up to date with tonight's competitions.

The history is the source of truth and the lists are derived from it, so a
competition that arrives late (dated before others already rated) takes its place
in date order and every later rating is recomputed, but only from there: the state
at that point is the seed with the stored rating changes before it laid over it
(:func:`engine.advance_state`), and the engine continues from it. A night whose
competitions all end after everything rated writes only the new rows. A full
re-rate from the seed happens when the federation's engine cannot continue from a
stored state (FIDE: see ``engine.RESTARTABLE_SYSTEMS``), when the seed list or the
federation's config changed since the stored rows were computed, when the stored
rows do not line up with the history, and on a backfill.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import date

import polars as pl
from sqlalchemy.engine import Engine

import engine
import validations
import warehouse
from formats.schema import PLAYERS_SCHEMA
from tasks.ingest import FederationBatch
from tasks.runtime import get_run_logger, task


@dataclass(frozen=True)
class Rated:
    """The re-rated state of one federation, what it was rated from and, for FIDE, the
    unrated players' progress.

    On an incremental run ``run.changes`` and ``run.explanations`` hold only the rows
    from ``cut`` on; ``derived_offset`` says where they go in the stored tables.
    """

    run: engine.RatingRun
    competitions: pl.DataFrame             #: every accepted competition of the history
    progress: pl.DataFrame | None = None   #: validations.initial_rating_progress (FIDE only)
    start_state: pl.DataFrame = field(default_factory=lambda: pl.DataFrame())  #: state the run starts from
    cut: str | None = None                 #: point the run starts at (None: a full re-rate from the seed)
    changed: list[str] = field(default_factory=list)   #: competitions that moved the cut
    players: pl.DataFrame = field(default_factory=lambda: pl.DataFrame(schema=PLAYERS_SCHEMA))
    derived_offset: tuple[int, int] | None = None  #: (changes, explanations) rows kept before the run's
    basis: str | None = None               #: checksum of the seed and config the rows derive from
    full_reason: str | None = None         #: why the run re-rated from the seed
    #: A federation that publishes several lists (FIDE): each list rated on its own, by name.
    lists: dict[str, Rated] = field(default_factory=dict)
    #: One-off adjustments no change row carries (FIDE rapid and blitz, 1 October 2022): the
    #: day and ``player_id, rating`` of every rating it raised (:func:`adjusted_at`).
    adjustments: list[tuple[date, pl.DataFrame]] = field(default_factory=list)


def lists_of(config: dict[str, object]) -> list[str]:
    """The federation's lists (``lists`` in its table); empty: one list, unnamed.

    Examples
    --------
    >>> lists_of({"lists": ["standard", "rapid", "blitz"]}), lists_of({})
    (['standard', 'rapid', 'blitz'], [])
    """
    value = config.get("lists") or []
    return [str(x) for x in value] if isinstance(value, list | tuple) else []


def list_of_competitions(competitions: pl.DataFrame, lists: list[str]) -> pl.Series:
    """Each competition's list: its ``modality`` when that is one of ``lists``, else the first.

    Examples
    --------
    >>> c = pl.DataFrame({"modality": ["rapid", None, "classic", "blitz"]})
    >>> list_of_competitions(c, ["standard", "rapid", "blitz"]).to_list()
    ['rapid', 'standard', 'standard', 'blitz']
    """
    modality = competitions.get_column("modality") if "modality" in competitions.columns else pl.Series(
        [None] * competitions.height, dtype=pl.Utf8
    )
    return modality.cast(pl.Utf8).replace_strict({m: m for m in lists}, default=lists[0], return_dtype=pl.Utf8).alias("list")


def rating_basis(seed: pl.DataFrame, config: dict[str, object]) -> str:
    """Checksum of what stored rating rows derive from besides the history: seed list and config."""
    digest = hashlib.sha256(json.dumps(config, sort_keys=True, default=str).encode())
    digest.update(seed.sort("player_id").write_csv().encode())
    return digest.hexdigest()


@dataclass(frozen=True)
class Stored:
    """What the warehouse holds of a federation's derived rows (for an incremental run).

    Reading it costs three aggregates and the ``ratings`` table; the rating changes
    themselves are read only when a late competition re-rates from inside the history.
    """

    n_changes: int             #: rows of ``rating_changes``
    games_total: int           #: their ``games`` summed (one explanation row per player and game)
    n_explanations: int        #: rows of ``explanations``
    basis: str | None          #: :func:`rating_basis` of the stored rows
    ratings: pl.DataFrame      #: RATINGS_SCHEMA, the stored state after the last competition
    read_changes: Callable[[], pl.DataFrame]  #: RATING_CHANGES_SCHEMA, in seq order

    @classmethod
    def from_warehouse(cls, db: Engine, federation: str) -> Stored:
        """What ``db`` holds for ``federation``."""
        n_changes, games_total, n_explanations = warehouse.derived_counts(db, federation)
        return cls(
            n_changes=n_changes, games_total=games_total, n_explanations=n_explanations,
            basis=warehouse.rating_basis(db, federation), ratings=warehouse.current_ratings(db, federation),
            read_changes=lambda: warehouse.rating_changes(db, federation),
        )


_LAST = "~"  # sorts after every point: nothing to re-rate


def _point_key(competitions: pl.DataFrame) -> pl.DataFrame:
    return engine.competition_points(competitions, "per-competition").select("competition_id", "point")


def _cut(
    history: warehouse.History, batch: FederationBatch, config: dict[str, object],
    stored: Stored | None, basis: str,
) -> tuple[str | None, list[str], str | None]:
    """The point tonight re-rates from: ``(cut or None, changed, reason for a full run)``."""
    fed = batch.federation
    changed = list(dict.fromkeys(
        [*batch.competitions.get_column("competition_id").to_list(), *batch.rerate]
    ))
    if not engine.restartable(fed, config):
        return None, changed, f"the {engine.system_for(fed, config)} engine re-rates from the seed"
    if stored is None:
        return None, changed, "full re-rate requested"
    if stored.basis != basis:
        return None, changed, "seed list or config changed since the stored rows"
    if stored.games_total != stored.n_explanations:
        return None, changed, "stored rows do not line up with the history"
    old = history.competitions.filter(pl.col("competition_id").is_in(changed))
    new = batch.competitions.filter(pl.col("competition_id").is_in(changed))
    keys = pl.concat([_point_key(old), _point_key(new)]).get_column("point").to_list()
    return (min(keys) if keys else _LAST), changed, None


def history_to_rate(
    db: Engine, batch: FederationBatch, config: dict[str, object], stored: Stored | None,
) -> warehouse.History:
    """The history :func:`rate` needs for ``batch``: when the run continues from the stored
    rows, the games of the competitions from the day of its cut on only.

    Reading every game is most of a night's rate stage on a large history (2.4 s at 1M
    games), for a run that re-rates the last few competitions.
    """
    fed = batch.federation
    if stored is None or len(lists_of(config)) > 1 or fed == "fide":
        return warehouse.history(db, fed)
    ahead = warehouse.history(db, fed, games_from=date.max)  # everything but the games
    cut = _cut(ahead, batch, config, stored, rating_basis(ahead.seed, config))[0]
    first = None if cut is None else date.max if cut == _LAST else engine.point_date(cut)
    if first == date.max:
        return ahead
    return replace(ahead, games=warehouse.history_games(db, fed, first), games_from=first)


def _restart(
    history: warehouse.History, batch: FederationBatch, config: dict[str, object],
    stored: Stored | None, basis: str,
) -> tuple[str | None, list[str], pl.DataFrame | None, tuple[int, int] | None, str | None]:
    """Where to start: ``(cut, changed, head changes or None, offsets, reason for a full run)``.

    ``head`` None: tonight only appends after everything rated, and the stored state
    after the last competition is where to start.
    """
    cut, changed, reason = _cut(history, batch, config, stored, basis)
    if cut is None or stored is None:  # _cut gives a cut only with stored rows
        return None, changed, None, None, reason
    rated_before = _point_key(history.competitions.filter(pl.col("status").is_in(["accepted", "accepted_with_exclusions"])))
    last_rated = rated_before.get_column("point").max()
    if last_rated is None or str(last_rated) < cut:
        return cut, changed, None, (stored.n_changes, stored.n_explanations), None
    head = stored.read_changes().join(rated_before, on="competition_id", how="left", maintain_order="left")
    inside = head.get_column("point").fill_null(_LAST) < cut
    n_head = int(inside.sum())
    if n_head and not bool(inside.head(n_head).all()):
        return None, changed, None, None, "stored rows are not in rating order"
    head = head.head(n_head)
    if head.get_column("point").null_count():
        return None, changed, None, None, "stored rows do not line up with the history"
    head = head.join(
        history.competitions.select("competition_id", "end_date"), on="competition_id", how="left",
        maintain_order="left",
    )
    return cut, changed, head, (n_head, int(head.get_column("games").fill_null(0).sum())), None


def _only_list(history: warehouse.History, batch: FederationBatch, lists: list[str], name: str,
               ) -> tuple[warehouse.History, FederationBatch]:
    """The part of the history and of the batch rated in list ``name``."""
    def ids(comps: pl.DataFrame) -> list[str]:
        mine = list_of_competitions(comps, lists) == name
        return comps.filter(mine).get_column("competition_id").to_list()

    old, new = ids(history.competitions), ids(batch.competitions)
    seed = history.seed if name == lists[0] else history.seed.clear()
    part = replace(
        history, seed=seed,
        competitions=history.competitions.filter(pl.col("competition_id").is_in(old)),
        games=history.games.filter(pl.col("competition_id").is_in(old)),
    )
    # A corrected version that moves a competition to another list re-rates the list it leaves too.
    moved = batch.competitions.filter(
        pl.col("competition_id").is_in(old) & ~pl.col("competition_id").is_in(new)
    ).with_columns(pl.lit("superseded").alias("status"))
    tonight = replace(
        batch,
        competitions=pl.concat([batch.competitions.filter(pl.col("competition_id").is_in(new)), moved],
                               how="diagonal_relaxed"),
        games=batch.games.filter(pl.col("competition_id").is_in(new)),
    )
    return part, tonight


def _stored_state(ratings: pl.DataFrame, seed_state: pl.DataFrame) -> pl.DataFrame:
    """The stored state after the last competition, as :func:`engine.advance_state` would give it.

    The stored row's name comes from the files and its status from the list's rules; the
    state the engine continues from keeps the seed's name and status (null for a newcomer),
    exactly as a state rebuilt from the seed and the changes does.
    """
    seed = seed_state.select("player_id", pl.col("name").alias("_name"), pl.col("status").alias("_status"))
    out = ratings.join(seed, on="player_id", how="left", maintain_order="left").with_columns(
        pl.col("_name").alias("name"), pl.col("_status").alias("status")
    )
    return out.drop("_name", "_status")


#: The day before every list: a seeded rating is in force from the start of the history.
_EVER = date(1900, 1, 1)


@dataclass(frozen=True)
class StandardInForce:
    """A player's rating on the first (FIDE: standard) list in force on any day.

    The seeded rating from the start, then from the day each rating period's list is
    published (its ``period``, ``YYYY-MM``: the 1st of that month) the rating after
    that period, as the first list's run computed it.

    Examples
    --------
    >>> seed = pl.DataFrame({"player_id": ["1", "2"], "rating": [2000.0, None]})
    >>> changes = pl.DataFrame({"period": ["2022-09", "2022-11"], "player_id": ["1", "1"],
    ...                         "rating_after": [2010.0, 2030.0]})
    >>> in_force = StandardInForce.of(seed, changes)
    >>> in_force.on(date(2022, 10, 15)).rows(), in_force.on(date(2022, 8, 31)).rows()
    ([('1', 2010.0)], [('1', 2000.0)])
    """

    timeline: pl.DataFrame  #: ``player_id``, ``since`` (the list's day), ``rating``; by ``since``

    @classmethod
    def of(cls, seed: pl.DataFrame, changes: pl.DataFrame) -> StandardInForce:
        """From the first list's seed and the rating changes its run computed."""
        base = seed.select(
            pl.col("player_id").cast(pl.Utf8), pl.lit(_EVER, pl.Date).alias("since"),
            pl.col("rating").cast(pl.Float64),
        )
        after = changes.filter(pl.col("period").is_not_null()).select(
            pl.col("player_id").cast(pl.Utf8),
            (pl.col("period") + "-01").str.to_date("%Y-%m-%d").alias("since"),
            pl.col("rating_after").cast(pl.Float64).alias("rating"),
        )
        # Every row of a period carries the rating after the period: one per player and period.
        after = after.unique(subset=["player_id", "since"], keep="last", maintain_order=True)
        timeline = pl.concat([base, after]).filter(pl.col("rating").is_not_null() & (pl.col("rating") > 0))
        return cls(timeline.sort("since", "player_id", maintain_order=True))

    def on(self, day: date) -> pl.DataFrame:
        """``player_id, rating``: the first list in force on ``day`` (rated players only)."""
        return (
            self.timeline.filter(pl.col("since") <= day)
            .group_by("player_id", maintain_order=True).agg(pl.col("rating").last())
            .sort("player_id")
        )

    def at_first_start(self, competitions: pl.DataFrame, games: pl.DataFrame) -> pl.DataFrame:
        """``player_id, entry_rating``: each player's rating in force on the start of his
        first competition among ``competitions`` (players without one left out)."""
        starts = competitions.select(
            "competition_id", pl.coalesce("start_date", "end_date").alias("day")
        )
        sides = pl.concat([
            games.select("competition_id", pl.col("player_a").alias("player_id")),
            games.select("competition_id", pl.col("player_b").alias("player_id")),
        ]).filter(pl.col("player_id").is_not_null())
        first = (
            sides.join(starts, on="competition_id", how="inner")
            .group_by("player_id").agg(pl.col("day").min())
            .filter(pl.col("day").is_not_null()).sort("day")
        )
        found = first.join_asof(
            self.timeline, left_on="day", right_on="since", by="player_id", strategy="backward",
            check_sortedness=False,
        )
        return found.filter(pl.col("rating").is_not_null()).select(
            "player_id", pl.col("rating").alias("entry_rating")
        ).sort("player_id")

    def fill_declared(self, players: pl.DataFrame, competitions: pl.DataFrame, games: pl.DataFrame) -> pl.DataFrame:
        """``players`` with the entry rating where the files declare none (or 0, "unrated").

        The engine starts a player not on the seed from his declared rating; a seeded or
        computed rating always wins over it (:func:`engine.fide_elo.rate_history`), so the
        entry rating only counts for a player the list has not rated yet.
        """
        entry = self.at_first_start(competitions, games)
        if "declared_rating" not in players.columns:
            players = players.with_columns(pl.lit(None, pl.Float64).alias("declared_rating"))
        out = players.join(entry, on="player_id", how="full", coalesce=True, maintain_order="left")
        declared = pl.col("declared_rating").cast(pl.Float64)
        return out.with_columns(
            pl.when(declared > 0).then(declared).otherwise(pl.col("entry_rating")).alias("declared_rating")
        ).drop("entry_rating")


def adjustments_of(federation: str, config: dict[str, object], list_name: str) -> list[tuple[date, float]]:
    """The one-off adjustments of list ``list_name`` to the first list: ``(day, points below)``.

    A rule set with ``adjust_to_standard_minus`` raises, on the day it takes effect,
    every rating of its list more than that many points below the player's standard
    rating to standard minus that many (FIDE rapid and blitz, 1 October 2022).

    Examples
    --------
    >>> adjustments_of("fide", {}, "rapid"), adjustments_of("fide", {}, "standard")
    ([(datetime.date(2022, 10, 1), 100.0)], [])
    """
    if engine.system_for(federation, config) != "fide-elo":
        return []
    return sorted(
        (r.effective_from, float(r.params["adjust_to_standard_minus"]))
        for r in engine.rulesets.REGISTRY.values()
        if r.system == "fide-elo" and r.rating_list == list_name and r.params.get("adjust_to_standard_minus")
    )


def adjusted(ratings: pl.DataFrame, standard: pl.DataFrame, below: float) -> pl.DataFrame:
    """``ratings`` after the one-off adjustment to ``standard`` - ``below``, as a seed to go on from.

    :func:`engine.fide_elo.adjust_to_standard_2022` raises to standard - 100; another
    distance shifts the standard it is given. The highest rating reached follows the
    raise, and the K the list printed is dropped: the run after the cut applies its own
    rules' K (a seeded K would win over them).
    """
    floor = standard.with_columns((pl.col("rating") - (below - 100.0)).alias("rating"))
    out = engine.fide_elo.adjust_to_standard_2022(ratings, floor)
    if "rated_max" in out.columns:
        out = out.with_columns(pl.max_horizontal("rated_max", "rating").alias("rated_max"))
    if "k" in out.columns:
        out = out.with_columns(pl.lit(None, out.schema["k"]).alias("k"))
    return out


def _pooled(
    done: Rated, competitions: pl.DataFrame, games: pl.DataFrame,
) -> tuple[pl.DataFrame, pl.DataFrame, list[str], list[str], pl.DataFrame]:
    """The games still-unrated players pooled before a cut, to replay after it.

    A game of a player unrated at the cut against an opponent rated at that event's
    start (``rating_before`` of the opponent's change row) is replayed against a
    stand-in, ``~pool~<competition>~<opponent>``, seeded at that rating and seen
    nowhere else, so that the opponent's own rating does not move twice. Games against
    opponents unrated then never counted and are left out.

    Returns the replayed competitions, their games, the stand-ins' ids, the pooled
    players' ids (their seed rows go: the replay counts their games again) and the
    stand-ins' seed rows.
    """
    unrated = done.run.ratings.filter(pl.col("rating").is_null()).get_column("player_id").to_list()
    before = done.run.changes.filter(pl.col("rating_before").is_not_null()).select(
        "competition_id", "player_id", "rating_before"
    ).unique(subset=["competition_id", "player_id"], keep="first")
    sides = []
    for me, other in (("player_a", "player_b"), ("player_b", "player_a")):
        mine = games.filter(pl.col(me).is_in(unrated) & ~pl.col(other).is_in(unrated))
        mine = mine.join(before.rename({"player_id": other}), on=["competition_id", other], how="inner")
        sides.append(mine.with_columns(pl.format("~pool~{}~{}", "competition_id", other).alias(other)))
    replay = pl.concat(sides, how="diagonal_relaxed")
    ghost = pl.when(pl.col("player_a").is_in(unrated)).then(pl.col("player_b")).otherwise(pl.col("player_a"))
    ghosts = replay.select(ghost.alias("player_id"), pl.col("rating_before").alias("rating")).unique(
        "player_id", maintain_order=True
    ).with_columns(pl.lit(0, pl.Int64).alias("games"))
    comps = competitions.filter(pl.col("competition_id").is_in(replay.get_column("competition_id").unique().to_list()))
    pooled = sorted(set(replay.get_column("player_a").to_list() + replay.get_column("player_b").to_list())
                    - set(ghosts.get_column("player_id").to_list()))
    return comps, replay.drop("rating_before"), ghosts.get_column("player_id").to_list(), pooled, ghosts


def _rate_entered_list(
    history: warehouse.History, batch: FederationBatch, config: dict[str, object], as_of: date | None,
    list_name: str, in_force: StandardInForce,
) -> Rated:
    """Rate a list that players enter at their rating on the first list (FIDE rapid, blitz).

    A player enters the list at his standard rating in force on the start of his first
    competition of the list, unless the files declare his rating on it (their own
    federation's) or the list has rated him already ("A player enters each list at his
    standard rating when he has one", RULES.md, "FIDE rapid and blitz lists"); a player
    without a standard rating enters unrated and earns an initial rating as usual.

    A history that crosses a one-off adjustment day (:func:`adjustments_of`: 1 October
    2022) is rated in segments: the competitions rated in the lists up to that day's
    (ending before it), then the rest from the adjusted state (:func:`adjusted`, with
    the standard list in force on that day). What does not cross the cut by itself: the
    games an unrated player has pooled towards an initial rating and not yet used (FIDE
    keeps them for the rule set's window, 26 months). They are carried over
    (:func:`_pooled`): the next segment replays them against stand-ins rated as the
    opponents were then, and drops the replayed rows. The adjustment itself is no rating change row: the state after the cut (``run.ratings``,
    the changes after it) carries it, but an edition rebuilt from the change rows shows
    it only for the players who played after the cut.
    """
    accepted, _, players = history.laid_over(batch.competitions, batch.games, batch.players)
    end = pl.coalesce("end_date", "start_date")
    days = accepted.select(end.alias("d")).get_column("d")
    cuts = [
        (day, below) for day, below in adjustments_of(batch.federation, config, list_name)
        if days.len() and bool((days < day).any()) and bool((days >= day).any())
    ]
    if not cuts:
        return rate(history, batch, config, as_of, entry=in_force)
    tonight_ids = batch.competitions.get_column("competition_id").to_list()
    seed = history.seed
    bounds: list[tuple[date | None, date | None]] = []
    low: date | None = None
    for day, _ in cuts:
        bounds.append((low, day))
        low = day
    bounds.append((low, None))
    runs: list[Rated] = []
    raised: list[tuple[date, pl.DataFrame]] = []
    carried: tuple[pl.DataFrame, pl.DataFrame, list[str], list[str], pl.DataFrame] | None = None
    for i, (lo, hi) in enumerate(bounds):
        inside = pl.lit(True)
        if lo is not None:
            inside = inside & (end >= lo)
        if hi is not None:
            inside = inside & (end < hi)
        # A competition tonight replaces its stored version in every segment.
        old = history.competitions.filter(inside & ~pl.col("competition_id").is_in(tonight_ids))
        new = batch.competitions.filter(inside | (pl.col("status") == "superseded"))
        part = replace(
            history, seed=seed, competitions=old,
            games=history.games.filter(pl.col("competition_id").is_in(old.get_column("competition_id").to_list())),
        )
        tonight = replace(
            batch, competitions=new,
            games=batch.games.filter(pl.col("competition_id").is_in(new.get_column("competition_id").to_list())),
        )
        seg_comps, seg_games, _ = part.laid_over(tonight.competitions, tonight.games, tonight.players)
        if carried is not None:
            part = replace(
                part, competitions=pl.concat([part.competitions, carried[0]], how="diagonal_relaxed"),
                games=pl.concat([part.games, carried[1]], how="diagonal_relaxed"),
            )
        done = rate(part, tonight, config, as_of, entry=in_force)
        if carried is not None:
            replayed, ghosts = carried[0].get_column("competition_id").to_list(), carried[2]
            done = replace(done, run=engine.RatingRun(
                changes=done.run.changes.filter(~pl.col("competition_id").is_in(replayed)),
                explanations=done.run.explanations.filter(~pl.col("competition_id").is_in(replayed)),
                ratings=done.run.ratings.filter(~pl.col("player_id").is_in(ghosts)),
            ))
        runs.append(done)
        carried = None
        if hi is not None:
            seed = adjusted(done.run.ratings, in_force.on(hi), cuts[i][1])
            before = done.run.ratings.select("player_id", pl.col("rating").alias("_before"))
            raised.append((hi, seed.join(before, on="player_id", how="inner").filter(
                pl.col("rating") != pl.col("_before")).select("player_id", "rating")))
            carried = _pooled(done, seg_comps, seg_games)
            seed = pl.concat(
                [seed.filter(~pl.col("player_id").is_in(carried[3])), carried[4]], how="diagonal_relaxed"
            )
    last = runs[-1]
    return replace(
        last,
        run=engine.RatingRun(
            changes=pl.concat([r.run.changes for r in runs]),
            explanations=pl.concat([r.run.explanations for r in runs]),
            ratings=last.run.ratings,
        ),
        competitions=accepted,
        start_state=runs[0].start_state,
        changed=list(dict.fromkeys(tonight_ids)),
        players=players,
        basis=rating_basis(history.seed, config),
        full_reason=f"re-rated from the seed in {len(runs)} segments (adjustment of {cuts[0][0]})",
        adjustments=raised,
    )


def adjusted_at(state: pl.DataFrame, point: str, rated: Rated, changes: pl.DataFrame) -> pl.DataFrame:
    """The state at ``point`` with ``rated``'s one-off adjustments in force then.

    An edition rebuilt from the change rows (``engine.states_at``) misses a rating the
    adjustment raised until the player plays again: from the adjustment's day on, every
    raised rating no change row has moved since (``changes``: with their ``point``)
    takes its raised value.

    Examples
    --------
    >>> state = pl.DataFrame({"player_id": ["1", "2"], "rating": [1500.0, 1850.0]})
    >>> rated = Rated(run=None, competitions=pl.DataFrame(),  # type: ignore[arg-type]
    ...               adjustments=[(date(2022, 10, 1), pl.DataFrame({"player_id": ["1"], "rating": [1700.0]}))])
    >>> none = pl.DataFrame({"point": [], "player_id": []}, schema={"point": pl.Utf8, "player_id": pl.Utf8})
    >>> adjusted_at(state, "2022-10-01", rated, none)["rating"].to_list()
    [1700.0, 1850.0]
    >>> adjusted_at(state, "2022-09-01", rated, none)["rating"].to_list()
    [1500.0, 1850.0]
    """
    for day, raised in rated.adjustments:
        cut = day.isoformat()
        if point < cut:
            continue
        moved = changes.filter((pl.col("point") > cut) & (pl.col("point") <= point)).get_column("player_id")
        still = raised.filter(~pl.col("player_id").is_in(moved.to_list())).rename({"rating": "_raised"})
        state = state.join(still, on="player_id", how="left", maintain_order="left").with_columns(
            pl.coalesce("_raised", "rating").alias("rating")
        ).drop("_raised")
    return state


def rate(
    history: warehouse.History, batch: FederationBatch, config: dict[str, object], as_of: date | None = None,
    *, stored: Stored | None = None, entry: StandardInForce | None = None,
) -> Rated:
    """The engine over the merged history (pure; the task below adds logging).

    With ``stored`` (what the warehouse holds) a restartable engine continues from the
    state at the earliest competition tonight adds, replaces or removes; without it,
    or when that cannot be exact, the whole history is re-rated from the seed.
    A federation with several ``lists`` (FIDE: standard, rapid, blitz) rates each list
    on its own, from the seed for the first list and, for the others, from the files' own
    declared ratings, else from the player's rating on the first list (FIDE: a player
    enters the rapid and blitz lists at his standard rating, see
    :func:`_rate_entered_list`), always in full; ``Rated.lists`` holds each list's result
    and ``run`` their rows one list after the other (``ratings``: the first list's).
    FIDE: also how far each still-unrated player is from an initial rating on ``as_of``.
    ``entry``: the ratings a player not on the list (no seeded or computed rating, no
    declared one) enters it at, taken on the start of his first competition of the run.
    """
    lists = lists_of(config)
    if len(lists) > 1:
        parts: dict[str, Rated] = {}
        for name in lists:
            part, tonight = _only_list(history, batch, lists, name)
            if name != lists[0] and part.competitions.height == 0 and tonight.competitions.height == 0:
                continue  # nothing was ever rated in this list
            if name == lists[0]:
                parts[name] = rate(part, tonight, {**config, "lists": [name]}, as_of)
            else:
                in_force = StandardInForce.of(history.seed, parts[lists[0]].run.changes)
                parts[name] = _rate_entered_list(part, tonight, {**config, "lists": [name]}, as_of, name, in_force)
        first = parts[lists[0]]
        accepted, _, players = history.laid_over(batch.competitions, batch.games, batch.players)
        return replace(
            first,
            run=engine.RatingRun(
                changes=pl.concat([p.run.changes for p in parts.values()]),
                explanations=pl.concat([p.run.explanations for p in parts.values()]),
                ratings=first.run.ratings,
            ),
            competitions=accepted,
            changed=batch.competitions.get_column("competition_id").unique(maintain_order=True).to_list(),
            players=players,
            derived_offset=None,
            basis=rating_basis(history.seed, config),
            full_reason=f"{len(lists)} lists, each re-rated from its start",
            lists=parts,
        )
    fed = batch.federation
    accepted, games, players = history.laid_over(batch.competitions, batch.games, batch.players)
    basis = rating_basis(history.seed, config)
    cut, changed, head, offset, reason = _restart(history, batch, config, stored, basis)
    if history.games_from is not None and (
        cut is None or fed == "fide" or (cut != _LAST and engine.point_date(cut) < history.games_from)
    ):
        raise ValueError(
            f"{fed}: the history holds the games from {history.games_from} on only, and this run"
            f" re-rates from {cut or 'the seed'}: read it with tasks.rate.history_to_rate"
        )
    start = engine.state_from_seed(history.seed)
    rate_comps, rate_games = accepted, games
    if cut is not None and head is None and stored is not None:
        start = _stored_state(stored.ratings, start)
    elif cut is not None and head is not None:
        start = engine.advance_state(fed, start, head, config=config)
    if cut is not None:
        tail = _point_key(accepted).filter(pl.col("point") >= cut).get_column("competition_id").to_list()
        rate_comps = accepted.filter(pl.col("competition_id").is_in(tail))
        rate_games = games.filter(pl.col("competition_id").is_in(tail))
    declared = engine.own_declared_ratings(players, fed)
    if entry is not None:
        declared = entry.fill_declared(declared, rate_comps, rate_games)
    run = engine.rate_history(
        fed, rate_comps, rate_games, start if cut is not None else history.seed, config=config,
        players=declared,
    )
    # The state only knows the names the seed list printed; newcomers get theirs from the files.
    names = players.select("player_id", pl.col("name").alias("_name")).filter(pl.col("_name").is_not_null())
    ratings = (
        run.ratings.join(names, on="player_id", how="left")
        .with_columns(pl.coalesce("name", "_name").alias("name"))
        .drop("_name")
    )
    ratings = ratings.sort("player_id")
    progress = None
    if fed == "fide":
        progress = validations.initial_rating_progress(
            games, ratings, as_of or date.today(), competitions=accepted, players=players
        )
    return Rated(
        # The explanation rows stay unbuilt until the load (or a report) reads them.
        run=engine.RatingRun(changes=run.changes, explanations=run.lazy_explanations, ratings=ratings),
        competitions=accepted,
        progress=progress,
        start_state=start,
        cut=cut,
        changed=changed,
        players=players,
        derived_offset=offset,
        basis=basis,
        full_reason=reason,
    )


@task(name="rate_federation")
def rate_federation(
    batch: FederationBatch, warehouse_url: str | None, config: dict[str, object], as_of: date | None = None,
    full: bool = False,
) -> Rated:
    """Rate ``batch.federation`` through tonight's competitions: from the first one that
    changes anything when the engine can continue from the stored state, else (or with
    ``full``) from the seed list."""
    logger = get_run_logger()
    db = warehouse.get_engine(warehouse_url)
    stored = None if full else Stored.from_warehouse(db, batch.federation)
    history = history_to_rate(db, batch, config, stored)
    rated = rate(history, batch, config, as_of, stored=stored)
    run = rated.run
    how = f"from {rated.cut}" if rated.cut is not None else f"from the seed ({rated.full_reason})"
    logger.info(
        "%s: rated %s: %d rating change(s) over %d competition(s), %d player(s) in the state",
        batch.federation, how, run.changes.height, run.changes.get_column("competition_id").n_unique(),
        run.ratings.height,
    )
    return rated
