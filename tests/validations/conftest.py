"""Shared builders for validation tests: competitions and games written in the test itself."""

from __future__ import annotations

import os
from collections.abc import Iterable
from datetime import date
from pathlib import Path
from typing import Any

import polars as pl

from tests.conftest import SHARED, shared_path

os.environ.setdefault("GX_ANALYTICS_ENABLED", "false")

from formats.schema import (
    BYES_SCHEMA,
    COMPETITIONS_SCHEMA,
    DECLARATIONS_SCHEMA,
    GAMES_SCHEMA,
    PLAYERS_SCHEMA,
    RATINGS_SCHEMA,
    conform,
)

#: The real-file folder shared by the project (never copied into the repository).
SHARED_DATA = SHARED / "data"


def shared_file(*parts: str) -> Path:
    """A real file under ``../shared/data`` (``tests.conftest.shared_path``: skip or CI failure)."""
    return shared_path("data", *parts)


def round_robin(players: list[str], rounds: int) -> list[tuple[int, str, str]]:
    """(round, a, b) pairings of the circle method, ``rounds`` rounds (byes dropped)."""
    ps: list[str | None] = list(players)
    if len(ps) % 2:
        ps.append(None)
    n = len(ps)
    out: list[tuple[int, str, str]] = []
    for r in range(rounds):
        for i in range(n // 2):
            a, b = ps[i], ps[n - 1 - i]
            if a is not None and b is not None:
                out.append((r + 1, a, b))
        ps = [ps[0], ps[-1], *ps[1:-1]]
    return out


class Batch:
    """Accumulates competitions, games, players and byes; one validate call for many cases."""

    def __init__(self, federation: str) -> None:
        self.federation = federation
        self.competitions: list[dict[str, Any]] = []
        self.games: list[dict[str, Any]] = []
        self.players: list[dict[str, Any]] = []
        self.ratings: list[dict[str, Any]] = []
        self.byes: list[dict[str, Any]] = []

    def competition(
        self, cid: str, *, start: date | None = date(2025, 10, 4), end: date | None = None,
        players: Iterable[str] = ("1", "2", "3", "4"), rounds: int = 3, score: float = 1.0,
        **fields: Any,
    ) -> list[dict[str, Any]]:
        """Add a competition with a round robin of ``players`` over ``rounds`` rounds."""
        self.competitions.append({
            "federation": self.federation, "competition_id": cid, "name": f"Open {cid}",
            "start_date": start, "end_date": end if end is not None else start,
            "source": f"{cid}.results.csv", "source_sha256": "0" * 64, **fields,
        })
        added = []
        for rnd, a, b in round_robin(list(players), rounds):
            added.append(self.game(cid, rnd, a, b, score))
        return added

    def game(self, cid: str, rnd: int | None, a: str | None, b: str | None, score: float | None = 1.0,
             **fields: Any) -> dict[str, Any]:
        row = {"federation": self.federation, "competition_id": cid, "round": rnd, "player_a": a,
               "player_b": b, "score_a": score, "status": "played",
               "source_line": len(self.games) + 2, **fields}
        self.games.append(row)
        return row

    def frames(self) -> dict[str, pl.DataFrame]:
        comp_schema = {**COMPETITIONS_SCHEMA, **DECLARATIONS_SCHEMA, "basic_time_min": pl.Float64(),
                       "adjusted_time_min": pl.Float64(), "online": pl.Boolean()}
        comps = pl.DataFrame(self.competitions, schema_overrides=None, infer_schema_length=None)
        return {
            "competitions": conform(comps, comp_schema) if self.competitions else pl.DataFrame(schema=comp_schema),
            "games": conform(pl.DataFrame(self.games, infer_schema_length=None), GAMES_SCHEMA),
            "players": conform(pl.DataFrame(self.players, infer_schema_length=None), PLAYERS_SCHEMA)
            if self.players else pl.DataFrame(schema=PLAYERS_SCHEMA),
            "ratings": conform(pl.DataFrame(self.ratings, infer_schema_length=None), RATINGS_SCHEMA)
            if self.ratings else pl.DataFrame(schema=RATINGS_SCHEMA),
            "byes": conform(pl.DataFrame(self.byes, infer_schema_length=None), BYES_SCHEMA)
            if self.byes else pl.DataFrame(schema=BYES_SCHEMA),
        }


def rules_by_competition(findings: pl.DataFrame) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for cid, rule in findings.select("competition_id", "rule").iter_rows():
        out.setdefault(cid, set()).add(rule)
    return out
