"""Generate the static publication site from the warehouse.

Layout of the output folder (every link relative, so it works from ``file://``
and from any static host)::

    index.html                          federations, latest editions, last night
    static/                             site.css, site.js, Chart.js (vendored) + licence
    <fed>/index.html                    the current edition (the list), its first page
    <fed>/list-<n>.html                 page n of the list (website._paging.PAGE_SIZE rows a page)
    <fed>/search/*.js                   the player search's index, loaded by site.js (website._search)
    <fed>/overview.html                 rating distribution, activity over time
    <fed>/editions/index.html           every edition, what changed from the previous one
    <fed>/editions/<N>.html             one edition, in full, with its changes (its first page)
    <fed>/editions/<N>-<n>.html         page n of edition N
    <fed>/players/<id>.html             a player's card
    <fed>/competitions/<id>.html        a competition: the organiser's report and its changes

Pages are written only when their content changed (so a static host, rsync or
a browser cache sees only the pages a night touched), and pages of players or
competitions that no longer exist are removed.

A page is rendered only when its inputs changed: ``.pages.json`` in the site
folder records, for each page, a digest of what it was rendered from (its rows,
the templates and this code); a page whose digest is the same and whose file is
there is left as it is. Delete ``.pages.json`` to render every page again.
``.frames/`` keeps the stored lines and rating changes it read, so that the next
generation reads only the editions published since and the changes from the first
block rewritten (:mod:`website.frames`); deleting it only makes the next one read all.
"""

from __future__ import annotations

import gc
import shutil
import time
from collections.abc import Mapping, Sequence
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Any

from warehouse import site as queries
from website._federation import _render_federation
from website._manifest import (
    _fed_dir,
    _owned_files,
    _read_manifest,
    _site_folder,
    _write_manifest,
)
from website._reading import _read
from website._templates import _template
from website._writer import SiteResult, _Writer, inside
from website.errors import SiteError
from website.fragments import STATUS_ORDER

if TYPE_CHECKING:  # the warehouse's engine type; SQLAlchemy itself stays in warehouse/
    from sqlalchemy.engine import Engine

__all__ = ["STATUS_ORDER", "SiteResult", "build_site"]

_STATIC = Path(__file__).resolve().parent / "static"
_STATIC_FILES = ("site.css", "site.js", "chart.umd.min.js", "LICENSE.chart.js.md")

#: Lines of full lists a federation's site renders at most. Within it (the sum of ``n_players``
#: over the editions), every edition is a full list and every card shows the player's line on
#: every edition. Beyond it (a migrated archive: 12,700 editions of 50,000 players), only the most
#: recent editions that fit are full lists; the others show their changes, and cards the player's
#: own lines: the cost follows what changed, not editions x players. Full list lines are what a
#: large site spends its time on (docs/site.md has the figures), so the budget is 500,000: a
#: hundred recent editions of 5,000 players, and every season of every real federation (20
#: editions of 700 players: 14,000 lines). Read by :func:`build_site` at each call.
FULL_LINES = 500_000

#: Fewer cards than this: every page is rendered in the calling process (a fork costs more than it saves).
PARALLEL_FROM = 2_000


def build_site(
    engine: Engine,
    out: Path | str,
    *,
    federations: Sequence[str] | None = None,
    names: Mapping[str, Mapping[str, Any]] | None = None,
    generated: date | None = None,
    workers: int = 1,
) -> SiteResult:
    """Generate the site for ``federations`` (default: every federation with an edition) into ``out``.

    Parameters
    ----------
    engine
        The warehouse (:func:`warehouse.get_engine`).
    out
        The site folder; created if missing. Only pages this function writes are
        ever replaced or removed there.
    federations
        Federation ids to (re)generate; the index lists every federation whose
        pages are in ``out``.
    names
        Federation id -> ``{"name": ..., "game": ..., "system": ...}`` from the
        configuration, used where the warehouse has no name.
    generated
        The date printed on the index (default: today).
    workers
        Processes that render the player cards (forked after the warehouse is read,
        so nothing is copied; pure Python in the children). 1: in this process.
        Where ``fork`` is not available, 1.

    Returns
    -------
    SiteResult
        Pages generated, written (changed) and removed; counts per federation.

    Raises
    ------
    SiteError
        ``out`` is a file, or a requested federation has no published edition.
    """
    started = time.perf_counter()
    out = Path(out)
    _site_folder(out)
    out.mkdir(parents=True, exist_ok=True)
    known = {r["federation"]: r for r in queries.site_federations(engine).to_dicts()}
    wanted = list(federations) if federations else sorted(known)
    for federation in wanted:
        if federation not in known:
            raise SiteError(
                f"federation {federation!r} has no published edition in the warehouse"
                + (f" (published: {', '.join(sorted(known))})" if known else ": run `ratings run` first")
            )
    pages, states = _read_manifest(out)
    writer = _Writer(out, pages)
    writer.owned = _owned_files(out)
    result = SiteResult(out=out, federations=wanted)
    _copy_static(out, writer)
    summaries, rebuilt = _render_federations(engine, out, wanted, known, names, writer, result, workers, states)
    writer.write("index.html", _template("index.html").render(
        root="", federations=_index_entries(engine, out, known, summaries),
        generated=(generated or date.today()).isoformat()))
    _write_manifest(out, pages, states, writer, rebuilt)
    result.pages, result.written, result.rendered = writer.pages, writer.written, writer.rendered
    result.seconds = time.perf_counter() - started
    return result


def _copy_static(out: Path, writer: _Writer) -> None:
    """The site's style sheet, script and Chart.js in ``static/``, copied when they differ."""
    static = inside(out, out / "static")
    static.mkdir(exist_ok=True)
    for name in _STATIC_FILES:
        source = _STATIC / name
        target = inside(out, static / name)
        writer.seen.add(f"static/{name}")
        if not target.exists() or target.read_bytes() != source.read_bytes():
            shutil.copyfile(source, target)


def _render_federations(
    engine: Engine, out: Path, wanted: Sequence[str], known: Mapping[str, Mapping[str, Any]],
    names: Mapping[str, Mapping[str, Any]] | None, writer: _Writer, result: SiteResult, workers: int,
    states: Mapping[str, dict[str, Any]],
) -> tuple[dict[str, dict[str, Any]], dict[str, dict[str, Any]]]:
    """Read and render each federation of ``wanted``, one after the other: what the index shows of
    each, and each one's state for the next generation."""
    summaries = {}
    rebuilt: dict[str, dict[str, Any]] = {}
    try:
        for federation in wanted:
            info = {k: v for k, v in known[federation].items() if v is not None}
            for key, value in (names or {}).get(federation, {}).items():
                info.setdefault(key, value)
            started_read = time.process_time()
            fed = _read(engine, federation, info, out, FULL_LINES)
            # What was read lives until the federation's pages are done: out of the cyclic
            # collector's sight (until _run_jobs's workers are done, or to the end here), its full
            # passes walk only the rest (docs/site.md).
            gc.freeze()
            result.phases["read"] = result.phases.get("read", 0.0) + time.process_time() - started_read
            summaries[federation], rebuilt[federation] = _render_federation(
                fed, writer, out, result, workers, engine, states.get(federation), PARALLEL_FROM)
            del fed
    finally:
        gc.unfreeze()
    return summaries, rebuilt


def _index_entries(engine: Engine, out: Path, known: Mapping[str, Mapping[str, Any]],
                   summaries: Mapping[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """The index lists every federation with pages in the folder, generated now or before."""
    listed = []
    for federation in sorted(known):
        if federation in summaries:
            listed.append(summaries[federation])
        elif (out / _fed_dir(federation) / "index.html").is_file():
            editions = queries.site_editions(engine, federation)
            info = {k: v for k, v in known[federation].items() if v is not None}
            listed.append({"federation": federation, "fed_name": info.get("name") or federation, "info": info,
                           "dir": _fed_dir(federation), "latest": editions.tail(1).to_dicts()[0],
                           "editions": editions.height, "players": None, "last_load": None, "night": []})
    return listed
