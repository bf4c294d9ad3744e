"""Editions as each federation publishes them (DESIGN.md *Publication*).

Runs the rating and publication steps without Prefect (``rating.rate``,
``warehouse.load_batch``, ``publication.apply_editions``) on real files.
"""

from __future__ import annotations

import itertools
import random
from dataclasses import replace
from datetime import date, timedelta
from pathlib import Path

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal
from sqlalchemy import Engine

import engine
import formats
import warehouse
from flows.config import federation_config
from formats.schema import PLAYERS_SCHEMA, conform
from publication import EditionsDone, apply_editions, plan_editions
from rating import Rated, Stored, rate
from tasks.ingest import FederationBatch
from tests.warehouse.conftest import batch_from_interchange


def _rate_and_publish(db: Engine, fed: str, batch: FederationBatch, config: dict[str, object], day: date,
                      *, full: bool = False) -> tuple[Rated, EditionsDone]:
    stored = None if full else Stored.from_warehouse(db, fed)
    rated = rate(warehouse.history(db, fed), batch, config, day, stored=stored, checkpoints=True)
    warehouse.load_batch(db, warehouse.LoadBatch(
        federation=fed, files=batch.files, competitions=batch.competitions, players=batch.players,
        games=batch.games, byes=batch.byes, findings=batch.findings, changes=rated.run.changes,
        explanations=rated.run.explanations, ratings=rated.run.ratings,
        derived_offset=rated.derived_offset, derived_basis=rated.basis, checkpoints=rated.checkpoints,
    ))
    return rated, apply_editions(db, fed, rated, config, day)


def _fed_batch(batch: warehouse.LoadBatch) -> FederationBatch:
    return FederationBatch(
        federation=batch.federation, files=batch.files, competitions=batch.competitions, players=batch.players,
        games=batch.games, byes=batch.byes, findings=batch.findings,
    )


def test_fide_publishes_one_list_a_month_with_fides_figures(shared_data: Path, tmp_path: Path) -> None:
    """Source: ../shared/data/fide/published_periods (FIDE's calculations of 40 rating periods);
    the published totals are those of tests/engine/test_fide.py::test_published_periods_are_consistent."""
    folder = shared_data / "fide" / "published_periods"
    db = warehouse.get_engine(f"sqlite:///{tmp_path / 'w.db'}")
    seed = formats.read_ratings(folder / "seed.ratings.csv", federation="fide")
    warehouse.load_seed(db, "fide", seed, source="seed.ratings.csv", source_sha256="fide-seed")
    batch = _fed_batch(batch_from_interchange(sorted((folder / "results").glob("*.results.csv")), "fide"))
    config = federation_config("fide")
    rated, _ = _rate_and_publish(db, "fide", batch, config, date(2026, 12, 1))
    assert rated.cut is None  # FIDE always re-rates from the seed

    published = warehouse.editions(db, "fide")
    days = published.get_column("as_of").to_list()
    assert all(d.day == 1 for d in days)
    months = [(d.year, d.month) for d in days]
    assert months == sorted(set(months)), "one list per month"
    periods = sorted(set(rated.run.changes.get_column("period").to_list()))
    assert (months[0], months[-1]) == (tuple(map(int, periods[0].split("-"))), tuple(map(int, periods[-1].split("-"))))
    assert len(months) == (months[-1][0] - months[0][0]) * 12 + months[-1][1] - months[0][1] + 1

    focal = rated.run.changes.filter(pl.col("player_id").str.starts_with("P")).group_by("player_id", "period").agg(
        pl.col("rating_before").first(), pl.col("rating_after").first()
    )
    published_change = {
        "P4317874-2025-11": 1, "P2230070-2025-12": -13, "P4604555-2025-12": -5, "P25636227-2026-01": 17,
        "P24560588-2026-02": -2, "P442925-2026-03": 19, "P1210165-2026-03": 60,
    }
    for row in focal.iter_rows(named=True):
        day = date.fromisoformat(row["period"] + "-01")
        listed = warehouse.rating_list(db, "fide", as_of=day).filter(pl.col("player_id") == row["player_id"])
        assert listed.get_column("rating").to_list() == [row["rating_after"]], row["player_id"]
        if row["player_id"] in published_change:
            assert row["rating_after"] - row["rating_before"] == published_change[row["player_id"]]
        before = warehouse.rating_list(db, "fide", as_of=date.fromordinal(day.toordinal() - 1))
        if before.height:
            assert before.filter(pl.col("player_id") == row["player_id"]).get_column("rating").to_list() == [
                row["rating_before"]
            ]


def test_a_monthly_list_is_published_on_its_date_not_while_its_period_runs(shared_data: Path,
                                                                           tmp_path: Path) -> None:
    """DESIGN.md *Publication*: FIDE's list of the 1st holds the rating periods that ended before
    it. A run on 15 June publishes the lists up to 1 June; the periods after it are rated (the
    current ratings hold them) but their lists wait for their date, so the later nights of June
    add games without correcting anything. A run on 1 December publishes the lists from July on,
    as ordinary editions, with the figures one run on 1 December publishes. Data:
    ../shared/data/fide/published_periods (as in the test above)."""
    folder = shared_data / "fide" / "published_periods"
    seed = formats.read_ratings(folder / "seed.ratings.csv", federation="fide")
    batch = _fed_batch(batch_from_interchange(sorted((folder / "results").glob("*.results.csv")), "fide"))
    config = federation_config("fide")
    lists = {}
    for name, days in (("nightly", [date(2026, 6, 15), date(2026, 12, 1)]), ("at-once", [date(2026, 12, 1)])):
        db = warehouse.get_engine(f"sqlite:///{tmp_path / (name + '.db')}")
        warehouse.load_seed(db, "fide", seed, source="seed.ratings.csv", source_sha256="fide-seed")
        for i, day in enumerate(days):
            _rate_and_publish(db, "fide", batch if i == 0 else FederationBatch(federation="fide"), config, day)
            published = warehouse.editions(db, "fide")
            assert (published.get_column("as_of") <= day).all()
            assert set(published.get_column("kind").to_list()) == {"ordinary"}
        if name == "nightly":
            assert warehouse.editions(db, "fide").filter(pl.col("as_of") == date(2026, 7, 1)).height == 1
        lists[name] = [warehouse.rating_list(db, "fide", edition=e).drop("edition", strict=False)
                       for e in warehouse.editions(db, "fide").get_column("edition").to_list()]
    assert len(lists["nightly"]) == len(lists["at-once"]) > 0
    for nightly, at_once in zip(lists["nightly"], lists["at-once"], strict=True):
        assert nightly.equals(at_once)


def _one(cid: str, day: str, games: list[tuple[str, str, float]], version: str = "a") -> FederationBatch:
    comps = pl.DataFrame({
        "federation": ["ajusc"], "competition_id": [cid], "name": [cid], "start_date": [date.fromisoformat(day)],
        "end_date": [date.fromisoformat(day)], "source": [f"{cid}{version}.results.csv"],
        "source_sha256": [f"{cid}-{version}"], "status": ["accepted"],
    })
    g = pl.DataFrame({
        "federation": "ajusc", "competition_id": cid, "round": list(range(1, len(games) + 1)),
        "player_a": [a for a, _, _ in games], "player_b": [b for _, b, _ in games],
        "score_a": [s for _, _, s in games], "status": "played", "source_line": list(range(2, len(games) + 2)),
        "rated": True,
    })
    return FederationBatch(
        federation="ajusc", files=comps.select("source", "source_sha256"), competitions=comps, games=g,
    )


def test_a_late_competition_publishes_one_correcting_edition_with_its_diff(tmp_path: Path) -> None:
    db = warehouse.get_engine(f"sqlite:///{tmp_path / 'w.db'}")
    seed = pl.DataFrame({"player_id": ["1", "2", "3"], "name": ["Anna", "Berta", "Carme"],
                         "rating": [1100.0, 1200.0, 1000.0], "games": [60, 60, 60], "as_of": date(2025, 9, 1),
                         "last_played": "2024-25"})
    warehouse.load_seed(db, "ajusc", seed, source="s.ratings.csv", source_sha256="s", edition=190)
    config = federation_config("ajusc")
    _rate_and_publish(db, "ajusc", _one("A", "2025-10-04", [("1", "2", 1.0), ("2", "3", 0.5)]), config,
                      date(2025, 10, 5))
    _rate_and_publish(db, "ajusc", _one("C", "2025-12-06", [("1", "3", 0.0)]), config, date(2025, 12, 7))
    assert warehouse.editions(db, "ajusc").get_column("edition").to_list() == [191, 192]
    first_lists = {e: warehouse.rating_list(db, "ajusc", edition=e) for e in (191, 192)}

    # B ends between A and C, and arrives after C was published.
    rated, done = _rate_and_publish(db, "ajusc", _one("B", "2025-11-08", [("2", "3", 1.0)]), config,
                                    date(2026, 1, 10))
    assert rated.cut == "2025-11-08|2025-11-08|B"
    assert done.numbers == [193] and done.correcting == 193
    editions = warehouse.editions(db, "ajusc")
    assert editions.filter(pl.col("edition") == 193).row(0, named=True)["kind"] == "correcting"
    assert editions.filter(pl.col("edition") == 193).get_column("as_of").to_list() == [date(2026, 1, 10)]
    # The published editions are untouched; the diff says what changed in 192.
    for e, frame in first_lists.items():
        assert_frame_equal(warehouse.rating_list(db, "ajusc", edition=e), frame)
    diff = warehouse.edition_corrections(db, "ajusc")
    assert set(diff.get_column("edition").to_list()) == {192}
    assert set(diff.get_column("player_id").to_list()) == {"2", "3"}
    now = warehouse.rating_list(db, "ajusc", edition=193)
    for row in diff.iter_rows(named=True):
        assert row["published"] == first_lists[192].filter(pl.col("player_id") == row["player_id"])["rating"][0]
        assert row["now"] == now.filter(pl.col("player_id") == row["player_id"])["rating"][0]
        assert row["reason"] == "B"
    # What was in force on a past date is still what was published then.
    assert_frame_equal(warehouse.rating_list(db, "ajusc", as_of=date(2025, 12, 31)), first_lists[192])

    # The same history rated at once gives the corrected figures.
    other = warehouse.get_engine(f"sqlite:///{tmp_path / 'full.db'}")
    warehouse.load_seed(other, "ajusc", seed, source="s.ratings.csv", source_sha256="s", edition=190)
    batch = [_one(c, d, g) for c, d, g in (("A", "2025-10-04", [("1", "2", 1.0), ("2", "3", 0.5)]),
                                          ("B", "2025-11-08", [("2", "3", 1.0)]), ("C", "2025-12-06", [("1", "3", 0.0)]))]
    together = FederationBatch(
        federation="ajusc", files=pl.concat([b.files for b in batch]),
        competitions=pl.concat([b.competitions for b in batch]), games=pl.concat([b.games for b in batch]),
    )
    _rate_and_publish(other, "ajusc", together, config, date(2026, 1, 10), full=True)
    assert warehouse.editions(other, "ajusc").get_column("edition").to_list() == [191, 192, 193]
    assert_frame_equal(
        warehouse.rating_list(other, "ajusc", edition=193).select("player_id", "rating").sort("player_id"),
        now.select("player_id", "rating").sort("player_id"),
    )


def test_advance_state_ends_where_the_engine_ends() -> None:
    """The state rebuilt from the rating changes equals the engine's own final state."""
    comps = pl.DataFrame({"competition_id": ["A", "B"], "start_date": [date(2025, 10, 4), date(2026, 9, 12)],
                          "end_date": [date(2025, 10, 4), date(2026, 9, 12)]})
    games = pl.DataFrame({"competition_id": ["A", "A", "B"], "round": [1, 2, 1], "player_a": ["1", "2", "4"],
                          "player_b": ["2", "3", "1"], "score_a": [1.0, 0.5, 0.0]})
    start = pl.DataFrame({"player_id": ["1", "2", "3", "9"], "name": ["A", "B", "C", "I"],
                          "rating": [1100.0, 1200.0, 1000.0, 1300.0], "games": [60, 8, 60, 70],
                          "last_played": ["2024-25", None, "2021-22", None], "status": [None, None, None, "inactive"]})
    for fed in ("ajusc", "egf"):
        newcomer = pl.DataFrame({"player_id": ["4"], "declared_rank": ["3k"]})
        run = engine.rate_history(fed, comps.with_columns(pl.lit("A").alias("event_class")), games, start,
                                  players=newcomer)
        state = engine.advance_state(
            fed, engine.state_from_seed(start), run.changes.join(comps, on="competition_id"),
        )
        cols = ["player_id", "rating", "games", "last_played", "as_of"]
        assert_frame_equal(state.select(cols).sort("player_id"), run.ratings.select(cols).sort("player_id"))
        day = date(2026, 9, 30)
        assert_frame_equal(
            engine.rating_list(fed, state, as_of=day).drop("name"), engine.rating_list(fed, run.ratings, as_of=day).drop("name")
        )


@pytest.mark.parametrize("publication", ["per-competition", "monthly"])
def test_points_sort_in_rating_order(publication: str) -> None:
    comps = pl.DataFrame({"competition_id": ["b", "a", "c"], "start_date": [date(2025, 1, 5), date(2025, 1, 5), None],
                          "end_date": [date(2025, 1, 6), date(2025, 1, 6), date(2024, 12, 30)]})
    points = engine.competition_points(comps, publication)
    ordered = points.sort("point", maintain_order=True).get_column("competition_id").to_list()
    assert ordered == (["c", "a", "b"] if publication == "per-competition" else ["c", "b", "a"])


def _fide_event(folder: Path, cid: str, day: str, modality: str, pairs: list[tuple[str, str, float]]) -> Path:
    path = folder / f"{cid}.results.csv"
    lines = ["# Source: written by tests/tasks/test_editions.py",
             ("federation,competition_id,competition_name,start_date,end_date,round,player_a,player_b,score_a,status,"
              "modality")]
    lines += [f"fide,{cid},{cid},{day},{day},{r},{a},{b},{s},played,{modality}" for r, (a, b, s) in enumerate(pairs, 1)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def theirs_edition(db: Engine) -> int:
    """The latest edition of the first FIDE list in ``db``."""
    eds = warehouse.editions(db, "fide")
    return int(eds.sort("as_of", "edition").get_column("edition")[-1])


def test_fide_rapid_and_blitz_events_move_only_their_own_lists(tmp_path: Path) -> None:
    """FIDE publishes three lists; a competition goes to the list of its modality."""
    config = federation_config("fide")
    assert config["lists"] == ["standard", "rapid", "blitz"]
    seed = pl.DataFrame({"player_id": ["1", "2", "3", "4"], "rating": [2000.0, 1900.0, 1800.0, 1700.0],
                         "games": [100] * 4, "k": [20] * 4, "as_of": date(2025, 9, 1)})
    pairs = [("1", "2", 0.0), ("3", "4", 1.0), ("1", "3", 0.5)]
    paths = [_fide_event(tmp_path, "STD", "2025-10-04", "standard", pairs)]
    only_standard = batch_from_interchange(paths, "fide")
    paths += [_fide_event(tmp_path, "RAP", "2025-10-11", "rapid", pairs),
              _fide_event(tmp_path, "BLZ", "2025-10-12", "blitz", pairs)]
    everything = batch_from_interchange(paths, "fide")
    # The rapid and blitz files print the players' own rapid / blitz ratings.
    declared = pl.DataFrame({"federation": "fide", "player_id": ["1", "2", "3", "4"],
                             "declared_rating": [1500.0, 1600.0, 1700.0, 1800.0]})

    results = {}
    for label, batch in (("standard only", only_standard), ("all three", everything)):
        db = warehouse.get_engine(f"sqlite:///{tmp_path / (label.replace(' ', '-') + '.db')}")
        warehouse.load_seed(db, "fide", seed, source="s.ratings.csv", source_sha256="s")
        fed_batch = replace(_fed_batch(batch), players=conform(declared, PLAYERS_SCHEMA))
        rated, done = _rate_and_publish(db, "fide", fed_batch, config, date(2025, 11, 2))
        results[label] = (db, rated, done)

    db, rated, done = results["all three"]
    assert set(rated.lists) == {"standard", "rapid", "blitz"}
    for name, cid in (("standard", "STD"), ("rapid", "RAP"), ("blitz", "BLZ")):
        assert set(rated.lists[name].run.changes.get_column("competition_id").to_list()) == {cid}
    # The standard list is exactly what it is without the rapid and blitz events.
    alone_db = results["standard only"][0]
    assert_frame_equal(warehouse.rating_list(db, "fide", list_name="standard", first_list="standard"),
                       warehouse.rating_list(alone_db, "fide", list_name="standard", first_list="standard"))
    # ``ratings list`` shows the first list by default, another with --list.
    from typer.testing import CliRunner

    from flows.cli import app

    url = str(db.url)
    shown = CliRunner().invoke(app, ["list", "--federation", "fide", "--format", "csv", "--warehouse", url])
    assert shown.exit_code == 0, shown.output
    ours = pl.read_csv(shown.stdout.encode(), schema_overrides={"player_id": pl.Utf8})
    theirs = warehouse.rating_list(alone_db, "fide")
    assert ours.select("player_id", pl.col("rating").cast(pl.Float64)).rows() == theirs.select("player_id", "rating").rows()
    assert set(ours.get_column("edition")) == {theirs_edition(alone_db)}
    fast = CliRunner().invoke(app, ["list", "--federation", "fide", "--list", "blitz", "--format", "csv",
                                    "--warehouse", url])
    assert "BLZ" not in fast.stdout and fast.stdout != shown.stdout
    wrong = CliRunner().invoke(app, ["list", "--federation", "fide", "--list", "bullet", "--warehouse", url])
    assert wrong.exit_code == 1 and "publishes standard, rapid, blitz, not 'bullet'" in wrong.output
    # The rapid and blitz lists start from the files' ratings and move only with their own event.
    rapid = warehouse.rating_list(db, "fide", list_name="rapid", first_list="standard")
    blitz = warehouse.rating_list(db, "fide", list_name="blitz", first_list="standard")
    assert rapid.height == 4 and blitz.height == 4
    assert_frame_equal(rapid.select("player_id", "rating"), blitz.select("player_id", "rating"))
    assert rapid.filter(pl.col("player_id") == "3").get_column("rating").item() != 1700.0
    editions = warehouse.editions(db, "fide", all_lists=True, first_list="standard")
    assert sorted(editions.get_column("list_name").to_list()) == ["blitz", "rapid", "standard"]
    # Queries that name no list answer the first (warehouse.rating_list, the README's SQL).
    assert warehouse.editions(db, "fide").height == 1
    assert_frame_equal(warehouse.rating_list(db, "fide"), warehouse.rating_list(alone_db, "fide"))
    assert set(editions.get_column("as_of").to_list()) == {date(2025, 11, 1)}


def test_a_withdrawn_last_competition_is_corrected_not_unpublished(tmp_path: Path) -> None:
    """The last published championship is corrected into a rejected one: its players' figures go back."""
    db = warehouse.get_engine(f"sqlite:///{tmp_path / 'w.db'}")
    seed = pl.DataFrame({"player_id": ["1", "2", "3"], "rating": [1100.0, 1200.0, 1000.0], "games": [60] * 3,
                         "as_of": date(2025, 9, 1), "last_played": "2024-25"})
    warehouse.load_seed(db, "ajusc", seed, source="s.ratings.csv", source_sha256="s")
    config = federation_config("ajusc")
    _rate_and_publish(db, "ajusc", _one("A", "2025-10-04", [("1", "2", 1.0)]), config, date(2025, 10, 5))
    _rate_and_publish(db, "ajusc", _one("C", "2025-12-06", [("1", "3", 0.0)]), config, date(2025, 12, 7))
    withdrawn = _one("C", "2025-12-06", [("1", "3", 0.0)], version="b")
    withdrawn = replace(withdrawn, competitions=withdrawn.competitions.with_columns(pl.lit("rejected").alias("status")))
    _, done = _rate_and_publish(db, "ajusc", withdrawn, config, date(2026, 1, 10))
    assert done.correcting == 3 and done.numbers == [3]
    diff = warehouse.edition_corrections(db, "ajusc")
    assert set(diff.get_column("player_id").to_list()) == {"1", "3"}
    assert set(diff.get_column("edition").to_list()) == {2}
    now = warehouse.rating_list(db, "ajusc", edition=3)
    assert_frame_equal(now.select("player_id", "rating"),
                       warehouse.rating_list(db, "ajusc", edition=1).select("player_id", "rating"))


def test_a_night_after_everything_rated_starts_from_the_stored_state(tmp_path: Path) -> None:
    """The common night reads three counts and the ``ratings`` table, never the rating changes,
    and writes only the new rows; the rows equal a full re-rate's."""
    seed = pl.DataFrame({"player_id": ["1", "2", "3"], "name": ["Anna", "Berta", "Carme"],
                         "rating": [1100.0, 1200.0, 1000.0], "games": [60, 5, 60], "as_of": date(2025, 9, 1),
                         "last_played": ["2024-25", None, "2021-22"], "status": [None, None, "inactive"]})
    config = federation_config("ajusc")
    dbs = {}
    for label in ("incremental", "full"):
        db = warehouse.get_engine(f"sqlite:///{tmp_path / label}.db")
        warehouse.load_seed(db, "ajusc", seed, source="s.ratings.csv", source_sha256="s", edition=190)
        _rate_and_publish(db, "ajusc", _one("A", "2025-10-04", [("1", "2", 1.0), ("2", "4", 0.5)]), config,
                          date(2025, 10, 5))
        dbs[label] = db
    db = dbs["incremental"]
    stored = Stored.from_warehouse(db, "ajusc")

    def unread() -> pl.DataFrame:
        raise AssertionError("an appending night must not read the stored rating changes")

    night = _one("C", "2026-10-03", [("1", "4", 0.0), ("2", "3", 1.0)])
    history = warehouse.history(db, "ajusc")
    rated = rate(history, night, config, date(2026, 10, 4), stored=replace(stored, read_changes=unread))
    assert rated.cut == "2026-10-03|2026-10-03|C"
    assert rated.derived_offset == (stored.n_changes, stored.n_explanations)
    assert set(rated.run.changes.get_column("competition_id").to_list()) == {"C"}
    full = rate(warehouse.history(dbs["full"], "ajusc"), night, config, date(2026, 10, 4))
    assert_frame_equal(rated.run.changes, full.run.changes.filter(pl.col("competition_id") == "C"))
    assert_frame_equal(rated.run.ratings, full.run.ratings)


def _random_night(rng: random.Random, day: date, players: list[str], version: str = "a") -> FederationBatch:
    who = rng.sample(players, rng.randint(2, 5))
    games = [(a, b, rng.choice([0.0, 0.5, 1.0])) for a, b in itertools.pairwise(who)]
    return _one(f"K{day:%m%d}", day.isoformat(), games, version)


def _rebuilt_diffs(db: Engine, rated: Rated, config: dict[str, object]) -> list[tuple[object, ...]]:
    """The oracle: every published AJUSC edition the run's changes can reach, rebuilt on its own
    from the rating changes (``engine.states_at``, ``engine.rating_list``) and compared with
    what it published, as last corrected: ``(edition, edition_as_of, player_id, name,
    published, now)`` of each figure that differs, by edition and player."""
    points = engine.competition_points(rated.competitions, "per-competition")
    changes = rated.run.changes.join(points, on="competition_id", how="inner", maintain_order="left")
    reached = warehouse.editions(db, "ajusc").filter(pl.col("covers").is_not_null())
    if rated.cut is not None:
        reached = reached.filter(pl.col("covers") >= rated.cut)
    fixes = warehouse.edition_corrections(db, "ajusc")
    names = dict(rated.players.select("player_id", "name").filter(pl.col("name").is_not_null()).iter_rows())
    wanted = sorted(set(reached.get_column("covers").to_list()))
    states = dict(engine.states_at("ajusc", rated.start_state, changes, wanted, config=config))
    found = []
    for row in reached.iter_rows(named=True):
        state = states[row["covers"]]
        state = state.with_columns(pl.coalesce("name", pl.col("player_id").replace_strict(
            names, default=None, return_dtype=pl.Utf8)).alias("name"))
        now = {pid: (name, rating) for pid, name, rating in engine.rating_list(
            "ajusc", state, as_of=row["as_of"], config=config).select("player_id", "name", "rating").iter_rows()}
        listed = warehouse.rating_list(db, "ajusc", edition=row["edition"])
        then = dict(listed.select("player_id", "rating").iter_rows())
        for pid, fixed in fixes.filter(pl.col("edition") == row["edition"]).select("player_id", "now").iter_rows():
            if fixed is not None or pid in then:
                then[pid] = fixed
        for pid in sorted(set(then) | set(now)):
            name, figure = now.get(pid, (None, None))
            if then.get(pid) != figure:
                found.append((row["edition"], row["as_of"], pid, name, then.get(pid), figure))
    return sorted(found, key=lambda r: (r[0], r[2]))


@given(seed=st.integers(0, 100_000))
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_published_editions_checked_in_one_pass_as_rebuilt_one_by_one(tmp_path_factory: pytest.TempPathFactory,
                                                                       seed: int) -> None:
    """Late, corrected and withdrawn competitions: the diffs ``publication.plan_editions`` finds
    for the published editions (in one pass over the changes) equal those of each edition
    rebuilt on its own from the rating changes (:func:`_rebuilt_diffs`), corrections already
    published included; newcomers, a season change and a full re-rate too."""
    rng = random.Random(seed)
    db = warehouse.get_engine(f"sqlite:///{tmp_path_factory.mktemp('one') / 'w.db'}")
    players = ["1", "2", "3", "4", "5", "6", "7"]
    seed_list = pl.DataFrame({"player_id": players[:4], "rating": [1100.0, 1200.0, 1000.0, 1500.0],
                              "games": [60, 8, 60, 30], "as_of": date(2025, 6, 1),
                              "last_played": ["2024-25", None, "2022-23", "2024-25"]})
    warehouse.load_seed(db, "ajusc", seed_list, source="s.ratings.csv", source_sha256="s", edition=10)
    config = federation_config("ajusc")
    days = sorted({date(2025, 6, 1) + timedelta(days=rng.randrange(0, 300)) for _ in range(6)})
    nights = {d: _random_night(rng, d, players) for d in days}
    for d in days[:-2]:
        _rate_and_publish(db, "ajusc", nights[d], config, d)
    late = [nights[days[-1]], nights[days[-2]]]           # arrive out of order
    middle = days[len(days) // 2]
    corrected = _random_night(rng, middle, players, version="b")
    withdrawn = replace(_random_night(rng, days[1], players, version="c"), competitions=nights[days[1]]
                        .competitions.with_columns(pl.lit("rejected").alias("status"), pl.lit("Kc").alias("source"),
                                                   pl.lit("Kc").alias("source_sha256")))
    for batch in (*late, corrected, withdrawn):
        for full in (False, True):
            rated = rate(warehouse.history(db, "ajusc"), batch, config, days[-1],
                         stored=None if full else Stored.from_warehouse(db, "ajusc"))
            plan = plan_editions(db, "ajusc", rated, config, days[-1])
            assert plan.corrections.sort("edition", "player_id", maintain_order=True).rows() == \
                _rebuilt_diffs(db, rated, config)
        _rate_and_publish(db, "ajusc", batch, config, days[-1])
