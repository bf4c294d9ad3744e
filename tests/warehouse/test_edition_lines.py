"""Editions stored as their changes read back exactly as published.

``warehouse.editions`` stores an edition as the lines that changed since the edition
before it in its list (ranks and order derived on read), or in full when its ranks or
order do not follow the federations' rule. Whatever was published must read back the
same: through ``rating_list``, ``edition_entries``, ``edition_contents`` and the SQL view
``rating_list_entries``, on SQLite and PostgreSQL alike.
"""

from __future__ import annotations

import datetime as dt
import itertools
from typing import Any

import polars as pl
import pytest
import sqlalchemy as sa
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal
from sqlalchemy.engine import Engine

import engine as rating_engine
from formats.schema import RATING_LIST_SCHEMA, conform
from warehouse import (
    Edition,
    edition_contents,
    edition_entries,
    editions,
    latest_edition,
    list_lines,
    publish_editions,
    rating_list,
)
from warehouse.editions import in_list_order

# Ids that sort differently by bytes and by a language's collation, and tied ratings.
_IDS = ["a", "B", "_x", "10", "9", "é", "Z", "b"]
_STATUSES = ["active", "active", "active", "provisional", "inactive", "unrated"]
_federations = itertools.count()


def _canonical(players: dict[str, dict[str, Any]], fed: str) -> pl.DataFrame:
    frame = pl.DataFrame(
        [{"player_id": pid, **row} for pid, row in players.items()],
        schema={"player_id": pl.Utf8(), "name": pl.Utf8(), "rating": pl.Float64(), "games": pl.Int64(),
                "status": pl.Utf8(), "category": pl.Utf8()},
    )
    return conform(in_list_order(frame).with_columns(federation=pl.lit(fed)), RATING_LIST_SCHEMA)


_change = st.tuples(
    st.sampled_from(_IDS),
    st.one_of(st.none(), st.sampled_from([1500.0, 1512.5, 1600.0, 990.0])),
    st.sampled_from(_STATUSES),
    st.integers(0, 3),  # 0: leaves the list
)


@st.composite
def _lists(draw: st.DrawFn) -> list[tuple[pl.DataFrame | None, list[tuple[str, float | None, str, int]]]]:
    """Editions to publish: each a list of player changes, sometimes a hand-made list instead."""
    out = []
    for _ in range(draw(st.integers(1, 7))):
        changes = draw(st.lists(_change, max_size=5))
        out.append((None if draw(st.integers(0, 4)) else pl.DataFrame(), changes))
    return out


def _sequence(fed: str, plan: list[Any]) -> list[pl.DataFrame]:
    players: dict[str, dict[str, Any]] = {}
    out = []
    for hand_made, changes in plan:
        for pid, rating, status, games in changes:
            if games == 0:
                players.pop(pid, None)
            else:
                status = "unrated" if rating is None else status
                players[pid] = {"name": f"N {pid}", "rating": rating, "games": games, "status": status,
                                "category": "Mestre" if rating and rating >= 1500 else None}
        listed = _canonical(players, fed)
        if hand_made is not None and listed.height > 1:
            # A list made by hand: reversed, ranked 1..n whatever the figures say.
            listed = listed.reverse().with_columns(rank=pl.int_range(1, listed.height + 1, dtype=pl.Int64))
        out.append(listed)
    return out


def _publish(db: Engine, fed: str, lists: list[pl.DataFrame], split: int, hand_over: str = "none") -> list[int]:
    """Publish in two calls; the second hands over lines made against the edition before,
    as the publish task does for a night of many editions (first in full, last with both).

    ``hand_over``: what the second call is told of the last edition already published: nothing
    ("none"), that edition as the publish task reads it ("latest"), or an older one ("stale"),
    which must be ignored."""
    numbers = publish_editions(db, fed, [Edition(f, dt.date(2025, 9, 1 + i)) for i, f in enumerate(lists[:split])])
    told = (latest_edition(db, fed) if hand_over == "latest" and numbers else
            latest_edition(db, fed, edition=numbers[0]) if hand_over == "stale" and len(numbers) > 1 else None)
    known: dict[str | None, tuple[int, pl.DataFrame]] | None = None if told is None else {None: told}
    rest = lists[split:]
    batch: list[Edition] = []
    for i, frame in enumerate(rest):
        day = dt.date(2025, 10, 1 + i)
        if i == 0:
            batch.append(Edition(frame, day))
        else:
            lines = list_lines(rest[i - 1], frame)
            last = i == len(rest) - 1
            batch.append(Edition(frame if last else None, day, lines=lines))
    return numbers + publish_editions(db, fed, batch, known=known)


def _view(db: Engine, list_id: int) -> list[tuple[Any, ...]]:
    with db.connect() as conn:
        return [tuple(r) for r in conn.execute(sa.text(
            "SELECT position, federation, player_id, name, rating, games, status, category, rank "
            "FROM rating_list_entries WHERE list_id = :id ORDER BY position"), {"id": list_id})]


def _check(db: Engine, fed: str, lists: list[pl.DataFrame], numbers: list[int]) -> None:
    heads = editions(db, fed)
    assert heads.get_column("edition").to_list() == numbers
    replayed = dict(edition_contents(db, fed, numbers))
    # The lines read one or two editions at a time replay the same editions.
    import warehouse._editions_read as reader

    for per_read in (1, 2):
        default, reader._EDITIONS_PER_READ = reader._EDITIONS_PER_READ, per_read
        try:
            chunked = dict(edition_contents(db, fed, numbers))
        finally:
            reader._EDITIONS_PER_READ = default
        assert chunked.keys() == replayed.keys()
        for number, frame in chunked.items():
            assert_frame_equal(frame, replayed[number])
    # Replayed from any edition on (the publish task checks the editions a run can reach).
    for i in range(1, len(numbers)):
        later = dict(edition_contents(db, fed, numbers[i:]))
        assert later.keys() == set(numbers[i:])
        for number, frame in later.items():
            assert_frame_equal(frame, replayed[number])
    for published, head in zip(lists, heads.iter_rows(named=True), strict=True):
        assert_frame_equal(rating_list(db, fed, edition=head["edition"]), published)
        assert_frame_equal(edition_entries(db, head["list_id"]), published)
        assert_frame_equal(replayed[head["edition"]], published)
        assert head["n_players"] == published.height
        assert _view(db, head["list_id"]) == [(i + 1, *row) for i, row in enumerate(published.rows())]


@given(plan=_lists(), split=st.integers(0, 7), hand_over=st.sampled_from(["none", "latest", "stale"]))
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_every_edition_reads_back_as_published(engine: Engine, plan: list[Any], split: int, hand_over: str) -> None:
    fed = f"f{next(_federations)}"
    lists = _sequence(fed, plan)
    numbers = _publish(engine, fed, lists, min(split, len(lists)), hand_over)
    _check(engine, fed, lists, numbers)


def test_an_edition_stores_only_what_changed(sqlite_engine: Engine) -> None:
    """1,000 players, then 3 figures change, 1 player joins and 1 leaves: 5 lines stored, not 1,000."""
    ratings = pl.DataFrame({"player_id": [f"{i:04d}" for i in range(1000)],
                            "rating": [1000.0 + i for i in range(1000)], "games": 40,
                            "last_played": "2025-26"})
    first = rating_engine.rating_list("ajusc", ratings, as_of=dt.date(2025, 10, 1))
    moved = ratings.with_columns(
        pl.when(pl.col("player_id").is_in(["0001", "0500", "0999"])).then(pl.col("rating") + 700.0)
        .otherwise(pl.col("rating")).alias("rating"))
    moved = pl.concat([moved.filter(pl.col("player_id") != "0002"),
                       pl.DataFrame({"player_id": ["new"], "rating": [1234.5], "games": [3],
                                     "last_played": ["2025-26"]})], how="diagonal_relaxed")
    second = rating_engine.rating_list("ajusc", moved, as_of=dt.date(2025, 11, 1))
    publish_editions(sqlite_engine, "ajusc", [Edition(first, dt.date(2025, 10, 1)),
                                              Edition(second, dt.date(2025, 11, 1))])
    with sqlite_engine.connect() as conn:
        stored = conn.execute(sa.text(
            "SELECT l.edition, l.lines, l.base_edition, COUNT(*), SUM(d.removed) FROM rating_lists l "
            "JOIN rating_list_lines d ON d.list_id = l.id GROUP BY l.edition, l.lines, l.base_edition "
            "ORDER BY l.edition")).all()
    assert [tuple(r) for r in stored] == [(1, "changes", 0, 1000, 0), (2, "changes", 0, 5, 1)]
    assert_frame_equal(rating_list(sqlite_engine, "ajusc"), second)
    assert rating_list(sqlite_engine, "ajusc").filter(pl.col("player_id") == "0999")["rank"].item() == 1


def test_a_list_made_by_hand_is_stored_in_full_and_the_next_one_starts_from_it(sqlite_engine: Engine) -> None:
    hand = pl.DataFrame({"federation": "egf", "player_id": ["2", "1"], "rating": [1000.0, 2000.0],
                         "status": "active", "rank": [1, 2]})
    ruled = rating_engine.rating_list("egf", pl.DataFrame({"player_id": ["1", "2"], "rating": [2000.0, 1001.0]}),
                                      as_of=dt.date(2025, 2, 1))
    publish_editions(sqlite_engine, "egf", [Edition(hand, dt.date(2025, 1, 1)), Edition(ruled, dt.date(2025, 2, 1))])
    heads = editions(sqlite_engine, "egf")
    with sqlite_engine.connect() as conn:
        kinds = conn.execute(sa.text("SELECT lines, base_edition FROM rating_lists ORDER BY edition")).all()
    assert [tuple(k) for k in kinds] == [("full", 1), ("changes", 1)]
    assert_frame_equal(edition_entries(sqlite_engine, heads["list_id"][0]), conform(hand, RATING_LIST_SCHEMA))
    assert_frame_equal(rating_list(sqlite_engine, "egf"), ruled)


@pytest.mark.postgres
def test_the_view_orders_player_ids_by_bytes_on_postgresql(pg_engine: Engine) -> None:
    """PostgreSQL's default collation would put 'b' before 'B'; the list (polars) orders by bytes."""
    ratings = pl.DataFrame({"player_id": ["b", "B", "_", "a"], "rating": [1500.0] * 4, "games": [40] * 4,
                            "last_played": ["2025-26"] * 4})
    listed = rating_engine.rating_list("ajusc", ratings, as_of=dt.date(2025, 10, 1))
    publish_editions(pg_engine, "ajusc", [Edition(listed, dt.date(2025, 10, 1))])
    assert [r[2] for r in _view(pg_engine, 1)] == ["B", "_", "a", "b"] == listed["player_id"].to_list()


def test_an_edition_handed_over_is_used_only_while_it_is_the_last_one(sqlite_engine: Engine) -> None:
    """The publish task hands ``publish_editions`` the last edition it read (``known``); one that
    is no longer the list's last edition must be read again, not compared with."""
    def listed(ratings: dict[str, float]) -> pl.DataFrame:
        frame = pl.DataFrame({"player_id": list(ratings), "rating": list(ratings.values()), "games": 40,
                              "last_played": "2025-26"})
        return rating_engine.rating_list("ajusc", frame, as_of=dt.date(2025, 10, 1))

    first, second = listed({"a": 1000.0, "b": 1100.0}), listed({"a": 1300.0, "b": 1100.0})
    third = listed({"a": 1000.0, "b": 1200.0})   # "a" back to the figure of the first edition
    publish_editions(sqlite_engine, "ajusc", [Edition(first, dt.date(2025, 10, 1)),
                                              Edition(second, dt.date(2025, 10, 2))])
    stale = latest_edition(sqlite_engine, "ajusc", edition=1)
    assert stale is not None and stale[0] == 1
    publish_editions(sqlite_engine, "ajusc", [Edition(third, dt.date(2025, 10, 3))], known={None: stale})
    assert_frame_equal(rating_list(sqlite_engine, "ajusc"), third)
    last = latest_edition(sqlite_engine, "ajusc")
    assert last is not None and last[0] == 3
    assert_frame_equal(last[1], third)
    fourth = listed({"a": 1250.0, "b": 1200.0})
    publish_editions(sqlite_engine, "ajusc", [Edition(fourth, dt.date(2025, 10, 4))], known={None: last})
    assert_frame_equal(rating_list(sqlite_engine, "ajusc"), fourth)
