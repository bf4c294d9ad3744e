"""Shared fixtures of the engine tests: the project's own data files and the real data."""

from __future__ import annotations

from pathlib import Path

import polars as pl

DATA = Path(__file__).resolve().parent / "data"
from tests.conftest import SHARED, shared_path  # the one implementation, re-exported (__all__)

__all__ = ["DATA", "GAME_DTYPES", "SHARED_DATA", "SHARED_RULES", "competitions_of", "read_csv", "read_games", "shared_path"]

SHARED_DATA = SHARED / "data"
SHARED_RULES = SHARED / "rules"

GAME_DTYPES: dict[str, pl.DataType] = {
    "competition_id": pl.Utf8(), "player_a": pl.Utf8(), "player_b": pl.Utf8(), "score_a": pl.Float64(),
    "round": pl.Int32(), "handicap": pl.Int32(), "event_class": pl.Utf8(), "status": pl.Utf8(),
}


def read_csv(path: Path, **overrides: pl.DataType) -> pl.DataFrame:
    """A CSV with ``#`` comment lines (our golden files' ``# Source:`` header)."""
    return pl.read_csv(path, comment_prefix="#", try_parse_dates=True, schema_overrides=overrides or None)


def read_games(paths: list[Path]) -> pl.DataFrame:
    """Interchange ``*.results.csv`` files read with polars (formats is built in parallel)."""
    frames = [
        pl.read_csv(p, comment_prefix="#", try_parse_dates=True,
                    schema_overrides={k: v for k, v in GAME_DTYPES.items()})
        for p in paths
    ]
    return pl.concat(frames, how="diagonal_relaxed")


def competitions_of(games: pl.DataFrame) -> pl.DataFrame:
    """One row per competition of an interchange games frame."""
    cols = [c for c in ("start_date", "end_date", "event_class") if c in games.columns]
    return games.group_by("competition_id", maintain_order=True).agg(pl.col(c).first() for c in cols)


