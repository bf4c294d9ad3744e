"""The tables the read API reads, as SQLAlchemy columns (see :mod:`warehouse.query`)."""

from __future__ import annotations

from typing import Any

import polars as pl

from warehouse._model_types import table_of
from warehouse.models import (
    Bye,
    Competition,
    Finding,
    Game,
    LedgerEntry,
    Player,
    Rating,
    RatingChange,
    SeedEntry,
)

_COMPETITIONS = table_of(Competition)
_RATING_CHANGES = table_of(RatingChange)
_PLAYERS = table_of(Player)
_RATINGS = table_of(Rating)
_C = _COMPETITIONS.c
_G = table_of(Game).c
_B = table_of(Bye).c
_F = table_of(Finding).c
_L = table_of(LedgerEntry).c
_P = _PLAYERS.c
_R = _RATINGS.c
_RC = _RATING_CHANGES.c
_S = table_of(SeedEntry).c


def _cols(columns: Any, schema: dict[str, pl.DataType]) -> list[Any]:
    return [columns[name] for name in schema]
