"""Turn the canonical frames into the flat arrays the rating kernels walk.

Every system rates competitions in the same order (``../shared/DESIGN.md``,
"Semantics"): end date, then start date, then id. Only games that count reach a
kernel: ``played``, with a known score, and ``rated`` when that column is given.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numba
import numpy as np
import numpy.typing as npt
import polars as pl

from engine._coding import code_players, players_in_order
from engine.errors import InvalidHistoryError

_COMPETITION_COLUMNS = ("competition_id", "start_date", "end_date")
_GAME_COLUMNS = ("competition_id", "player_a", "player_b", "score_a")


@dataclass(frozen=True)
class History:
    """The history as arrays, competitions in rating order."""

    competitions: pl.DataFrame
    """Sorted competitions with ``comp_idx`` (0-based rating order)."""
    games: pl.DataFrame
    """Counted games sorted by ``comp_idx`` with ``a_idx``/``b_idx`` into ``player_ids`` (no id strings:
    the output frames decode the codes through ``id_table`` and the competitions)."""
    player_ids: list[str]
    """Every player of the seed and of the games; index = position."""
    game_offsets: npt.NDArray[np.int64]
    """Games of competition ``c`` are rows ``game_offsets[c]:game_offsets[c + 1]``."""
    player_rank: npt.NDArray[np.int64]
    """Position of each player's id in sorted order: sorting output rows on an integer is far
    cheaper than on the id strings, with the same order."""
    id_table: pl.Series
    """``player_ids`` as a series: the output frames decode ``a_idx`` / ``b_idx`` from it."""


def _require(frame: pl.DataFrame, columns: tuple[str, ...], what: str) -> None:
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise InvalidHistoryError(f"{what} frame lacks column(s) {missing}; it has {frame.columns}")


def counted_games(games: pl.DataFrame) -> pl.DataFrame:
    """Keep the games a rating system counts.

    A game counts when its ``status`` is ``played`` (absent column: every game
    is), its ``score_a`` is known and ``rated`` (when present) is true.

    Examples
    --------
    >>> g = pl.DataFrame({"competition_id": ["c"] * 3, "player_a": ["1", "1", "2"],
    ...     "player_b": ["2", "3", "3"], "score_a": [1.0, None, 0.5],
    ...     "status": ["played", "unknown", "forfeit"]})
    >>> counted_games(g).height
    1
    """
    keep = pl.col("score_a").is_not_null()
    if "status" in games.columns:
        keep = keep & (pl.col("status").fill_null("played") == "played")
    if "rated" in games.columns:
        keep = keep & pl.col("rated").fill_null(True)
    return games.filter(keep)


def prepare(competitions: pl.DataFrame, games: pl.DataFrame, start: pl.DataFrame) -> History:
    """Sort competitions, keep counted games and index players.

    Raises
    ------
    InvalidHistoryError
        A required column is missing, a score is not 0, 0.5 or 1, or a player
        is paired with themself.
    """
    _require(competitions, _COMPETITION_COLUMNS, "competitions")
    _require(games, _GAME_COLUMNS, "games")
    comps = (
        competitions.with_columns(pl.col("competition_id").cast(pl.Utf8))
        .unique(subset="competition_id", keep="first", maintain_order=True)
        .with_columns(
            pl.col("end_date").fill_null(pl.col("start_date")),
            pl.col("start_date").fill_null(pl.col("end_date")),
        )
        .sort(["end_date", "start_date", "competition_id"], nulls_last=True)
        .with_row_index("comp_idx")
        .with_columns(pl.col("comp_idx").cast(pl.Int64))
    )
    if comps.filter(pl.col("end_date").is_null()).height:
        bad = comps.filter(pl.col("end_date").is_null())["competition_id"].to_list()
        raise InvalidHistoryError(f"competition(s) {bad} have neither start_date nor end_date")
    # Only the columns the systems read travel on: sorting and gathering a million rows
    # costs per column.
    g = counted_games(games).select(
        pl.col("competition_id").cast(pl.Utf8), pl.col("player_a").cast(pl.Utf8), pl.col("player_b").cast(pl.Utf8),
        pl.col("score_a").cast(pl.Float64),
        *[
            pl.col(name).cast(pl.Int32) if name in games.columns else pl.lit(None, pl.Int32).alias(name)
            for name in ("round", "handicap", "source_line")
        ],
    )
    # A lookup, not a join: a hash join on a million id strings costs ten times more, and
    # this keeps the games in their input order.
    g = g.with_columns(
        (pl.col("competition_id").replace_strict(   # an empty mapping returns the input (polars 2.1)
            comps["competition_id"], comps["comp_idx"], default=None, return_dtype=pl.Int64
        ) if comps.height else pl.lit(None, pl.Int64)).alias("comp_idx")
    ).filter(pl.col("comp_idx").is_not_null())
    bad_score = g.filter(~pl.col("score_a").is_in([0.0, 0.5, 1.0]))
    if bad_score.height:
        row = bad_score.row(0, named=True)
        raise InvalidHistoryError(
            f"score_a must be 1, 0.5 or 0, not {row['score_a']!r} "
            f"(competition {row['competition_id']}, line {row['source_line']})"
        )
    selfplay = g.filter(pl.col("player_a") == pl.col("player_b"))
    if selfplay.height:
        row = selfplay.row(0, named=True)
        raise InvalidHistoryError(
            f"player {row['player_a']!r} is paired with themself "
            f"(competition {row['competition_id']}, line {row['source_line']})"
        )
    seed_ids = start["player_id"].cast(pl.Utf8) if "player_id" in start.columns else pl.Series([], dtype=pl.Utf8)
    table, a_code, b_code = code_players(seed_ids, g["player_a"], g["player_b"])
    # The id strings end here: the sort and everything after move integer codes.
    g = g.drop("competition_id", "player_a", "player_b").with_row_index("game_idx").with_columns(
        pl.Series("a_code", a_code, dtype=pl.Int64), pl.Series("b_code", b_code, dtype=pl.Int64))
    order = g["comp_idx"].to_numpy()
    if order.size and not bool((order[1:] >= order[:-1]).all()):  # files usually come in date order
        g = g.sort("comp_idx", maintain_order=True)
    ids, a_idx, b_idx, rank = players_in_order(table, seed_ids, g["a_code"].to_numpy(), g["b_code"].to_numpy())
    player_ids: list[str] = ids.to_list()
    g = g.drop("a_code", "b_code").with_columns(
        pl.Series("a_idx", a_idx, dtype=pl.Int64), pl.Series("b_idx", b_idx, dtype=pl.Int64),
        pl.Series("a_rank", rank[a_idx], dtype=pl.Int64), pl.Series("b_rank", rank[b_idx], dtype=pl.Int64),
    )
    counts = np.bincount(g["comp_idx"].to_numpy(), minlength=comps.height)
    offsets = np.zeros(comps.height + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    return History(competitions=comps, games=g, player_ids=player_ids, game_offsets=offsets, player_rank=rank,
                   id_table=ids)


def seed_column(start: pl.DataFrame, player_ids: list[str], column: str, dtype: pl.DataType) -> pl.Series:
    """``start[column]`` aligned on ``player_ids`` (null where not seeded)."""
    if column not in start.columns or "player_id" not in start.columns:
        return pl.Series(column, [None] * len(player_ids), dtype=dtype)
    seed = start.select(pl.col("player_id").cast(pl.Utf8), pl.col(column).cast(dtype, strict=False)).unique(
        subset="player_id", keep="last", maintain_order=True
    ).filter(pl.col("player_id").is_not_null())
    if not seed.height:   # replace_strict with an empty mapping returns its input unchanged (polars 2.1)
        return pl.Series(column, [None] * len(player_ids), dtype=dtype)
    # A lookup rather than a join: the same result at a fraction of the cost.
    return pl.Series(column, player_ids, dtype=pl.Utf8).replace_strict(
        seed["player_id"], seed[column], default=None, return_dtype=dtype
    )


def player_column(players: pl.DataFrame | None, player_ids: list[str], column: str, dtype: pl.DataType) -> pl.Series:
    """``players[column]`` aligned on ``player_ids`` (null where unknown)."""
    if players is None:
        return pl.Series(column, [None] * len(player_ids), dtype=dtype)
    return seed_column(players, player_ids, column, dtype)


def own_declared_ratings(players: pl.DataFrame, federation: str) -> pl.DataFrame:
    """Keep a file's declared rating only where it comes from this federation's own list.

    DESIGN.md: a newcomer starts from what the file declares when it is the same
    federation's rating (a TRF rating for FIDE, an OpenGotha rating whose origin is
    the EGF); a national list's rating (FFG, ...) is ignored and the federation's rule
    for newcomers applies (EGF: from the declared grade). Unsaid origin: the file's own.

    Examples
    --------
    >>> p = pl.DataFrame({"player_id": ["a", "b", "c"], "declared_rating": [2100.0, 1500.0, 900.0],
    ...                   "declared_rating_origin": ["EGF", "FFG", None]})
    >>> own_declared_ratings(p, "egf").get_column("declared_rating").to_list()
    [2100.0, None, 900.0]
    """
    if "declared_rating_origin" not in players.columns:
        return players
    origin = pl.col("declared_rating_origin").str.to_lowercase()
    return players.with_columns(
        pl.when(origin.is_null() | (origin == federation.lower()))
        .then(pl.col("declared_rating"))
        .otherwise(None)
        .alias("declared_rating")
    )


def explain_and_summarise(
    rows: pl.DataFrame, *, group: str, firsts: list[str], sums: list[str], n_players: int
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Sort explanation rows and sum them per player and competition, in numpy.

    ``rows`` holds one row per (player, game) with the integer columns ``group``
    (competition order), ``prank`` (player order), ``round`` and ``game_idx``.
    Returns the rows sorted by competition, player, round, game and one row per
    (competition, player) with the ``firsts`` columns of its first row, the
    ``sums`` columns summed (nulls count as 0) and ``games`` (row count). A
    polars sort / group_by on millions of rows costs seconds on a loaded
    machine; one ``lexsort`` and ``reduceat`` cost a fraction.
    """
    if rows.height == 0:
        empty = rows.select(*firsts, *sums).clear().with_columns(pl.lit(0, pl.Int64).alias("games"))
        return rows, empty.with_columns(pl.lit(0, pl.Int64).alias(group)).clear()
    key = rows[group].to_numpy().astype(np.int64) * (n_players + 1) + rows["prank"].to_numpy().astype(np.int64)
    rnd = rows["round"].fill_null(0).to_numpy().astype(np.int64)
    top = int(rnd.max(initial=0)) + 1
    if int(key.max(initial=0)) < (1 << 62) // (top + 1):
        # one stable sort on a combined key (rows arrive in game order within each side)
        order = np.argsort(key * top + np.clip(rnd, 0, None), kind="stable")
    else:  # pragma: no cover - astronomically many competitions x players
        order = np.lexsort((rows["game_idx"].to_numpy().astype(np.int64), rnd, key))
    ordered = rows[order]
    sorted_key = key[order]
    starts = np.flatnonzero(np.concatenate(([True], sorted_key[1:] != sorted_key[:-1])))
    counts = np.diff(np.concatenate((starts, [len(sorted_key)])))
    cols: dict[str, Any] = {c: ordered[c].gather(starts) for c in [group, *firsts]}
    for c in sums:
        values = ordered[c].fill_null(0.0).to_numpy().astype(np.float64)
        cols[c] = np.add.reduceat(values, starts)
    cols["games"] = counts.astype(np.int64)
    return ordered, pl.DataFrame(cols)


@dataclass(frozen=True)
class Summary:
    """One row per (competition, player), in the order of :func:`explain_and_summarise`."""

    group: npt.NDArray[np.int64]
    """The group (competition) of each row."""
    game: npt.NDArray[np.int64]
    """A game of the player in the group (its first explanation row's game)."""
    side: npt.NDArray[np.int8]
    """0: the player is ``player_a`` of ``game``, 1: ``player_b``."""
    games: npt.NDArray[np.int64]
    """Explanation rows (games) summed into the row."""
    sums: npt.NDArray[np.float64]
    """``sums[j]``: the ``j``-th value summed over the row's games (in explanation order)."""


@numba.njit(cache=True, nogil=True)
def _group_sides(offsets: Any, a_idx: Any, b_idx: Any, rank: Any, rnd: Any, use_a: Any, use_b: Any,
                 vals_a: Any, vals_b: Any) -> Any:  # pragma: no cover - compiled
    n = a_idx.shape[0]
    n_vals = vals_a.shape[1]
    top = 1
    for g in range(n):
        top = max(top, rnd[g] + 1)
    widest = 0
    for c in range(offsets.shape[0] - 1):
        widest = max(widest, offsets[c + 1] - offsets[c])
    keys = np.empty(2 * widest, dtype=np.int64)
    gid = np.empty(2 * widest, dtype=np.int64)
    sd = np.empty(2 * widest, dtype=np.int8)
    out_group = np.empty(2 * n, dtype=np.int64)
    out_game = np.empty(2 * n, dtype=np.int64)
    out_side = np.empty(2 * n, dtype=np.int8)
    out_count = np.zeros(2 * n, dtype=np.int64)
    out_sums = np.zeros((2 * n, n_vals))  # row-major per row: the values of one row side by side
    rows = 0
    for c in range(offsets.shape[0] - 1):
        m = 0
        # explanation order: player, round, then the rows of side a before side b, each in game order
        for side in range(2):
            for g in range(offsets[c], offsets[c + 1]):
                if (use_a[g] if side == 0 else use_b[g]):
                    p = a_idx[g] if side == 0 else b_idx[g]
                    keys[m] = (rank[p] * top + max(rnd[g], 0)) * 2 + side
                    gid[m] = g
                    sd[m] = side
                    m += 1
        if m == 0:
            continue
        order = np.argsort(keys[:m], kind="mergesort")
        last = -1
        for i in range(m):
            j = order[i]
            who = keys[j] // (2 * top)
            if who != last:
                last = who
                out_group[rows] = c
                out_game[rows] = gid[j]
                out_side[rows] = sd[j]
                rows += 1
            r = rows - 1
            out_count[r] += 1
            for v in range(n_vals):
                out_sums[r, v] += vals_a[gid[j], v] if sd[j] == 0 else vals_b[gid[j], v]
    return out_group[:rows], out_game[:rows], out_side[:rows], out_count[:rows], out_sums[:rows].T.copy()


def summarise_sides(
    offsets: npt.NDArray[np.int64], games: pl.DataFrame, rank: npt.NDArray[np.int64],
    use_a: npt.NDArray[np.bool_], use_b: npt.NDArray[np.bool_],
    vals_a: list[npt.NDArray[np.float64]], vals_b: list[npt.NDArray[np.float64]],
) -> Summary:
    """Sum per-game values per (group, player) without building the explanation rows.

    ``games`` (sorted by group, ``offsets`` delimiting the groups) carries ``a_idx``,
    ``b_idx`` and ``round``; ``use_a`` / ``use_b`` say which sides have an explanation
    row; ``vals_a[j]`` / ``vals_b[j]`` are the values of side a / b (NaN never reaches a
    sum: pass 0 for a null). Rows come in the order :func:`explain_and_summarise`
    gives (group, then player order ``rank``) and each sum adds the games in
    explanation order (round, side a first, game), one compiled pass.
    """
    n = games.height
    a = games["a_idx"].to_numpy().astype(np.int64)
    b = games["b_idx"].to_numpy().astype(np.int64)
    rnd = games["round"].fill_null(0).to_numpy().astype(np.int64)
    va = np.column_stack(vals_a).astype(np.float64) if vals_a else np.zeros((n, 0))
    vb = np.column_stack(vals_b).astype(np.float64) if vals_b else np.zeros((n, 0))
    group, game, side, count, sums = _group_sides(
        offsets.astype(np.int64), a, b, rank.astype(np.int64), rnd, use_a.astype(np.bool_), use_b.astype(np.bool_),
        np.ascontiguousarray(va.reshape(n, len(vals_a))), np.ascontiguousarray(vb.reshape(n, len(vals_b))),
    )
    return Summary(group=group, game=game, side=side, games=count, sums=sums)


def pick(summary: Summary, a: Any, b: Any) -> Any:
    """Per summary row, the value of ``a`` (side a) or ``b`` (side b) at its game (numpy or polars)."""
    if isinstance(a, pl.Series):
        idx = pl.Series(summary.game)
        return pl.select(
            pl.when(pl.Series(summary.side) == 0).then(a.gather(idx)).otherwise(b.gather(idx))
        ).to_series().alias(a.name)
    return np.where(summary.side == 0, np.asarray(a)[summary.game], np.asarray(b)[summary.game])
