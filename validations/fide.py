"""FIDE unrated players: progress toward an initial rating, for the organiser's report.

The engine computes the initial ratings; this module tells each unrated player
(and the organiser) where they stand: games against rated opponents so far,
points in the first event, rated opponents met per event, the window the games
must fall in, and whether the requirement is met.

Sources (FIDE Rating Regulations, handbook B02, by date; see ``RULES.md``):

- 2009 (in force 2009-07-01): at least 9 games against rated opponents, pooled
  over at most two years; at least 3 rated opponents in an event for it to count;
  a zero score in the first event is disregarded.
- 2014 (in force 2014-07-01): at least 5 games, pooled over at most 26 months.
- 2024 (in force 2024-03-01): at least 5 games over 26 months; only games against
  rated opponents count (no per-event minimum beyond one rated opponent).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Any

import polars as pl

from formats.schema import COMPETITIONS_SCHEMA, GAMES_SCHEMA
from validations.tables import rated_players, safe_conform


@dataclass(frozen=True)
class InitialRatingRules:
    """Requirements for an initial FIDE rating in one edition of the regulations."""

    name: str                    #: rule-set id (``fide-2009`` ...)
    effective_from: date         #: first day in force
    min_games: int               #: games against rated opponents needed
    window_months: int           #: the games must fall within this many months
    min_rated_opponents: int     #: rated opponents an event needs to count
    zero_first_event_disregarded: bool = True  #: a first event with 0 points does not count


#: Editions, oldest first (FIDE B02 2009, 2014, 2024).
INITIAL_RATING_RULES: tuple[InitialRatingRules, ...] = (
    InitialRatingRules("fide-2009", date(2009, 7, 1), min_games=9, window_months=24, min_rated_opponents=3),
    InitialRatingRules("fide-2014", date(2014, 7, 1), min_games=5, window_months=26, min_rated_opponents=3),
    InitialRatingRules("fide-2024", date(2024, 3, 1), min_games=5, window_months=26, min_rated_opponents=1),
)

#: Columns of :func:`initial_rating_progress`.
PROGRESS_SCHEMA: dict[str, pl.DataType] = {
    "player_id": pl.Utf8(),
    "rule_set": pl.Utf8(),
    "window_start": pl.Date(),
    "window_end": pl.Date(),
    "events": pl.Int64(),             # events counted (enough rated opponents)
    "events_not_counted": pl.Int64(),  # events with too few rated opponents, or a disregarded zero
    "games_vs_rated": pl.Int64(),     # games counted so far
    "games_needed": pl.Int64(),
    "points_vs_rated": pl.Float64(),
    "first_event": pl.Utf8(),         # competition id of the first counted event
    "first_event_points": pl.Float64(),
    "rated_opponents_per_event": pl.Utf8(),  # "C1: 4, C2: 2"
    "eligible": pl.Boolean(),         # requirement met: the engine may publish a rating
    "status": pl.Utf8(),              # human sentence for the report
}


def rules_in_force(on: date) -> InitialRatingRules:
    """The edition of the initial-rating rules in force on ``on``.

    Examples
    --------
    >>> rules_in_force(date(2013, 1, 1)).name, rules_in_force(date(2025, 1, 1)).min_games
    ('fide-2009', 5)
    """
    current = INITIAL_RATING_RULES[0]
    for edition in INITIAL_RATING_RULES:
        if edition.effective_from <= on:
            current = edition
    return current


def _months_before(day: date, months: int) -> date:
    total = day.year * 12 + (day.month - 1) - months
    year, month = divmod(total, 12)
    month += 1
    last = [31, 29 if year % 4 == 0 and (year % 100 != 0 or year % 400 == 0) else 28,
            31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
    return date(year, month, min(day.day, last))


def initial_rating_progress(
    games: pl.DataFrame,
    ratings: pl.DataFrame | None,
    as_of: date,
    *,
    competitions: pl.DataFrame | None = None,
    players: pl.DataFrame | None = None,
) -> pl.DataFrame:
    """One row per unrated player: how far they are from an initial FIDE rating.

    Parameters
    ----------
    games
        The whole history of played games (canonical games frame; ``rated`` False
        rows are ignored). Needs a date: from ``competitions`` (end date) or a
        ``date`` column.
    ratings
        The rating list in force (RATINGS_SCHEMA): a player with a rating is rated.
    as_of
        The day the progress is measured on; chooses the rule edition and window.
    competitions
        Competition dates (``competition_id``, ``start_date``, ``end_date``).
    players
        Declared (file) ratings, used for players absent from ``ratings``.

    Returns
    -------
    pl.DataFrame
        :data:`PROGRESS_SCHEMA`, sorted by ``player_id``.

    Examples
    --------
    >>> comps = pl.DataFrame({"competition_id": ["A", "B"],
    ...                       "end_date": [date(2025, 1, 5), date(2025, 3, 2)]})
    >>> ratings = pl.DataFrame({"player_id": ["r1", "r2", "r3"], "rating": [1800.0, 1900.0, 2000.0]})
    >>> games = pl.DataFrame({
    ...     "competition_id": ["A", "A", "A", "B", "B"], "round": [1, 2, 3, 1, 2],
    ...     "player_a": ["u", "r2", "u", "u", "u"], "player_b": ["r1", "u", "r3", "r1", "r2"],
    ...     "score_a": [1.0, 1.0, 0.5, 0.0, 1.0], "status": ["played"] * 5})
    >>> p = initial_rating_progress(games, ratings, date(2025, 4, 1), competitions=comps)
    >>> p.select("player_id", "events", "games_vs_rated", "games_needed", "first_event_points", "eligible")
    shape: (1, 6)
    ┌───────────┬────────┬────────────────┬──────────────┬────────────────────┬──────────┐
    │ player_id ┆ events ┆ games_vs_rated ┆ games_needed ┆ first_event_points ┆ eligible │
    │ ---       ┆ ---    ┆ ---            ┆ ---          ┆ ---                ┆ ---      │
    │ str       ┆ i64    ┆ i64            ┆ i64          ┆ f64                ┆ bool     │
    ╞═══════════╪════════╪════════════════╪══════════════╪════════════════════╪══════════╡
    │ u         ┆ 2      ┆ 5              ┆ 5            ┆ 1.5                ┆ true     │
    └───────────┴────────┴────────────────┴──────────────┴────────────────────┴──────────┘
    """
    edition = rules_in_force(as_of)
    window_start = _months_before(as_of, edition.window_months)
    g = _dated_games(games, competitions)
    known = rated_players("fide", ratings, players).select("player_id", "rating")
    rated_ids = set(known.filter(pl.col("rating").is_not_null()).get_column("player_id").to_list())
    per_event = _events_vs_rated(g, rated_ids, window_start, as_of)
    rows = [_progress_row(player_id, events, edition, window_start, as_of)
            for (player_id,), events in per_event.group_by("player_id", maintain_order=True)]
    if not rows:
        return pl.DataFrame(schema=PROGRESS_SCHEMA)
    return pl.DataFrame(rows, schema=PROGRESS_SCHEMA).sort("player_id")


def _dated_games(games: pl.DataFrame, competitions: pl.DataFrame | None) -> pl.DataFrame:
    """The played, rated games, each with its day (``_day``: its competition's end date, else its
    own ``date``; null when neither is known)."""
    g = safe_conform(games, {**GAMES_SCHEMA, **({"date": pl.Date()} if "date" in games.columns else {})})
    if "rated" in games.columns and games.height:
        g = g.with_columns(games.get_column("rated").fill_null(True).alias("_rated")).filter(pl.col("_rated"))
    g = g.filter(pl.col("status").fill_null("played") == "played")
    if competitions is not None and competitions.height:
        comps = safe_conform(competitions, COMPETITIONS_SCHEMA).select(
            "competition_id", pl.coalesce("end_date", "start_date").alias("_day")
        ).unique("competition_id")
        g = g.join(comps, on="competition_id", how="left")
        if "date" in g.columns:
            g = g.with_columns(pl.coalesce("_day", "date").alias("_day"))
    elif "date" in g.columns:
        g = g.with_columns(pl.col("date").alias("_day"))
    else:
        g = g.with_columns(pl.lit(None, pl.Date()).alias("_day"))
    return g


def _events_vs_rated(g: pl.DataFrame, rated_ids: set[str], window_start: date, as_of: date) -> pl.DataFrame:
    """Each unrated player's events in the window: games, distinct opponents and points against
    rated opponents, by player and day."""
    sides = pl.concat([
        g.select("competition_id", "_day", pl.col("player_a").alias("player_id"),
                 pl.col("player_b").alias("opponent_id"), pl.col("score_a").alias("score")),
        g.select("competition_id", "_day", pl.col("player_b").alias("player_id"),
                 pl.col("player_a").alias("opponent_id"), (1 - pl.col("score_a")).alias("score")),
    ]).filter(pl.col("player_id").is_not_null() & ~pl.col("player_id").is_in(list(rated_ids)))
    sides = sides.filter(pl.col("_day").is_null() | ((pl.col("_day") >= window_start) & (pl.col("_day") <= as_of)))
    vs_rated = sides.with_columns(pl.col("opponent_id").is_in(list(rated_ids)).alias("_opp_rated"))
    return vs_rated.group_by("player_id", "competition_id").agg(
        pl.col("_day").min(),
        pl.col("_opp_rated").sum().cast(pl.Int64).alias("games"),
        pl.col("opponent_id").filter(pl.col("_opp_rated")).n_unique().cast(pl.Int64).alias("opponents"),
        pl.col("score").filter(pl.col("_opp_rated")).sum().cast(pl.Float64).alias("points"),
    ).sort("player_id", "_day", "competition_id", nulls_last=True)


def _progress_row(player_id: object, events: pl.DataFrame, edition: InitialRatingRules, window_start: date,
                  as_of: date) -> dict[str, Any]:
    """One player's progress: the events that count (enough rated opponents; a first event
    without a point is disregarded where the edition says so) and what is still needed."""
    counted: list[dict[str, Any]] = []
    labels: list[str] = []
    skipped = 0
    for ev in events.iter_rows(named=True):
        labels.append(f"{ev['competition_id']}: {ev['opponents']}")
        if ev["opponents"] < edition.min_rated_opponents:
            skipped += 1
            continue
        if (not counted and edition.zero_first_event_disregarded and ev["games"] > 0
                and ev["points"] == 0):
            skipped += 1
            continue
        counted.append(ev)
    n_games = sum(ev["games"] for ev in counted)
    points = sum(ev["points"] for ev in counted)
    first = counted[0] if counted else None
    eligible = n_games >= edition.min_games and first is not None and first["points"] > 0
    if eligible:
        status = f"requirement met ({n_games} games against rated opponents)"
    else:
        status = f"needs {max(edition.min_games - n_games, 0)} more game(s) against rated opponents"
        if first is None:
            status = (f"no counted event yet (an event counts with at least "
                      f"{edition.min_rated_opponents} rated opponent(s) and, if it is the first, "
                      f"at least one point); {status}")
    return {
        "player_id": player_id, "rule_set": edition.name, "window_start": window_start,
        "window_end": as_of, "events": len(counted), "events_not_counted": skipped,
        "games_vs_rated": n_games, "games_needed": edition.min_games, "points_vs_rated": points,
        "first_event": first["competition_id"] if first else None,
        "first_event_points": first["points"] if first else None,
        "rated_opponents_per_event": ", ".join(labels), "eligible": eligible, "status": status,
    }
