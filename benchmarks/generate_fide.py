"""Seeded generator of a FIDE-shaped archive, written month by month, for the benchmark harness.

Where :mod:`benchmarks.generate` holds a whole history of small random-paired competitions in
memory, this writes what a FIDE archive looks like a month at a time (20 million games take
the memory of one month):

- monthly rating periods (FIDE lists monthly from July 2012), each a calendar of Swiss opens
  (50 to 300 players, 9 rounds by score group) and round robins (10 players, every pair once),
  on the ``standard``, ``rapid`` and ``blitz`` lists (the modality names the FIDE list:
  ``lists`` in ``flows/federations.toml``);
- a growing population: the starting list holds the players rated on the first day; unrated
  newcomers arrive every month and enter through their first games;
- results drawn from the strength difference (logistic, as :mod:`benchmarks.generate`), each
  list's draw rate and a few forfeits.

Files (interchange CSV, DESIGN.md): ``fide-YYYY-MM.results.csv`` a month (then ``-2``, ... when
a month has more entrants than a file may hold players; a competition is never cut),
``fide.players.csv`` (then ``fide-2.players.csv``, ...) and the starting ``fide.ratings.csv``.
The same ``seed`` always gives the same files.
"""

from __future__ import annotations

import calendar
from dataclasses import dataclass
from datetime import date
from pathlib import Path

import numpy as np
import polars as pl

from benchmarks.generate import PROFILES, RESULTS_HEADER
from benchmarks.pairing import ROUNDS, Games, round_robins, swiss

FEDERATION = "fide"
#: The first rating period: FIDE's lists are monthly from July 2012 (rapid and blitz rated from 2012).
FIRST_MONTH = date(2012, 7, 1)
#: The first player's id: seven-digit ids, as FIDE's.
FIRST_ID = 1_000_001
OPEN_PLAYERS = (50, 300)
ROUND_ROBIN_PLAYERS = 10
#: Share of a month's competitions that are round robins (the others are Swiss opens).
ROUND_ROBIN_SHARE = 0.2
#: The lists (the competitions' modality) with their share of competitions, draw rate between
#: equal players and the days a competition lasts.
LISTS: dict[str, tuple[float, float, int]] = {
    "standard": (0.60, PROFILES["fide"]["draws"], 9), "rapid": (0.25, 0.20, 3), "blitz": (0.15, 0.12, 1)}
#: Population at the end: one player for this many games, at least :data:`MIN_PLAYERS`.
GAMES_PER_PLAYER = 50
MIN_PLAYERS = 3_000
#: Share of the final population on the starting list; the others arrive as newcomers.
STARTING_SHARE = 0.4
#: Share of the players arrived who enter a competition in a month (each enters at most one).
PARTICIPATION = 0.10
#: Most entrants of one results file, under the readers' 50,000 players a file (formats.limits).
PLAYERS_PER_FILE = 45_000
COUNTRIES = ("ESP", "FRA", "GER", "IND", "RUS", "USA", "ITA", "POL", "NED", "ENG", "ARG", "BRA",
             "CZE", "HUN", "SRB", "TUR", "IRI", "CHN", "UKR", "BEL", "AUT", "SUI", "GRE", "POR")


def population_size(games: int) -> int:
    """The population at the end of an archive of ``games`` games.

    Examples
    --------
    >>> population_size(20_000_000), population_size(1_000_000), population_size(30_000)
    (400000, 20000, 3000)
    """
    return max(games // GAMES_PER_PLAYER, MIN_PLAYERS)


@dataclass(frozen=True)
class Population:
    """Every player the archive may meet, by index (id ``FIRST_ID + index``)."""

    strength: np.ndarray  #: true playing strength on the Elo scale
    activity: np.ndarray  #: relative chance of entering a month's competitions
    rated: int            #: players ``0 .. rated - 1`` are on the starting list; the others arrive
    size: int             #: players in all


def draw_population(players: int, seed: int) -> Population:
    """The rated players (FIDE's mean and spread) and the newcomers, weaker on the whole.

    Examples
    --------
    >>> pop = draw_population(5_000, seed=1)
    >>> pop.size, pop.rated, bool(pop.strength[:pop.rated].mean() > pop.strength[pop.rated:].mean())
    (5000, 2000, True)
    """
    if players < 1_000:
        raise ValueError(f"a FIDE-shaped population needs at least 1,000 players, not {players:,}")
    rng = np.random.default_rng([seed, 0])
    rated = round(players * STARTING_SHARE)
    strength = np.concatenate([rng.normal(PROFILES["fide"]["mean"], PROFILES["fide"]["sd"], rated),
                               rng.normal(1450.0, 250.0, players - rated)])
    return Population(np.clip(strength, 800.0, 2850.0), rng.beta(0.7, 3.0, players) + 1e-3, rated, players)


def _arrived(month: int, months: int, pop: Population) -> int:
    """Players arrived by the end of ``month`` (0 first): newcomers arrive evenly over ``months``."""
    return pop.rated + (pop.size - pop.rated) * min(month + 1, months) // months


def _months(games: int, pop: Population) -> int:
    """Months an archive of ``games`` lasts: a tenth of a population growing evenly plays 4.5 games."""
    per_month = PARTICIPATION * ROUNDS / 2 * (pop.rated + pop.size) / 2
    return max(1, round(games / per_month))


@dataclass(frozen=True)
class Calendar:
    """A month's competitions, in the order they start."""

    round_robin: np.ndarray  #: a round robin, else a Swiss open
    size: np.ndarray         #: entrants
    modality: np.ndarray     #: index in :data:`LISTS`
    start: np.ndarray        #: first day, days after the month's first
    days: np.ndarray         #: days it lasts


def _calendar(rng: np.random.Generator, entrants: int, month_days: int,
              most: int | None = None) -> Calendar:
    """Competitions holding about ``entrants`` (the nearer of just under and just over), at most ``most``."""
    n = entrants // 40 + 8
    while True:
        rr = rng.random(n) < ROUND_ROBIN_SHARE
        opens = np.clip(rng.lognormal(np.log(110.0), 0.5, n), *OPEN_PLAYERS).astype(np.int64)
        size = np.where(rr, ROUND_ROBIN_PLAYERS, opens)
        held = np.cumsum(size)
        if held[-1] >= entrants:
            break
        n *= 2
    k = int(np.searchsorted(held, entrants)) + 1              # the first k that hold them all
    k = min(k - 1 if k > 1 and held[k - 1] - entrants > entrants - held[k - 2] else k, most or n)
    shares = np.array([share for share, _, _ in LISTS.values()])
    modality = rng.choice(len(LISTS), size=k, p=shares / shares.sum())
    days = np.array([d for _, _, d in LISTS.values()])[modality]
    start = rng.integers(0, month_days - days + 1)
    order = np.argsort(start, kind="stable")
    return Calendar(rr[:k][order], size[:k][order], modality[order], start[order], days[order])


def _entrants(rng: np.random.Generator, pop: Population, before: int, now: int, total: int) -> np.ndarray:
    """``total`` distinct players of the ``now`` arrived, in random order: this month's newcomers
    (``before .. now - 1``) first, then drawn by activity (weighted sampling without replacement)."""
    keys = np.log(rng.random(now)) / pop.activity[:now]   # Efraimidis-Spirakis: the largest keys
    keys[before:now] = rng.random(now - before)            # a newcomer arrives by playing
    chosen = np.sort(np.argpartition(-keys, total - 1)[:total])
    return rng.permutation(chosen)


def _month_games(rng: np.random.Generator, pop: Population, cal: Calendar, entrants: np.ndarray) -> Games:
    """The month's games, by competition and round."""
    draws = np.array([d for _, d, _ in LISTS.values()])[cal.modality]
    in_rr = np.repeat(cal.round_robin, cal.size)
    rr_tours, open_tours = np.flatnonzero(cal.round_robin), np.flatnonzero(~cal.round_robin)
    # Entrants are in random order: the round robins take theirs at their places, the opens the rest.
    parts = [round_robins(rng, pop.strength, entrants[in_rr], ROUND_ROBIN_PLAYERS, rr_tours, draws),
             swiss(rng, pop.strength, entrants[~in_rr], cal.size[open_tours], open_tours, draws)]
    tour, rnd, a, b, score, forfeit = (np.concatenate(c) for c in zip(*parts, strict=True))
    order = np.lexsort((rnd, tour))
    return tour[order], rnd[order], a[order], b[order], score[order], forfeit[order]


def _parts(sizes: np.ndarray, limit: int) -> list[int]:
    """Each competition's file (0 first): files of at most ``limit`` entrants, competitions whole.

    Examples
    --------
    >>> _parts(np.array([30, 30, 50, 10, 90]), 60)
    [0, 0, 1, 1, 2]
    """
    part, used, out = 0, 0, []
    for size in sizes.tolist():
        if used and used + size > limit:
            part, used = part + 1, 0
        used += size
        out.append(part)
    return out


def _write_month(folder: Path, month: date, cal: Calendar, games: Games, prefix: str, limit: int) -> list[Path]:
    """The month's results files: ``fide-YYYY-MM.results.csv``, then ``-2``, ... past ``limit`` entrants."""
    k = cal.size.size
    kinds = np.where(cal.round_robin, "Round robin", "Open")
    lists = np.array(list(LISTS))[cal.modality]
    start = np.datetime64(month, "D") + cal.start
    comps = pl.DataFrame({
        "_t": np.arange(k),
        "competition_id": [f"{prefix}{month:%Y%m}-{i + 1:03d}" for i in range(k)],
        "competition_name": [f"{kinds[i]} {lists[i]} {month:%Y-%m} #{i + 1}" for i in range(k)],
        "start_date": start, "end_date": start + cal.days - 1, "modality": lists,
        "_part": _parts(cal.size, limit),
    })
    tour, rnd, a, b, score, forfeit = games
    frame = pl.DataFrame({
        "_t": tour, "round": rnd.astype(np.int32), "player_a": a + FIRST_ID, "player_b": b + FIRST_ID,
        "score_a": score, "_forfeit": forfeit,
    }).join(comps, on="_t", how="left", maintain_order="left").with_columns(
        federation=pl.lit(FEDERATION), handicap=pl.lit(None, pl.Int32), results_public=pl.lit(True),
        status=pl.when("_forfeit").then(pl.lit("forfeit")).otherwise(pl.lit("played")),
        event_class=pl.lit(None, pl.Utf8),
    )
    paths = []
    for (part,), rows in frame.partition_by("_part", maintain_order=True, as_dict=True).items():
        path = folder / f"{FEDERATION}-{month:%Y-%m}{'' if part == 0 else f'-{int(part) + 1}'}.results.csv"
        rows.select(RESULTS_HEADER).write_csv(path)
        paths.append(path)
    return paths


def _write_lists(folder: Path, pop: Population, first_played: np.ndarray, seed: int, first_month: date,
                 limit: int) -> tuple[Path, list[Path], int]:
    """The starting list (``fide.ratings.csv``), and every player who is on it or played, in files of
    at most ``limit`` (``fide.players.csv``, ``fide-2.players.csv``, ...)."""
    rng = np.random.default_rng([seed, 2])
    n = pop.rated
    ratings = folder / f"{FEDERATION}.ratings.csv"
    pl.DataFrame({
        "federation": FEDERATION, "player_id": np.arange(n) + FIRST_ID,
        "rating": np.clip(np.round(pop.strength[:n] + rng.normal(0.0, 40.0, n)), 1000, 2900).astype(np.int32),
        "games": rng.integers(20, 800, n), "as_of": first_month,
    }).with_columns(name=pl.format("Player {}", "player_id")).select(
        "federation", "player_id", "name", "rating", "games", "as_of").write_csv(ratings)
    idx = np.flatnonzero((np.arange(pop.size) < n) | (first_played >= 0))
    year = first_month.year + (first_month.month - 1 + np.maximum(first_played[idx], 0)) // 12
    born = np.where(idx < n, rng.integers(1940, 2004, idx.size), year - rng.integers(7, 45, idx.size))
    players = pl.DataFrame({
        "federation": FEDERATION, "player_id": idx + FIRST_ID,
        "country": pl.Series(COUNTRIES).gather(rng.integers(0, len(COUNTRIES), idx.size)),
        "birth_year": born.astype(np.int32),
    }).with_columns(name=pl.format("Player {}", "player_id"), club=pl.lit(None, pl.Utf8),
                    declared_rank=pl.lit(None, pl.Utf8)).select(
        "federation", "player_id", "name", "country", "club", "birth_year", "declared_rank")
    paths = []
    for k, first in enumerate(range(0, players.height, limit)):
        paths.append(folder / (f"{FEDERATION}.players.csv" if k == 0 else f"{FEDERATION}-{k + 1}.players.csv"))
        players.slice(first, limit).write_csv(paths[-1])
    return ratings, paths, players.height


@dataclass(frozen=True)
class Archive:
    """What :func:`write_archive` (or :func:`write_night`) wrote."""

    games: int
    competitions: int
    players: int                   #: on the players files: the starting list and the newcomers who played
    rated: int                     #: on the starting list
    first_day: date                #: the first rating period's first day (the starting list's date)
    last_day: date                 #: the last competition's end
    results: tuple[Path, ...]      #: the results files, month after month
    players_files: tuple[Path, ...]
    ratings: Path | None           #: the starting list (a night has none)


def _next_month(day: date) -> date:
    return date(day.year + day.month // 12, day.month % 12 + 1, 1)


def _write_competitions(folder: Path, pop: Population, rng: np.random.Generator, month: date, entrants: int,
                        before: int, now: int, prefix: str, limit: int, most: int | None = None,
                        ) -> tuple[np.ndarray, int, int, date, list[Path]]:
    """A month's competitions, drawn and written: (its entrants, games, competitions, last day, files)."""
    cal = _calendar(rng, entrants, calendar.monthrange(month.year, month.month)[1], most)
    chosen = _entrants(rng, pop, before, now, int(cal.size.sum()))
    played = _month_games(rng, pop, cal, chosen)
    paths = _write_month(folder, month, cal, played, prefix, limit)
    last_day = date.fromordinal(month.toordinal() + int((cal.start + cal.days).max()) - 1)
    return chosen, int(played[0].size), int(cal.size.size), last_day, paths


def write_archive(folder: Path, games: int, *, players: int | None = None, seed: int = 7,
                  first_month: date = FIRST_MONTH, players_per_file: int = PLAYERS_PER_FILE) -> Archive:
    """Write a FIDE-shaped archive of about ``games`` games into ``folder``, a month at a time.

    Parameters
    ----------
    games
        Games to write at least: months are written until there are as many (the last one
        overshoots a little). The archive lasts about 13 years whatever its size.
    players
        The population at the end (default :func:`population_size`); :data:`STARTING_SHARE`
        of it is on the starting list, the others arrive evenly over the months.
    players_per_file
        Most entrants of a results file and most players of a players file.

    Examples
    --------
    >>> import tempfile
    >>> a = write_archive(Path(tempfile.mkdtemp()), 20_000, seed=1)
    >>> a.games >= 20_000, a.results[0].name, a.players > a.rated, a.ratings.name
    (True, 'fide-2012-07.results.csv', True, 'fide.ratings.csv')
    """
    folder.mkdir(parents=True, exist_ok=True)
    pop = draw_population(players or population_size(games), seed)
    months = _months(games, pop)
    weight = sum(_arrived(m, months, pop) for m in range(months))
    first_played = np.full(pop.size, -1, dtype=np.int32)
    results: list[Path] = []
    written = competitions = m = 0
    month, before, last_day = first_month, pop.rated, first_month
    while written < games:
        now = _arrived(m, months, pop)
        entrants = min(max(round(games * now / weight / (ROUNDS / 2)), 1), now // 2)
        chosen, n, k, last_day, paths = _write_competitions(
            folder, pop, np.random.default_rng([seed, 1, m]), month, entrants, before, now, "F", players_per_file)
        first_played[chosen[first_played[chosen] < 0]] = m
        written, competitions, results = written + n, competitions + k, results + paths
        month, before, m = _next_month(month), now, m + 1
    ratings, players_files, listed = _write_lists(folder, pop, first_played, seed, first_month, players_per_file)
    return Archive(written, competitions, listed, pop.rated, first_month, last_day, tuple(results),
                   tuple(players_files), ratings)


def write_night(folder: Path, games: int, *, after: date, players: int | None = None, seed: int = 7,
                night_seed: int = 8, competitions: int = 50) -> Archive:
    """The competitions of the month after ``after`` (ids ``N...``), on top of the archive that
    ``write_archive(..., games, players=players, seed=seed)`` wrote: its population, every
    player of it arrived by then, and at most ``competitions`` (fewer in a population too small).

    Examples
    --------
    >>> import tempfile
    >>> night = write_night(Path(tempfile.mkdtemp()), 20_000, after=date(2015, 5, 31), seed=1)
    >>> night.competitions <= 50, night.results[0].name, str(night.first_day)
    (True, 'fide-2015-06.results.csv', '2015-06-01')
    """
    folder.mkdir(parents=True, exist_ok=True)
    pop = draw_population(players or population_size(games), seed)
    month = _next_month(after)
    _, n, k, last_day, paths = _write_competitions(folder, pop, np.random.default_rng([night_seed, 3]), month,
                                                   pop.size // 2, pop.size, pop.size, "N", PLAYERS_PER_FILE,
                                                   competitions)
    return Archive(n, k, 0, 0, month, last_day, tuple(paths), (), None)


def write_month(folder: Path, games: int, *, after: date, players: int | None = None, seed: int = 7,
                night_seed: int = 9) -> Archive:
    """A whole month after ``after`` (ids ``M...``) on top of the archive of ``games`` games: as
    many entrants as the archive's last month had (every player arrived), so a 20M-game
    archive's month holds about 130,000 games, what FIDE rates in a month.

    Examples
    --------
    >>> import tempfile
    >>> month = write_month(Path(tempfile.mkdtemp()), 20_000, after=date(2015, 5, 31), seed=1)
    >>> month.competitions > 0, month.results[0].name, str(month.first_day)
    (True, 'fide-2015-06.results.csv', '2015-06-01')
    """
    folder.mkdir(parents=True, exist_ok=True)
    pop = draw_population(players or population_size(games), seed)
    months = _months(games, pop)
    weight = sum(_arrived(m, months, pop) for m in range(months))
    entrants = min(max(round(games * pop.size / weight / (ROUNDS / 2)), 1), pop.size // 2)
    month = _next_month(after)
    _, n, k, last_day, paths = _write_competitions(folder, pop, np.random.default_rng([night_seed, 4]), month,
                                                   entrants, pop.size, pop.size, "M", PLAYERS_PER_FILE)
    return Archive(n, k, 0, 0, month, last_day, tuple(paths), (), None)
