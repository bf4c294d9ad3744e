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
from prefect import get_run_logger, task
from prefect.cache_policies import NO_CACHE
from sqlalchemy.engine import Engine

import engine
import validations
import warehouse
from formats.schema import COMPETITIONS_SCHEMA, GAMES_SCHEMA, PLAYERS_SCHEMA
from tasks.frames import concat
from tasks.ingest import FederationBatch


def merged_history(history: warehouse.History, batch: FederationBatch) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    """History with tonight's batch laid over it: a competition sent again replaces its old version.

    Returns the accepted competitions, their rated games and every known player.
    """
    replaced = batch.competitions.get_column("competition_id").to_list()
    competitions = concat(
        [history.competitions.filter(~pl.col("competition_id").is_in(replaced)), batch.competitions],
        COMPETITIONS_SCHEMA,
    )
    games = concat(
        [history.games.filter(~pl.col("competition_id").is_in(replaced)), batch.games], GAMES_SCHEMA
    )
    accepted = competitions.filter(pl.col("status").is_in(["accepted", "accepted_with_exclusions"]))
    rated_games = games.filter(
        pl.col("competition_id").is_in(accepted.get_column("competition_id").to_list())
        & pl.col("rated").fill_null(True)
    )
    players = concat([history.players, batch.players], PLAYERS_SCHEMA).unique(
        subset=["federation", "player_id"], keep="last", maintain_order=True
    )
    return accepted, rated_games, players


def own_declared_ratings(players: pl.DataFrame, federation: str) -> pl.DataFrame:
    """Keep a file's declared rating only where it comes from this federation's own list.

    DESIGN.md: a newcomer starts from what the file declares when it is the same
    federation's rating (a TRF rating for FIDE, an OpenGotha rating whose origin is
    the EGF); a national list's rating (FFG, ...) is ignored and the federation's rule
    for newcomers applies (EGF: from the declared grade). Unsaid origin: the file's own.

    Examples
    --------
    >>> p = pl.DataFrame({"player_id": ["a", "b", "c"], "declared_rating": [2100.0, 1500.0, 900.0],
    ...                   "declared_rating_origin": ["EGF", "FFG", None]})
    >>> own_declared_ratings(p, "egf").get_column("declared_rating").to_list()
    [2100.0, None, 900.0]
    """
    if "declared_rating_origin" not in players.columns:
        return players
    origin = pl.col("declared_rating_origin").str.to_lowercase()
    return players.with_columns(
        pl.when(origin.is_null() | (origin == federation.lower()))
        .then(pl.col("declared_rating"))
        .otherwise(None)
        .alias("declared_rating")
    )


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


def _restart(
    history: warehouse.History, batch: FederationBatch, config: dict[str, object],
    stored: Stored | None, basis: str,
) -> tuple[str | None, list[str], pl.DataFrame | None, tuple[int, int] | None, str | None]:
    """Where to start: ``(cut, changed, head changes or None, offsets, reason for a full run)``.

    ``head`` None: tonight only appends after everything rated, and the stored state
    after the last competition is where to start.
    """
    fed = batch.federation
    changed = list(dict.fromkeys(
        [*batch.competitions.get_column("competition_id").to_list(), *batch.rerate]
    ))
    if not engine.restartable(fed, config):
        return None, changed, None, None, f"the {engine.system_for(fed, config)} engine re-rates from the seed"
    if stored is None:
        return None, changed, None, None, "full re-rate requested"
    if stored.basis != basis:
        return None, changed, None, None, "seed list or config changed since the stored rows"
    if stored.games_total != stored.n_explanations:
        return None, changed, None, None, "stored rows do not line up with the history"
    old = history.competitions.filter(pl.col("competition_id").is_in(changed))
    new = batch.competitions.filter(pl.col("competition_id").is_in(changed))
    keys = pl.concat([_point_key(old), _point_key(new)]).get_column("point").to_list()
    cut = min(keys) if keys else _LAST
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


def rate(
    history: warehouse.History, batch: FederationBatch, config: dict[str, object], as_of: date | None = None,
    *, stored: Stored | None = None,
) -> Rated:
    """The engine over the merged history (pure; the task below adds logging).

    With ``stored`` (what the warehouse holds) a restartable engine continues from the
    state at the earliest competition tonight adds, replaces or removes; without it,
    or when that cannot be exact, the whole history is re-rated from the seed.
    A federation with several ``lists`` (FIDE: standard, rapid, blitz) rates each list
    on its own, from the seed for the first list and from the files' own declared
    ratings for the others, always in full; ``Rated.lists`` holds each list's result
    and ``run`` their rows one list after the other (``ratings``: the first list's).
    FIDE: also how far each still-unrated player is from an initial rating on ``as_of``.
    """
    lists = lists_of(config)
    if len(lists) > 1:
        parts: dict[str, Rated] = {}
        for name in lists:
            part, tonight = _only_list(history, batch, lists, name)
            if name != lists[0] and part.competitions.height == 0 and tonight.competitions.height == 0:
                continue  # nothing was ever rated in this list
            parts[name] = rate(part, tonight, {**config, "lists": [name]}, as_of)
        first = parts[lists[0]]
        accepted, _, players = merged_history(history, batch)
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
    accepted, games, players = merged_history(history, batch)
    basis = rating_basis(history.seed, config)
    cut, changed, head, offset, reason = _restart(history, batch, config, stored, basis)
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
    run = engine.rate_history(
        fed, rate_comps, rate_games, start if cut is not None else history.seed, config=config,
        players=own_declared_ratings(players, fed),
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
        run=engine.RatingRun(changes=run.changes, explanations=run.explanations, ratings=ratings),
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


@task(name="rate_federation", cache_policy=NO_CACHE)
def rate_federation(
    batch: FederationBatch, warehouse_url: str | None, config: dict[str, object], as_of: date | None = None,
    full: bool = False,
) -> Rated:
    """Rate ``batch.federation`` through tonight's competitions: from the first one that
    changes anything when the engine can continue from the stored state, else (or with
    ``full``) from the seed list."""
    logger = get_run_logger()
    db = warehouse.get_engine(warehouse_url)
    history = warehouse.history(db, batch.federation)
    stored = None if full else Stored.from_warehouse(db, batch.federation)
    rated = rate(history, batch, config, as_of, stored=stored)
    run = rated.run
    how = f"from {rated.cut}" if rated.cut is not None else f"from the seed ({rated.full_reason})"
    logger.info(
        "%s: rated %s: %d rating change(s) over %d competition(s), %d player(s) in the state",
        batch.federation, how, run.changes.height, run.changes.get_column("competition_id").n_unique(),
        run.ratings.height,
    )
    return rated
