"""Player and competition ids as integer codes: strings at the boundary of a call only.

A call codes the ids once (:func:`engine._history.prepare`); the kernels, sums and
sorts walk the codes, and the output frames decode them here. Gathering a million
id strings through every sort and pick cost more than the rating itself.
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np
import numpy.typing as npt
import polars as pl

from engine.errors import InvalidHistoryError


def pick_code(side: npt.NDArray[np.int8], game: npt.NDArray[np.int64], a: Any, b: Any) -> npt.NDArray[np.int64]:
    """Per summary row, the code of side a or b at its game (``side`` 0: a)."""
    a_np = np.asarray(a, dtype=np.int64)
    b_np = np.asarray(b, dtype=np.int64)
    return np.where(side == 0, a_np[game], b_np[game])


def decode(table: pl.Series, codes: Any, name: str) -> pl.Series:
    """The ids of ``codes`` (positions in ``table``), named ``name``."""
    index = codes if isinstance(codes, pl.Series) else pl.Series(np.asarray(codes, dtype=np.int64))
    return table.gather(index).alias(name)


def decode_rows(rows: pl.DataFrame, players: pl.Series, competitions: pl.Series, group: str) -> pl.DataFrame:
    """Explanation rows with ``pid`` / ``oid`` / ``group`` codes gain their id columns.

    Decoded after the rows are sorted, so the sort moves integers, not strings.
    """
    return rows.with_columns(
        decode(competitions, rows[group], "competition_id"),
        decode(players, rows["pid"], "player_id"),
        decode(players, rows["oid"], "opponent_id"),
    )


@numba.njit(cache=True, nogil=True)
def _first_seen(codes: Any, n: int) -> Any:  # pragma: no cover - compiled
    index = np.full(n, -1, dtype=np.int64)
    order = np.empty(n, dtype=np.int64)
    k = 0
    for i in range(codes.shape[0]):
        c = codes[i]
        if index[c] < 0:
            index[c] = k
            order[k] = c
            k += 1
    return index, order[:k]


def sorted_codes(values: pl.Series, table: pl.Series) -> npt.NDArray[np.int64]:
    """Each value's position in ``table`` (its sorted unique values), one hash lookup a value."""
    if not table.len():
        return np.zeros(0, dtype=np.int64)
    return values.cast(pl.Enum(table)).to_physical().to_numpy().astype(np.int64)


def code_players(seed_ids: pl.Series, player_a: pl.Series, player_b: pl.Series) -> tuple[
        pl.Series, npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """The call's code table of player ids and the sorted codes of ``player_a`` / ``player_b``.

    The table is every id of the seed and the games, ``unique().sort()``: a code is the id's
    place in sorted order, so sorting on codes sorts on ids, whatever order the games come in.
    """
    every = pl.concat([seed_ids, player_a, player_b])
    if player_a.null_count() or player_b.null_count():
        raise InvalidHistoryError("a game has no player_a or no player_b")
    table = every.drop_nulls().unique().sort()
    return table, sorted_codes(player_a, table), sorted_codes(player_b, table)


def players_in_order(table: pl.Series, seed_ids: pl.Series, a: npt.NDArray[np.int64],
                     b: npt.NDArray[np.int64]) -> tuple[pl.Series, npt.NDArray[np.int64], npt.NDArray[np.int64],
                                                         npt.NDArray[np.int64]]:
    """Players in order of appearance (the seed's, then side a's, then side b's games, as rated).

    Returns their ids, each game's ``a_idx`` / ``b_idx`` into them, and each player's rank
    (1-based place of the id in sorted order: its code plus one).
    """
    seed = sorted_codes(seed_ids.drop_nulls(), table)
    index, order = _first_seen(np.concatenate((seed, a, b)), table.len())
    return table.gather(order).rename("player_id"), index[a], index[b], order + 1
