"""One federation's pages: its editions, its cards and its competitions, the archive and the overview.

Everything that needs polars is prepared in this process (:class:`website._context._Pages`); the
pages themselves are rendered by jobs, in forked workers for a large federation.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import polars as pl

from warehouse import site as queries
from website._cards import _plan_cards, render_card
from website._context import _Pages, shown
from website._editions import (
    _ranks_script,
    _write_archive,
    _write_overview,
    render_edition,
    render_in_full,
)
from website._manifest import _digest
from website._reading import _Federation
from website._rows import _Dicts, _Grouped
from website._search import write_search
from website._writer import _CHUNK, SiteResult, _Clock, _each, _run_jobs, _Writer
from website.fragments import GAME_COLUMNS, change_rows

if TYPE_CHECKING:  # the warehouse's engine type; SQLAlchemy itself stays in warehouse/
    from sqlalchemy.engine import Engine

#: A finding's place on a competition's page: rejections first, then exclusions, then warnings.
_SEVERITY_ORDER = {"reject": 0, "exclude": 1, "warn": 2}

#: Cards rendered per block of players, at most: the games of a block (the explanations, the
#: warehouse's largest table) are read, made into rows and rendered, then dropped before the next
#: block's, so the site's memory follows a block, not the archive (and :data:`CARD_ROWS` bounds the
#: block's games). A row costs about 0.9 KB at the main process's peak (the frame, and the Python
#: rows the workers share), and FIDE's players have about 100 rows each (40M rows, 400,000
#: players); each block costs a read through the players' index and a fork of the workers.
CARD_BLOCK = 5_000

#: Explanation rows (games) a block of cards reads at most, counted from the players' rating
#: changes: a block ends before the player who would take it past this (a player with more rows
#: has a block of their own). The players a night renders are the active ones, whose histories are
#: the longest: at 1M FIDE games, the first block of 5,000 of a month's cards held about a million
#: rows and took the main process from 0.44 to 1.31 GB. 300,000 rows are about 0.27 GB, whatever
#: the archive's length (docs/benchmarks.md).
CARD_ROWS = 300_000

#: Competition pages rendered per block: the Python rows of a block's rating changes and findings
#: are made before the workers fork, and dropped before the next block's. The first generation of
#: the 5M-game FIDE archive made the rows of all 11,126 competitions at once (1.1M changes, every
#: forfeit finding) and kept them, with the editions' rows, to the end of the site: the main
#: process went from 1.26 to 2.68 GB in the editions' and competitions' pages (3.41 GB at the peak,
#: docs/benchmarks.md).
COMPETITION_BLOCK = 2_000


def render_competition(pages: _Pages, item: tuple[dict[str, Any], str]) -> None:
    """Write a competition's page (the organiser's report and the changes it produced), ``item``:
    the competition and its key."""
    comp, key = item
    cid = comp["competition_id"]
    changes = sorted(pages.fed.changes_by_competition.get(cid, []), key=lambda c: -(c["rating_after"] or 0))
    has_period = any(c["period"] for c in changes)
    findings = sorted(pages.fed.findings.get(cid, []),
                      key=lambda f: (_SEVERITY_ORDER.get(f["severity"] or "", 3), f["line"] is None, f["line"] or 0))
    severities = {f["severity"] for f in findings}
    status = comp["status"]
    if status == "accepted" and "exclude" in severities:
        status = "accepted_with_exclusions"
    competition_page, common, names_deep = pages.competition_page, pages.common, pages.names_deep
    pages.writer.write_keyed(
        pages.competition_path(comp), key,
        lambda: competition_page.render(
            root="../../", **common, comp=shown(comp), status=status, findings=findings, changes=bool(changes),
            has_period=has_period, change_rows=change_rows(changes, names_deep, period=has_period)))


def _chunks(items: Sequence[Any], render: Callable[[Any], None]) -> list[Callable[[], None]]:
    return [functools.partial(_each, render, items[i:i + _CHUNK]) for i in range(0, len(items), _CHUNK)]


def _plan(pages: _Pages, engine: Engine, previous: Mapping[str, Any] | None, clock: _Clock,
          ) -> tuple[list[Callable[[], None]], list[tuple[dict[str, Any], str]], list[str], dict[str, Any]]:
    """Render the full editions' pages whose key changed, and return the jobs that render the other
    editions' pages whose key changed (their rows made, for the workers to use without polars), the
    competitions whose page must be rendered, with its key (:func:`_render_competitions`), the
    players whose card must be rendered (:func:`_render_cards`), and the federation's state for the
    next generation."""
    fed, writer = pages.fed, pages.writer
    latest = pages.latest
    wanted = []
    for e, as_list in [*((e, False) for e in pages.editions), *([(latest, True)] if latest is not None else [])]:
        # Every page is asked (stands() keeps those that stand), the rest rendered.
        todo = [page for page in pages.edition_pages(e, as_list) if not writer.stands(page.path, page.key)]
        if todo:
            wanted.append((e, as_list, todo))
    rendered = render_in_full(pages, wanted)
    jobs: list[Callable[[], None]] = [functools.partial(render_edition, pages, e, todo, as_list=as_list)
                                      for e, as_list, todo in wanted if (e["index"], as_list) not in rendered]
    outcomes = [(c, key) for c in fed.competitions
                if not writer.stands(pages.competition_path(c), key := pages.competition_key(c))]
    to_render, state = _plan_cards(fed, engine, previous, writer, _digest(sorted(pages.player_names.items())),
                                   pages.player_ids, lambda pid: (pages.card_page(pid), pages.base_key(pid)))
    clock.lap("plan")
    # The jobs' rows, made before the workers are forked (they use no polars): only those of the pages
    # rendered, a fraction of the archive on a night.
    left = [e["index"] for e, as_list, _ in wanted if (e["index"], as_list) not in rendered]
    pages.slices.only(left)
    if pages.changed_on is not None:
        pages.changed_on.only(left)
    return jobs, outcomes, [p for p in pages.player_ids if p in to_render], state


def _render_competitions(pages: _Pages, engine: Engine, outcomes: list[tuple[dict[str, Any], str]], workers: int,
                         clock: _Clock) -> None:
    """Render the pages of ``outcomes`` (competitions and their keys), :data:`COMPETITION_BLOCK` at a
    time: each block's rating changes are made into rows and its findings read (those of the pages
    rendered only: a FIDE archive has hundreds of thousands, its forfeits), rendered by jobs in
    ``workers`` forked workers, then dropped before the next block's."""
    fed = pages.fed
    for start in range(0, len(outcomes), COMPETITION_BLOCK):
        block = outcomes[start:start + COMPETITION_BLOCK]
        ids = [c["competition_id"] for c, _ in block]
        fed.changes_by_competition.only(ids, more=start + COMPETITION_BLOCK < len(outcomes))
        found = queries.site_findings(engine, fed.federation, ids)
        fed.findings = _Dicts(found, ["competition_id"], found.columns)
        clock.lap("read")
        _run_jobs(_chunks(block, functools.partial(render_competition, pages)), pages.writer, workers)
        clock.lap("pages")
    fed.findings = {}
    fed.changes_by_competition.release()


def _render_cards(pages: _Pages, engine: Engine, cards: list[str], workers: int, clock: _Clock) -> None:
    """Render the cards of ``cards`` (players, in order), a block at a time (:func:`card_blocks`): each
    block's games are read, made into rows and rendered (by jobs, in ``workers`` forked workers),
    then dropped before the next block's are read, and so are its players' lines and changes."""
    fed = pages.fed
    blocks = card_blocks(cards, _rows_of(fed.change_frame, cards), CARD_ROWS, CARD_BLOCK)
    # More than half the cards in one block: one read of every row costs less than the lists of ids.
    whole = 2 * len(cards) > len(pages.player_ids) and len(blocks) == 1
    for number, block in enumerate(blocks, start=1):
        fed.explanations, pages.last_explained = {}, {}
        _read_explanations(pages, engine, block, whole)
        for rows in (pages.history, fed.changes):
            rows.only(block, more=number < len(blocks))
        clock.lap("read")
        _run_jobs(_chunks(block, functools.partial(render_card, pages)), pages.writer, workers)
        clock.lap("pages")
    fed.explanations, pages.last_explained = {}, {}


def _rows_of(changes: pl.DataFrame, cards: list[str]) -> dict[str, int]:
    """The explanation rows each of ``cards`` has, about: the games of its rating changes."""
    return dict(changes.filter(pl.col("player_id").is_in(cards)).group_by("player_id")
                .agg(pl.col("games").fill_null(0).sum()).iter_rows())


def card_blocks(cards: list[str], rows_of: Mapping[str, int], rows: int, players: int) -> list[list[str]]:
    """``cards`` cut, in order, into blocks of at most ``players`` players and ``rows`` rows
    (``rows_of``: each player's; a player with more rows has a block of their own).

    Examples
    --------
    >>> card_blocks(["a", "b", "c", "d", "e"], {"a": 2, "b": 2, "c": 9, "d": 1}, 4, 3)
    [['a', 'b'], ['c'], ['d', 'e']]
    >>> card_blocks([], {}, 4, 3)
    []
    """
    blocks: list[list[str]] = []
    block: list[str] = []
    held = 0
    for player_id in cards:
        n = rows_of.get(player_id, 0)
        if block and (held + n > rows or len(block) >= players):
            blocks.append(block)
            block, held = [], 0
        block.append(player_id)
        held += n
    if block:
        blocks.append(block)
    return blocks


def _read_explanations(pages: _Pages, engine: Engine, block: list[str], whole: bool) -> None:
    """The games of a block of cards (``whole``: every row of the federation, the block being every
    card, or most of them)."""
    fed = pages.fed
    read = queries.site_explanations(engine, fed.federation, None if whole else set(block))
    # One list of game tuples (GAME_COLUMNS) per player, competition and period, in rating order:
    # grouped by polars, and made into rows here, before the workers fork: once, not in each of them.
    explanations = _Grouped(read, ["player_id", "competition_id", "period"], GAME_COLUMNS)
    players = set(block)
    explanations.only(k for k in explanations if k[0] in players)
    fed.explanations = explanations
    pages.last_explained = dict(read.group_by("player_id").agg(pl.col("seq").max()).iter_rows())


def _render_federation(
    fed: _Federation, writer: _Writer, out: Path, result: SiteResult, workers: int, engine: Engine,
    previous: Mapping[str, Any] | None, parallel_from: int,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Render one federation's pages. Everything that needs polars is prepared here, in this
    process; the pages themselves are rendered by jobs, in forked workers when ``workers`` > 1
    and the federation has at least ``parallel_from`` cards (``website.build.PARALLEL_FROM``).
    Returns what the index shows of the federation, and its state for the next generation."""
    clock = _Clock(result)
    pages = _Pages(fed, writer)
    clock.lap("prepare")
    pages.plan_keys()
    clock.lap("keys")
    jobs, outcomes, cards, state = _plan(pages, engine, previous, clock)
    base, latest, editions, common = pages.base, pages.latest, pages.editions, pages.common
    if pages.by_change:
        # The cards' rank on the current edition (site.js fills it in): one file a night, not every card.
        writer.write(f"{base}/ranks.js", _ranks_script(latest, pages.current_rows))
    workers = workers if len(pages.player_ids) >= parallel_from else 1
    _run_jobs(jobs, writer, workers)
    # The editions' rows are done with (the archive and the overview use the frames): dropped
    # before the competitions' and the cards' rows are made.
    pages.slices.release()
    if pages.changed_on is not None:
        pages.changed_on.release()
    clock.lap("pages")
    _render_competitions(pages, engine, outcomes, workers, clock)
    _render_cards(pages, engine, cards, workers, clock)
    _write_archive(fed, writer, common, editions, pages.extra_columns)
    result.players[fed.federation] = len(pages.player_ids)
    result.competitions[fed.federation] = len(fed.competitions)
    root = out / base
    result.removed += writer.prune(root / "players")
    result.removed += writer.prune(root / "competitions")
    result.removed += writer.prune(root / "editions")
    result.removed += writer.prune(root, "list-*.html")

    write_search(writer, base, pages.current_rows, pages.player_names, pages.stable)
    result.removed += writer.prune(root / "search", "*.js")
    _write_overview(fed, writer, common, latest, editions, pages.current_rows)
    result.editions[fed.federation] = len(editions)
    clock.lap("overview")

    last = fed.last_load
    night = [c for c in fed.competitions if last and c["load_id"] == last["load_id"]]
    return {**common, "dir": base, "latest": latest, "editions": len(editions), "players": len(pages.player_ids),
            "last_load": last, "night": night}, state
