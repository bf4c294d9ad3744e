"""The read API's history: what the engine re-rates, the current ratings, a player's history
and the derived rows' counts (see :mod:`warehouse.query`)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Any

import polars as pl
import sqlalchemy as sa
from sqlalchemy.engine import Engine

from formats.schema import (
    COMPETITIONS_SCHEMA,
    GAMES_SCHEMA,
    PLAYERS_SCHEMA,
    RATING_CHANGES_SCHEMA,
    RATINGS_SCHEMA,
    concat,
    empty,
    merge_players,
)
from warehouse._model_types import table_of
from warehouse._query_tables import (
    _C,
    _COMPETITIONS,
    _G,
    _L,
    _P,
    _R,
    _RATING_CHANGES,
    _RC,
    _S,
    _cols,
)
from warehouse.bulk import read_frame
from warehouse.models import DerivedState, Explanation

__all__ = [
    "History",
    "count_explanations",
    "current_ratings",
    "derived_counts",
    "games_per_competition",
    "history",
    "history_games",
    "player_history",
    "players_of_games",
    "rating_basis",
    "rating_changes",
    "seed_date",
]

_WITH_STATUS = {**COMPETITIONS_SCHEMA, "status": pl.Utf8()}
_GAMES_RATED = {**GAMES_SCHEMA, "rated": pl.Boolean()}


@dataclass(frozen=True)
class History:
    """The current (non-superseded) history of one federation: what the engine re-rates."""

    seed: pl.DataFrame  #: RATINGS_SCHEMA, the latest seeded starting list (possibly empty)
    competitions: pl.DataFrame  #: COMPETITIONS_SCHEMA + status (accepted and rejected), by end date
    games: pl.DataFrame  #: GAMES_SCHEMA + rated, of the current versions, keeping ``source_line``
    players: pl.DataFrame  #: PLAYERS_SCHEMA, every player the federation's files named
    seed_edition: int | None = None  #: the edition number the seeded list carried
    #: ``games`` holds only the games of competitions that end on or after this day (an
    #: incremental run reads no more than it re-rates); None: every game.
    games_from: date | None = None

    def laid_over(
        self, competitions: pl.DataFrame, games: pl.DataFrame, players: pl.DataFrame,
    ) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
        """This history with tonight's competitions laid over it: a competition sent again
        replaces its old version.

        Returns the accepted competitions, their rated games and every known player (the
        last known value of each detail).
        """
        replaced = competitions.get_column("competition_id").to_list()
        all_competitions = concat(
            [self.competitions.filter(~pl.col("competition_id").is_in(replaced)), competitions],
            COMPETITIONS_SCHEMA,
        )
        all_games = concat(
            [self.games.filter(~pl.col("competition_id").is_in(replaced)), games], GAMES_SCHEMA
        )
        accepted = all_competitions.filter(pl.col("status").is_in(["accepted", "accepted_with_exclusions"]))
        rated_games = all_games.filter(
            pl.col("competition_id").is_in(accepted.get_column("competition_id").to_list())
            & pl.col("rated").fill_null(True)
        )
        # Tonight's files fill what the history lacks; a detail they leave out is kept (merge_players).
        known = merge_players(concat([self.players, players], PLAYERS_SCHEMA))
        return accepted, rated_games, known


def seed_date(engine: Engine, federation: str) -> date | None:
    """The date of the federation's latest seeded starting list (its latest ``as_of``);
    ``None`` when none was seeded.

    Examples
    --------
    >>> from warehouse.db import get_engine
    >>> seed_date(get_engine("sqlite://"), "ajusc") is None
    True
    """
    with engine.connect() as conn:
        seed_ledger = conn.execute(
            sa.select(sa.func.max(_L.id)).where(_L.federation == federation, _L.kind == "seed")
        ).scalar()
        if seed_ledger is None:
            return None
        day = conn.execute(sa.select(sa.func.max(_S.as_of)).where(_S.ledger_id == seed_ledger)).scalar()
    if isinstance(day, str):   # SQLite without type affinity for dates
        return date.fromisoformat(day[:10])
    return day if isinstance(day, date) else None


def history(engine: Engine, federation: str, *, games_from: date | None = None) -> History:
    """Read the federation's current history (superseded versions left out).

    ``games_from``: read only the games of competitions that end on or after that day
    (:attr:`History.games_from`); the competitions, players and seed are read in full.

    Examples
    --------
    >>> from warehouse.db import get_engine
    >>> h = history(get_engine("sqlite://"), "fide")
    >>> h.games.columns[-2:]
    ['source_line', 'rated']
    """
    current = (_C.federation == federation) & (_C.status != "superseded")
    with engine.connect() as conn:
        seed_ledger = conn.execute(
            sa.select(sa.func.max(_L.id)).where(
                _L.federation == federation, _L.kind == "seed"
            )
        ).scalar()
        seed = read_frame(
            conn,
            sa.select(*_cols(_S, RATINGS_SCHEMA)).where(_S.ledger_id == seed_ledger).order_by(_S.player_id),
            RATINGS_SCHEMA,
        ) if seed_ledger is not None else empty(RATINGS_SCHEMA)
        seed_edition = conn.execute(
            sa.select(sa.func.max(_S.edition)).where(_S.ledger_id == seed_ledger)
        ).scalar() if seed_ledger is not None else None
        competitions = read_frame(
            conn,
            sa.select(*_cols(_C, _WITH_STATUS)).where(current).order_by(_C.end_date, _C.start_date, _C.competition_id),
            _WITH_STATUS,
        )
        games = read_frame(conn, _games_select(federation, games_from), _GAMES_RATED)
        players = read_frame(
            conn, sa.select(*_cols(_P, PLAYERS_SCHEMA)).where(_P.federation == federation).order_by(_P.player_id),
            PLAYERS_SCHEMA,
        )
    return History(seed=seed, competitions=competitions, games=games, players=players,
                   seed_edition=None if seed_edition is None else int(seed_edition), games_from=games_from)


def history_games(engine: Engine, federation: str, games_from: date | None = None,
                  games_until: date | None = None, *, rated_before: tuple[date, pl.Series] | None = None) -> pl.DataFrame:
    """:attr:`History.games` as :func:`history` reads it with ``games_from``, alone (the rest of a
    history already read stays as it is); ``games_until``: only those of competitions whose day
    (their end, else their start) is on or before it (a block of a run in blocks, ``rating.blocks``).

    ``rated_before``: ``(day, players)``: of the competitions ending before ``day``, only the games
    in which a player is not one of ``players`` (a FIDE night reads the initial-rating window before
    its checkpoint for the players still unrated; a game between two players rated at the checkpoint
    is in its state already). Those competitions are read a month at a time and filtered as they
    come, so a window of FIDE's months (150,000 games each) is never held whole. The games keep
    their load order.

    Examples
    --------
    >>> from warehouse.db import get_engine
    >>> rated = pl.Series(["1", "2"], dtype=pl.Utf8)
    >>> history_games(get_engine("sqlite://"), "fide", date(2023, 1, 1), rated_before=(date(2024, 1, 1), rated)).height
    0
    """
    if rated_before is None or games_from is None or rated_before[0] <= games_from:
        with engine.connect() as conn:
            return read_frame(conn, _games_select(federation, games_from, games_until), _GAMES_RATED)
    day, rated = rated_before
    schema = {**_GAMES_RATED, "_order": pl.Int64()}
    both = (pl.col("player_a").is_in(rated.implode()) & pl.col("player_b").is_in(rated.implode())).fill_null(False)
    parts = []
    with engine.connect() as conn:
        start = games_from
        while start < day:
            end = min(_next_month(start), day)
            month = _games_select(federation, start, games_until, before=end, order=True)
            parts.append(read_frame(conn, month, schema).filter(~both))
            start = end
        parts.append(read_frame(conn, _games_select(federation, day, games_until, order=True), schema))
    return pl.concat(parts).sort("_order").drop("_order")


def _next_month(day: date) -> date:
    return date(day.year + day.month // 12, day.month % 12 + 1, 1)


def _games_select(federation: str, games_from: date | None, games_until: date | None = None, *,
                  before: date | None = None, order: bool = False) -> sa.Select[Any]:
    """The games of the federation's current competitions, in load order; with ``games_from``,
    only those of competitions ending on or after that day (and of any without an end date);
    with ``games_until``, only those of competitions whose day is on or before it; with
    ``before``, only those of competitions ending before it (none without an end date);
    ``order``: the load order as a last column."""
    where = (_C.federation == federation) & (_C.status != "superseded")
    if games_from is not None:
        where = where & ((_C.end_date >= games_from) | _C.end_date.is_(None))
    if games_until is not None:
        where = where & (sa.func.coalesce(_C.end_date, _C.start_date) <= games_until)
    if before is not None:
        where = where & (_C.end_date < before)
    return (
        sa.select(*_cols(_G, _GAMES_RATED), *([_G.id] if order else []))
        .join(_COMPETITIONS, _C.id == _G.competition_key)
        .where(where)
        .order_by(_G.id)
    )


def games_per_competition(engine: Engine, federation: str) -> pl.DataFrame:
    """``competition_id, games``: how many games each current competition holds (one aggregate: a run
    in blocks plans its blocks by it, without reading a game).

    Examples
    --------
    >>> from warehouse.db import get_engine
    >>> games_per_competition(get_engine("sqlite://"), "fide").columns
    ['competition_id', 'games']
    """
    query = (
        sa.select(_C.competition_id, sa.func.count(_G.id).label("games"))
        .select_from(_COMPETITIONS.outerjoin(_G.id.table, _C.id == _G.competition_key))
        .where((_C.federation == federation) & (_C.status != "superseded"))
        .group_by(_C.competition_id)
    )
    with engine.connect() as conn:
        return read_frame(conn, query, {"competition_id": pl.Utf8(), "games": pl.Int64()})


def players_of_games(engine: Engine, federation: str) -> set[str]:
    """Every player id a current game of the federation names (without reading the games).

    Examples
    --------
    >>> from warehouse.db import get_engine
    >>> players_of_games(get_engine("sqlite://"), "ajusc")
    set()
    """
    current = (_C.federation == federation) & (_C.status != "superseded")
    sides = [sa.select(side.label("player_id")).join(_COMPETITIONS, _C.id == _G.competition_key).where(current)
             for side in (_G.player_a, _G.player_b)]
    with engine.connect() as conn:
        return {str(p) for p in conn.execute(sa.union(*sides)).scalars() if p is not None}


def current_ratings(engine: Engine, federation: str) -> pl.DataFrame:
    """The current rating state (``ratings`` table, RATINGS_SCHEMA), by player id.

    Examples
    --------
    >>> from formats.schema import empty, BYES_SCHEMA, COMPETITIONS_SCHEMA, FINDINGS_SCHEMA
    >>> from warehouse.db import get_engine
    >>> from warehouse.load import LoadBatch, load_batch
    >>> engine = get_engine("sqlite://")
    >>> state = pl.DataFrame({"player_id": ["9", "7"], "name": ["Berta", "Anna"],
    ...                       "rating": [1320.0, 1512.5], "games": [12, 43]})
    >>> nothing = pl.DataFrame(schema={"source": pl.Utf8, "source_sha256": pl.Utf8})
    >>> _ = load_batch(engine, LoadBatch("ajusc", nothing, empty(COMPETITIONS_SCHEMA), empty(PLAYERS_SCHEMA),
    ...     empty(GAMES_SCHEMA), empty(BYES_SCHEMA), empty(FINDINGS_SCHEMA), ratings=state))
    >>> current_ratings(engine, "ajusc").select("player_id", "name", "rating", "games")
    shape: (2, 4)
    ┌───────────┬───────┬────────┬───────┐
    │ player_id ┆ name  ┆ rating ┆ games │
    │ ---       ┆ ---   ┆ ---    ┆ ---   │
    │ str       ┆ str   ┆ f64    ┆ i64   │
    ╞═══════════╪═══════╪════════╪═══════╡
    │ 7         ┆ Anna  ┆ 1512.5 ┆ 43    │
    │ 9         ┆ Berta ┆ 1320.0 ┆ 12    │
    └───────────┴───────┴────────┴───────┘
    """
    with engine.connect() as conn:
        return read_frame(
            conn,
            sa.select(*_cols(_R, RATINGS_SCHEMA)).where(_R.federation == federation).order_by(_R.player_id),
            RATINGS_SCHEMA,
        )


_HISTORY_SCHEMA = {
    "competition_id": pl.Utf8(),
    "name": pl.Utf8(),
    "start_date": pl.Date(),
    "end_date": pl.Date(),
    **{k: v for k, v in RATING_CHANGES_SCHEMA.items() if k not in ("federation", "competition_id", "player_id")},
}


def player_history(engine: Engine, federation: str, player_id: str) -> pl.DataFrame:
    """A player's rating changes, competition by competition, in rating order.

    Columns: competition_id, name (of the competition), start_date, end_date,
    then the RATING_CHANGES_SCHEMA figures (period, rating_before, ..., rule_set).
    """
    current = _COMPETITIONS
    query = (
        sa.select(_RC.competition_id, _C.name, _C.start_date, _C.end_date,
                  *(_RC[k] for k in list(_HISTORY_SCHEMA)[4:]))
        .select_from(_RATING_CHANGES)
        .outerjoin(
            current,
            (_C.federation == _RC.federation) & (_C.competition_id == _RC.competition_id) & (_C.status != "superseded"),
        )
        .where(_RC.federation == federation, _RC.player_id == player_id)
        .order_by(_RC.seq)
    )
    with engine.connect() as conn:
        return read_frame(conn, query, _HISTORY_SCHEMA)


def rating_changes(engine: Engine, federation: str, *, ended_from: date | None = None,
                   ended_until: date | None = None, columns: list[str] | None = None) -> pl.DataFrame:
    """Every current rating change of ``federation`` (RATING_CHANGES_SCHEMA), in rating order.

    What the backfill compares before and after re-rating, and what an analyst reads
    to check a published edition against the federation's own figures. ``ended_from``,
    ``ended_until``: only the changes of competitions that end in that window (either bound
    open); ``columns``: only those (the backfill's comparison reads three of them).
    """
    schema = {k: v for k, v in RATING_CHANGES_SCHEMA.items() if columns is None or k in columns}
    query = sa.select(*_cols(_RC, schema)).where(_RC.federation == federation)
    if ended_from is not None or ended_until is not None:
        ended = (_C.federation == federation) & (_C.status != "superseded")
        if ended_from is not None:
            ended = ended & (_C.end_date >= ended_from)
        if ended_until is not None:
            ended = ended & (_C.end_date <= ended_until)
        # A subquery SQLite runs once (a join, it ran once per competition: 82 s at 1M games).
        query = query.where(_RC.competition_id.in_(sa.select(_C.competition_id).where(ended)))
    with engine.connect() as conn:
        return read_frame(conn, query.order_by(_RC.seq), schema)


def derived_counts(engine: Engine, federation: str) -> tuple[int, int, int]:
    """``(rating_changes rows, their games summed, explanations rows)`` of the federation.

    Every explanation row is one player's game, so the last two agree on rows that line up.

    Examples
    --------
    >>> from warehouse.db import get_engine
    >>> derived_counts(get_engine("sqlite://"), "ajusc")
    (0, 0, 0)
    """
    with engine.connect() as conn:
        n, games = conn.execute(
            sa.select(sa.func.count(), sa.func.coalesce(sa.func.sum(_RC.games), 0)).where(_RC.federation == federation)
        ).one()
    return int(n), int(games), count_explanations(engine, federation)


def count_explanations(engine: Engine, federation: str) -> int:
    """Rows of ``explanations`` the federation holds (an incremental run checks them).

    Examples
    --------
    >>> from warehouse.db import get_engine
    >>> count_explanations(get_engine("sqlite://"), "ajusc")
    0
    """
    table = table_of(Explanation)
    with engine.connect() as conn:
        return int(conn.execute(sa.select(sa.func.count()).select_from(table).where(table.c.federation == federation)).scalar() or 0)


def rating_basis(engine: Engine, federation: str) -> str | None:
    """The checksum of the seed list and config the stored derived rows were computed from.

    None: not recorded (rows written before incremental runs, or none at all).
    """
    state = table_of(DerivedState)
    with engine.connect() as conn:
        return conn.execute(
            sa.select(state.c.content_sha256).where(
                state.c.federation == federation, state.c.table_name == "basis", state.c.block == 0
            )
        ).scalar()
