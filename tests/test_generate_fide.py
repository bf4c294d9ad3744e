"""The FIDE-shaped archive of the benchmark harness (``benchmarks/generate_fide.py``), on a small
archive: its shape, its files as the project's own readers read them, and its seed."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import polars as pl
import pytest

import formats
from benchmarks.generate_fide import (
    FIRST_ID,
    Archive,
    population_size,
    write_archive,
    write_night,
)
from engine.rulesets import FIDE_LISTS

GAMES = 30_000
SEED = 3
_IDS = {"player_a": pl.Utf8, "player_b": pl.Utf8}


@pytest.fixture(scope="module")
def archive(tmp_path_factory: pytest.TempPathFactory) -> Archive:
    return write_archive(tmp_path_factory.mktemp("fide"), GAMES, seed=SEED)


@pytest.fixture(scope="module")
def games(archive: Archive) -> pl.DataFrame:
    return pl.concat([pl.read_csv(p, schema_overrides=_IDS).with_columns(file=pl.lit(p.name))
                      for p in archive.results])


def _share(of: pl.Series) -> float:
    """The share of ``of`` (booleans) that is true."""
    return float(of.cast(pl.Float64).to_numpy().mean())


def _by_competition(games: pl.DataFrame, kind: str) -> pl.DataFrame:
    return games.filter(pl.col("competition_name").str.starts_with(kind)).group_by("competition_id").agg(
        players=pl.concat_list("player_a", "player_b").explode().n_unique(),
        rounds=pl.col("round").unique().sort(), games=pl.len(),
        pairs=pl.concat_list(pl.min_horizontal("player_a", "player_b"),
                             pl.max_horizontal("player_a", "player_b")).n_unique(),
    )


def test_the_same_seed_writes_the_same_files(archive: Archive, tmp_path: Path) -> None:
    again = write_archive(tmp_path / "again", GAMES, seed=SEED)
    write_archive(tmp_path / "other", GAMES, seed=SEED + 1)
    folder = archive.results[0].parent
    names = sorted(p.name for p in folder.iterdir())
    assert len(names) > 20 and names == sorted(p.name for p in (tmp_path / "again").iterdir())
    for name in names:
        assert (folder / name).read_bytes() == (tmp_path / "again" / name).read_bytes(), name
    def counts(a: Archive) -> tuple[object, ...]:
        return a.games, a.competitions, a.players, a.rated, a.first_day, a.last_day
    assert counts(again) == counts(archive)
    for name in (names[0], "fide.ratings.csv", "fide.players.csv"):
        assert (tmp_path / "other" / name).read_bytes() != (folder / name).read_bytes(), name


def test_the_archive_is_monthly_and_as_large_as_asked(archive: Archive, games: pl.DataFrame) -> None:
    assert games.height == archive.games and GAMES <= archive.games < GAMES * 1.1
    months = [p.name.removeprefix("fide-").removesuffix(".results.csv") for p in archive.results]
    assert months[0] == "2012-07" and months == sorted(months) and len(set(months)) == len(months)
    # A competition is dated within the month of its file (a FIDE rating period).
    in_month = games.select((pl.col("file").str.slice(5, 7) == pl.col("start_date").str.slice(0, 7))
                            & (pl.col("file").str.slice(5, 7) == pl.col("end_date").str.slice(0, 7))
                            & (pl.col("start_date") <= pl.col("end_date")))
    assert in_month.to_series().all()
    assert archive.first_day == date(2012, 7, 1) and str(archive.last_day) == games["end_date"].max()


def test_opens_have_50_to_300_players_over_9_rounds(games: pl.DataFrame) -> None:
    opens = _by_competition(games, "Open")
    assert opens.height > 20
    assert opens["players"].is_between(50, 300).all()
    assert (opens["rounds"].list.len() == 9).all() and (opens["rounds"].list.max() == 9).all()
    # An odd field leaves one player without a game each round: (players // 2) boards a round.
    assert (opens["games"] == opens["players"] // 2 * 9).all()
    assert opens["players"].n_unique() > 10   # sizes vary


def test_opens_are_paired_by_score_and_rarely_repeat_a_pairing(games: pl.DataFrame) -> None:
    opens = games.filter(pl.col("competition_name").str.starts_with("Open"))
    sides = pl.concat([
        opens.select("competition_id", "round", "player_a", "player_b", player="player_a", points="score_a"),
        opens.select("competition_id", "round", "player_a", "player_b", player="player_b",
                     points=1.0 - pl.col("score_a")),
    ]).sort("round").with_columns(before=pl.col("points").cum_sum().over("competition_id", "player") - pl.col("points"))
    gap = sides.filter(pl.col("round") > 1).group_by("competition_id", "round", "player_a", "player_b").agg(
        gap=pl.col("before").max() - pl.col("before").min())["gap"]
    assert _share(gap <= 1.0) > 0.95   # random pairings: about half
    repeats = opens.group_by("competition_id", pl.min_horizontal("player_a", "player_b").alias("lo"),
                             pl.max_horizontal("player_a", "player_b").alias("hi")).len()
    assert _share(repeats["len"] > 1) < 0.01


def test_round_robins_pair_every_pair_once(games: pl.DataFrame) -> None:
    robins = _by_competition(games, "Round robin")
    assert robins.height > 5
    assert (robins["players"] == 10).all() and (robins["games"] == 45).all() and (robins["pairs"] == 45).all()
    assert (robins["rounds"].list.len() == 9).all()


def test_every_fide_list_occurs(games: pl.DataFrame) -> None:
    """The modality is the FIDE list a competition is rated on (engine.rulesets.list_of)."""
    assert set(games["modality"]) == set(FIDE_LISTS)
    for kind in ("Open", "Round robin"):
        assert set(games.filter(pl.col("competition_name").str.starts_with(kind))["modality"]) == set(FIDE_LISTS)


def test_results_are_drawn_with_draws_and_a_few_forfeits(games: pl.DataFrame) -> None:
    assert set(games["score_a"]) == {0.0, 0.5, 1.0}
    assert 0.1 < _share(games["score_a"] == 0.5) < 0.35
    assert 0.002 < _share(games["status"] == "forfeit") < 0.03
    assert set(games["status"]) == {"played", "forfeit"}


def test_no_player_plays_twice_in_one_round(games: pl.DataFrame) -> None:
    sides = pl.concat([games.select("competition_id", "round", player="player_a"),
                       games.select("competition_id", "round", player="player_b")])
    assert not sides.is_duplicated().any()
    assert not games.select(pl.col("player_a") == pl.col("player_b")).to_series().any()
    # Nor in two competitions of one month.
    entries = sides.unique().with_columns(month=pl.col("competition_id").str.slice(1, 6))
    assert entries.group_by("month", "player").agg(pl.col("competition_id").n_unique())["competition_id"].max() == 1


def test_newcomers_off_the_starting_list_arrive_through_games(archive: Archive, games: pl.DataFrame) -> None:
    assert archive.ratings is not None
    listed = set(pl.read_csv(archive.ratings, schema_overrides={"player_id": pl.Utf8})["player_id"])
    registered = set(pl.concat([pl.read_csv(p, schema_overrides={"player_id": pl.Utf8})
                                for p in archive.players_files])["player_id"])
    playing = set(games["player_a"]) | set(games["player_b"])
    newcomers = playing - listed
    assert len(listed) == archive.rated and str(FIRST_ID) in listed
    assert len(newcomers) > len(listed) / 2 and playing | listed == registered
    assert len(registered) == archive.players > 0.9 * population_size(GAMES)
    first_month = pl.concat([games.select(pl.col("player_a").alias("p"), "file"),
                             games.select(pl.col("player_b").alias("p"), "file")]).group_by("p").agg(
        pl.col("file").min()).filter(pl.col("p").is_in(list(newcomers)))
    # They keep arriving: in every month but the first, some play their first game.
    assert first_month["file"].n_unique() >= len(archive.results) - 2


def test_every_file_reads_without_a_finding(archive: Archive, games: pl.DataFrame) -> None:
    read = 0
    for path in archive.results:
        result = formats.read(path, federation="fide")
        assert result.format == "interchange-results" and result.findings.height == 0, result.findings.rows()
        read += result.games.height
    assert read == games.height
    for path in archive.players_files:
        assert formats.read(path, federation="fide").findings.height == 0
    assert archive.ratings is not None
    assert formats.read_list(archive.ratings, federation="fide").ratings.height == archive.rated


def test_a_month_past_the_file_limit_goes_in_parts_competitions_whole(tmp_path: Path) -> None:
    """The readers take 50,000 players a file: a month with more entrants (a large archive's) is cut."""
    small = write_archive(tmp_path, 20_000, players=10_000, seed=SEED, players_per_file=400)
    assert any(p.name.endswith("-2.results.csv") for p in small.results) and len(small.players_files) > 1
    frames = [pl.read_csv(p, schema_overrides=_IDS) for p in small.results]
    owners = [set(f["competition_id"]) for f in frames]
    assert sum(map(len, owners)) == len(set().union(*owners)) == small.competitions
    for frame in frames:
        assert pl.concat([frame["player_a"], frame["player_b"]]).n_unique() <= 400
    assert all(pl.read_csv(p).height <= 400 for p in small.players_files)


def test_the_population_scales_with_the_games() -> None:
    assert [population_size(g) for g in (20_000_000, 1_000_000, 100_000, 2_000)] == [400_000, 20_000, 3_000, 3_000]


def test_the_night_is_the_month_after_with_competitions_of_its_own(archive: Archive, tmp_path: Path,
                                                                   games: pl.DataFrame) -> None:
    night = write_night(tmp_path, GAMES, after=archive.last_day, seed=SEED, night_seed=SEED + 1)
    frame = pl.concat([pl.read_csv(p, schema_overrides=_IDS) for p in night.results])
    assert 0 < night.competitions <= 50 and frame.height == night.games
    assert frame["competition_id"].str.starts_with("N").all()
    assert not set(frame["competition_id"]) & set(games["competition_id"])
    assert frame.select(pl.col("start_date").min()).item() > str(archive.last_day)
    population = {str(FIRST_ID + i) for i in range(population_size(GAMES))}
    assert set(frame["player_a"]) | set(frame["player_b"]) <= population
