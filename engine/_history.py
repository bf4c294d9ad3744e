"""Turn the canonical frames into the flat arrays the rating kernels walk.

Every system rates competitions in the same order (``../shared/DESIGN.md``,
"Semantics"): end date, then start date, then id. Only games that count reach a
kernel: ``played``, with a known score, and ``rated`` when that column is given.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
import polars as pl

from engine.errors import InvalidHistoryError

_COMPETITION_COLUMNS = ("competition_id", "start_date", "end_date")
_GAME_COLUMNS = ("competition_id", "player_a", "player_b", "score_a")


@dataclass(frozen=True)
class History:
    """The history as arrays, competitions in rating order."""

    competitions: pl.DataFrame
    """Sorted competitions with ``comp_idx`` (0-based rating order)."""
    games: pl.DataFrame
    """Counted games sorted by ``comp_idx`` with ``a_idx``/``b_idx`` into ``player_ids``."""
    player_ids: list[str]
    """Every player of the seed and of the games; index = position."""
    game_offsets: npt.NDArray[np.int64]
    """Games of competition ``c`` are rows ``game_offsets[c]:game_offsets[c + 1]``."""
    player_rank: npt.NDArray[np.int64]
    """Position of each player's id in sorted order: sorting output rows on an integer is far
    cheaper than on the id strings, with the same order."""


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
    g = counted_games(games).with_columns(
        pl.col("competition_id").cast(pl.Utf8), pl.col("player_a").cast(pl.Utf8), pl.col("player_b").cast(pl.Utf8),
        pl.col("score_a").cast(pl.Float64),
    )
    for name, dtype in (("round", pl.Int32), ("handicap", pl.Int32), ("source_line", pl.Int32)):
        g = g.with_columns(
            pl.col(name).cast(dtype) if name in g.columns else pl.lit(None, dtype).alias(name)
        )
    g = g.join(comps.select("competition_id", "comp_idx"), on="competition_id", how="inner")
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
    g = g.with_row_index("game_idx").sort(["comp_idx", "game_idx"])
    seed_ids = start["player_id"].cast(pl.Utf8) if "player_id" in start.columns else pl.Series([], dtype=pl.Utf8)
    ids = pl.concat([seed_ids, g["player_a"], g["player_b"]]).unique(maintain_order=True).drop_nulls()
    player_ids: list[str] = ids.to_list()
    index = pl.DataFrame({"pid": ids, "pidx": pl.Series(range(len(player_ids)), dtype=pl.Int64)})
    g = g.join(
        index.rename({"pid": "player_a", "pidx": "a_idx"}), on="player_a", how="left", maintain_order="left"
    ).join(index.rename({"pid": "player_b", "pidx": "b_idx"}), on="player_b", how="left", maintain_order="left")
    counts = np.bincount(g["comp_idx"].to_numpy(), minlength=comps.height)
    offsets = np.zeros(comps.height + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    rank = ids.rank("ordinal").cast(pl.Int64).to_numpy() if len(player_ids) else np.zeros(0, dtype=np.int64)
    g = g.with_columns(
        pl.Series("a_rank", rank[g["a_idx"].to_numpy()] if g.height else [], dtype=pl.Int64),
        pl.Series("b_rank", rank[g["b_idx"].to_numpy()] if g.height else [], dtype=pl.Int64),
    )
    return History(competitions=comps, games=g, player_ids=player_ids, game_offsets=offsets, player_rank=rank)


def seed_column(start: pl.DataFrame, player_ids: list[str], column: str, dtype: pl.DataType) -> pl.Series:
    """``start[column]`` aligned on ``player_ids`` (null where not seeded)."""
    frame = pl.DataFrame({"player_id": player_ids}, schema={"player_id": pl.Utf8})
    if column not in start.columns or "player_id" not in start.columns:
        return pl.Series(column, [None] * len(player_ids), dtype=dtype)
    seed = start.select(pl.col("player_id").cast(pl.Utf8), pl.col(column).cast(dtype, strict=False)).unique(
        subset="player_id", keep="last", maintain_order=True
    )
    return frame.join(seed, on="player_id", how="left", maintain_order="left")[column]


def player_column(players: pl.DataFrame | None, player_ids: list[str], column: str, dtype: pl.DataType) -> pl.Series:
    """``players[column]`` aligned on ``player_ids`` (null where unknown)."""
    if players is None:
        return pl.Series(column, [None] * len(player_ids), dtype=dtype)
    return seed_column(players, player_ids, column, dtype)


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
