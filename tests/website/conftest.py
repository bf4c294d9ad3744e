"""A small real warehouse with hostile names, published edition by edition, and its site.

The warehouse is built through the real stages (the BARRUF engine rates, the
warehouse loads and publishes), one edition per competition as the AJUSC
publishes them, so the site tests do not depend on a particular night's flow.
Names, clubs, competition names and ids carry what an organiser's file may
carry: markup, quotes, control characters, right-to-left marks, path tricks.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

import polars as pl
import pytest

import engine
import warehouse
from formats.schema import (
    BYES_SCHEMA,
    COMPETITIONS_SCHEMA,
    FINDINGS_SCHEMA,
    GAMES_SCHEMA,
    PLAYERS_SCHEMA,
    RATINGS_SCHEMA,
    conform,
    empty,
)
from tests.conftest import postgres_database

FED = "ajusc"

#: Player id -> (name, club). The hostile ones are what the escaping tests look for.
SCRIPT_NAME = "<script>alert('pwned')</script>"
QUOTES_NAME = "O'Brien \"the rock\" & <b>sons</b>"
# No NUL: PostgreSQL cannot store it in text (tests/website/test_safe.py covers it).
CONTROL_NAME = "Bell\x07Esc\x1bDel\x7fEnd"
RTL_NAME = "\u202eevil\u202c Rtl \u200fmark"
PATH_ID = "../../../escape"
PLAYERS: dict[str, tuple[str, str | None]] = {
    "1": ("Anna Serra", "Club Lletra"),
    "2": ("Berta Puig", None),
    "3": (SCRIPT_NAME, "<img src=x onerror=alert(1)>"),
    "4": (QUOTES_NAME, "Club \"Q\""),
    "5": (CONTROL_NAME, None),
    "6": (RTL_NAME, None),
    PATH_ID: ("Path Trick", None),
    "8": ("Newcomer Nou", None),
}
#: Who is on the starting list (the others are newcomers).
SEEDED = {"1": 1300.0, "2": 1250.0, "3": 1100.0, "4": 1050.0, "5": 1000.0, "6": 980.0, PATH_ID: 960.0}
HOSTILE_COMPETITION = "Open <img src=x onerror=alert(2)> \"quoted\" \u202eRTL"


@dataclass(frozen=True)
class SmallSeason:
    url: str
    competitions: list[tuple[str, date, list[str]]]   #: id, end date, players


def _round_robin(cid: str, players: list[str]) -> pl.DataFrame:
    rows: list[dict[str, object]] = []
    line = 2
    for i, a in enumerate(players):
        for j, b in enumerate(players):
            if i < j:
                # Deterministic, varied results: the lower id wins unless the sum is a multiple of 3.
                score = 0.5 if (i + j) % 5 == 0 else (1.0 if (i + j) % 3 else 0.0)
                rows.append({"federation": FED, "competition_id": cid, "round": len(rows) % 7 + 1,
                             "player_a": a, "player_b": b, "score_a": score, "status": "played",
                             "source_line": line})
                line += 1
    return conform(pl.DataFrame(rows), GAMES_SCHEMA)


COMPETITIONS: list[tuple[str, str, date, list[str]]] = [
    ("C-1", "Autumn open", date(2025, 9, 20), ["1", "2", "3", "4", "5", "6"]),
    ("C/2 <x>", HOSTILE_COMPETITION, date(2025, 10, 18), ["1", "3", "4", PATH_ID, "8", "2"]),
    ("C-3", "Winter cup", date(2025, 12, 13), ["2", "3", "5", "6", "8", PATH_ID]),
]


def load_derived_tail(db: Any, offset: tuple[int, int], *, changes: pl.DataFrame | None = None,
                      explanations: pl.DataFrame | None = None) -> None:
    """Load only derived rows, from ``offset`` (rating changes, explanations) on: what a re-rate that
    rewrote the tail of the history stores, with no file, competition or game."""
    warehouse.load_batch(db, warehouse.LoadBatch(
        FED, pl.DataFrame(schema={"source": pl.Utf8, "source_sha256": pl.Utf8}), empty(COMPETITIONS_SCHEMA),
        empty(PLAYERS_SCHEMA), empty(GAMES_SCHEMA), empty(BYES_SCHEMA), empty(FINDINGS_SCHEMA),
        changes=changes, explanations=explanations, derived_offset=offset))


def build_small_season(url: str, competitions: int = len(COMPETITIONS), *, loaded: int = 0) -> SmallSeason:
    """Seed, then load and publish one competition at a time (an edition each), up to the first
    ``competitions`` of the season. ``loaded``: the warehouse at ``url`` already holds the first
    ``loaded`` (this call is a later night of the same season)."""
    db = warehouse.get_engine(url)
    seed = conform(pl.DataFrame({
        "federation": FED, "player_id": list(SEEDED), "name": [PLAYERS[p][0] for p in SEEDED],
        "rating": list(SEEDED.values()), "games": [120, 80, 60, 40, 30, 20, 15],
        "as_of": date(2025, 9, 1), "status": "act", "last_played": "2024-25",
    }), RATINGS_SCHEMA)
    if not loaded:
        warehouse.load_seed(db, FED, seed, source="small.ratings.csv",
                            source_sha256=hashlib.sha256(b"small seed").hexdigest())
    players = conform(pl.DataFrame({
        "federation": FED, "player_id": list(PLAYERS), "name": [v[0] for v in PLAYERS.values()],
        "club": [v[1] for v in PLAYERS.values()],
    }), PLAYERS_SCHEMA)
    comps: list[pl.DataFrame] = []
    games: list[pl.DataFrame] = []
    done = []
    for n, (cid, name, end, who) in enumerate(COMPETITIONS[:competitions]):
        sha = hashlib.sha256(cid.encode()).hexdigest()
        source = f"{cid}.results.csv"
        comp = conform(pl.DataFrame({
            "federation": FED, "competition_id": cid, "name": name, "start_date": end, "end_date": end,
            "rounds": 7, "modality": "classic", "results_public": True, "source": source, "source_sha256": sha,
        }), COMPETITIONS_SCHEMA).with_columns(pl.lit("accepted").alias("status"))
        game = _round_robin(cid, who)
        findings = empty(FINDINGS_SCHEMA)
        if n == 1:
            findings = conform(pl.DataFrame({
                "federation": FED, "competition_id": cid, "rule": ["ajusc.name_mismatch"], "severity": ["warn"],
                "message": [f"player {PATH_ID!r} is spelt {SCRIPT_NAME!r} here: check the name"],
                "source": [source], "line": [4], "field": ["player_b"],
            }), FINDINGS_SCHEMA)
        comps.append(comp)
        games.append(game)
        done.append((cid, end, who))
        if n < loaded:
            continue
        run = engine.rate_history(FED, pl.concat(comps), pl.concat(games), seed, players=players)
        names = players.select("player_id", pl.col("name").alias("_n"))
        ratings = (run.ratings.join(names, on="player_id", how="left")
                   .with_columns(pl.coalesce("name", "_n").alias("name")).drop("_n"))
        files = pl.DataFrame({"source": [source], "source_sha256": [sha], "format": ["interchange-results"],
                              "n_findings": [findings.height]}, schema_overrides={"n_findings": pl.Int64})
        warehouse.load_batch(db, warehouse.LoadBatch(
            FED, files, comp, players if n == 0 else empty(PLAYERS_SCHEMA), game, empty(BYES_SCHEMA), findings,
            changes=run.changes, explanations=run.explanations, ratings=ratings))
        warehouse.publish_list(db, FED, engine.rating_list(FED, ratings, as_of=end), as_of=end)
    db.dispose()
    return SmallSeason(url=url, competitions=done)


@pytest.fixture(scope="session")
def small_season(tmp_path_factory: pytest.TempPathFactory) -> SmallSeason:
    return build_small_season(f"sqlite:///{tmp_path_factory.mktemp('small') / 'ratings.db'}")


@pytest.fixture(scope="session")
def small_site(small_season: SmallSeason, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site of the small season (generated once; tests that change it copy it first)."""
    import website

    out = tmp_path_factory.mktemp("site") / "site"
    website.build_site(warehouse.get_engine(small_season.url), out, generated=date(2026, 1, 1))
    return out


@pytest.fixture
def postgres_url() -> Iterator[str]:
    """A fresh database on the real PostgreSQL server (skipped, or failed under CI, without one)."""
    with postgres_database() as url:
        yield url
