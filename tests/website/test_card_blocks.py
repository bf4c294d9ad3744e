"""The cards rendered a block of players at a time (``website._federation.CARD_BLOCK``), and the
competition pages a block of competitions at a time (``COMPETITION_BLOCK``): each block's games, or
findings, read on their own, and the site the one rendered in a single block, byte for byte."""

from __future__ import annotations

import multiprocessing
from collections.abc import Collection
from datetime import date
from pathlib import Path

import polars as pl
import pytest
from sqlalchemy import Engine

import warehouse
import warehouse.site
import website
import website._federation
import website.build
from tests.website.conftest import FED, SmallSeason, build_small_season
from website import frames

#: Players a block holds in these tests: the small season's eight cards make three blocks.
BLOCK = 3


def _tree(root: Path) -> dict[str, bytes]:
    """Every file of a site folder (the manifest included) but the frames kept for the next
    generation, whose bytes may follow how polars chunked them."""
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and frames.FOLDER not in p.relative_to(root).parts}


def _spied(monkeypatch: pytest.MonkeyPatch, query: str = "site_explanations") -> list[Collection[str] | None]:
    """The ids asked of every read of ``warehouse.site.<query>`` from now on (the players of the
    explanations, the competitions of the findings; None: all)."""
    read: list[Collection[str] | None] = []
    original = getattr(warehouse.site, query)

    def spy(engine: Engine, federation: str, ids: Collection[str] | None = None) -> pl.DataFrame:
        read.append(None if ids is None else set(ids))
        return original(engine, federation, ids)  # type: ignore[no-any-return]

    monkeypatch.setattr(warehouse.site, query, spy)
    return read


@pytest.mark.parametrize("workers", [1, 3], ids=["one-process", "forked"])
@pytest.mark.parametrize("full_lines", [8, website.build.FULL_LINES], ids=["large-archive", "full-lists"])
def test_cards_rendered_in_blocks_are_the_site_rendered_in_one(
        small_season: SmallSeason, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, full_lines: int,
        workers: int) -> None:
    if workers > 1 and "fork" not in multiprocessing.get_all_start_methods():
        pytest.skip("no fork on this platform: cards render in one process")
    monkeypatch.setattr(website.build, "FULL_LINES", full_lines)
    monkeypatch.setattr(website.build, "PARALLEL_FROM", 0)
    db = warehouse.get_engine(small_season.url)
    website.build_site(db, tmp_path / "one", generated=date(2026, 1, 1), workers=workers)
    monkeypatch.setattr(website._federation, "CARD_BLOCK", BLOCK)
    result = website.build_site(db, tmp_path / "blocks", generated=date(2026, 1, 1), workers=workers)
    assert result.players[FED] > 2 * BLOCK
    assert _tree(tmp_path / "blocks") == _tree(tmp_path / "one")


def test_each_block_reads_only_its_players_games(
        small_season: SmallSeason, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A first generation renders every card: one read of every row when they fit one block, else
    one read per block, of that block's players only, each player read once."""
    db = warehouse.get_engine(small_season.url)
    read = _spied(monkeypatch)
    website.build_site(db, tmp_path / "one", generated=date(2026, 1, 1))
    assert read == [None]
    read.clear()
    monkeypatch.setattr(website._federation, "CARD_BLOCK", BLOCK)
    result = website.build_site(db, tmp_path / "blocks", generated=date(2026, 1, 1))
    cards = result.players[FED]
    assert [len(players) if players is not None else None for players in read] == (
        [BLOCK] * (cards // BLOCK) + ([cards % BLOCK] if cards % BLOCK else []))
    blocks = [players for players in read if players is not None]
    assert len(set().union(*blocks)) == sum(map(len, blocks)) == cards


@pytest.mark.parametrize("workers", [1, 3], ids=["one-process", "forked"])
def test_competition_pages_rendered_in_blocks_are_the_site_rendered_in_one(
        small_season: SmallSeason, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, workers: int) -> None:
    """Each block of competition pages reads the findings of its own competitions, each once, and
    the pages (and the rest of the site) are those of one block. Blocks since the 5M-game FIDE
    archive's first generation made every competition's rows at once (docs/benchmarks.md)."""
    if workers > 1 and "fork" not in multiprocessing.get_all_start_methods():
        pytest.skip("no fork on this platform: pages render in one process")
    monkeypatch.setattr(website.build, "PARALLEL_FROM", 0)
    db = warehouse.get_engine(small_season.url)
    website.build_site(db, tmp_path / "one", generated=date(2026, 1, 1), workers=workers)
    read = _spied(monkeypatch, "site_findings")
    monkeypatch.setattr(website._federation, "COMPETITION_BLOCK", 1)   # the small season has three
    result = website.build_site(db, tmp_path / "blocks", generated=date(2026, 1, 1), workers=workers)
    competitions = result.competitions[FED]
    assert competitions > 2
    blocks = [ids for ids in read if ids is not None]
    assert len(blocks) == len(read) == competitions
    assert all(len(ids) == 1 for ids in blocks)
    assert len(set().union(*blocks)) == sum(map(len, blocks)) == competitions
    assert _tree(tmp_path / "blocks") == _tree(tmp_path / "one")


def test_postgresql_gives_the_same_site_in_blocks(
        small_season: SmallSeason, postgres_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The blocks' reads (lists of ids) on PostgreSQL: the site SQLite gives in one block."""
    website.build_site(warehouse.get_engine(small_season.url), tmp_path / "one", generated=date(2026, 1, 1))
    build_small_season(postgres_url)
    monkeypatch.setattr(website._federation, "CARD_BLOCK", BLOCK)
    website.build_site(warehouse.get_engine(postgres_url), tmp_path / "pg", generated=date(2026, 1, 1))
    ours, theirs = _tree(tmp_path / "one"), _tree(tmp_path / "pg")
    assert ours.keys() == theirs.keys()
    # The root index shows when each warehouse was loaded (to the minute), and the manifest its key.
    assert [k for k in ours if ours[k] != theirs[k] and k not in ("index.html", ".pages.json")] == []


@pytest.mark.parametrize("workers", [1, 3], ids=["one-process", "forked"])
def test_cards_cut_by_their_games_are_the_site_rendered_in_one(
        small_season: SmallSeason, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, workers: int) -> None:
    """Blocks of cards end before the player who would take them past ``CARD_ROWS`` explanation rows
    (a player with more has a block of their own): each block reads at most that many rows, and the
    site is the one rendered in one block. A month's cards at 1M FIDE games held about a million
    rows in one block of 5,000 players (docs/benchmarks.md)."""
    if workers > 1 and "fork" not in multiprocessing.get_all_start_methods():
        pytest.skip("no fork on this platform: cards render in one process")
    monkeypatch.setattr(website.build, "PARALLEL_FROM", 0)
    db = warehouse.get_engine(small_season.url)
    website.build_site(db, tmp_path / "one", generated=date(2026, 1, 1), workers=workers)
    rows = warehouse.site.site_explanations(db, FED).group_by("player_id").len()
    budget = int(rows.get_column("len").max() or 0)   # type: ignore[arg-type]
    of = dict(rows.iter_rows())
    read = _spied(monkeypatch)
    monkeypatch.setattr(website._federation, "CARD_ROWS", budget)
    result = website.build_site(db, tmp_path / "blocks", generated=date(2026, 1, 1), workers=workers)
    blocks = [players for players in read if players is not None]
    assert len(blocks) == len(read) > 2
    assert all(sum(of.get(p, 0) for p in players) <= budget for players in blocks)
    assert len(set().union(*blocks)) == sum(map(len, blocks)) == result.players[FED]
    assert _tree(tmp_path / "blocks") == _tree(tmp_path / "one")
