"""FIDE's rapid and blitz lists: entry at the standard rating, the adjustment of 1 October 2022.

Rules: ../shared/rules/RULES.md, "FIDE rapid and blitz lists" ("A player enters each
list at his standard rating when he has one"; "On that date a one-off adjustment
raised every rapid or blitz rating more than 100 below the player's standard rating
to standard - 100"). Runs ``rating.rate`` on small interchange files written
here, through the warehouse's history, without Prefect.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import date
from pathlib import Path
from typing import Any

import polars as pl
from polars.testing import assert_frame_equal

import warehouse
from engine import RatingRun, fide_elo
from flows.config import federation_config
from formats.schema import PLAYERS_SCHEMA, conform
from publication import apply_editions
from rating import Rated, StandardInForce, rate
from tasks.ingest import FederationBatch
from tests.warehouse.conftest import batch_from_interchange
from warehouse.site import site_editions, site_entries, site_lines

Pairs = list[tuple[str, str, float]]


def _event(folder: Path, cid: str, day: str, modality: str, pairs: Pairs) -> Path:
    path = folder / f"{cid}.results.csv"
    lines = ["# Source: written by tests/tasks/test_fide_lists.py",
             ("federation,competition_id,competition_name,start_date,end_date,round,player_a,player_b,score_a,status,"
              "modality")]
    lines += [f"fide,{cid},{cid},{day},{day},{r},{a},{b},{s},played,{modality}" for r, (a, b, s) in enumerate(pairs, 1)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _rate(tmp_path: Path, seed: pl.DataFrame, events: list[tuple[str, str, str, Pairs]],
          declared: dict[str, float] | None = None, name: str = "w") -> Rated:
    db = warehouse.get_engine(f"sqlite:///{tmp_path / (name + '.db')}")
    warehouse.load_seed(db, "fide", seed, source="s.ratings.csv", source_sha256="s")
    batch = batch_from_interchange([_event(tmp_path, *e) for e in events], "fide")
    fed = FederationBatch(federation="fide", files=batch.files, competitions=batch.competitions,
                          players=batch.players, games=batch.games, byes=batch.byes, findings=batch.findings)
    if declared:
        players = pl.DataFrame({"federation": "fide", "player_id": list(declared),
                                "declared_rating": list(declared.values())})
        fed = replace(fed, players=conform(players, PLAYERS_SCHEMA))
    return rate(warehouse.history(db, "fide"), fed, federation_config("fide"), date(2026, 1, 1))


def _row(changes: pl.DataFrame, cid: str, player: str) -> dict[str, Any]:
    return changes.filter((pl.col("competition_id") == cid) & (pl.col("player_id") == player)).row(0, named=True)


SEED = pl.DataFrame({"player_id": ["1", "2", "3", "4"], "rating": [2000.0, 1900.0, 1800.0, 1700.0],
                     "games": [100] * 4, "k": [20] * 4, "as_of": date(2025, 9, 1)})


def test_a_player_enters_the_rapid_list_at_his_standard_rating_in_force(tmp_path: Path) -> None:
    events = [
        ("STD1", "2025-09-06", "standard", [("1", "2", 1.0), ("3", "4", 1.0)]),   # the October list
        ("STD2", "2025-10-18", "standard", [("1", "3", 1.0), ("2", "4", 0.0)]),   # the November list
        ("RAP", "2025-10-11", "rapid", [("1", "5", 1.0), ("1", "4", 1.0), ("2", "3", 0.5), ("4", "5", 0.5)]),
    ]
    rated = _rate(tmp_path, SEED, events)
    standard = rated.lists["standard"].run.changes
    rapid = rated.lists["rapid"].run.changes
    # The rapid event starts on 11 October: the October standard list is in force, not November's.
    for player in ("1", "2", "3", "4"):
        october = _row(standard, "STD1", player)["rating_after"]
        assert _row(standard, "STD2", player)["rating_after"] != october
        assert _row(rapid, "RAP", player)["rating_before"] == october
    # Player 5 has no standard rating: he enters the rapid list unrated.
    newcomer = _row(rapid, "RAP", "5")
    assert newcomer["rating_before"] is None and newcomer["rating_after"] is None
    ratings = rated.lists["rapid"].run.ratings
    assert ratings.filter(pl.col("player_id") == "5").get_column("rating").item() is None
    assert sorted(ratings.get_column("player_id").to_list()) == ["1", "2", "3", "4", "5"]


def test_a_rating_the_files_declare_on_the_list_wins_over_the_standard_one(tmp_path: Path) -> None:
    events = [("RAP", "2025-10-11", "rapid", [("1", "2", 0.5), ("3", "4", 0.5)])]
    rated = _rate(tmp_path, SEED, events, declared={"1": 1500.0, "3": 0.0})
    rapid = rated.lists["rapid"].run.changes
    assert _row(rapid, "RAP", "1")["rating_before"] == 1500.0   # the file prints his rapid rating
    assert _row(rapid, "RAP", "2")["rating_before"] == 1900.0   # none printed: his standard rating
    assert _row(rapid, "RAP", "3")["rating_before"] == 1800.0   # 0 is "unrated": his standard rating


def test_the_standard_list_does_not_move_with_the_rapid_and_blitz_lists(tmp_path: Path) -> None:
    standard_events = [("STD1", "2025-09-06", "standard", [("1", "2", 1.0), ("3", "4", 1.0)])]
    other = [("RAP", "2025-10-11", "rapid", [("1", "2", 0.0)]), ("BLZ", "2025-10-12", "blitz", [("3", "4", 0.0)])]
    alone = _rate(tmp_path, SEED, standard_events, name="alone").lists["standard"].run
    together = _rate(tmp_path, SEED, standard_events + other, name="together").lists["standard"].run
    assert_frame_equal(together.changes, alone.changes)
    assert_frame_equal(together.ratings, alone.ratings)


ADJUST_SEED = pl.concat([SEED, pl.DataFrame({"player_id": ["5"], "rating": [1600.0], "games": [100], "k": [20],
                                              "as_of": date(2025, 9, 1)})], how="vertical_relaxed",
                        ).with_columns(pl.lit(date(2022, 8, 1)).alias("as_of"))


def test_the_adjustment_of_1_october_2022_raises_rapid_ratings_to_standard_minus_100(tmp_path: Path) -> None:
    events = [
        ("STD", "2022-09-03", "standard", [("1", "4", 1.0), ("2", "3", 0.0)]),   # the October 2022 list
        ("R1", "2022-09-10", "rapid", [("1", "2", 0.5), ("3", "4", 0.5)]),
        ("R2", "2022-10-15", "rapid", [("1", "2", 0.5), ("5", "4", 0.5)]),
        ("R3", "2022-11-12", "rapid", [("1", "2", 0.5)]),
    ]
    # Rapid ratings the September file prints: 1 and 3 far below their standard ratings.
    declared = {"1": 1850.0, "2": 1850.0, "3": 1500.0, "4": 1500.0}
    rated = _rate(tmp_path, ADJUST_SEED, events, declared=declared)
    standard = StandardInForce.of(ADJUST_SEED, rated.lists["standard"].run.changes).on(date(2022, 10, 1))
    in_force = dict(standard.iter_rows())
    assert in_force["1"] > 2000.0 and 1850.0 < in_force["2"] < 1900.0  # the October list moved them
    rapid = rated.lists["rapid"].run.changes
    # 30 September 2022: the rapid ratings as the September event left them (draws: unchanged).
    assert [_row(rapid, "R1", p)["rating_after"] for p in "1234"] == [1850.0, 1850.0, 1500.0, 1500.0]
    # From October 2022: 1 is more than 100 below standard (raised), 2 is not (kept).
    assert _row(rapid, "R2", "1")["rating_before"] == in_force["1"] - 100.0
    assert _row(rapid, "R2", "2")["rating_before"] == 1850.0
    assert _row(rapid, "R3", "1")["rating_before"] == _row(rapid, "R2", "1")["rating_after"]
    # A player first on the rapid list after the cut enters it at his standard rating then.
    assert _row(rapid, "R2", "5")["rating_before"] == in_force["5"] == 1600.0
    # A player who does not play after the cut keeps his adjusted rating on the list.
    ratings = dict(rated.lists["rapid"].run.ratings.select("player_id", "rating").iter_rows())
    assert ratings["3"] == in_force["3"] - 100.0
    assert ratings["4"] == in_force["4"] - 100.0
    # The October 2022 rules apply after the cut (K 40 for fewer than 30 games), the flat K 20 before.
    assert _row(rapid, "R1", "1")["k"] == 20.0
    assert {_row(rapid, "R2", "1")["rule_set"], _row(rapid, "R1", "1")["rule_set"]} == {
        "fide-rapid-2022-10", "fide-rapid-2022"}
    # Every rapid event rated once, in order; the standard list is untouched by the cut.
    assert rapid.get_column("competition_id").unique(maintain_order=True).to_list() == ["R1", "R2", "R3"]
    alone = _rate(tmp_path, ADJUST_SEED, events[:1], name="alone").lists["standard"].run
    assert_frame_equal(rated.lists["standard"].run.ratings, alone.ratings)


def test_a_history_that_does_not_cross_the_cut_is_rated_in_one_run(tmp_path: Path) -> None:
    events = [("R1", "2022-10-15", "rapid", [("1", "2", 0.5)])]
    rated = _rate(tmp_path, ADJUST_SEED, events, declared={"1": 1850.0, "2": 1850.0})
    assert "segments" not in (rated.lists["rapid"].full_reason or "")
    assert _row(rated.lists["rapid"].run.changes, "R1", "1")["rating_before"] == 1850.0


def test_the_cut_holds_when_the_history_comes_from_the_warehouse(tmp_path: Path) -> None:
    """A night that adds a rapid event after the cut, over a history that crosses it, and a
    corrected September event sent again: the same lists as everything rated at once."""
    events = [
        ("STD", "2022-09-03", "standard", [("1", "4", 1.0), ("2", "3", 0.0)]),
        ("R1", "2022-09-10", "rapid", [("1", "2", 0.5), ("3", "4", 0.5)]),
        ("R2", "2022-10-15", "rapid", [("1", "2", 0.5)]),
    ]
    later = [("R1", "2022-09-10", "rapid", [("1", "2", 1.0), ("3", "4", 0.5)]),   # corrected
             ("R3", "2022-11-12", "rapid", [("1", "3", 0.0)])]
    declared = {"1": 1850.0, "2": 1850.0, "3": 1500.0, "4": 1500.0}
    config = federation_config("fide")
    db = warehouse.get_engine(f"sqlite:///{tmp_path / 'nights.db'}")
    warehouse.load_seed(db, "fide", ADJUST_SEED, source="s.ratings.csv", source_sha256="s")
    players = conform(pl.DataFrame({"federation": "fide", "player_id": list(declared),
                                    "declared_rating": list(declared.values())}), PLAYERS_SCHEMA)
    for night, evs in (("one", events), ("two", later)):
        (tmp_path / night).mkdir()
        batch = batch_from_interchange([_event(tmp_path / night, *e) for e in evs], "fide")
        rated = rate(warehouse.history(db, "fide"), replace(_fed(batch), players=players), config, date(2026, 1, 1))
        warehouse.load_batch(db, warehouse.LoadBatch(
            federation="fide", files=batch.files, competitions=batch.competitions, players=players,
            games=batch.games, byes=batch.byes, findings=batch.findings, changes=rated.run.changes,
            explanations=rated.run.explanations, ratings=rated.run.ratings,
            derived_offset=rated.derived_offset, derived_basis=rated.basis,
        ))
    at_once = _rate(tmp_path, ADJUST_SEED, [events[0], later[0], events[2], later[1]], declared=declared, name="once")
    for name in ("standard", "rapid"):
        assert_frame_equal(rated.lists[name].run.changes, at_once.lists[name].run.changes)
        assert_frame_equal(rated.lists[name].run.ratings, at_once.lists[name].run.ratings)
    assert _row(rated.lists["rapid"].run.changes, "R1", "1")["score"] == 1.0


def _fed(batch: warehouse.LoadBatch) -> FederationBatch:
    return FederationBatch(federation="fide", files=batch.files, competitions=batch.competitions,
                           players=batch.players, games=batch.games, byes=batch.byes, findings=batch.findings)


def _rapid_across_the_cut(tmp_path: Path, events: list[tuple[str, str, str, Pairs]],
                          ) -> tuple[RatingRun, dict[str, float]]:
    """The rapid list's run of ``events`` (1 to 4 declare their rapid ratings), and the standard
    ratings in force on the adjustment's day."""
    declared = {"1": 1850.0, "2": 1850.0, "3": 1500.0, "4": 1500.0}
    rated = _rate(tmp_path, ADJUST_SEED, events, declared=declared)
    in_force = dict(StandardInForce.of(ADJUST_SEED, rated.lists["standard"].run.changes)
                    .on(date(2022, 10, 1)).iter_rows())
    return rated.lists["rapid"].run, in_force


def test_games_pooled_before_the_cut_count_towards_an_initial_rating_after_it(tmp_path: Path) -> None:
    """Player 6 (no standard rating) plays 3 rated opponents in September 2022 and 2 in
    November: 5 games, an initial rating in the December 2022 list (RULES.md: at least
    5 games pooled over at most 26 months)."""
    events = [
        ("STD", "2022-09-03", "standard", [("1", "4", 1.0), ("2", "3", 0.0)]),
        ("R1", "2022-09-10", "rapid", [("6", "1", 0.0), ("6", "2", 0.5), ("6", "3", 1.0), ("1", "2", 0.5),
                                       ("3", "4", 0.5)]),
        ("R3", "2022-11-12", "rapid", [("6", "4", 0.5), ("6", "1", 0.0), ("1", "4", 0.5)]),
    ]
    rapid, in_force = _rapid_across_the_cut(tmp_path, events)
    # After the cut 1 and 4 are at their adjusted ratings (standard - 100).
    r1, r4 = in_force["1"] - 100.0, in_force["4"] - 100.0
    assert _row(rapid.changes, "R3", "1")["rating_before"] == r1
    expected = fide_elo.initial_rating([1850.0, 1850.0, 1500.0, r4, r1], [0.0, 0.5, 1.0, 0.5, 0.0],
                                       rule_set="fide-rapid-2022-10")
    assert expected.rating is not None
    assert _row(rapid.changes, "R3", "6")["rating_after"] == expected.rating
    assert _row(rapid.changes, "R1", "6")["rating_after"] is None
    # The replay leaves no trace: each event's rows once, no stand-in anywhere.
    for frame in (rapid.changes, rapid.explanations, rapid.ratings):
        assert not frame.get_column("player_id").str.starts_with("~pool~").any()
    assert rapid.changes.group_by("competition_id", "player_id").len().get_column("len").max() == 1
    assert rapid.changes.get_column("competition_id").unique(maintain_order=True).to_list() == ["R1", "R3"]
    assert dict(rapid.ratings.select("player_id", "rating").iter_rows())["6"] == expected.rating


def test_a_game_that_moved_no_rating_before_the_cut_still_counts_after_it(tmp_path: Path) -> None:
    """Player 6 (no standard rating) plays 1, 2 and 3 in September 2022, their only rapid games
    there: games against an unrated player count for no rated player, so none of them has a rating
    change in R1, yet the three games are in 6's pool. With 2 more in November: 5 games, an initial
    rating in the December 2022 list (RULES.md: at least 5 games pooled over at most 26 months).
    The cut used to carry only the games whose opponent had a change row in the event, and left
    6 unrated (found by the property test of nights across the adjustment)."""
    events = [
        ("STD", "2022-09-03", "standard", [("1", "4", 1.0), ("2", "3", 0.0)]),
        ("R1", "2022-09-10", "rapid", [("6", "1", 0.0), ("2", "6", 0.5), ("6", "3", 1.0)]),
        ("R3", "2022-11-12", "rapid", [("6", "4", 0.5), ("1", "6", 1.0), ("1", "4", 0.5)]),
    ]
    rapid, in_force = _rapid_across_the_cut(tmp_path, events)
    assert rapid.changes.filter((pl.col("competition_id") == "R1") & (pl.col("player_id") != "6")).height == 0
    # 1 is on the rapid list at the cut (raised to standard - 100); 4 enters it after, at his declared 1500.
    r1 = in_force["1"] - 100.0
    expected = fide_elo.initial_rating([1850.0, 1850.0, 1500.0, 1500.0, r1], [0.0, 0.5, 1.0, 0.5, 0.0],
                                       rule_set="fide-rapid-2022-10")
    assert expected.rating is not None
    assert _row(rapid.changes, "R3", "6")["rating_after"] == expected.rating
    assert dict(rapid.ratings.select("player_id", "rating").iter_rows())["6"] == expected.rating


def test_the_published_rapid_lists_carry_the_adjustment_from_october_2022(tmp_path: Path) -> None:
    """The editions are rebuilt from the change rows; the adjustment is none, yet the
    October 2022 list and every later one show it, also for players who do not play again."""
    events = [
        ("STD", "2022-09-03", "standard", [("1", "4", 1.0), ("2", "3", 0.0)]),
        ("R1", "2022-09-10", "rapid", [("1", "2", 0.5), ("3", "4", 0.5)]),
        ("R3", "2022-11-12", "rapid", [("1", "2", 1.0)]),
    ]
    declared = {"1": 1850.0, "2": 1850.0, "3": 1500.0, "4": 1500.0}
    config = federation_config("fide")
    db = warehouse.get_engine(f"sqlite:///{tmp_path / 'published.db'}")
    warehouse.load_seed(db, "fide", ADJUST_SEED, source="s.ratings.csv", source_sha256="s")
    players = conform(pl.DataFrame({"federation": "fide", "player_id": list(declared),
                                    "declared_rating": list(declared.values())}), PLAYERS_SCHEMA)
    batch = batch_from_interchange([_event(tmp_path, *e) for e in events], "fide")
    rated = rate(warehouse.history(db, "fide"), replace(_fed(batch), players=players), config, date(2023, 1, 2))
    warehouse.load_batch(db, warehouse.LoadBatch(
        federation="fide", files=batch.files, competitions=batch.competitions, players=players,
        games=batch.games, byes=batch.byes, findings=batch.findings, changes=rated.run.changes,
        explanations=rated.run.explanations, ratings=rated.run.ratings,
        derived_offset=rated.derived_offset, derived_basis=rated.basis,
    ))
    apply_editions(db, "fide", rated, config, date(2023, 1, 2))
    in_force = dict(StandardInForce.of(ADJUST_SEED, rated.lists["standard"].run.changes)
                    .on(date(2022, 10, 1)).iter_rows())

    def rapid(day: date) -> dict[str, float]:
        frame = warehouse.rating_list(db, "fide", as_of=day, list_name="rapid", first_list="standard")
        return dict(frame.select("player_id", "rating").iter_rows())

    assert rapid(date(2022, 10, 1)) == {"1": in_force["1"] - 100.0, "2": 1850.0,
                                        "3": in_force["3"] - 100.0, "4": in_force["4"] - 100.0}
    december = rapid(date(2022, 12, 1))
    after_r3 = {p: _row(rated.lists["rapid"].run.changes, "R3", p)["rating_after"] for p in ("1", "2")}
    assert december == {**after_r3, "3": in_force["3"] - 100.0, "4": in_force["4"] - 100.0}
    assert after_r3["1"] > in_force["1"] - 100.0
    # The site replays the lines it has already read (site_lines) into the same editions of
    # each of the three lists as reading them again does.
    stored = site_lines(db, "fide")
    assert stored.get_column("list_id").n_unique() >= 3
    every = site_editions(db, "fide").get_column("edition").to_list()
    for wanted in (None, every[-1:], every[:2]):  # the last rapid edition replays the two before it
        again = site_entries(db, "fide", editions=wanted)
        assert again.height
        assert_frame_equal(site_entries(db, "fide", editions=wanted, lines=stored), again)


def test_a_results_file_without_birth_years_leaves_a_juniors_k_factor(tmp_path: Path) -> None:
    """A junior's K-factor (40: under 18 and below 2400, RULES.md "FIDE" K-factor) comes from the
    birth year the history's files gave. Tonight's results file names him without one (an
    interchange results file has no birth year): the whole history is re-rated (FIDE re-rates
    from the seed) and his earlier games keep K = 40, as the warehouse keeps his birth year
    (nulls never erase). Laying tonight's players over the history by their latest row used to
    blank it: K 20, and a correcting edition of every published list he was on."""
    db = warehouse.get_engine(f"sqlite:///{tmp_path / 'w.db'}")
    warehouse.load_seed(db, "fide", SEED.drop("k"), source="s.ratings.csv", source_sha256="s")
    first = batch_from_interchange([_event(tmp_path, "A", "2025-10-10", "standard", [("3", "1", 1.0)])], "fide")
    players = conform(pl.DataFrame({"federation": "fide", "player_id": ["3"], "birth_year": [2012]}), PLAYERS_SCHEMA)
    fed = FederationBatch(federation="fide", files=first.files, competitions=first.competitions,
                          players=pl.concat([first.players, players], how="diagonal_relaxed"), games=first.games,
                          byes=first.byes, findings=first.findings)
    earlier = rate(warehouse.history(db, "fide"), fed, federation_config("fide"), date(2025, 11, 1))
    assert _row(earlier.run.changes, "A", "3")["k"] == 40.0
    warehouse.load_batch(db, warehouse.LoadBatch(
        "fide", first.files, earlier.competitions.filter(pl.col("competition_id") == "A"), fed.players,
        first.games, first.byes, first.findings))
    assert warehouse.history(db, "fide").players.filter(pl.col("player_id") == "3")["birth_year"].to_list() == [2012]
    tonight = batch_from_interchange([_event(tmp_path, "B", "2025-11-10", "standard", [("3", "2", 0.5)])], "fide")
    assert tonight.players.filter(pl.col("player_id") == "3")["birth_year"].to_list() in ([None], [])
    night = FederationBatch(federation="fide", files=tonight.files, competitions=tonight.competitions,
                            players=tonight.players, games=tonight.games, byes=tonight.byes, findings=tonight.findings)
    again = rate(warehouse.history(db, "fide"), night, federation_config("fide"), date(2025, 12, 1))
    assert _row(again.run.changes, "A", "3") == _row(earlier.run.changes, "A", "3")
    assert _row(again.run.changes, "B", "3")["k"] == 40.0
