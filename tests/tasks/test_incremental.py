"""Incremental nights equal a full re-rate from the seed, row for row.

Hypothesis draws a small history (a seeded list, competitions on random dates, some
corrected later) and a random arrival order of its competitions across nights. Each
night runs what the nightly flow runs, without Prefect: ``rating.rate`` over the
stored state, ``warehouse.load_batch`` with the run's rows, ``tasks.publish.apply_editions``.
The result must equal one night that rates everything from the seed: the same
``rating_changes``, ``explanations`` and ``ratings`` rows, and every edition the
incremental warehouse published, as corrected since, holds the figures the full
re-rate publishes at the same point. On SQLite and on PostgreSQL.
"""

from __future__ import annotations

import hashlib
import itertools
from datetime import date, timedelta
from typing import TypedDict

import polars as pl
import pytest
import sqlalchemy as sa
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal
from sqlalchemy.engine import Engine

import warehouse
from flows.config import federation_config
from formats.schema import (
    BYES_SCHEMA,
    COMPETITIONS_SCHEMA,
    FINDINGS_SCHEMA,
    GAMES_SCHEMA,
    PLAYERS_SCHEMA,
    conform,
    empty,
)
from publication import apply_editions, effective
from rating import Stored, history_to_rate, rate
from tasks.ingest import FederationBatch
from warehouse.models import Explanation, Rating, RatingChange

PLAYERS = [f"{100 + i}" for i in range(10)]
_serial = itertools.count()


class Competition(TypedDict):
    """A drawn competition: its id, its day (days after 2025-09-06) and its games."""

    id: str
    day: int
    games: list[tuple[int, str, str, float]]   # (round, player_a, player_b, score_a)


class History(TypedDict):
    """Drawn competitions, the nights they arrive in (indexes into ``comps``) and the
    competitions sent again, corrected, after the last night."""

    comps: list[Competition]
    nights: list[list[int]]
    fixes: list[int]


@st.composite
def histories(draw: st.DrawFn) -> History:
    """Competitions (id, day, games), the nights they arrive in, and corrections sent later."""
    n = draw(st.integers(2, 6))
    days = draw(st.lists(st.integers(0, 330), min_size=n, max_size=n))
    comps: list[Competition] = []
    for k, day in enumerate(days):
        who = draw(st.lists(st.sampled_from(PLAYERS), min_size=2, max_size=6, unique=True))
        rounds = draw(st.integers(1, 3))
        games: list[tuple[int, str, str, float]] = []
        for rnd in range(1, rounds + 1):
            for a, b in zip(who[0::2], who[1::2], strict=False):
                games.append((rnd, a, b, draw(st.sampled_from([1.0, 0.5, 0.0]))))
            who = who[1:] + who[:1]
        comps.append({"id": f"C{k:02d}", "day": day, "games": games})
    order = draw(st.permutations(range(n)))
    cuts = sorted(draw(st.sets(st.integers(1, n - 1), max_size=n - 1))) if n > 1 else []
    nights = [list(order[a:b]) for a, b in zip([0, *cuts], [*cuts, n], strict=True)]
    # A corrected version (one result flipped) of a competition already sent, in a later night.
    fixes = draw(st.lists(st.integers(0, n - 1), max_size=2, unique=True))
    return {"comps": comps, "nights": nights, "fixes": fixes}


def _batch(fed: str, comps: list[Competition], version: int = 1) -> FederationBatch:
    rows, games = [], []
    files = []
    for c in comps:
        end = date(2025, 9, 6) + timedelta(days=c["day"])
        text = f"{c['id']} v{version} {c['games']}"
        sha = hashlib.sha256(text.encode()).hexdigest()
        source = f"{c['id']}-v{version}.results.csv"
        files.append({"source": source, "source_sha256": sha, "format": "interchange-results", "n_findings": 0})
        rows.append({"federation": fed, "competition_id": c["id"], "name": c["id"], "start_date": end,
                     "end_date": end, "rounds": 3, "modality": "classic", "results_public": True,
                     "event_class": "A", "source": source, "source_sha256": sha})
        for line, (rnd, a, b, score) in enumerate(c["games"], start=2):
            games.append({"federation": fed, "competition_id": c["id"], "round": rnd, "player_a": a,
                          "player_b": b, "score_a": score, "status": "played", "source_line": line})
    comp_frame = conform(pl.DataFrame(rows), COMPETITIONS_SCHEMA).with_columns(pl.lit("accepted").alias("status"))
    game_frame = conform(pl.DataFrame(games), GAMES_SCHEMA) if games else empty(GAMES_SCHEMA)
    return FederationBatch(
        federation=fed,
        files=pl.DataFrame(files),
        competitions=comp_frame,
        players=conform(pl.DataFrame({"federation": fed, "player_id": PLAYERS, "declared_rank": "5k"}), PLAYERS_SCHEMA),
        games=game_frame.with_columns(pl.lit(True).alias("rated")),
        byes=empty(BYES_SCHEMA),
        findings=empty(FINDINGS_SCHEMA),
    )


def _night(
    db: Engine, fed: str, batch: FederationBatch, config: dict[str, object], day: date, *, full: bool
) -> str | None:
    """One night; returns where it rated from (None: from the seed)."""
    stored = None if full else Stored.from_warehouse(db, fed)
    history = history_to_rate(db, batch, config, stored)  # the nightly's read: the games from the cut on
    rated = rate(history, batch, config, day, stored=stored)
    warehouse.load_batch(db, warehouse.LoadBatch(
        federation=fed, files=batch.files, competitions=batch.competitions, players=batch.players,
        games=batch.games, byes=batch.byes, findings=batch.findings, changes=rated.run.changes,
        explanations=rated.run.explanations, ratings=rated.run.ratings,
        derived_offset=rated.derived_offset, derived_basis=rated.basis,
    ))
    apply_editions(db, fed, rated, config, day)
    return rated.cut


def _rows(db: Engine, model: type, fed: str, order: str) -> pl.DataFrame:
    table = model.__table__  # type: ignore[attr-defined]
    with db.connect() as conn:
        result = conn.execute(sa.select(table).where(table.c.federation == fed).order_by(table.c[order]))
        frame = pl.DataFrame([dict(r._mapping) for r in result], infer_schema_length=None)
    return frame.drop("federation") if frame.height else frame


def _seed(fed: str) -> pl.DataFrame:
    return pl.DataFrame({
        "federation": fed, "player_id": PLAYERS[:7], "name": [f"Player {p}" for p in PLAYERS[:7]],
        "rating": [1300.0, 1210.0, 1105.0, 1000.0, 980.0, 1500.0, 2050.0], "games": [60, 12, 300, 5, 40, 51, 49],
        "as_of": date(2025, 9, 1), "last_played": ["2024-25", "2023-24", "2025-26", None, "2022-23", "2024-25", "2024-25"],
    })


@pytest.mark.hypothesis
@pytest.mark.parametrize("system", ["ajusc", "egf"])
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(histories())
def test_incremental_nights_equal_a_full_rerate(db: Engine, system: str, history: History) -> None:
    config = federation_config(system)
    n = next(_serial)
    inc, full = f"{system}-inc-{n}", f"{system}-full-{n}"
    for fed in (inc, full):
        seed = _seed(fed)
        if system == "egf":
            seed = seed.with_columns((pl.col("rating") + 700.0).alias("rating"), pl.lit(None, pl.Utf8).alias("last_played"))
        warehouse.load_seed(db, fed, seed, source=f"{fed}.ratings.csv", source_sha256=f"seed-{fed}", edition=40)
    comps, nights, fixes = history["comps"], history["nights"], history["fixes"]
    fixed = [c.copy() for c in comps]
    for k in fixes:
        games = list(fixed[k]["games"])
        rnd, a, b, score = games[0]
        games[0] = (rnd, a, b, 1.0 - score)
        fixed[k]["games"] = games
    day = date(2026, 9, 1)
    cuts = []
    for i, night in enumerate(nights):
        cuts.append(_night(db, inc, _batch(inc, [comps[k] for k in night]), config, day + timedelta(days=i), full=False))
    if fixes:
        cuts.append(_night(db, inc, _batch(inc, [fixed[k] for k in fixes], version=2), config,
                           day + timedelta(days=len(nights)), full=False))
    # The first night has no stored rows to continue from; every later one continues.
    assert cuts[0] is None and None not in cuts[1:]
    _night(db, full, _batch(full, fixed), config, day, full=True)

    for model, order in ((RatingChange, "seq"), (Explanation, "seq"), (Rating, "player_id")):
        result, expected = _rows(db, model, inc, order), _rows(db, model, full, order)
        assert_frame_equal(result, expected, check_dtypes=False)

    full_editions = warehouse.editions(db, full)
    assert full_editions.get_column("edition").to_list()[0] == 41
    fixes_made = warehouse.edition_corrections(db, inc)
    for row in warehouse.editions(db, inc).iter_rows(named=True):
        same = full_editions.filter(pl.col("covers") == row["covers"])
        assert same.height == 1, f"no full edition at {row['covers']}"
        expected = warehouse.edition_entries(db, int(same["list_id"][0])).select("player_id", "rating")
        result = effective(warehouse.edition_entries(db, int(row["list_id"])),
                            fixes_made.filter(pl.col("edition") == row["edition"]))
        assert_frame_equal(result.sort("player_id"), expected.sort("player_id"), check_dtypes=False)
    # A night that brings nothing rewrites nothing and publishes nothing.
    before = warehouse.editions(db, inc).height
    _night(db, inc, FederationBatch(federation=inc), config, day + timedelta(days=30), full=False)
    assert warehouse.editions(db, inc).height == before



def test_a_night_reads_only_the_games_it_re_rates(sqlite_db: Engine) -> None:
    """The nightly reads the games from its cut's day on, not the whole history (on a large
    warehouse reading every game would be most of a night's rate stage); a run that needs more
    refuses that history."""
    db, config, fed = sqlite_db, federation_config("ajusc"), f"ajusc-tail-{next(_serial)}"
    warehouse.load_seed(db, fed, _seed(fed), source=f"{fed}.ratings.csv", source_sha256=f"seed-{fed}", edition=40)
    games = [(1, "100", "101", 1.0), (1, "102", "103", 0.5), (2, "100", "102", 0.0)]
    comps: list[Competition] = [{"id": f"T{k}", "day": day, "games": games}
                                for k, day in enumerate((0, 100, 200, 50, 50))]
    day = date(2026, 9, 1)
    _night(db, fed, _batch(fed, [comps[0], comps[1], comps[4]]), config, day, full=False)
    _night(db, fed, _batch(fed, comps[2:3]), config, day, full=False)

    # T3 ends on day 50: it re-rates T4 (the same day, after it in rating order), T1 and T2, not T0.
    late = _batch(fed, comps[3:4])
    stored = Stored.from_warehouse(db, fed)
    history = history_to_rate(db, late, config, stored)
    assert history.games_from == date(2025, 9, 6) + timedelta(days=50)
    assert sorted(set(history.games.get_column("competition_id"))) == ["T1", "T2", "T4"]
    tail = rate(history, late, config, day, stored=stored)
    whole = warehouse.history(db, fed)
    assert whole.games.height == 4 * len(games) and whole.games_from is None
    assert_frame_equal(history.games, whole.games.filter(pl.col("competition_id") != "T0"))
    every = rate(whole, late, config, day, stored=stored)
    assert tail.cut == every.cut and tail.cut is not None
    assert_frame_equal(tail.run.changes, every.run.changes)
    assert_frame_equal(tail.run.ratings, every.run.ratings)
    # A run from the seed over that history would rate without T0's games: it is refused.
    with pytest.raises(ValueError, match="holds the games from 2025-10-26 on only"):
        rate(history, late, config, day, stored=None)
    # A night with nothing earlier than the stored rows reads no game at all.
    assert history_to_rate(db, _batch(fed, [{"id": "T9", "day": 300, "games": games}]), config, stored).games.height == 0
