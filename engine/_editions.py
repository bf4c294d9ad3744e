"""Rating states between competitions: what each published edition holds, and where to restart.

DESIGN.md *Publication*: AJUSC and EGF publish an edition after every rated
competition, FIDE a list on the 1st of each month holding every rating period that
ended before it. An edition's figures are the rating state after the last
competition (or period) it holds. That state is the seed list with the rating
changes up to that point laid over it, so it can be rebuilt from the stored
``rating_changes`` alone (no engine run, no per-edition snapshot table), and it is
also the state a restartable rating system continues from when a late competition
re-rates only from its date.

A *point* orders the history: ``end|start|competition_id`` of a competition
(per-competition publication) or the ISO date of the monthly list a competition is
rated in. ISO dates have a fixed width, so comparing points as strings is comparing
them in rating order.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from datetime import date
from typing import Any

import polars as pl

from engine import barruf, fide_elo
from engine._frames import RATINGS_SCHEMA, conform
from engine.errors import InvalidConfigError
from engine.rulesets import system_for

__all__ = [
    "PUBLICATIONS",
    "RESTARTABLE_SYSTEMS",
    "advance_state",
    "competition_points",
    "monthly_points",
    "publication_of",
    "restartable",
    "state_from_seed",
    "states_at",
]

#: How a federation publishes (``publication`` in its table of ``federations.toml``).
PUBLICATIONS = ("per-competition", "monthly")

#: Systems whose engine continues exactly from a stored state (:func:`advance_state`):
#: their whole per-player state is rating, games and last played. FIDE's is not (an
#: unrated player's pooled games toward an initial rating, the rating period in
#: progress), so a FIDE run always re-rates from the seed.
RESTARTABLE_SYSTEMS = ("barruf", "egf-gor")


def publication_of(federation: str, config: Mapping[str, Any] | None = None) -> str:
    """The federation's ``publication`` (default: ``monthly`` for FIDE Elo, else per competition).

    Raises
    ------
    InvalidConfigError
        An unknown value.

    Examples
    --------
    >>> publication_of("fide"), publication_of("ajusc", {"publication": "per-competition"})
    ('monthly', 'per-competition')
    """
    value = (config or {}).get("publication")
    if value is None:
        return "monthly" if system_for(federation, config) == "fide-elo" else "per-competition"
    if value not in PUBLICATIONS:
        raise InvalidConfigError(f"publication must be one of {', '.join(PUBLICATIONS)}, not {value!r}")
    return str(value)


def restartable(federation: str, config: Mapping[str, Any] | None = None) -> bool:
    """Whether the federation's engine can continue from a stored state (see :data:`RESTARTABLE_SYSTEMS`)."""
    return system_for(federation, config) in RESTARTABLE_SYSTEMS


def competition_points(competitions: pl.DataFrame, publication: str) -> pl.DataFrame:
    """``competition_id``, ``end_date`` and the ``point`` of each competition.

    Examples
    --------
    >>> c = pl.DataFrame({"competition_id": ["B", "A"], "start_date": [date(2025, 10, 4), None],
    ...                   "end_date": [date(2025, 10, 5), date(2025, 10, 4)]})
    >>> competition_points(c, "per-competition")["point"].to_list()
    ['2025-10-05|2025-10-04|B', '2025-10-04|2025-10-04|A']
    >>> competition_points(c, "monthly")["point"].to_list()
    ['2025-11-01', '2025-11-01']
    """
    comps = competitions.select(
        pl.col("competition_id").cast(pl.Utf8),
        pl.col("end_date").fill_null(pl.col("start_date")),
        pl.col("start_date").fill_null(pl.col("end_date")),
    )
    if publication == "monthly":
        lists = [fide_elo.next_list(d).isoformat() for d in comps["end_date"].to_list()]
        point = pl.Series("point", lists, dtype=pl.Utf8)
    else:
        point = comps.select(
            pl.format("{}|{}|{}", pl.col("end_date").dt.strftime("%Y-%m-%d"),
                      pl.col("start_date").dt.strftime("%Y-%m-%d"), pl.col("competition_id"))
        ).to_series().alias("point")
    return comps.select("competition_id", "end_date").with_columns(point)


def monthly_points(first: str, last: str) -> list[str]:
    """Every FIDE list date from ``first`` to ``last`` (ISO dates): one list per month.

    Examples
    --------
    >>> monthly_points("2025-11-01", "2026-02-01")
    ['2025-11-01', '2025-12-01', '2026-01-01', '2026-02-01']
    """
    out = [first]
    day = date.fromisoformat(first)
    stop = date.fromisoformat(last)
    while day < stop:
        day = fide_elo.next_list(day)
        out.append(day.isoformat())
    return out


def point_date(point: str) -> date:
    """The date an ordinary edition at ``point`` is in force from (its first field).

    Examples
    --------
    >>> point_date("2025-10-05|2025-10-04|B"), point_date("2025-11-01")
    (datetime.date(2025, 10, 5), datetime.date(2025, 11, 1))
    """
    return date.fromisoformat(point[:10])


def state_from_seed(seed: pl.DataFrame) -> pl.DataFrame:
    """The seeded list as a rating state (RATINGS_SCHEMA, one row per player)."""
    return conform(seed, RATINGS_SCHEMA).unique(subset="player_id", keep="last", maintain_order=True)


def _season_of(day: pl.Expr, config: Mapping[str, Any] | None) -> pl.Expr:
    """:func:`barruf.season_start_year` of each date: the year its AJUSC season began.

    Examples
    --------
    >>> pl.select(_season_of(pl.lit(date(2025, 8, 31)), None), _season_of(pl.lit(date(2025, 9, 1)), None).alias("b")).row(0)
    (2024, 2025)
    """
    month, first = barruf.BarrufParameters.from_config(config).season_start
    before = (day.dt.month() < month) | ((day.dt.month() == month) & (day.dt.day() < first))
    return day.dt.year().cast(pl.Int64) - before.cast(pl.Int64)


def _season_in(label: pl.Expr) -> pl.Expr:
    """The year a season label (``"2024-25"``) began; null for anything else."""
    return label.str.extract(r"^(\d{4})", 1).cast(pl.Int64, strict=False)


def _season_label(year: pl.Expr) -> pl.Expr:
    """:func:`barruf.season_label` of each year: ``2024`` -> ``"2024-25"``."""
    return pl.format("{}-{}", year, ((year + 1) % 100).cast(pl.Utf8).str.zfill(2))


def advance_state(
    federation: str, state: pl.DataFrame, changes: pl.DataFrame, *, config: Mapping[str, Any] | None = None
) -> pl.DataFrame:
    """Lay rating changes (in rating order) over a state: the state after them.

    ``changes`` holds ``player_id``, ``rating_after``, ``games`` and the competition's
    ``end_date``. A player's rating becomes their last known ``rating_after`` (a FIDE
    unrated player's null ones leave it unrated), ``games`` adds up, ``last_played``
    moves to the last competition (AJUSC: its season, ``2025-26``; else its ISO end
    date) and ``as_of`` to the last end date. ``name`` and ``status`` stay the seed's:
    the engine derives a status from them only for a player who never played.

    This is the state the engine itself ends in (``tests/engine/test_editions.py``).

    Examples
    --------
    >>> state = pl.DataFrame({"player_id": ["1"], "rating": [1100.0], "games": [60]})
    >>> ch = pl.DataFrame({"player_id": ["1", "2"], "rating_after": [1113.0, 937.0], "games": [1, 1],
    ...                    "end_date": [date(2025, 10, 4)] * 2})
    >>> advance_state("ajusc", state, ch).select("player_id", "rating", "games", "last_played").rows()
    [('1', 1113.0, 61, '2025-26'), ('2', 937.0, 1, '2025-26')]
    """
    state = conform(state, RATINGS_SCHEMA)
    if changes.height == 0:
        return state
    system = system_for(federation, config)
    agg = changes.group_by(pl.col("player_id").cast(pl.Utf8), maintain_order=True).agg(
        pl.col("rating_after").cast(pl.Float64).drop_nulls().last().alias("_rating"),
        pl.col("games").cast(pl.Int64).fill_null(0).sum().alias("_games"),
        pl.col("end_date").cast(pl.Date).max().alias("_end"),
    )
    if system == "barruf":
        agg = agg.with_columns(_season_of(pl.col("_end"), config).alias("_year"))
        played = _season_label(pl.max_horizontal(pl.col("_year"), _season_in(pl.col("last_played"))))
    else:
        played = pl.col("_end").dt.strftime("%Y-%m-%d")
    as_of = agg["_end"].max()
    out = state.join(agg, on="player_id", how="full", coalesce=True, maintain_order="left_right")
    out = out.with_columns(
        pl.coalesce("_rating", "rating").alias("rating"),
        (pl.col("games").fill_null(0) + pl.col("_games").fill_null(0)).alias("games"),
        pl.when(pl.col("_end").is_not_null()).then(played).otherwise(pl.col("last_played")).alias("last_played"),
        pl.lit(as_of, pl.Date).alias("as_of"),
        pl.col("federation").fill_null(federation),
    )
    return conform(out, RATINGS_SCHEMA)


def states_at(
    federation: str,
    start: pl.DataFrame,
    changes: pl.DataFrame,
    points: list[str],
    *,
    config: Mapping[str, Any] | None = None,
) -> Iterator[tuple[str, pl.DataFrame]]:
    """The state after every point of ``points`` (ascending), from ``start``.

    ``changes`` holds a ``point`` column (:func:`competition_points`) besides the
    columns :func:`advance_state` reads, in rating order (so ``point`` never
    decreases); every change at or before a point is in the state yielded for it.
    """
    state = conform(start, RATINGS_SCHEMA)
    ordered = changes.sort("point", maintain_order=True)
    done = 0
    for point in points:
        upto = int(ordered["point"].search_sorted(point, side="right"))
        state = advance_state(federation, state, ordered.slice(done, upto - done), config=config)
        done = max(done, upto)
        yield point, state


#: The figures of a list line an edition's changes compare (rank and order follow from them).
LINE_FIGURES: tuple[str, ...] = ("player_id", "name", "rating", "games", "status", "category")


def list_epoch(federation: str, as_of: date, config: Mapping[str, Any] | None = None) -> object:
    """What the federation's list reads of its date: two dates of one epoch give a player who
    did not play between them the same line (AJUSC: the season; EGF: nothing; FIDE: the day).

    Examples
    --------
    >>> list_epoch("ajusc", date(2025, 10, 4)) == list_epoch("ajusc", date(2026, 5, 1))
    True
    """
    from engine import SYSTEM_MODULES

    epoch: object = SYSTEM_MODULES[system_for(federation, config)].list_epoch(as_of, config)
    return epoch


#: What a list reads of a player's rating state.
_STATE: tuple[str, ...] = ("federation", "player_id", "name", "rating", "games", "status", "last_played")


def _rated_lines(
    federation: str, rows: pl.DataFrame, config: Mapping[str, Any] | None
) -> pl.DataFrame:
    """The list figures of ``rows`` (a state row per point and player, ``point`` column), each
    at its point's date: one ``rating_list`` call per epoch, the rows told apart by index."""
    from engine import SYSTEM_MODULES

    module = SYSTEM_MODULES[system_for(federation, config)]
    indexed = rows.with_row_index("_row")
    parts = []
    for (epoch_day,), group in indexed.group_by("_epoch_day", maintain_order=True):
        listed = module.rating_list(
            group.with_columns(pl.col("_row").cast(pl.Utf8).alias("player_id")),
            as_of=epoch_day, federation=federation, config=config,
        )
        parts.append(listed.select(pl.col("player_id").cast(pl.UInt32).alias("_row"),
                                   *[c for c in LINE_FIGURES if c != "player_id"]))
    figures = pl.concat(parts) if parts else pl.DataFrame()
    return indexed.select("_row", "point", "player_id").join(figures, on="_row", how="left").drop("_row")


def list_changes(
    federation: str,
    first: pl.DataFrame,
    first_list: pl.DataFrame,
    changes: pl.DataFrame,
    points: list[str],
    *,
    names: pl.DataFrame | None = None,
    config: Mapping[str, Any] | None = None,
) -> tuple[pl.DataFrame, dict[str, int]]:
    """The lines that change on the list at each point after the first, in one pass.

    ``first`` is the state at ``points[0]`` (what :func:`states_at` yields, names filled) and
    ``first_list`` its list; ``changes`` the rows :func:`states_at` reads (with ``point``, in
    rating order). A point's line changes for the players who played there and, when the
    list's epoch (:func:`list_epoch`) moves, for anyone whose status moves with it: the list
    is computed in full only at those points. Returns ``point`` + :data:`LINE_FIGURES` for
    each line that differs from the player's line at the point before, and each point's
    number of players. Publishing an edition per competition of a 12,000-competition
    archive is then one pass over its changes, not 12,000 lists;
    ``tests/engine/test_list_changes.py`` checks it against the lists one by one.
    """
    if len(points) < 2:
        return pl.DataFrame(schema={"point": pl.Utf8(), **first_list.select(LINE_FIGURES).schema}), {}
    later = points[1:]
    agg = _played_at(changes, later)
    start = conform(first, RATINGS_SCHEMA)
    base = start.select("player_id", pl.col("name").alias("_name0"), pl.col("rating").alias("_rating0"),
                        pl.col("games").alias("_games0"), pl.col("last_played").alias("_played0"), "status")
    state = _states_of_players(federation, agg, base, names, config)
    candidates = _candidate_lines(federation, state, start, points, config)
    # A stored null ``games`` reads 0 from the first change on (as advance_state writes it).
    unknown = first_list.filter(pl.col("games").is_null()).with_columns(pl.lit(0, pl.Int64).alias("games"))
    candidates.append(unknown.select(pl.lit(later[0]).alias("point"), *LINE_FIGURES))
    found = pl.concat([c.select("point", *LINE_FIGURES) for c in candidates], how="vertical_relaxed")
    found = found.unique(["point", "player_id"], keep="first", maintain_order=True)
    before = first_list.select(pl.lit(points[0]).alias("point"), *LINE_FIGURES)
    seq = pl.concat([before, found], how="vertical_relaxed").sort("player_id", "point", maintain_order=True)
    by_player = pl.col("player_id")
    differs = pl.any_horizontal(
        [pl.col(c).ne_missing(pl.col(c).shift(1).over(by_player)) for c in LINE_FIGURES if c != "player_id"]
    ) | pl.col("point").shift(1).over(by_player).is_null()
    lines = seq.filter(differs & (pl.col("point") != points[0])).sort("point", "player_id")
    newcomers = agg.join(base, on="player_id", how="anti").group_by("player_id").agg(pl.col("point").min())
    joined = newcomers.group_by("point").len()
    count = dict(joined.iter_rows())
    sizes, listed = {}, start.height
    for p in later:
        listed += int(count.get(p, 0))
        sizes[p] = listed
    return lines, sizes


def _played_at(changes: pl.DataFrame, later: list[str]) -> pl.DataFrame:
    """Per point and player who played there: the last rating, the games and the last end date."""
    rows = changes.filter(pl.col("point").is_in(later)).sort("point", maintain_order=True)
    return rows.group_by(pl.col("point"), pl.col("player_id").cast(pl.Utf8), maintain_order=True).agg(
        pl.col("rating_after").cast(pl.Float64).drop_nulls().last().alias("_rating"),
        pl.col("games").cast(pl.Int64).fill_null(0).sum().alias("_games"),
        pl.col("end_date").cast(pl.Date).max().alias("_end"),
    ).sort("player_id", "point", maintain_order=True)


def _states_of_players(
    federation: str, agg: pl.DataFrame, base: pl.DataFrame, names: pl.DataFrame | None,
    config: Mapping[str, Any] | None,
) -> pl.DataFrame:
    """Each player's state at each point he played (:data:`_STATE` columns): rating, games, last played, name."""
    by_player = pl.col("player_id")
    state = agg.join(base, on="player_id", how="left", maintain_order="left").with_columns(
        pl.coalesce(pl.col("_rating").forward_fill().over(by_player), pl.col("_rating0")).alias("rating"),
        (pl.col("_games0").fill_null(0) + pl.col("_games").cum_sum().over(by_player)).alias("games"),
    )
    if system_for(federation, config) == "barruf":
        state = state.with_columns(_season_of(pl.col("_end"), config).alias("_year"))
        year_now = pl.max_horizontal(pl.col("_year").cum_max().over(by_player), _season_in(pl.col("_played0")))
        state = state.with_columns(_season_label(year_now).alias("last_played"))
    else:
        state = state.with_columns(pl.col("_end").dt.strftime("%Y-%m-%d").alias("last_played"))
    if names is not None and names.height:
        state = state.join(names.select("player_id", pl.col("name").alias("_known")), on="player_id", how="left",
                           maintain_order="left")
    else:
        state = state.with_columns(pl.lit(None, pl.Utf8).alias("_known"))
    return state.with_columns(pl.coalesce("_name0", "_known").alias("name"), pl.lit(federation).alias("federation"))


def _candidate_lines(
    federation: str, state: pl.DataFrame, start: pl.DataFrame, points: list[str], config: Mapping[str, Any] | None,
) -> list[pl.DataFrame]:
    """The lines that may change: those of the players who played at each point, and where the
    list's epoch moves, every player's line at that point (the list in full)."""
    later = points[1:]
    # Each point's epoch, and one date standing for it (any date of an epoch gives the same lines).
    days = {p: point_date(p) for p in points}
    epochs = {p: list_epoch(federation, days[p], config) for p in points}
    stand_in: dict[object, date] = {}
    for p in points:
        stand_in.setdefault(epochs[p], days[p])
    epoch_day = pl.col("point").replace_strict({p: stand_in[epochs[p]] for p in later}, return_dtype=pl.Date)
    played = state.select("point", *_STATE).with_columns(epoch_day.alias("_epoch_day"))
    candidates = [_rated_lines(federation, played, config)]
    for i, p in enumerate(later):
        if epochs[p] != epochs[points[i]]:
            upto = state.filter(pl.col("point") <= p).unique("player_id", keep="last", maintain_order=True)
            whole = start.join(upto.select("player_id"), on="player_id", how="anti").with_columns(
                pl.col("games").fill_null(0))
            full = pl.concat([whole.select(_STATE), upto.select(_STATE)], how="vertical_relaxed")
            candidates.append(_rated_lines(
                federation, full.with_columns(pl.lit(p).alias("point"), pl.lit(stand_in[epochs[p]]).alias("_epoch_day")),
                config))
    return candidates
