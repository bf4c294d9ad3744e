"""Player and competition ids as integer codes: strings at the boundary of a call only.

A call codes the ids once (:func:`engine._history.prepare`); the kernels, sums and
sorts walk the codes, and the output frames decode them here. Gathering a million
id strings through every sort and pick cost more than the rating itself.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
import polars as pl


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
