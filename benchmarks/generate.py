"""Seeded generator of realistic federations of any size, for the benchmark harness.

A federation is a population of players whose strength and activity vary (a few play
every month, most a few times a year), and a calendar of competitions spread over
years: 4 to 200 players (most are small club events, a few are big opens), 3 to 15
rounds, random pairings, results drawn from the strength difference (logistic), with
each game's draws (chess often, Scrabble rarely, Go never), forfeits, and unrated
newcomers who are not on the starting list.

Everything is written in the interchange CSV of DESIGN.md (one ``*.results.csv`` per
federation holding every competition, a ``*.players.csv`` with declared ranks and
birth years, and the starting ``*.ratings.csv``), because a migration brings its
archive that way.

The same ``seed`` always gives the same files.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path

import numpy as np
import polars as pl

#: Per federation: mean and spread of true strength on its rating scale, draw rate,
#: starting-list rating floor, newcomer share, game name in the file.
PROFILES: dict[str, dict[str, float]] = {
    "ajusc": {"mean": 1150.0, "sd": 180.0, "draws": 0.02, "scale": 400.0, "unrated": 0.45},
    "fide": {"mean": 1750.0, "sd": 280.0, "draws": 0.30, "scale": 400.0, "unrated": 0.45},
    "egf": {"mean": 1500.0, "sd": 450.0, "draws": 0.0, "scale": 300.0, "unrated": 0.45},
}

RESULTS_HEADER = ["federation", "competition_id", "competition_name", "start_date", "end_date", "round",
                  "player_a", "player_b", "score_a", "status", "handicap", "results_public", "modality",
                  "event_class"]


@dataclass(frozen=True)
class Federation:
    """A generated federation's history, as frames in the interchange columns."""

    federation: str
    results: pl.DataFrame   #: one row per game (RESULTS_HEADER)
    players: pl.DataFrame   #: every player (interchange ``*.players.csv`` columns)
    seed: pl.DataFrame      #: the starting list (interchange ``*.ratings.csv`` columns)
    competitions: int       #: number of competitions
    first_day: date
    last_day: date

    @property
    def games(self) -> int:
        return self.results.height


def _grade(rating: np.ndarray) -> list[str]:
    """EGF grade of a GoR (2100 = 1d, 100 points a grade; 2000 = 1k)."""
    out = []
    for r in rating:
        g = int(np.floor((r - 2100.0) / 100.0))
        out.append(f"{min(g + 1, 7)}d" if g >= 0 else f"{min(-g, 30)}k")
    return out


#: The default population at most: the large federation of the benchmarks (1M games, 50,000 players). A starting
#: list is about half of it, within the readers' limit of 50,000 players a file (a 5M-game history
#: at games / 20 would need a list of 137,000, which ``ratings seed`` refuses).
MAX_PLAYERS = 50_000


def generate(federation: str, games: int, *, players: int | None = None, seed: int = 7,
             first_day: date = date(2012, 9, 1), id_prefix: str = "G",
             competitions_after: date | None = None, max_competitions: int | None = None,
             competition_prefix: str | None = None) -> Federation:
    """Generate about ``games`` games of ``federation`` (``ajusc``, ``fide``, ``egf``).

    Parameters
    ----------
    games
        Target number of games; the last competition may overshoot a little.
    players
        Population size (default: ``games / 20``, at least 50 and at most :data:`MAX_PLAYERS`).
    competitions_after
        Date the first competition starts (default ``first_day``): the incremental
        night uses it to make competitions later than the whole history.
    max_competitions
        Stop after this many competitions, whatever the games.
    competition_prefix
        Competition ids start with it (default ``id_prefix + "C"``). The incremental night
        keeps the history's players but needs competitions of its own: a night reusing the
        history's ids would be read as corrected versions of its first competitions.

    Examples
    --------
    >>> f = generate("fide", 2_000, seed=1)
    >>> f.games >= 2_000, f.results.get_column("score_a").is_in([0.0, 0.5, 1.0]).all()
    (True, True)
    """
    prof = PROFILES[federation]
    rng = np.random.default_rng(seed)
    n_players = players or min(max(50, games // 20), MAX_PLAYERS)
    strength = rng.normal(prof["mean"], prof["sd"], n_players)
    activity = rng.beta(0.7, 3.0, n_players) + 1e-4
    cdf = np.cumsum(activity) / activity.sum()
    ids = np.array([f"{id_prefix}{i + 1}" for i in range(n_players)])
    comps = _calendar(rng, games, competitions_after or first_day, max_competitions,
                      competition_prefix or id_prefix + "C")
    a, b, comp_index, rounds_col = _pairings(rng, comps, cdf)
    results = _results(rng, federation, comps, ids, strength, a, b, comp_index, rounds_col)
    rated = rng.random(n_players) >= prof["unrated"]
    seed_rating = np.round(strength + rng.normal(0, 40, n_players))
    seed_frame = pl.DataFrame({
        "federation": federation,
        "player_id": ids[rated],
        "name": [f"Player {i}" for i in ids[rated]],
        "rating": seed_rating[rated],
        "games": rng.integers(30, 400, int(rated.sum())),
        "as_of": first_day,
    })
    players_frame = pl.DataFrame({
        "federation": federation,
        "player_id": ids,
        "name": [f"Player {i}" for i in ids],
        "country": "XX",
        "club": None,
        "birth_year": rng.integers(1940, 2012, n_players).astype(np.int32),
        "declared_rank": _grade(strength) if federation == "egf" else [None] * n_players,
    })
    return Federation(federation, results, players_frame, seed_frame, len(comps), comps[0][1], comps[-1][1])


#: A calendar entry: competition id, day, entrants, rounds.
_Competition = tuple[str, date, int, int]


def _calendar(rng: np.random.Generator, games: int, day: date, max_competitions: int | None,
              prefix: str) -> list[_Competition]:
    """Competitions from ``day`` on, a day or none apart, until about ``games`` games."""
    comps: list[_Competition] = []
    total = 0
    while total < games and (max_competitions is None or len(comps) < max_competitions):
        size = int(np.clip(rng.lognormal(np.log(14), 0.8), 4, 200))
        rounds = int(np.clip(rng.integers(3, 16), 3, max(3, size - 1)))
        comps.append((f"{prefix}{len(comps) + 1:06d}", day, size, rounds))
        total += (size // 2) * rounds
        day += timedelta(days=int(rng.integers(0, 2)))
    return comps


def _pairings(rng: np.random.Generator, comps: list[_Competition], cdf: np.ndarray,
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Every game's two players, competition and round: entrants drawn by activity, random pairings."""
    a_all: list[np.ndarray] = []
    b_all: list[np.ndarray] = []
    comp_of: list[np.ndarray] = []
    round_of: list[np.ndarray] = []
    for index, (_cid, _day, size, rounds) in enumerate(comps):
        drawn = np.unique(np.searchsorted(cdf, rng.random(size * 3)))
        entrants = rng.permutation(drawn)[:size]
        half = len(entrants) // 2
        for rnd in range(rounds):
            order = rng.permutation(entrants)
            a_all.append(order[:half])
            b_all.append(order[half:2 * half])
            comp_of.append(np.full(half, index))
            round_of.append(np.full(half, rnd + 1))
    return np.concatenate(a_all), np.concatenate(b_all), np.concatenate(comp_of), np.concatenate(round_of)


def _results(rng: np.random.Generator, federation: str, comps: list[_Competition], ids: np.ndarray,
             strength: np.ndarray, a: np.ndarray, b: np.ndarray, comp_index: np.ndarray,
             rounds_col: np.ndarray) -> pl.DataFrame:
    """The games in the interchange columns, results drawn from the strength difference."""
    prof = PROFILES[federation]
    diff = strength[a] - strength[b]
    p_a = 1.0 / (1.0 + 10.0 ** (-diff / prof["scale"]))
    u = rng.random(a.size)
    drawn_game = rng.random(a.size) < prof["draws"] * (1.0 - np.abs(p_a - 0.5))
    score = np.where(drawn_game, 0.5, np.where(u < p_a, 1.0, 0.0))
    forfeit = rng.random(a.size) < 0.01
    score = np.where(forfeit, np.where(u < 0.5, 1.0, 0.0), score)   # a forfeit scores 1 or 0
    days = np.array([c[1] for c in comps], dtype="datetime64[D]")
    results = pl.DataFrame({
        "federation": federation,
        "competition_id": np.array([c[0] for c in comps])[comp_index],
        "competition_name": np.array([f"Generated {c[0]}" for c in comps])[comp_index],
        "start_date": days[comp_index],
        "end_date": days[comp_index],
        "round": rounds_col.astype(np.int32),
        "player_a": ids[a],
        "player_b": ids[b],
        "score_a": score,
        "status": np.where(forfeit, "forfeit", "played"),
        "handicap": pl.Series([None] * a.size, dtype=pl.Int32),
        "results_public": True,
        "modality": "classic" if federation == "ajusc" else "standard",
        "event_class": "A" if federation == "egf" else None,
    })
    if federation == "fide":
        results = results.with_columns(pl.lit("standard").alias("modality"))
    return results


def write_interchange(fed: Federation, folder: Path, *, stem: str = "history",
                      games_per_file: int = 250_000) -> dict[str, Path]:
    """Write the federation's ``results``, ``players`` and ``ratings`` interchange files.

    The results go in files of at most ``games_per_file`` games, cut between competitions
    (``<fed>-<stem>.results.csv``, then ``<fed>-<stem>-2.results.csv``, ...): an archive
    arrives as many files, and one file of a million games (97 MB) is over the readers'
    64 MiB limit for an inbox file. ``paths["results"]`` is the first.
    """
    folder.mkdir(parents=True, exist_ok=True)
    paths = {
        "results": folder / f"{fed.federation}-{stem}.results.csv",
        "players": folder / f"{fed.federation}-{stem}.players.csv",
        "ratings": folder / f"{fed.federation}-{stem}.ratings.csv",
    }
    results = fed.results.select(RESULTS_HEADER)
    # Parts by competition (results are in competition order): a competition is never cut.
    first_row = results.with_row_index("_row").group_by("competition_id", maintain_order=True).agg(
        pl.col("_row").first())
    part_of = first_row.with_columns((pl.col("_row") // max(games_per_file, 1)).alias("_part"))
    parted = results.join(part_of.select("competition_id", "_part"), on="competition_id", how="left",
                          maintain_order="left")
    for k, part in enumerate(parted.partition_by("_part", maintain_order=True, include_key=False)):
        target = paths["results"] if k == 0 else folder / f"{fed.federation}-{stem}-{k + 1}.results.csv"
        part.write_csv(target)
    fed.players.write_csv(paths["players"])
    fed.seed.write_csv(paths["ratings"])
    return paths
