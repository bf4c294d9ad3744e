"""EGF specifics for validation: tournament class from the time control, grades.

Source: EGF tournament classes (in force since 1999, class D for Internet events
since 2015), as published by the EGF rating commission (Ales Cieply's "Comments
on submitting tournament results", EGD): class A basic time >= 60 min and adjusted
time >= 75 min, B 40 / 50, C 25 / 30, D (online, national organisations) 40 / 50.
Adjusted time = basic time + the time for 45 moves of standard byo-yomi, 60 of
Canadian byo-yomi, or 120 Fischer increments; sudden death: adjusted = basic.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import polars as pl

if TYPE_CHECKING:
    from polars.expr.whenthen import ChainedThen, Then

#: (class, minimum basic time, minimum adjusted time), strongest first, over the board.
CLASS_TIME_LIMITS: tuple[tuple[str, float, float], ...] = (
    ("A", 60.0, 75.0),
    ("B", 40.0, 50.0),
    ("C", 25.0, 30.0),
)
#: Class D: Internet tournaments (minimum basic and adjusted time).
ONLINE_CLASS_LIMITS: tuple[str, float, float] = ("D", 40.0, 50.0)
#: Weakest-last order of the classes, used to compare a declared class with the time control.
CLASS_ORDER: tuple[str, ...] = ("A", "B", "C", "D")

_GRADE = re.compile(r"^\s*(\d{1,2})\s*([kKdDpP])\s*$")


def tournament_class(
    basic_time_min: float | None, adjusted_time_min: float | None = None, *, online: bool = False,
) -> str | None:
    """The strongest EGF tournament class a time control allows.

    Parameters
    ----------
    basic_time_min
        Basic (main) thinking time per player, in minutes.
    adjusted_time_min
        Basic time plus the overtime equivalent (45 standard byo-yomi moves, 60
        Canadian, 120 Fischer increments); ``None`` means sudden death (= basic).
    online
        An Internet tournament (only class D applies).

    Returns
    -------
    str | None
        ``"A"`` .. ``"D"``, or ``None`` when the time control is unknown or too short
        for any class.

    Examples
    --------
    >>> tournament_class(60, 75), tournament_class(45, 75), tournament_class(30, 30)
    ('A', 'B', 'C')
    >>> tournament_class(40, 60, online=True), tournament_class(20), tournament_class(None)
    ('D', None, None)
    """
    if basic_time_min is None:
        return None
    adjusted = basic_time_min if adjusted_time_min is None else adjusted_time_min
    limits = (ONLINE_CLASS_LIMITS,) if online else CLASS_TIME_LIMITS
    for name, basic_min, adjusted_min in limits:
        if basic_time_min >= basic_min and adjusted >= adjusted_min:
            return name
    return None


def grade_value(rank: str | None) -> int | None:
    """A Go grade as a number of grades above 30k (20k = 10, 1k = 29, 1d = 30, 7d = 36).

    Professional grades count from 7d up (1p = 37). ``None`` when unreadable.

    Examples
    --------
    >>> grade_value("3k"), grade_value("1D"), grade_value("1k") - grade_value("5k"), grade_value("x")
    (27, 30, 4, None)
    """
    if rank is None:
        return None
    match = _GRADE.match(rank)
    if match is None:
        return None
    number, kind = int(match.group(1)), match.group(2).lower()
    if kind == "k":
        return 30 - number if 1 <= number <= 30 else None
    if kind == "d":
        return 29 + number if 1 <= number <= 9 else None
    return 36 + number if 1 <= number <= 9 else None


def tournament_class_expr(basic: str, adjusted: str, online: str) -> pl.Expr:
    """:func:`tournament_class` as a polars expression (no Python callback).

    Examples
    --------
    >>> df = pl.DataFrame({"b": [60.0, 45.0, 40.0, 20.0, None], "a": [75.0, None, 60.0, None, None],
    ...                    "o": [False, False, True, False, False]})
    >>> df.select(tournament_class_expr("b", "a", "o")).to_series().to_list()
    ['A', 'C', 'D', None, None]
    """
    b = pl.col(basic)
    a = pl.coalesce(pl.col(adjusted), b)
    on = pl.col(online).fill_null(False)
    name, b_min, a_min = ONLINE_CLASS_LIMITS
    expr: Then | ChainedThen = pl.when(on).then(pl.when((b >= b_min) & (a >= a_min)).then(pl.lit(name)))
    for name, b_min, a_min in CLASS_TIME_LIMITS:
        expr = expr.when((b >= b_min) & (a >= a_min)).then(pl.lit(name))
    return expr.otherwise(pl.lit(None, pl.Utf8()))


def grade_expr(rank: pl.Expr) -> pl.Expr:
    """:func:`grade_value` as a polars expression (no Python callback).

    Examples
    --------
    >>> df = pl.DataFrame({"r": ["3k", "1D", " 2p ", "x", "31k", None]})
    >>> df.select(grade_expr(pl.col("r"))).to_series().to_list()
    [27, 30, 38, None, None, None]
    """
    parts = rank.str.extract_groups(_GRADE.pattern)
    number = parts.struct.field("1").cast(pl.Int64, strict=False)
    kind = parts.struct.field("2").str.to_lowercase()
    return (
        pl.when((kind == "k") & number.is_between(1, 30)).then(30 - number)
        .when((kind == "d") & number.is_between(1, 9)).then(29 + number)
        .when((kind == "p") & number.is_between(1, 9)).then(36 + number)
        .otherwise(pl.lit(None, pl.Int64()))
    )


def adjusted_time(
    basic_time_min: float,
    system: str | None = None,
    *,
    byoyomi_seconds: float = 0.0,
    canadian_moves: int = 0,
    fischer_seconds: float = 0.0,
) -> float:
    """Adjusted time in minutes: basic time plus the EGF overtime equivalent.

    Parameters
    ----------
    basic_time_min
        Basic time per player, minutes.
    system
        ``"STDBYOYOMI"`` (``byoyomi_seconds`` per move, 45 moves counted),
        ``"CANBYOYOMI"`` (``byoyomi_seconds`` per ``canadian_moves`` moves, 60 moves
        counted), ``"FISCHER"`` (``fischer_seconds`` per move, 120 moves counted) or
        sudden death (anything else: no overtime). OpenGotha's
        ``complementaryTimeSystem`` values.

    Examples
    --------
    >>> adjusted_time(45, "CANBYOYOMI", byoyomi_seconds=300, canadian_moves=25)  # Bogazici 2024
    57.0
    >>> adjusted_time(60, "STDBYOYOMI", byoyomi_seconds=30), adjusted_time(45, "FISCHER", fischer_seconds=15)
    (82.5, 75.0)
    """
    kind = (system or "").upper()
    if kind == "STDBYOYOMI":
        return basic_time_min + 45 * byoyomi_seconds / 60
    if kind == "CANBYOYOMI" and canadian_moves > 0:
        return basic_time_min + 60 * (byoyomi_seconds / canadian_moves) / 60
    if kind == "FISCHER":
        return basic_time_min + 120 * fischer_seconds / 60
    return float(basic_time_min)


def newcomers_without_start(
    competitions: pl.DataFrame, games: pl.DataFrame, players: pl.DataFrame | None,
    ratings: pl.DataFrame | None, *, federation: str = "egf",
) -> pl.DataFrame:
    """Findings for EGF newcomers whose starting rating cannot be known.

    A player new to the EGF starts from the grade the file declares (20k = 100 ...
    7d = 2700) unless the list or the file gives an EGF rating. A newcomer with
    neither cannot be rated, so the competition is rejected with a finding that names
    the player and the line of their first game (rule ``egf.newcomer_grade``).

    Examples
    --------
    >>> comps = pl.DataFrame({"competition_id": ["T"], "source": ["t.h9"]})
    >>> games = pl.DataFrame({"competition_id": ["T"], "player_a": ["p1"], "player_b": ["p2"],
    ...                       "source_line": [7]})
    >>> players = pl.DataFrame({"player_id": ["p1", "p2"], "name": ["Ana", "Bo"],
    ...                         "declared_rank": ["3k", None], "declared_rating": [None, None]})
    >>> newcomers_without_start(comps, games, players, None).select("rule", "line", "message").row(0)
    ('egf.newcomer_grade', 7, "Player Bo (p2) is new to the EGF and the file gives neither a grade nor an EGF rating: add the player's grade (e.g. 12k, 2d) so a starting rating can be set.")
    """
    from formats.schema import FINDINGS_SCHEMA, conform, empty

    if games.height == 0:
        return empty(FINDINGS_SCHEMA)
    appearances = pl.concat([
        games.select("competition_id", pl.col("player_a").alias("player_id"), "source_line"),
        games.select("competition_id", pl.col("player_b").alias("player_id"), "source_line"),
    ]).sort("source_line", nulls_last=True).unique(["competition_id", "player_id"], keep="first", maintain_order=True)
    known: set[str] = set()
    if ratings is not None and ratings.height and "rating" in ratings.columns:
        known = set(ratings.filter(pl.col("rating").is_not_null()).get_column("player_id").to_list())
    info = pl.DataFrame(schema={"player_id": pl.Utf8(), "name": pl.Utf8(), "declared_rank": pl.Utf8(),
                                "declared_rating": pl.Float64()})
    if players is not None and players.height:
        info = conform(players, {"player_id": pl.Utf8(), "name": pl.Utf8(), "declared_rank": pl.Utf8(),
                                 "declared_rating": pl.Float64()}).unique("player_id", keep="last")
    joined = appearances.join(info, on="player_id", how="left")
    grade_ok = grade_expr(pl.col("declared_rank")).is_not_null()
    missing = joined.filter(
        ~pl.col("player_id").is_in(list(known))
        & pl.col("declared_rating").is_null()
        & (pl.col("declared_rank").is_null() | ~grade_ok.fill_null(False))
    )
    if missing.height == 0:
        return empty(FINDINGS_SCHEMA)
    sources = competitions.select("competition_id", "source")
    rows = missing.join(sources, on="competition_id", how="left").with_columns(
        pl.lit(federation).alias("federation"),
        pl.lit("egf.newcomer_grade").alias("rule"),
        pl.lit("reject").alias("severity"),
        pl.lit("declared_rank").alias("field"),
        pl.col("source_line").alias("line"),
        pl.format(
            "Player {} ({}) is new to the EGF and the file gives neither a grade nor an EGF rating: "
            "add the player's grade (e.g. 12k, 2d) so a starting rating can be set.",
            pl.col("name").fill_null("?"), pl.col("player_id"),
        ).alias("message"),
    )
    return conform(rows, FINDINGS_SCHEMA)
