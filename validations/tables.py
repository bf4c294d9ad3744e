"""The frames the rules check, derived from the canonical frames with polars.

Great Expectations checks one column (or a pair, or a compound key) at a time, so
everything a rule needs is derived here first: a self-play test becomes "the
larger id of the pair is greater than the smaller", a competition's round count
becomes a column of the per-competition aggregate. Every table carries a
``row_id`` that Great Expectations reports for failing rows, and the
``competition_id`` and ``source_line`` that map a failure back to file and line.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

import polars as pl

from formats.schema import (
    BYES_SCHEMA,
    COMPETITIONS_SCHEMA,
    GAMES_SCHEMA,
    PLAYERS_SCHEMA,
    RATINGS_SCHEMA,
    conform,
)
from validations.egf import CLASS_ORDER, grade_expr, tournament_class_expr

#: Optional competition columns read when present (time control, for the EGF class).
TIME_CONTROL_COLUMNS: dict[str, pl.DataType] = {
    "basic_time_min": pl.Float64(),     # basic thinking time per player, minutes
    "adjusted_time_min": pl.Float64(),  # basic + overtime equivalent, minutes
    "online": pl.Boolean(),             # played on the Internet
    "rounds_declared": pl.Int32(),      # rounds announced (numberOfRounds, XXR); else ``rounds``
    "language": pl.Utf8(),              # declared lexicon language (formats.schema.DECLARATIONS_SCHEMA)
    "time_control": pl.Utf8(),          # the time control as the file states it
}


@dataclass(frozen=True)
class Tables:
    """The derived frames, one per rule table (see :data:`validations.rules.TABLES`)."""

    games: pl.DataFrame           #: one row per game (+ row_id and derived columns)
    appearances: pl.DataFrame     #: one row per player and game
    competitions: pl.DataFrame    #: one row per competition as read
    aggregate: pl.DataFrame       #: one row per competition: rounds, players, unknown results ...
    unrated_events: pl.DataFrame  #: FIDE: one row per unrated player and competition
    players: pl.DataFrame         #: one row per player (+ the competition they first appear in)

    def get(self, name: str) -> pl.DataFrame:
        """The table called ``name``."""
        frame: pl.DataFrame = getattr(self, name)
        return frame


def safe_conform(frame: pl.DataFrame | None, schema: dict[str, pl.DataType]) -> pl.DataFrame:
    """:func:`formats.schema.conform`, except that an empty frame stays empty.

    (``conform`` of a frame without columns selects literals: one row of nulls.)

    Examples
    --------
    >>> safe_conform(pl.DataFrame(), {"a": pl.Int64()}).shape
    (0, 1)
    """
    if frame is None or frame.height == 0:
        return pl.DataFrame(schema=schema)
    return conform(frame, schema)


def _with_columns(frame: pl.DataFrame | None, schema: dict[str, pl.DataType]) -> pl.DataFrame:
    """``frame`` with every column of ``schema`` (missing ones null), extra columns kept."""
    if frame is None or frame.height == 0:
        return pl.DataFrame(schema=schema)
    base = conform(frame, schema)
    extra = [c for c in frame.columns if c not in schema]
    return pl.concat([base, frame.select(extra)], how="horizontal") if extra else base


def rated_players(
    federation: str, ratings: pl.DataFrame | None, players: pl.DataFrame | None,
) -> pl.DataFrame:
    """Players with a rating: from the rating list, else the rating declared in the file.

    Returns a frame ``player_id, rating, games_before`` (``rating`` null: unrated).
    A seeded or computed rating wins over a declared one (DESIGN.md).

    Examples
    --------
    >>> r = pl.DataFrame({"player_id": ["1", "2"], "rating": [2000.0, None], "games": [40, 3]})
    >>> p = pl.DataFrame({"player_id": ["2", "3"], "declared_rating": [1900.0, 1700.0]})
    >>> rated_players("fide", r, p).sort("player_id")
    shape: (3, 3)
    ┌───────────┬────────┬──────────────┐
    │ player_id ┆ rating ┆ games_before │
    │ ---       ┆ ---    ┆ ---          │
    │ str       ┆ f64    ┆ i64          │
    ╞═══════════╪════════╪══════════════╡
    │ 1         ┆ 2000.0 ┆ 40           │
    │ 2         ┆ null   ┆ 3            │
    │ 3         ┆ 1700.0 ┆ null         │
    └───────────┴────────┴──────────────┘
    """
    listed = _with_columns(ratings, RATINGS_SCHEMA).select(
        "player_id", "rating", pl.col("games").alias("games_before")
    ).unique("player_id", keep="last")
    declared = _with_columns(players, PLAYERS_SCHEMA).select(
        "player_id",
        pl.when(pl.col("declared_rating") > 0).then(pl.col("declared_rating")).alias("rating"),
        pl.lit(None, pl.Int64()).alias("games_before"),
    ).filter(~pl.col("player_id").is_in(listed["player_id"].implode())).unique("player_id", keep="first")
    return pl.concat([listed, declared]).filter(pl.col("player_id").is_not_null())


def build_tables(
    competitions: pl.DataFrame,
    games: pl.DataFrame,
    *,
    federation: str,
    byes: pl.DataFrame | None = None,
    players: pl.DataFrame | None = None,
    ratings: pl.DataFrame | None = None,
) -> Tables:
    """Derive every rule table from the canonical frames.

    ``games`` may lack optional columns (they read as null); a null ``status``
    means ``played`` (the interchange CSV's default).
    """
    comps = _with_columns(competitions, {**COMPETITIONS_SCHEMA, **TIME_CONTROL_COLUMNS})
    comps = comps.with_row_index("row_id").with_columns(pl.col("row_id").cast(pl.Int64))
    g = safe_conform(games, GAMES_SCHEMA).with_row_index("row_id").with_columns(
        pl.col("row_id").cast(pl.Int64),
        pl.col("status").fill_null("played"),
    )
    g = g.with_columns(
        pl.col("round").fill_null(0).alias("round_or_zero"),
        pl.col("competition_id").is_in(comps.get_column("competition_id").drop_nulls().implode())
        .fill_null(False).alias("competition_known"),
        (pl.col("player_a").is_not_null() & pl.col("player_b").is_not_null()).alias("players_present"),
        pl.when(pl.col("status") == "played").then(pl.col("score_a").is_not_null())
        .when(pl.col("status") == "unknown").then(pl.col("score_a").is_null())
        .otherwise(pl.lit(True)).alias("score_matches_status"),
        # min/max_horizontal skip nulls: a missing side must not look like self-play.
        pl.when(pl.col("player_a").is_not_null() & pl.col("player_b").is_not_null())
        .then(pl.min_horizontal("player_a", "player_b")).alias("pair_lo"),
        pl.when(pl.col("player_a").is_not_null() & pl.col("player_b").is_not_null())
        .then(pl.max_horizontal("player_a", "player_b")).alias("pair_hi"),
    )
    g = _with_ratings(g, federation, ratings, players)
    g = _with_grades(g, players)
    labels = player_labels(players)
    g = g.join(labels.rename({"player_id": "player_a", "label": "label_a"}), on="player_a", how="left")
    g = g.join(labels.rename({"player_id": "player_b", "label": "label_b"}), on="player_b", how="left")
    g = g.with_columns(
        pl.coalesce("label_a", "player_a").alias("label_a"),
        pl.coalesce("label_b", "player_b").alias("label_b"),
    ).sort("row_id")

    appearances = pl.concat([
        g.select(pl.col("row_id").alias("game_row_id"), "competition_id", "round",
                 pl.col("player_a").alias("player_id"), pl.col("player_b").alias("opponent_id"),
                 "source_line"),
        g.select(pl.col("row_id").alias("game_row_id"), "competition_id", "round",
                 pl.col("player_b").alias("player_id"), pl.col("player_a").alias("opponent_id"),
                 "source_line"),
    ]).filter(
        # A self-played game is reported by quality.self_play, not again as a double pairing.
        pl.col("player_id").is_not_null() & (pl.col("player_id") != pl.col("opponent_id")).fill_null(True)
    ).sort("game_row_id", maintain_order=True)
    appearances = appearances.with_row_index("row_id").with_columns(pl.col("row_id").cast(pl.Int64))
    appearances = appearances.join(labels, on="player_id", how="left").with_columns(
        pl.coalesce("label", "player_id").alias("label")
    ).sort("row_id")

    aggregate = _aggregate(comps, g, appearances, byes, ratings)
    unrated = _unrated_events(comps, g, federation, ratings, players)
    unrated = unrated.join(labels, on="player_id", how="left").with_columns(
        pl.coalesce("label", "player_id").alias("label")
    ).sort("row_id")
    player_table = _players(players, appearances)
    return Tables(
        games=g, appearances=appearances, competitions=comps, aggregate=aggregate,
        unrated_events=unrated, players=player_table,
    )


def player_labels(players: pl.DataFrame | None) -> pl.DataFrame:
    """``player_id, label``: "Name (id)" for messages an organiser reads (id alone without a name).

    Examples
    --------
    >>> player_labels(pl.DataFrame({"player_id": ["17", "9"], "name": ["Martí Roé", None]})).rows()
    [('17', 'Martí Roé (17)'), ('9', '9')]
    """
    p = _with_columns(players, PLAYERS_SCHEMA).unique("player_id", keep="first", maintain_order=True)
    return p.select(
        "player_id",
        pl.when(pl.col("name").str.strip_chars().str.len_chars() > 0)
        .then(pl.format("{} ({})", pl.col("name").str.strip_chars(), pl.col("player_id")))
        .otherwise(pl.col("player_id")).alias("label"),
    ).filter(pl.col("player_id").is_not_null())


def _with_ratings(
    g: pl.DataFrame, federation: str, ratings: pl.DataFrame | None, players: pl.DataFrame | None,
) -> pl.DataFrame:
    known = rated_players(federation, ratings, players).select("player_id", "rating")
    g = g.join(known.rename({"player_id": "player_a", "rating": "rating_a"}), on="player_a", how="left")
    g = g.join(known.rename({"player_id": "player_b", "rating": "rating_b"}), on="player_b", how="left")
    return g.with_columns(
        (pl.col("rating_a").is_null() != pl.col("rating_b").is_null()).alias("rated_vs_unrated")
    ).sort("row_id")


def _with_grades(g: pl.DataFrame, players: pl.DataFrame | None) -> pl.DataFrame:
    p = _with_columns(players, PLAYERS_SCHEMA).select("player_id", "declared_rank").unique(
        "player_id", keep="first"
    )
    # Vectorised (no Python callback): polars callbacks deadlock when validate() runs in threads.
    p = p.with_columns(grade_expr(pl.col("declared_rank")).alias("grade"))
    g = g.join(p.rename({"player_id": "player_a", "declared_rank": "rank_a", "grade": "grade_a"}),
               on="player_a", how="left")
    g = g.join(p.rename({"player_id": "player_b", "declared_rank": "rank_b", "grade": "grade_b"}),
               on="player_b", how="left")
    h = pl.col("handicap").fill_null(0)
    # Positive handicap: player_a gives the stones, so player_a must be the stronger.
    gap = pl.col("grade_a") - pl.col("grade_b")
    grades_known = pl.col("grade_a").is_not_null() & pl.col("grade_b").is_not_null()
    return g.with_columns(
        pl.when(~grades_known | (h == 0)).then(pl.lit(True))
        .otherwise((h > 0) == (gap >= 0)).alias("handicap_direction_ok"),
        pl.when(~grades_known | (h == 0)).then(pl.lit(True))
        .otherwise(h.abs() <= gap.abs().clip(upper_bound=9)).alias("handicap_within_gap"),
    ).sort("row_id")


def _unknown_share(appearances: pl.DataFrame, ratings: pl.DataFrame | None) -> pl.DataFrame:
    """``competition_id, players_listed, unknown_share``: the share of a competition's players
    that the federation's list does not hold (null when the warehouse holds no list yet)."""
    schema = {"competition_id": pl.Utf8(), "players_listed": pl.Int64(), "unknown_share": pl.Float64()}
    if ratings is None or ratings.is_empty() or "player_id" not in ratings.columns:
        return pl.DataFrame(schema=schema)
    listed = ratings.get_column("player_id").cast(pl.Utf8).drop_nulls().unique().implode()
    # Membership first, then the groups: ``is_in`` inside the aggregation copied the list into
    # every group (a 1M-game batch: 12,700 competitions x 27,500 ids, 10 GB).
    pairs = appearances.select("competition_id", "player_id").unique().with_columns(
        pl.col("player_id").is_in(listed).alias("_listed"))
    return pairs.group_by("competition_id").agg(
        pl.col("_listed").sum().cast(pl.Int64).alias("players_listed"),
        (1 - pl.col("_listed").mean()).cast(pl.Float64).alias("unknown_share"),
    )


def _aggregate(
    comps: pl.DataFrame, g: pl.DataFrame, appearances: pl.DataFrame, byes: pl.DataFrame | None,
    ratings: pl.DataFrame | None = None,
) -> pl.DataFrame:
    per_games = g.group_by("competition_id").agg(
        pl.col("round").n_unique().cast(pl.Int64).alias("rounds_played"),
        pl.col("round").max().cast(pl.Int64).alias("max_round"),
        pl.col("round").unique().sort().cast(pl.Utf8).str.join(", ").alias("rounds_list"),
        pl.len().cast(pl.Int64).alias("games"),
        (pl.col("status") == "unknown").sum().cast(pl.Int64).alias("unknown_results"),
        (pl.col("status") == "forfeit").sum().cast(pl.Int64).alias("forfeits"),
    )
    b = _with_columns(byes, BYES_SCHEMA).select("competition_id", "player_id")
    people = pl.concat([appearances.select("competition_id", "player_id"), b]).filter(
        pl.col("player_id").is_not_null()
    ).group_by("competition_id").agg(pl.col("player_id").n_unique().cast(pl.Int64).alias("players"))
    agg = comps.select(
        "row_id", "competition_id", "name", "start_date", "end_date", "source",
        pl.coalesce("rounds_declared", "rounds").cast(pl.Int64).alias("rounds_declared"),
        pl.col("modality").fill_null("classic"),
        pl.col("results_public").fill_null(True),
        pl.col("event_class").str.strip_chars().str.to_uppercase().alias("declared_class"),
        "basic_time_min", "adjusted_time_min",
        # Online: the file says so (a server in a TRF header), or the interchange modality does.
        (pl.col("online").fill_null(False)
         | pl.col("modality").str.to_lowercase().str.contains("online").fill_null(False)).alias("online"),
        "language", pl.col("time_control").fill_null("(none)"),
    ).join(per_games, on="competition_id", how="left").join(people, on="competition_id", how="left").join(
        _unknown_share(appearances, ratings), on="competition_id", how="left"
    ).with_columns((pl.col("unknown_share") * 100).round(0).cast(pl.Int64).alias("unknown_percent"))
    agg = agg.with_columns(
        pl.col("rounds_played").fill_null(0),
        pl.col("games").fill_null(0),
        pl.col("unknown_results").fill_null(0),
        pl.col("forfeits").fill_null(0),
        pl.col("players").fill_null(0),
        pl.col("rounds_list").fill_null("(none)"),
    ).with_columns(
        (pl.col("max_round") - pl.col("rounds_declared")).alias("rounds_over_declared"),
        (pl.col("rounds_declared") - pl.col("rounds_played")).alias("rounds_missing"),
        # Every expression below is native polars: a Python callback (map_elements) inside
        # a collect deadlocked when validate() ran in several threads.
        pl.when(tournament_class_expr("basic_time_min", "adjusted_time_min", "online").is_not_null())
        .then(tournament_class_expr("basic_time_min", "adjusted_time_min", "online"))
        .when(pl.col("basic_time_min").is_not_null()).then(pl.lit("none"))
        .alias("time_control_class"),
    )
    order = {c: i for i, c in enumerate(CLASS_ORDER)}
    declared, allowed = pl.col("declared_class"), pl.col("time_control_class")
    declared_rank = declared.replace_strict(order, default=None, return_dtype=pl.Int64())
    allowed_rank = allowed.replace_strict(order, default=None, return_dtype=pl.Int64())
    declared_known = declared_rank.is_not_null()
    # The declared class stands when it is at or below what the time control allows.
    within = declared_known & (declared_rank >= allowed_rank).fill_null(False)
    return agg.with_columns(
        pl.when(allowed.is_null()).then(pl.when(declared_known).then(declared))
        .when(allowed == "none").then(pl.lit(None, pl.Utf8()))
        .when(within).then(declared)
        .otherwise(allowed).alias("event_class"),
        pl.when(declared.is_null() | allowed.is_null() | (allowed == "none")).then(pl.lit(True))
        .when(~declared_known).then(pl.lit(False))
        .otherwise(within).alias("class_consistent"),
    ).with_columns(
        # Neither a class nor a time control (a too-short clock is another rule's concern).
        (pl.col("event_class").is_null() & pl.col("time_control_class").is_null()).alias("class_missing"),
    ).sort("row_id")


def _unrated_events(
    comps: pl.DataFrame, g: pl.DataFrame, federation: str,
    ratings: pl.DataFrame | None, players: pl.DataFrame | None,
) -> pl.DataFrame:
    schema = {
        "row_id": pl.Int64(), "competition_id": pl.Utf8(), "player_id": pl.Utf8(),
        "start_date": pl.Date(), "games_vs_rated": pl.Int64(), "rated_opponents": pl.Int64(),
        "points_vs_rated": pl.Float64(), "first_event": pl.Boolean(), "first_event_zero": pl.Boolean(),
    }
    if federation != "fide" or g.is_empty():
        return pl.DataFrame(schema=schema)
    known = rated_players(federation, ratings, players)
    played = g.filter(pl.col("status") == "played")
    sides = pl.concat([
        played.select("competition_id", pl.col("player_a").alias("player_id"),
                      pl.col("player_b").alias("opponent_id"), pl.col("score_a").alias("score"),
                      pl.col("rating_a").alias("own"), pl.col("rating_b").alias("opp")),
        played.select("competition_id", pl.col("player_b").alias("player_id"),
                      pl.col("player_a").alias("opponent_id"), (1 - pl.col("score_a")).alias("score"),
                      pl.col("rating_b").alias("own"), pl.col("rating_a").alias("opp")),
    ]).filter(pl.col("own").is_null() & pl.col("player_id").is_not_null())
    if sides.is_empty():
        return pl.DataFrame(schema=schema)
    events = sides.group_by("competition_id", "player_id").agg(
        pl.col("opp").is_not_null().sum().cast(pl.Int64).alias("games_vs_rated"),
        pl.col("opponent_id").filter(pl.col("opp").is_not_null()).n_unique().cast(pl.Int64)
        .alias("rated_opponents"),
        pl.col("score").filter(pl.col("opp").is_not_null()).sum().cast(pl.Float64).alias("points_vs_rated"),
    ).join(comps.select("competition_id", "start_date", "end_date").unique("competition_id"),
           on="competition_id", how="left")
    history = known.select("player_id", "games_before")
    events = events.join(history, on="player_id", how="left").sort(
        "player_id", "end_date", "start_date", "competition_id"
    ).with_columns(
        # First event: no earlier games on the list and the earliest event of this batch.
        ((pl.col("games_before").fill_null(0) == 0)
         & (pl.int_range(pl.len()).over("player_id") == 0)).alias("first_event"),
    ).with_columns(
        (pl.col("first_event") & (pl.col("games_vs_rated") > 0) & (pl.col("points_vs_rated") == 0))
        .alias("first_event_zero"),
    )
    return events.with_row_index("row_id").select(
        pl.col("row_id").cast(pl.Int64), *[c for c in schema if c != "row_id"]
    )


def _players(players: pl.DataFrame | None, appearances: pl.DataFrame) -> pl.DataFrame:
    p = _with_columns(players, PLAYERS_SCHEMA).unique("player_id", keep="first", maintain_order=True)
    first = appearances.group_by("player_id").agg(pl.col("competition_id").first())
    return p.join(first, on="player_id", how="left").with_row_index("row_id").with_columns(
        pl.col("row_id").cast(pl.Int64)
    )


def start_dates(competitions: pl.DataFrame) -> dict[str | None, date | None]:
    """Competition id -> start date (the date that chooses the rule-set edition)."""
    frame = _with_columns(competitions, COMPETITIONS_SCHEMA)
    return {row["competition_id"]: row["start_date"] or row["end_date"] for row in frame.iter_rows(named=True)}
