"""The read API: history for the engine, lists, player histories, competition reports."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Any

import polars as pl
import sqlalchemy as sa
from sqlalchemy.engine import Engine

from formats.schema import (
    BYES_SCHEMA,
    COMPETITIONS_SCHEMA,
    FINDINGS_SCHEMA,
    GAMES_SCHEMA,
    PLAYERS_SCHEMA,
    RATING_CHANGES_SCHEMA,
    RATINGS_SCHEMA,
    concat,
    empty,
    merge_players,
)
from warehouse.bulk import read_frame
from warehouse.errors import AmbiguousCompetitionError, UnknownCompetitionError
from warehouse.models import (
    Bye,
    Competition,
    DerivedState,
    Explanation,
    Finding,
    Game,
    LedgerEntry,
    Player,
    Rating,
    RatingChange,
    SeedEntry,
)

__all__ = [
    "CompetitionDetail",
    "History",
    "ReportRecords",
    "competition_report",
    "competition_reports",
    "current_ratings",
    "history",
    "history_games",
    "player_history",
]

_C = Competition.__table__.c  # type: ignore[attr-defined]
_G = Game.__table__.c  # type: ignore[attr-defined]
_B = Bye.__table__.c  # type: ignore[attr-defined]
_F = Finding.__table__.c  # type: ignore[attr-defined]
_L = LedgerEntry.__table__.c  # type: ignore[attr-defined]
_P = Player.__table__.c  # type: ignore[attr-defined]
_R = Rating.__table__.c  # type: ignore[attr-defined]
_RC = RatingChange.__table__.c  # type: ignore[attr-defined]
_S = SeedEntry.__table__.c  # type: ignore[attr-defined]

_WITH_STATUS = {**COMPETITIONS_SCHEMA, "status": pl.Utf8()}
_GAMES_RATED = {**GAMES_SCHEMA, "rated": pl.Boolean()}


def _cols(columns: Any, schema: dict[str, pl.DataType]) -> list[Any]:
    return [columns[name] for name in schema]


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


@dataclass(frozen=True)
class CompetitionDetail:
    """Everything the warehouse knows about one competition (its latest version first)."""

    competition: dict[str, Any]  #: the latest version's row (status, source, source_sha256, version, ...)
    findings: pl.DataFrame  #: FINDINGS_SCHEMA, of the latest version
    changes: pl.DataFrame  #: RATING_CHANGES_SCHEMA + name (empty when not rated)
    games: pl.DataFrame  #: GAMES_SCHEMA + rated, of the latest version
    byes: pl.DataFrame  #: BYES_SCHEMA, of the latest version
    versions: pl.DataFrame  #: every version: version, status, outcome, source, source_sha256, loaded load_id


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


def history_games(engine: Engine, federation: str, games_from: date | None = None) -> pl.DataFrame:
    """:attr:`History.games` as :func:`history` reads it with ``games_from``, alone (the rest of a
    history already read stays as it is)."""
    with engine.connect() as conn:
        return read_frame(conn, _games_select(federation, games_from), _GAMES_RATED)


def _games_select(federation: str, games_from: date | None) -> sa.Select[Any]:
    """The games of the federation's current competitions, in load order; with ``games_from``,
    only those of competitions ending on or after that day (and of any without an end date)."""
    where = (_C.federation == federation) & (_C.status != "superseded")
    if games_from is not None:
        where = where & ((_C.end_date >= games_from) | _C.end_date.is_(None))
    return (
        sa.select(*_cols(_G, _GAMES_RATED))
        .join(Competition.__table__, _C.id == _G.competition_key)  # type: ignore[attr-defined]
        .where(where)
        .order_by(_G.id)
    )


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
    current = Competition.__table__  # type: ignore[attr-defined]
    query = (
        sa.select(_RC.competition_id, _C.name, _C.start_date, _C.end_date,
                  *(_RC[k] for k in list(_HISTORY_SCHEMA)[4:]))
        .select_from(RatingChange.__table__)  # type: ignore[attr-defined]
        .outerjoin(
            current,
            (_C.federation == _RC.federation) & (_C.competition_id == _RC.competition_id) & (_C.status != "superseded"),
        )
        .where(_RC.federation == federation, _RC.player_id == player_id)
        .order_by(_RC.seq)
    )
    with engine.connect() as conn:
        return read_frame(conn, query, _HISTORY_SCHEMA)


def competition_report(
    engine: Engine, competition_id: str, *, federation: str | None = None
) -> CompetitionDetail:
    """The latest version of a competition, its findings, games and rating changes (with names).

    Raises
    ------
    UnknownCompetitionError
        No such competition, or the id exists in several federations and
        ``federation`` was not given.
    """
    where = _C.competition_id == competition_id
    if federation is not None:
        where = where & (_C.federation == federation)
    with engine.connect() as conn:
        feds = sorted(r[0] for r in conn.execute(sa.select(_C.federation).where(where).distinct()))
        if not feds:
            scope = f" in federation {federation!r}" if federation else ""
            raise UnknownCompetitionError(f"no competition {competition_id!r}{scope} in the warehouse")
        if len(feds) > 1:
            raise AmbiguousCompetitionError(
                f"competition id {competition_id!r} exists in federations {', '.join(feds)}: give --federation"
            )
        fed = feds[0]
        where = (_C.competition_id == competition_id) & (_C.federation == fed)
        row = conn.execute(
            sa.select(Competition.__table__).where(where).order_by(_C.version.desc()).limit(1)  # type: ignore[attr-defined]
        ).mappings().one()
        key = row["id"]
        findings = read_frame(
            conn, sa.select(*_cols(_F, FINDINGS_SCHEMA)).where(_F.competition_key == key).order_by(_F.id),
            FINDINGS_SCHEMA,
        )
        games = read_frame(
            conn, sa.select(*_cols(_G, _GAMES_RATED)).where(_G.competition_key == key).order_by(_G.id), _GAMES_RATED
        )
        byes = read_frame(
            conn, sa.select(*_cols(_B, BYES_SCHEMA)).where(_B.competition_key == key).order_by(_B.id), BYES_SCHEMA
        )
        name = sa.func.coalesce(_P.name, _R.name)
        changes_schema = {**RATING_CHANGES_SCHEMA, "name": pl.Utf8()}
        changes = read_frame(
            conn,
            sa.select(*_cols(_RC, RATING_CHANGES_SCHEMA), name)
            .select_from(RatingChange.__table__)  # type: ignore[attr-defined]
            .outerjoin(Player.__table__, (_P.federation == _RC.federation) & (_P.player_id == _RC.player_id))  # type: ignore[attr-defined]
            .outerjoin(Rating.__table__, (_R.federation == _RC.federation) & (_R.player_id == _RC.player_id))  # type: ignore[attr-defined]
            .where(_RC.federation == fed, _RC.competition_id == competition_id)
            .order_by(_RC.seq),
            changes_schema,
        )
        versions_schema = {
            "version": pl.Int64(), "status": pl.Utf8(), "outcome": pl.Utf8(), "source": pl.Utf8(),
            "source_sha256": pl.Utf8(), "load_id": pl.Int64(),
        }
        versions = read_frame(
            conn, sa.select(*(_C[k] for k in versions_schema)).where(where).order_by(_C.version), versions_schema
        )
    return CompetitionDetail(
        competition=dict(row), findings=findings, changes=changes, games=games, byes=byes, versions=versions
    )


@dataclass(frozen=True)
class ReportRecords:
    """What the organisers' reports of many competitions show, read in bulk (:func:`competition_reports`).

    Each frame holds the rows of every competition asked for, in the order the
    single-competition read (:func:`competition_report`) gives them; split them with
    ``partition_by("competition_id")``.
    """

    competitions: dict[str, dict[str, Any]]  #: competition_id -> its latest version's row
    findings: pl.DataFrame  #: FINDINGS_SCHEMA, of the latest versions
    changes: pl.DataFrame  #: RATING_CHANGES_SCHEMA + name
    games: pl.DataFrame  #: competition_id, games, excluded (games with ``rated`` false)
    players: pl.DataFrame | None  #: competition_id, player_id: who played (when asked for)
    decisions: pl.DataFrame  #: warehouse.decisions.DECISIONS_SCHEMA, oldest first
    byes: pl.DataFrame  #: competition_id, byes (counted beside the games: a bye is not a game)


#: Competitions per bulk read: bound parameters stay well under both databases' limits.
REPORT_BATCH = 2_000


def competition_reports(
    engine: Engine, federation: str, competition_ids: list[str], *, with_players: bool = False,
) -> ReportRecords:
    """:func:`competition_report` for many competitions of one federation, in a few queries.

    One query per table and batch of :data:`REPORT_BATCH` competitions, instead of
    several per competition: a bulk night's 11,000 reports read in seconds. Ids the
    warehouse does not hold are left out of ``competitions``. Games are counted in SQL
    (the reports show counts); ``with_players``: also who played (FIDE's progress toward
    an initial rating lists this competition's unrated players).
    """
    from warehouse.decisions import DECISIONS_SCHEMA, OfficerDecision

    _D = OfficerDecision.__table__.c  # type: ignore[attr-defined]
    ids = list(dict.fromkeys(competition_ids))
    rows: dict[str, dict[str, Any]] = {}
    findings: list[pl.DataFrame] = []
    changes: list[pl.DataFrame] = []
    games: list[pl.DataFrame] = []
    byes: list[pl.DataFrame] = []
    players: list[pl.DataFrame] = []
    decided: list[Any] = []
    changes_schema: dict[str, pl.DataType] = {**RATING_CHANGES_SCHEMA, "name": pl.Utf8()}
    games_schema: dict[str, pl.DataType] = {"competition_key": pl.Int64(), "games": pl.Int64(), "excluded": pl.Int64()}
    byes_schema: dict[str, pl.DataType] = {"competition_key": pl.Int64(), "byes": pl.Int64()}
    sides_schema: dict[str, pl.DataType] = {"competition_key": pl.Int64(), "player_id": pl.Utf8()}
    name = sa.func.coalesce(_P.name, _R.name)
    with engine.connect() as conn:
        for start in range(0, len(ids), REPORT_BATCH):
            part = ids[start : start + REPORT_BATCH]
            versions = conn.execute(
                sa.select(Competition.__table__)  # type: ignore[attr-defined]
                .where(_C.federation == federation, _C.competition_id.in_(part))
                .order_by(_C.competition_id, _C.version)
            ).mappings().all()
            latest = {str(r["competition_id"]): dict(r) for r in versions}   # the last version wins
            rows.update(latest)
            keys = [int(r["id"]) for r in latest.values()]
            if not keys:
                continue
            findings.append(read_frame(
                conn, sa.select(*_cols(_F, FINDINGS_SCHEMA)).where(_F.competition_key.in_(keys)).order_by(_F.id),
                FINDINGS_SCHEMA,
            ))
            excluded = sa.func.sum(sa.case((_G.rated == sa.false(), 1), else_=0))
            games.append(read_frame(
                conn, sa.select(_G.competition_key, sa.func.count(), excluded)
                .where(_G.competition_key.in_(keys)).group_by(_G.competition_key),
                games_schema,
            ))
            byes.append(read_frame(
                conn, sa.select(_B.competition_key, sa.func.count())
                .where(_B.competition_key.in_(keys)).group_by(_B.competition_key),
                byes_schema,
            ))
            if with_players:
                sides = sa.union(
                    sa.select(_G.competition_key, _G.player_a.label("player_id")).where(_G.competition_key.in_(keys)),
                    sa.select(_G.competition_key, _G.player_b.label("player_id")).where(_G.competition_key.in_(keys)),
                ).subquery()
                players.append(read_frame(conn, sa.select(sides.c.competition_key, sides.c.player_id), sides_schema))
            changes.append(read_frame(
                conn,
                sa.select(*_cols(_RC, RATING_CHANGES_SCHEMA), name)
                .select_from(RatingChange.__table__)  # type: ignore[attr-defined]
                .outerjoin(Player.__table__, (_P.federation == _RC.federation) & (_P.player_id == _RC.player_id))  # type: ignore[attr-defined]
                .outerjoin(Rating.__table__, (_R.federation == _RC.federation) & (_R.player_id == _RC.player_id))  # type: ignore[attr-defined]
                .where(_RC.federation == federation, _RC.competition_id.in_(part))
                .order_by(_RC.seq),
                changes_schema,
            ))
            decided += conn.execute(
                sa.select(*[_D[c] for c in DECISIONS_SCHEMA])
                .where(_D.federation == federation, _D.competition_id.in_(part)).order_by(_D.id)
            ).all()
    key_of = pl.DataFrame(
        {"competition_key": [int(r["id"]) for r in rows.values()], "competition_id": list(rows)},
        schema={"competition_key": pl.Int64(), "competition_id": pl.Utf8()},
    )
    counted = pl.concat(games) if games else empty(games_schema)
    who = None
    if with_players:
        who = pl.concat(players) if players else empty(sides_schema)
        who = who.join(key_of, on="competition_key", how="inner").select("competition_id", "player_id")
    decisions = pl.DataFrame([tuple(r) for r in decided], schema=list(DECISIONS_SCHEMA), orient="row")
    decisions = decisions.with_columns(
        pl.col(c).dt.replace_time_zone("UTC") if decisions.schema[c] == pl.Datetime else pl.col(c)
        for c in decisions.columns
    ).cast(DECISIONS_SCHEMA) if decisions.height else pl.DataFrame(schema=DECISIONS_SCHEMA)  # type: ignore[arg-type]
    return ReportRecords(
        competitions=rows,
        findings=pl.concat(findings) if findings else empty(FINDINGS_SCHEMA),
        changes=pl.concat(changes) if changes else empty(changes_schema),
        games=counted.join(key_of, on="competition_key", how="inner").select(
            "competition_id", pl.col("games").fill_null(0), pl.col("excluded").fill_null(0)),
        players=who,
        decisions=decisions,
        byes=(pl.concat(byes) if byes else empty(byes_schema)).join(key_of, on="competition_key", how="inner")
        .select("competition_id", "byes"),
    )


def rating_changes(engine: Engine, federation: str) -> pl.DataFrame:
    """Every current rating change of ``federation`` (RATING_CHANGES_SCHEMA), in rating order.

    What the backfill compares before and after re-rating, and what an analyst reads
    to check a published edition against the federation's own figures.
    """
    with engine.connect() as conn:
        return read_frame(
            conn,
            sa.select(*_cols(_RC, RATING_CHANGES_SCHEMA)).where(_RC.federation == federation).order_by(_RC.seq),
            RATING_CHANGES_SCHEMA,
        )


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
    table = Explanation.__table__  # type: ignore[attr-defined]
    with engine.connect() as conn:
        return int(conn.execute(sa.select(sa.func.count()).select_from(table).where(table.c.federation == federation)).scalar() or 0)


def rating_basis(engine: Engine, federation: str) -> str | None:
    """The checksum of the seed list and config the stored derived rows were computed from.

    None: not recorded (rows written before incremental runs, or none at all).
    """
    state = DerivedState.__table__  # type: ignore[attr-defined]
    with engine.connect() as conn:
        return conn.execute(
            sa.select(state.c.content_sha256).where(
                state.c.federation == federation, state.c.table_name == "basis", state.c.block == 0
            )
        ).scalar()
