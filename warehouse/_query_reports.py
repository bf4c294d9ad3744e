"""The read API's competition reports: one competition in full, or what the organisers' reports
of many competitions show, read in bulk (see :mod:`warehouse.query`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import polars as pl
import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from formats.schema import BYES_SCHEMA, FINDINGS_SCHEMA, RATING_CHANGES_SCHEMA, empty
from warehouse._model_types import table_of
from warehouse._query_history import _GAMES_RATED
from warehouse._query_tables import (
    _B,
    _C,
    _COMPETITIONS,
    _F,
    _G,
    _P,
    _PLAYERS,
    _R,
    _RATING_CHANGES,
    _RATINGS,
    _RC,
    _cols,
)
from warehouse.bulk import read_frame
from warehouse.decisions import DECISIONS_SCHEMA, OfficerDecision
from warehouse.errors import AmbiguousCompetitionError, UnknownCompetitionError

__all__ = [
    "REPORT_BATCH",
    "CompetitionDetail",
    "ReportRecords",
    "competition_report",
    "competition_reports",
]

_CHANGES_SCHEMA: dict[str, pl.DataType] = {**RATING_CHANGES_SCHEMA, "name": pl.Utf8()}
_GAMES_COUNTED: dict[str, pl.DataType] = {"competition_key": pl.Int64(), "games": pl.Int64(), "excluded": pl.Int64()}
_BYES_COUNTED: dict[str, pl.DataType] = {"competition_key": pl.Int64(), "byes": pl.Int64()}
_SIDES_SCHEMA: dict[str, pl.DataType] = {"competition_key": pl.Int64(), "player_id": pl.Utf8()}


def _named_changes(where: Any) -> sa.Select[Any]:
    """The rating changes ``where`` selects, with each player's name (as the files gave it, else
    as the ratings hold it), in rating order."""
    name = sa.func.coalesce(_P.name, _R.name)
    return (
        sa.select(*_cols(_RC, RATING_CHANGES_SCHEMA), name)
        .select_from(_RATING_CHANGES)
        .outerjoin(_PLAYERS, (_P.federation == _RC.federation) & (_P.player_id == _RC.player_id))
        .outerjoin(_RATINGS, (_R.federation == _RC.federation) & (_R.player_id == _RC.player_id))
        .where(where)
        .order_by(_RC.seq)
    )



@dataclass(frozen=True)
class CompetitionDetail:
    """Everything the warehouse knows about one competition (its latest version first)."""

    competition: dict[str, Any]  #: the latest version's row (status, source, source_sha256, version, ...)
    findings: pl.DataFrame  #: FINDINGS_SCHEMA, of the latest version
    changes: pl.DataFrame  #: RATING_CHANGES_SCHEMA + name (empty when not rated)
    games: pl.DataFrame  #: GAMES_SCHEMA + rated, of the latest version
    byes: pl.DataFrame  #: BYES_SCHEMA, of the latest version
    versions: pl.DataFrame  #: every version: version, status, outcome, source, source_sha256, loaded load_id

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
            sa.select(_COMPETITIONS).where(where).order_by(_C.version.desc()).limit(1)
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
        changes = read_frame(
            conn, _named_changes((_RC.federation == fed) & (_RC.competition_id == competition_id)), _CHANGES_SCHEMA
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


@dataclass
class _Reports:
    """What :func:`competition_reports` has read so far, batch after batch."""

    rows: dict[str, dict[str, Any]] = field(default_factory=dict)
    findings: list[pl.DataFrame] = field(default_factory=list)
    changes: list[pl.DataFrame] = field(default_factory=list)
    games: list[pl.DataFrame] = field(default_factory=list)
    byes: list[pl.DataFrame] = field(default_factory=list)
    players: list[pl.DataFrame] = field(default_factory=list)
    decided: list[Any] = field(default_factory=list)


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
    ids = list(dict.fromkeys(competition_ids))
    read = _Reports()
    with engine.connect() as conn:
        for start in range(0, len(ids), REPORT_BATCH):
            _read_batch(conn, federation, ids[start : start + REPORT_BATCH], read, with_players=with_players)
    return _records(read, with_players=with_players)


def _read_batch(conn: Connection, federation: str, part: list[str], read: _Reports, *, with_players: bool) -> None:
    """One batch of :func:`competition_reports`: its competitions' latest versions, and their
    findings, games, byes, players, rating changes and decisions, added to ``read``."""
    versions = conn.execute(
        sa.select(_COMPETITIONS)
        .where(_C.federation == federation, _C.competition_id.in_(part))
        .order_by(_C.competition_id, _C.version)
    ).mappings().all()
    latest = {str(r["competition_id"]): dict(r) for r in versions}   # the last version wins
    read.rows.update(latest)
    keys = [int(r["id"]) for r in latest.values()]
    if not keys:
        return
    read.findings.append(read_frame(
        conn, sa.select(*_cols(_F, FINDINGS_SCHEMA)).where(_F.competition_key.in_(keys)).order_by(_F.id),
        FINDINGS_SCHEMA,
    ))
    excluded = sa.func.sum(sa.case((_G.rated == sa.false(), 1), else_=0))
    read.games.append(read_frame(
        conn, sa.select(_G.competition_key, sa.func.count(), excluded)
        .where(_G.competition_key.in_(keys)).group_by(_G.competition_key),
        _GAMES_COUNTED,
    ))
    read.byes.append(read_frame(
        conn, sa.select(_B.competition_key, sa.func.count())
        .where(_B.competition_key.in_(keys)).group_by(_B.competition_key),
        _BYES_COUNTED,
    ))
    if with_players:
        sides = sa.union(
            sa.select(_G.competition_key, _G.player_a.label("player_id")).where(_G.competition_key.in_(keys)),
            sa.select(_G.competition_key, _G.player_b.label("player_id")).where(_G.competition_key.in_(keys)),
        ).subquery()
        read.players.append(read_frame(conn, sa.select(sides.c.competition_key, sides.c.player_id), _SIDES_SCHEMA))
    read.changes.append(read_frame(
        conn, _named_changes((_RC.federation == federation) & _RC.competition_id.in_(part)), _CHANGES_SCHEMA
    ))
    decision = table_of(OfficerDecision).c
    read.decided += conn.execute(
        sa.select(*[decision[c] for c in DECISIONS_SCHEMA])
        .where(decision.federation == federation, decision.competition_id.in_(part)).order_by(decision.id)
    ).all()


def _records(read: _Reports, *, with_players: bool) -> ReportRecords:
    """The frames of :class:`ReportRecords` from the rows :func:`_read_batch` read."""
    rows = read.rows
    key_of = pl.DataFrame(
        {"competition_key": [int(r["id"]) for r in rows.values()], "competition_id": list(rows)},
        schema={"competition_key": pl.Int64(), "competition_id": pl.Utf8()},
    )
    counted = pl.concat(read.games) if read.games else empty(_GAMES_COUNTED)
    who = None
    if with_players:
        who = pl.concat(read.players) if read.players else empty(_SIDES_SCHEMA)
        who = who.join(key_of, on="competition_key", how="inner").select("competition_id", "player_id")
    decisions = pl.DataFrame([tuple(r) for r in read.decided], schema=list(DECISIONS_SCHEMA), orient="row")
    decisions = decisions.with_columns(
        pl.col(c).dt.replace_time_zone("UTC") if decisions.schema[c] == pl.Datetime else pl.col(c)
        for c in decisions.columns
    ).cast(pl.Schema(DECISIONS_SCHEMA)) if decisions.height else pl.DataFrame(schema=DECISIONS_SCHEMA)
    return ReportRecords(
        competitions=rows,
        findings=pl.concat(read.findings) if read.findings else empty(FINDINGS_SCHEMA),
        changes=pl.concat(read.changes) if read.changes else empty(_CHANGES_SCHEMA),
        games=counted.join(key_of, on="competition_key", how="inner").select(
            "competition_id", pl.col("games").fill_null(0), pl.col("excluded").fill_null(0)),
        players=who,
        decisions=decisions,
        byes=(pl.concat(read.byes) if read.byes else empty(_BYES_COUNTED)).join(key_of, on="competition_key", how="inner")
        .select("competition_id", "byes"),
    )
