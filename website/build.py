"""Generate the static publication site from the warehouse.

Layout of the output folder (every link relative, so it works from ``file://``
and from any static host)::

    index.html                          federations, latest editions, last night
    static/                             site.css, site.js, Chart.js (vendored) + licence
    <fed>/index.html                    the current edition (the list)
    <fed>/overview.html                 rating distribution, activity over time
    <fed>/editions/index.html           every edition, what changed from the previous one
    <fed>/editions/<N>.html             one edition, in full, with its changes
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

import functools
import gc
import hashlib
import json
import math
import multiprocessing
import os
import shutil
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Any

import polars as pl
from markupsafe import Markup

from formats.list_exports import FORMAT_LABELS, SITE_DOWNLOADS, ListHeader, export_file_name
from formats.safety import disk_full
from warehouse import site as queries
from website import frames
from website.errors import SiteError
from website.fragments import (
    ENTRY_COLUMNS,
    GAME_COLUMNS,
    STATUS_ORDER,
    Names,
    change_rows,
    competition_sections,
    edition_cells,
    edition_rows,
    list_rows,
    list_rows_by_edition,
    signed,
)
from website.safe import folder_name, page_name, visible

if TYPE_CHECKING:  # the warehouse's engine type; SQLAlchemy itself stays in warehouse/
    from sqlalchemy.engine import Engine

__all__ = ["STATUS_ORDER", "SiteResult", "build_site"]

_STATIC = Path(__file__).resolve().parent / "static"
_STATIC_FILES = ("site.css", "site.js", "chart.umd.min.js", "LICENSE.chart.js.md")


@dataclass
class SiteResult:
    """What one generation did."""

    out: Path                                   #: the site folder
    federations: list[str] = field(default_factory=list)
    pages: int = 0                              #: pages generated
    written: int = 0                            #: pages whose content changed (written)
    rendered: int = 0                           #: pages rendered (the others' inputs had not changed)
    removed: int = 0                            #: stale pages removed
    players: dict[str, int] = field(default_factory=dict)       #: federation -> player cards
    competitions: dict[str, int] = field(default_factory=dict)  #: federation -> competition pages
    editions: dict[str, int] = field(default_factory=dict)      #: federation -> editions
    seconds: float = 0.0
    #: CPU seconds per phase (read, editions, cards, competitions, overview), summed over federations
    phases: dict[str, float] = field(default_factory=dict)


@functools.cache
def _environment() -> Any:
    import jinja2

    env = jinja2.Environment(
        loader=jinja2.PackageLoader("website", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        finalize=visible,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["rating"] = fmt_rating
    env.filters["signed"] = fmt_signed
    env.filters["num"] = fmt_num
    env.filters["page"] = page_name
    env.filters["plusminus"] = fmt_plusminus
    return env


def _template(name: str) -> Any:
    return _environment().get_template(name)


# ------------------------------------------------------------------ number formats
def fmt_rating(value: float | None) -> str:
    """A published rating as ``ratings list`` prints it (no decimals).

    Examples
    --------
    >>> fmt_rating(1066.0), fmt_rating(None), fmt_rating(2034.6)
    ('1066', '', '2035')
    """
    return "" if value is None else f"{value:.0f}"


fmt_signed = signed


def fmt_plusminus(value: float | None) -> str:
    """A change as a term of a sum (``+ 5.03``, ``− 2.50``).

    Examples
    --------
    >>> fmt_plusminus(5.031), fmt_plusminus(-2.5), fmt_plusminus(0.0)
    ('+ 5.03', '− 2.50', '+ 0.00')
    """
    if value is None:
        return ""
    return f"{'−' if value < 0 and round(value, 2) != 0 else '+'} {abs(value):.2f}"


def fmt_num(value: float | None, digits: int = 2) -> str:
    """A figure with ``digits`` decimals (empty for None)."""
    return "" if value is None else f"{value:.{digits}f}"


# ------------------------------------------------------------------ writing
class _Writer:
    """Writes pages under ``root``, only when their bytes differ from what is there."""

    def __init__(self, root: Path, keys: Mapping[str, str] | None = None) -> None:
        self.root = root.resolve()
        self.pages = 0
        self.written = 0
        #: Pages rendered (the others were left as they were: same inputs, file there).
        self.rendered = 0
        #: Pages generated in this run (written or kept), relative to ``root``: prune() keeps them.
        self.seen: set[str] = set()
        #: The ``*.html`` names in each folder, listed once (exists() on 60,000 pages).
        self._listed: dict[str, set[str]] = {}
        #: The digest of each page's inputs when it was last rendered (the manifest read at the start) ...
        self.old_keys: Mapping[str, str] = keys or {}
        #: ... and now, for the pages written with :meth:`write_keyed` in this run.
        self.keys: dict[str, str] = {}
        #: Set while cards render in forked children: each child writes through its own writer.
        self.delegate: list[Any] | None = None
        #: Every file an earlier run wrote (the manifest's): the only ones :meth:`prune` removes.
        self.owned: frozenset[str] = frozenset()

    def _checked(self, relative: str) -> str:
        # Every name comes from page_name() (one component, never ``..``); this is the belt to its braces.
        if any(part in ("", ".", "..") or "\\" in part for part in relative.split("/")):
            raise SiteError(f"page {relative!r} would be written outside the site folder {self.root}")
        return relative

    def _path(self, relative: str) -> Path:
        return inside(self.root, self.root.joinpath(*self._checked(relative).split("/")))

    def exists(self, relative: str) -> bool:
        folder, _, name = self._checked(relative).rpartition("/")
        names = self._listed.get(folder)
        if names is None:
            try:
                names = self._listed[folder] = {e.name for e in os.scandir(self.root / folder) if e.is_file()}
            except (FileNotFoundError, NotADirectoryError):
                names = self._listed[folder] = set()
        return name in names

    def keep(self, relative: str, key: str) -> None:
        """Leave page ``relative`` as it is (not rendered: its inputs, ``key``, did not change)."""
        self.pages += 1
        self.seen.add(self._checked(relative))
        self.keys[relative] = key

    def stands(self, relative: str, key: str) -> bool:
        """Keep page ``relative`` (and say so) when it was made from the same inputs (``key``) last
        time and its file is still there."""
        if self.old_keys.get(relative) == key and self.exists(relative):
            self.keep(relative, key)
            return True
        return False

    def write_keyed(self, relative: str, key: str, render: Callable[[], str]) -> None:
        """Write the page ``render()`` makes, unless it was made from the same inputs (``key``, a
        :func:`_digest` of everything ``render`` reads) last time and its file is still there."""
        if self.delegate is not None and self.delegate[0] is not None:
            self.delegate[0].write_keyed(relative, key, render)
            return
        if self.stands(relative, key):
            return
        self.keys[relative] = key
        self.write(relative, render())

    def write(self, relative: str, text: str) -> None:
        if self.delegate is not None and self.delegate[0] is not None:
            self.delegate[0].write(relative, text)
            return
        path = self._path(relative)
        self.rendered += 1
        data = text.encode("utf-8")
        self.pages += 1
        self.seen.add(relative)
        folder, _, name = relative.rpartition("/")
        if folder in self._listed:
            self._listed[folder].add(name)
        try:
            if path.stat().st_size == len(data) and path.read_bytes() == data:
                return
        except FileNotFoundError:
            path.parent.mkdir(parents=True, exist_ok=True)
        try:
            path.write_bytes(data)
        except OSError as error:
            raise disk_full(error, path.parent) from None
        self.written += 1

    def prune(self, folder: Path) -> int:
        """Remove the ``*.html`` pages of ``folder`` not written in this run that an earlier run
        wrote (the manifest's :attr:`owned`): a file the site did not write is never removed."""
        removed = 0
        folder = inside(self.root, folder).resolve()
        if folder.is_dir():
            prefix = folder.relative_to(self.root).as_posix()
            for page in folder.glob("*.html"):
                relative = f"{prefix}/{page.name}"
                if relative not in self.seen and relative in self.owned and not page.is_symlink():
                    page.unlink()
                    removed += 1
        return removed


#: The site's manifest: the digest of each page's inputs (see the module's docstring).
MANIFEST = ".pages.json"


@functools.cache
def _code_key() -> str:
    """A digest of what turns inputs into pages: this package's code and templates, Python's
    version (its formatting of numbers) and polars' (its row hashes, :func:`_group_digests`).
    A change to any of them renders every page again."""
    digest = hashlib.blake2b(f"{sys.version} polars {pl.__version__}".encode(), digest_size=16)
    here = Path(__file__).resolve().parent
    for path in sorted([*here.glob("*.py"), *(here / "templates").glob("*.html")]):
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def _digest(*inputs: Any) -> str:
    """A digest of a page's inputs: the ``repr`` of plain values (str, numbers, dates, None, and
    tuples, lists and dicts of them), which is the same for equal values in every run."""
    return hashlib.blake2b(repr(inputs).encode("utf-8"), digest_size=16).hexdigest()


def _read_manifest(out: Path) -> tuple[dict[str, str], dict[str, dict[str, Any]]]:
    """The manifest's page digests and each federation's state when its pages were generated (see
    :func:`_plan_cards`), or none (every page renders) when it is missing, unreadable or was
    written by other code or templates."""
    try:
        manifest = json.loads((out / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}, {}
    if not isinstance(manifest, dict) or manifest.get("code") != _code_key() or not isinstance(
            manifest.get("pages"), dict) or not isinstance(manifest.get("federations", {}), dict):
        return {}, {}
    return ({str(k): str(v) for k, v in manifest["pages"].items()},
            {str(k): v for k, v in manifest.get("federations", {}).items() if isinstance(v, dict)})


def _write_manifest(out: Path, pages: Mapping[str, str], federations: Mapping[str, Mapping[str, Any]],
                    writer: _Writer, rebuilt: Mapping[str, Mapping[str, Any]]) -> None:
    """Keep what the manifest says of federations not generated now, replace what it says of
    ``rebuilt`` (federation -> state) with this run's; written to a temporary file first, so a
    crash leaves the previous manifest."""
    prefixes = tuple(f"{_fed_dir(federation)}/" for federation in rebuilt)
    kept = {k: v for k, v in pages.items() if not k.startswith(prefixes)}
    kept.update(writer.keys)
    states = {**{k: v for k, v in federations.items() if k not in rebuilt}, **rebuilt}
    files = sorted((set(_owned_files(out)) - {k for k in writer.owned if k.startswith(prefixes)}) | writer.seen)
    temporary = inside(out, out / f"{MANIFEST}.tmp")
    temporary.write_text(json.dumps({"code": _code_key(), "federations": dict(sorted(states.items())),
                                     "pages": dict(sorted(kept.items())), "files": files},
                                    separators=(",", ":")),
                         encoding="utf-8")
    temporary.replace(out / MANIFEST)


def _owned_files(out: Path) -> frozenset[str]:
    """The files of ``out`` the site wrote, as its manifest lists them (whatever code wrote it)."""
    try:
        manifest = json.loads((out / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return frozenset()
    if not isinstance(manifest, dict):
        return frozenset()
    listed = manifest.get("files")
    pages = manifest.get("pages")
    names = [*(listed if isinstance(listed, list) else []), *(pages if isinstance(pages, dict) else [])]
    return frozenset(str(name) for name in names)


def inside(root: Path, path: Path) -> Path:
    """``path``, checked to stay inside the site folder ``root`` once symlinks are followed.

    Raises
    ------
    SiteError
        A symlink planted in the folder leads out of it.
    """
    resolved = path.resolve()
    base = root.resolve()
    if resolved != base and base not in resolved.parents:
        raise SiteError(f"{path} leads out of the site folder {root} (a symlink): refusing to write there; "
                        "remove the symlink")
    return path


#: A file the site writes first in its folder: the folder is the site's own.
MARKER = ".ratings-site"


def _site_folder(out: Path) -> None:
    """Refuse a folder the site may not write into: ``/``, the home folder, a file, or a
    non-empty folder it did not make (no manifest of an earlier site there)."""
    resolved = out.resolve()
    if resolved == Path(resolved.anchor) or resolved == Path.home().resolve():
        raise SiteError(f"site folder {str(out)!r} is {'the root folder' if resolved == Path(resolved.anchor) else 'the home folder'}: "
                        "give a folder of the site's own (e.g. site/)")
    if out.exists() and not out.is_dir():
        raise SiteError(f"site folder {str(out)!r} is a file, not a folder")
    ours = (out / MANIFEST).is_file() or (out / MARKER).is_file()
    if out.is_dir() and not ours and any(p.name not in (MANIFEST, MARKER, frames.FOLDER) for p in out.iterdir()):
        raise SiteError(f"site folder {str(out)!r} is not empty and holds no site of ours (no {MANIFEST}): "
                        "give a new or empty folder, so that no file of yours is overwritten")
    # Written before any page: a folder whose first generation was killed half-way, or whose
    # manifest was deleted to render every page again, is still known as the site's own.
    out.mkdir(parents=True, exist_ok=True)
    if not (out / MARKER).is_file():
        (out / MARKER).write_text("This folder is a publication site written by `ratings site`.\n", encoding="utf-8")


def _json_block(payload: Mapping[str, Any]) -> Markup:
    """Data for site.js, safe inside ``<script type="application/json">``.

    ``<``, ``>`` and ``&`` are written as ``\\u003c``…, so no name can close the
    script element (the same rule as Jinja2's ``tojson``); everything outside ASCII,
    control characters included, is a ``\\u`` escape.
    """
    text = json.dumps(payload, ensure_ascii=True, separators=(",", ":"), allow_nan=False)
    text = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return Markup(text)


# ------------------------------------------------------------------ helpers
def _grouped(rows: Iterable[dict[str, Any]], key: str) -> dict[Any, list[dict[str, Any]]]:
    out: dict[Any, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        out[row[key]].append(row)
    return out


def _histogram(ratings: list[float]) -> dict[str, Any]:
    """Bins of the current edition's ratings (the data of the distribution chart)."""
    if not ratings:
        return {"labels": [], "counts": []}
    low, high = min(ratings), max(ratings)
    span = max(high - low, 1.0)
    width = next((w for w in (10, 25, 50, 100, 200, 500) if span / w <= 40), 1000)
    start = math.floor(low / width) * width
    n = int((high - start) // width) + 1
    counts = [0] * n
    for value in ratings:
        counts[int((value - start) // width)] += 1
    return {"labels": [f"{start + i * width:.0f}" for i in range(n)], "counts": counts, "width": width}


def _fed_dir(federation: str) -> str:
    return folder_name(federation)


# ------------------------------------------------------------------ federation
class _Grouped(Mapping[Any, list[tuple[Any, ...]]]):
    """The rows of a frame by key, as tuples of ``columns``, made when asked.

    The frame is sorted by ``key`` (stably: each group keeps the frame's order). Its
    rows become plain Python columns, so that a forked worker can make the tuples of the
    keys it renders without polars: those of the keys given to :meth:`only` (the pages a
    night renders, a fraction of the archive), or every row on the first look-up in this
    process. A key of one column is the value itself, else a tuple.

    >>> rows = _Grouped(pl.DataFrame({"p": ["b", "a", "b"], "x": [1, 2, 3]}), ["p"], ["x"])
    >>> sorted(rows), rows["b"]
    (['a', 'b'], [(1,), (3,)])
    >>> rows = _Grouped(pl.DataFrame({"p": ["b", "a", "b"], "x": [1, 2, 3]}), ["p"], ["x"])
    >>> rows.only(["a"]); rows["a"], len(rows)
    ([(2,)], 2)
    >>> rows["b"]
    Traceback (most recent call last):
    ...
    RuntimeError: rows of 'b' were not made (only() left it out)
    """

    def __init__(self, frame: pl.DataFrame, key: Sequence[str], columns: Sequence[str]) -> None:
        frame = frame.sort(list(key), maintain_order=True, nulls_last=True)
        self._frame: pl.DataFrame | None = frame.select(list(columns))
        self._columns: list[list[Any]] = []
        self._index: dict[Any, tuple[int, int]] = {}
        #: Where each key's rows are in ``_columns`` (None: not made yet).
        self._made: dict[Any, tuple[int, int]] | None = None
        start = 0
        for *values, count in frame.group_by(list(key), maintain_order=True).len().iter_rows():
            self._index[tuple(values) if len(key) > 1 else values[0]] = (start, start + count)
            start += count

    def only(self, keys: Iterable[Any]) -> None:
        """Make the rows of ``keys`` (those of the index) and drop the frame: a later look-up of another
        key raises, so a page left out of a night's plan fails loudly instead of showing no rows."""
        assert self._frame is not None, "only() once, before any look-up"
        made: dict[Any, tuple[int, int]] = {}
        taken: list[int] = []
        for key in sorted({k for k in keys if k in self._index}, key=lambda k: self._index[k]):
            start, end = self._index[key]
            made[key] = (len(taken), len(taken) + end - start)
            taken.extend(range(start, end))
        kept = self._frame[taken]
        self._columns = [kept.get_column(c).to_list() for c in kept.columns]
        self._made, self._frame = made, None

    def __getitem__(self, key: Any) -> list[tuple[Any, ...]]:
        if key not in self._index:
            raise KeyError(key)
        if self._made is None:
            assert self._frame is not None
            self._columns = [self._frame.get_column(c).to_list() for c in self._frame.columns]
            self._made, self._frame = self._index, None
        if key not in self._made:
            raise RuntimeError(f"rows of {key!r} were not made (only() left it out)")
        start, end = self._made[key]
        return list(zip(*(c[start:end] for c in self._columns), strict=True))

    def __contains__(self, key: object) -> bool:
        return key in self._index

    def __iter__(self) -> Iterator[Any]:
        return iter(self._index)

    def __len__(self) -> int:
        return len(self._index)


class _Dicts(Mapping[Any, list[dict[str, Any]]]):
    """:class:`_Grouped`, its rows as dicts of ``columns`` (the renderers' rows), made when asked."""

    def __init__(self, frame: pl.DataFrame, key: Sequence[str], columns: Sequence[str]) -> None:
        self._rows = _Grouped(frame, key, columns)
        self._names = tuple(columns)

    def only(self, keys: Iterable[Any]) -> None:
        """:meth:`_Grouped.only`."""
        self._rows.only(keys)

    def __getitem__(self, key: Any) -> list[dict[str, Any]]:
        return [dict(zip(self._names, row, strict=True)) for row in self._rows[key]]

    def __contains__(self, key: object) -> bool:
        return key in self._rows

    def __iter__(self) -> Iterator[Any]:
        return iter(self._rows)

    def __len__(self) -> int:
        return len(self._rows)


def _group_digests(frame: pl.DataFrame, by: str, columns: Sequence[str]) -> dict[Any, str]:
    """A digest of each ``by`` group's rows of ``frame`` (their ``columns``, in the frame's order).

    The planning key of the pages made from those rows: polars hashes every row at once
    (``hash_rows``, stable within one polars version, which :func:`_code_key` covers), and
    each group's row hashes are digested in order. Equal rows give equal digests in every run.

    >>> frame = pl.DataFrame({"ed": [1, 0, 1], "rating": [1500.0, 1400.0, None]})
    >>> keys = _group_digests(frame, "ed", ["rating"])
    >>> sorted(keys), keys == _group_digests(frame.clone(), "ed", ["rating"])
    ([0, 1], True)
    >>> keys[1] == _group_digests(frame.with_columns(pl.lit(1).alias("ed")).head(1), "ed", ["rating"])[1]
    False
    """
    if frame.is_empty():
        return {}
    frame = frame.select(list(dict.fromkeys([by, *columns]))).sort(by, maintain_order=True, nulls_last=True)
    hashes = frame.select(columns).hash_rows(seed=0).to_numpy()
    out: dict[Any, str] = {}
    start = 0
    for key, count in frame.group_by(by, maintain_order=True).len().iter_rows():
        out[key] = hashlib.blake2b(hashes[start:start + count].tobytes(), digest_size=16).hexdigest()
        start += count
    return out


#: Lines of full lists a federation's site renders at most (issue 11). Within it (the sum of
#: ``n_players`` over the editions), every edition is a full list and every card shows the player's
#: line on every edition. Beyond it (a migrated archive: 12,700 editions of 50,000 players), only the
#: most recent editions that fit are full lists; the others show their changes, and cards the
#: player's own lines: the cost follows what changed, not editions x players. Rendering full
#: list lines costs about 5 us each here (100k-game AJUSC archive: 2M lines took 10 s of the
#: site's 30 s of CPU), so the budget is 500,000: a hundred recent editions of 5,000 players,
#: and every season of every real federation (20 editions of 700 players: 14,000 lines).
FULL_LINES = 500_000

#: What a removed line (a player who left the list) shows as its status, in large-archive mode.
LEFT = "left the list"


@dataclass
class _Federation:
    """One federation's frames, read once, turned into the rows the pages use."""

    federation: str
    info: dict[str, Any]
    editions: list[dict[str, Any]]
    entries: pl.DataFrame                     # + ed (0-based edition index), prev_rating, new
    players: dict[str, dict[str, Any]]
    competitions: list[dict[str, Any]]
    findings: _Dicts
    changes: _Dicts  # player -> changes (rating order)
    changes_by_competition: _Dicts
    #: The frames the two above and ``findings`` are made from (the pages' planning keys hash them).
    change_frame: pl.DataFrame
    finding_frame: pl.DataFrame
    last_load: dict[str, Any] | None
    corrections: pl.DataFrame | None
    #: Large-archive mode only (None within FULL_LINES): every player's own lines, one per edition
    #: where it changed (+ ed, change, new, was_listed; rank where the edition is in ``entries``).
    lines: pl.DataFrame | None = None
    #: (player, competition, period) -> GAME_COLUMNS tuples, read for the cards that are rendered
    #: (:func:`_plan_cards`), after everything else.
    explanations: Mapping[tuple[str, str, str | None], list[tuple[Any, ...]]] = field(default_factory=dict)


def _read(engine: Engine, federation: str, info: dict[str, Any], out: Path) -> _Federation:
    """The federation's frames; the stored lines and the rating changes through what the last
    generation kept in ``out`` (:mod:`website.frames`: only what changed since is read)."""
    editions = queries.site_editions(engine, federation)
    index = editions.select("list_id", pl.int_range(pl.len()).alias("ed"))
    lines = None
    if (editions.get_column("n_players").sum() or 0) <= FULL_LINES:
        entries = _every_edition(engine, federation, index)
    else:
        stored = frames.lines(engine, federation, out)
        lines = _own_lines(stored.join(index, on="list_id", how="inner"))
        entries = _recent_editions(engine, federation, editions, index, lines, stored)
        lines = lines.drop("rank").join(entries.select("player_id", "ed", "rank"), on=["player_id", "ed"],
                                        how="left", maintain_order="left")
    players = {r["player_id"]: r for r in queries.site_players(engine, federation).to_dicts()}
    competitions = queries.site_competitions(engine, federation).to_dicts()
    finding_frame = queries.site_findings(engine, federation)
    change_frame = frames.changes(engine, federation, out)
    return _Federation(
        federation=federation, info=info, editions=editions.to_dicts(), entries=entries,
        players=players, competitions=competitions, findings=_Dicts(finding_frame, ["competition_id"], finding_frame.columns),
        changes=_Dicts(change_frame, ["player_id"], change_frame.columns),
        changes_by_competition=_Dicts(change_frame, ["competition_id"], change_frame.columns),
        change_frame=change_frame, finding_frame=finding_frame,
        last_load=queries.site_last_load(engine, federation),
        corrections=queries.site_corrections(engine, federation), lines=lines,
    )


def _every_edition(engine: Engine, federation: str, index: pl.DataFrame) -> pl.DataFrame:
    """Every edition in full, each line with its change since the previous edition (``new``: not on it)."""
    entries = queries.site_entries(engine, federation).join(index, on="list_id", how="inner")
    previous = entries.select(
        "player_id", (pl.col("ed") + 1).alias("ed"), pl.col("rating").alias("prev_rating"),
        pl.lit(True).alias("was_listed"),
    )
    return (
        entries.join(previous, on=["player_id", "ed"], how="left")
        .with_columns(
            (pl.col("rating") - pl.col("prev_rating")).alias("change"),
            ((pl.col("ed") > 0) & pl.col("was_listed").is_null()).alias("new"),
        )
        .drop("was_listed")
        .sort("ed", "position")
    )


def _recent_editions(
    engine: Engine, federation: str, editions: pl.DataFrame, index: pl.DataFrame, lines: pl.DataFrame,
    stored: pl.DataFrame,
) -> pl.DataFrame:
    """The most recent editions whose ``n_players`` add up to FULL_LINES (at least the latest), in full,
    as :func:`_every_edition` gives them: the change and ``new`` come from each player's line in
    force on the edition before, the newest of ``lines`` before it. ``stored``: the lines as
    stored (:func:`warehouse.site.site_lines`), replayed into those editions without a second read."""
    recent = editions.join(index, on="list_id").sort("ed", descending=True).filter(
        (pl.col("n_players").cum_sum() <= FULL_LINES) | (pl.int_range(pl.len()) == 0))
    entries = (queries.site_entries(engine, federation, editions=recent.get_column("edition").to_list(),
                                    lines=stored)
               .join(index, on="list_id", how="inner").sort("ed", "position"))
    before = lines.select("player_id", "ed", pl.col("rating").alias("prev_rating"),
                          pl.col("removed").not_().alias("was_listed"))
    return (
        entries.join_asof(before, on="ed", by="player_id", strategy="backward", allow_exact_matches=False,
                          check_sortedness=False)
        .with_columns(
            pl.when(pl.col("was_listed")).then(pl.col("rating") - pl.col("prev_rating")).alias("change"),
            ((pl.col("ed") > 0) & ~pl.col("was_listed").fill_null(False)).alias("new"),
        )
        .drop("was_listed")
        .sort("ed", "position")
    )


def _own_lines(stored: pl.DataFrame) -> pl.DataFrame:
    """Each player's own lines (``stored`` by edition, + ``ed``), one per edition where the line changed.

    A ``changes`` edition stores exactly those; a ``full`` one (its lines have a ``position``) stores
    every line, so a line equal to the player's previous one is dropped there, and a player it no
    longer lists gets the ``removed`` line a ``changes`` edition would have stored. Each line gets its
    ``change`` since the player's previous line, ``was_listed`` (that line was not a removal) and
    ``new``; a removed line's status reads :data:`LEFT`.
    """
    lines = pl.concat([stored, _left_at_full(stored)], how="diagonal_relaxed").sort("ed", "removed",
                                                                                     maintain_order=True)

    def before(column: str) -> pl.Expr:
        return pl.col(column).shift(1).over("player_id")

    same = pl.all_horizontal(pl.col(c).eq_missing(before(c)) for c in ("name", "rating", "games", "status",
                                                                       "category"))
    listed = before("removed").not_().fill_null(False)
    return (
        lines.with_columns(listed.alias("was_listed"), before("rating").alias("prev_rating"))
        .filter(pl.col("removed") | ~pl.col("was_listed") | ~same)
        .with_columns(
            pl.when(pl.col("was_listed") & ~pl.col("removed")).then(pl.col("rating") - pl.col("prev_rating"))
            .alias("change"),
            (~pl.col("removed") & ~pl.col("was_listed") & (pl.col("ed") > 0)).alias("new"),
            pl.when(pl.col("removed")).then(pl.lit(LEFT)).otherwise(pl.col("status")).alias("status"),
        )
    )


def _left_at_full(stored: pl.DataFrame) -> pl.DataFrame:
    """The ``removed`` lines a ``full`` edition implies: a player listed before it (a line that is no
    removal) whose next line comes after it, or never, is not on it."""
    full = stored.filter(pl.col("position").is_not_null()).select(
        pl.col("ed").alias("full_ed"), pl.col("list_id").alias("full_list")).unique().sort("full_ed")
    if full.is_empty():
        return stored.clear()
    listed = (stored.sort("ed", maintain_order=True)
              .with_columns(pl.col("ed").shift(-1).over("player_id").alias("next_ed"))
              .filter(~pl.col("removed")))
    return (
        listed.join_asof(full, left_on="ed", right_on="full_ed", strategy="forward", allow_exact_matches=False)
        .filter(pl.col("full_ed").is_not_null() & (pl.col("next_ed").is_null() | (pl.col("full_ed") < pl.col("next_ed"))))
        .select(pl.col("full_list").alias("list_id"), "player_id", pl.col("full_ed").alias("ed"),
                pl.lit(True).alias("removed"))
    )


#: Columns of an edition or a competition that no page made with a digest shows (the archive shows
#: the day of ``published_at``, the index the last load): a re-run that publishes the same figures
#: stamps them anew.
_UNSHOWN = frozenset({"published_at", "load_id"})

#: Edition columns that are bookkeeping, not something a reader of the list needs.
_INTERNAL_EDITION_COLUMNS = frozenset({"covers", "list_id"})


def _edition_summaries(fed: _Federation) -> list[dict[str, Any]]:
    """Each edition with how many players it listed, and how many were new, changed or left since the
    edition before (``index``: its 0-based place)."""
    if fed.lines is None:
        stats = _stats_from_entries(fed)
    else:
        counted = _stats_from_lines(fed)
        stats = {i: {"listed": e["n_players"], **counted.get(i, {"new": 0, "changed": 0, "left": 0})}
                 for i, e in enumerate(fed.editions)}
    return [{**edition, "index": i, **stats[i]} for i, edition in enumerate(fed.editions)]


def _stats_from_entries(fed: _Federation) -> dict[int, dict[str, int]]:
    """Summaries counted on the full editions (the players who left: listed before, not now)."""
    stats = (
        fed.entries.group_by("ed")
        .agg(
            pl.len().alias("listed"),
            pl.col("new").sum().alias("new"),
            (pl.col("change").fill_null(0) != 0).sum().alias("changed"),
        )
        .sort("ed")
    )
    by_ed = {r["ed"]: r for r in stats.to_dicts()}
    out = {}
    previous_listed = 0
    for i in range(len(fed.editions)):
        s = by_ed.get(i, {"listed": 0, "new": 0, "changed": 0})
        # Players on the previous edition and not on this one.
        left = previous_listed - (s["listed"] - s["new"]) if i else 0
        out[i] = {"listed": s["listed"], "new": s["new"] if i else 0, "changed": s["changed"], "left": max(left, 0)}
        previous_listed = s["listed"]
    return out


def _stats_from_lines(fed: _Federation) -> dict[int, dict[str, int]]:
    """Summaries counted on the stored lines: new (no previous line on the list), changed (a rating
    other than the previous line's), left (removed lines)."""
    assert fed.lines is not None
    stats = fed.lines.group_by("ed").agg(
        pl.col("new").sum(), (pl.col("change").fill_null(0) != 0).sum().alias("changed"),
        pl.col("removed").sum().alias("left"),
    )
    return {r.pop("ed"): r for r in stats.to_dicts()}


# ------------------------------------------------------------------ parallel pages
#: Fewer cards than this: every page is rendered in the calling process (a fork costs more than it saves).
PARALLEL_FROM = 2_000

#: Cards (or competition pages) per job handed to a worker: small enough to balance two workers.
_CHUNK = 1_000

#: The jobs the forked renderers run (set just before the fork, read by the children).
_JOBS: tuple[Sequence[Callable[[], None]], _Writer] | None = None

#: The child's own writer, which the jobs (closures over the parent's writer) are pointed at.
_CHILD_WRITER: list[Any] = [None]


def _run_job(index: int) -> tuple[int, int, int, list[str], dict[str, str]]:
    """In a forked child: run job ``index`` through a writer of its own; report what it wrote."""
    assert _JOBS is not None
    jobs, parent = _JOBS
    writer = _CHILD_WRITER[0] = _Writer(parent.root, parent.old_keys)
    jobs[index]()
    return writer.pages, writer.written, writer.rendered, list(writer.seen), writer.keys


def _run_jobs(jobs: Sequence[Callable[[], None]], writer: _Writer, workers: int) -> None:
    """Run every job (each renders and writes some pages), in ``workers`` forked processes if > 1.

    The children only format strings and write files: no polars, no database, no
    Prefect call, so forking a process that has those threads is safe. The
    jobs are handed out one at a time (the first ones are the biggest), so the
    workers finish together. The objects read from the warehouse are frozen out
    of the garbage collector first: the children neither scan nor copy them. They
    are unfrozen when the workers are done, so that the rows made for the jobs
    (in cycles through the closures of :func:`_render_federation`) can be freed
    before the rest of the site.
    """
    global _JOBS
    if workers <= 1 or len(jobs) <= 1 or "fork" not in multiprocessing.get_all_start_methods():
        for job in jobs:
            job()
        return
    _JOBS = (jobs, writer)
    writer.delegate = _CHILD_WRITER
    gc.collect()
    gc.freeze()
    try:
        with multiprocessing.get_context("fork").Pool(min(workers, len(jobs))) as pool:
            for pages, written, rendered, seen, keys in pool.imap_unordered(_run_job, range(len(jobs))):
                writer.pages += pages
                writer.written += written
                writer.rendered += rendered
                writer.seen.update(seen)
                writer.keys.update(keys)
    finally:
        gc.unfreeze()
        _JOBS = None
        writer.delegate = None


# ------------------------------------------------------------------ pages
class _Clock:
    """CPU time per phase, added into ``SiteResult.phases`` (for the benchmark and the logs)."""

    def __init__(self, result: SiteResult) -> None:
        self.result = result
        self.last = time.process_time()

    def lap(self, phase: str) -> None:
        now = time.process_time()
        self.result.phases[phase] = self.result.phases.get(phase, 0.0) + now - self.last
        self.last = now


#: The columns of an edition's line that its page shows (list_rows).
_LIST_COLUMNS: tuple[str, ...] = ("player_id", "rank", "rating", "change", "new", "category", "status", "games")


def _player_names(fed: _Federation, own: pl.DataFrame) -> dict[str, str | None]:
    """Each player's name: the starting list's, else the last one the player's lines carry."""
    player_names = {pid: p.get("name") for pid, p in fed.players.items()}
    for row in own.filter(pl.col("name").is_not_null()).select("player_id", "name").unique(
            "player_id", keep="last").iter_rows():
        if not player_names.get(row[0]):
            player_names[row[0]] = row[1]
    return player_names


def _facets(categories: Iterable[Any], statuses: Iterable[Any]) -> dict[str, list[str]]:
    """The filters of an edition's page: its categories, and its statuses in the list's order."""
    present = set(statuses)
    return {"categories": sorted({c for c in categories if c}),
            "statuses": [s for s in (*STATUS_ORDER, LEFT) if s in present]}


def _write_archive(fed: _Federation, writer: _Writer, common: Mapping[str, Any], editions: Sequence[Mapping[str, Any]],
                   extra_columns: Sequence[str]) -> None:
    """The federation's archive page: every edition, newest first."""
    base = common["dir"]
    writer.write(f"{base}/editions/index.html", _template("archive.html").render(
        root="../../", **common, editions=list(reversed(editions)),
        # Only the columns that say something: a column empty on every edition, or ``kind`` when
        # every edition is an ordinary one, stays off the table.
        extra_columns=[c for c in extra_columns
                       if any(e[c] and not (c == "kind" and e[c] == "ordinary") for e in editions)],
        has_corrections=fed.corrections is not None))


def _write_overview(fed: _Federation, writer: _Writer, common: Mapping[str, Any], latest: Mapping[str, Any] | None,
                    editions: Sequence[Mapping[str, Any]], current_rows: Sequence[Mapping[str, Any]]) -> None:
    """The federation's overview page: distribution on the current edition, activity by month."""
    base = common["dir"]
    hist = _histogram([r["rating"] for r in current_rows if r["rating"] is not None])
    monthly = _activity(fed)
    status_counts: dict[str, int] = defaultdict(int)
    for r in current_rows:
        status_counts[r["status"] or "unrated"] += 1
    writer.write(f"{base}/overview.html", _template("overview.html").render(
        root="../", **common, latest=latest, editions=editions,
        status_counts=[(s, status_counts[s]) for s in STATUS_ORDER if status_counts.get(s)],
        histogram=_json_block({"kind": "histogram", "target": "distribution-chart", "label":
                               "Players by rating on the current edition", **hist}),
        activity=_json_block({"kind": "activity", "target": "activity-chart", "label":
                              "Rated games and players by month", "labels": [row[0] for row in monthly],
                              "games": [row[2] for row in monthly], "players": [row[3] for row in monthly]}),
        months=monthly))


def _render_federation(
    fed: _Federation, writer: _Writer, out: Path, result: SiteResult, workers: int, engine: Engine,
    previous: Mapping[str, Any] | None,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Render one federation's pages. Everything that needs polars is prepared here, in this
    process; the pages themselves are rendered by jobs, in forked workers when ``workers`` > 1
    and the federation has at least :data:`PARALLEL_FROM` cards."""
    clock = _Clock(result)
    base = _fed_dir(fed.federation)
    root = out / base
    editions = _edition_summaries(fed)
    extra_columns = [c for c in (fed.editions[0] if fed.editions else {}) if c not in queries.EDITIONS_SCHEMA
                     and c not in _INTERNAL_EDITION_COLUMNS]
    # The full editions' lines (fed.entries, by edition and position), as Python rows where a page
    # needs them: the current edition's, and those of the editions polars does not format.
    slices = _Dicts(fed.entries, ["ed"], _LIST_COLUMNS)

    latest = editions[-1] if editions else None
    current_rows = (fed.entries.filter(pl.col("ed") == latest["index"]).select(_LIST_COLUMNS).to_dicts()
                    if latest else [])
    on_latest = {r["player_id"]: r for r in current_rows}
    # Large-archive mode: editions not in fed.entries show their own lines (the changes), cards the
    # player's own lines.
    by_change = fed.lines is not None
    own = fed.lines if fed.lines is not None else fed.entries
    changed_on = _Dicts(own, ["ed"], _LIST_COLUMNS) if by_change else None
    labels = [e["edition"] for e in editions]
    dates = [e["as_of"].isoformat() for e in editions]
    # What every page of the federation shows of it; ``latest`` goes only to the pages that show it.
    common = {"federation": fed.federation, "dir": base, "fed_name": fed.info.get("name") or fed.federation,
              "info": fed.info}
    stable = _digest(_code_key(), common)
    diffs = _corrections_by_edition(fed.corrections, editions)
    player_names = _player_names(fed, own)
    names_deep = Names(player_names, "../players/")   # from editions/ and competitions/
    names_top = Names(player_names, "players/")       # from the federation's index
    names_card = Names(player_names, "")              # from a card to another card
    cells = edition_cells(editions)
    # Each player's lines on every edition, or where it changed (ENTRY_COLUMNS tuples, oldest first).
    history = _Grouped(own, ["player_id"], ENTRY_COLUMNS)
    player_ids = sorted(set(history) | set(fed.changes))
    competitions = {c["competition_id"]: c for c in fed.competitions}
    edition_page, card, competition_page = (_template(n) for n in ("edition.html", "player.html",
                                                                     "competition.html"))
    clock.lap("prepare")

    # Planning keys: each page's key digests the rows it is made from, hashed by polars for every
    # page at once (_group_digests), plus the few values of its own; the rows themselves are made
    # only for the pages rendered. A page is rendered when its key is not the manifest's.
    def shown(row: Mapping[str, Any]) -> dict[str, Any]:
        """An edition or a competition without its bookkeeping (:data:`_UNSHOWN`), which no page made
        with a digest shows, so that a re-run that publishes the same figures renders nothing again."""
        return {k: v for k, v in row.items() if k not in _UNSHOWN}

    links = pl.DataFrame({"player_id": list(player_names), "_link": list(player_names.values())},
                         schema={"player_id": pl.Utf8(), "_link": pl.Utf8()})

    def linked(frame: pl.DataFrame) -> pl.DataFrame:
        """``frame`` with the name each row's player is linked by (``_link``)."""
        return frame.join(links, on="player_id", how="left", maintain_order="left")

    full_keys = _group_digests(linked(fed.entries), "ed", [*_LIST_COLUMNS, "_link"])
    changed_keys = _group_digests(linked(own), "ed", [*_LIST_COLUMNS, "_link"]) if by_change else {}
    edition_keys = pl.DataFrame({"ed": [e["index"] for e in editions], "_ed": [_digest(shown(e)) for e in editions]},
                                schema={"ed": pl.Int64(), "_ed": pl.Utf8()})
    competition_keys = pl.DataFrame(
        {"competition_id": list(competitions), "_competition": [_digest(shown(c)) for c in competitions.values()]},
        schema={"competition_id": pl.Utf8(), "_competition": pl.Utf8()})
    change_columns = [*fed.change_frame.columns, "_competition"]
    line_keys = _group_digests(own.join(edition_keys, on="ed", how="left", maintain_order="left"), "player_id",
                               [*ENTRY_COLUMNS, "_ed"])
    rated_keys = _group_digests(
        fed.change_frame.join(competition_keys, on="competition_id", how="left", maintain_order="left"),
        "player_id", change_columns)
    finding_keys = _group_digests(fed.finding_frame, "competition_id", fed.finding_frame.columns)
    outcome_keys = _group_digests(linked(fed.change_frame), "competition_id", [*fed.change_frame.columns, "_link"])
    # A card of a federation within FULL_LINES charts every edition and shows the current one.
    every_edition = stable if by_change else _digest(stable, [shown(e) for e in editions])
    clock.lap("keys")

    def base_key(player_id: str) -> str:
        """The key of everything a card shows but its games (:func:`card_base`'s inputs)."""
        current = None if by_change else (shown(latest) if latest else None, on_latest.get(player_id))
        return _digest(every_edition, "card", player_id, fed.players.get(player_id), player_names.get(player_id),
                       line_keys.get(player_id), rated_keys.get(player_id), current)

    def edition_shape(e: Mapping[str, Any], as_list: bool) -> tuple[bool, dict[str, Any] | None]:
        """Whether an edition's page lists it in full, and the edition before it (shown), for its key
        and its render alike."""
        in_full = not by_change or e["index"] in slices
        if as_list:
            previous = editions[-2] if len(editions) > 1 else None
        else:
            previous = editions[e["index"] - 1] if e["index"] else None
        return in_full, shown(previous) if previous else None

    def edition_key(e: Mapping[str, Any], as_list: bool) -> str:
        in_full, previous = edition_shape(e, as_list)
        rows = full_keys.get(e["index"]) if in_full else changed_keys.get(e["index"])
        return _digest(stable, "list" if as_list else "edition", shown(e), in_full, e is latest, extra_columns,
                       previous, rows, None if as_list else diffs[e["index"]])

    def competition_key(comp: Mapping[str, Any]) -> str:
        cid = comp["competition_id"]
        return _digest(stable, "competition", shown(comp), finding_keys.get(cid), outcome_keys.get(cid))

    def known_names(ids: Iterable[str | None]) -> dict[str, str | None]:
        return {pid: player_names.get(pid) for pid in ids if pid is not None}

    # Editions: one page each, and the current one again as the federation's list.
    def downloads(e: Mapping[str, Any]) -> list[dict[str, str]]:
        """The edition in the federation's own list formats, beside it in ``downloads/``
        (the files are written by ``tasks.site.write_list_downloads``)."""
        header = ListHeader(fed.federation, int(e["edition"]), e["as_of"], e.get("list_name"))
        return [{"label": FORMAT_LABELS[f], "name": export_file_name(header, f)}
                for f in SITE_DOWNLOADS.get(str(fed.info.get("system")), ())]

    def edition_path(e: Mapping[str, Any], as_list: bool) -> str:
        return f"{base}/index.html" if as_list else f"{base}/editions/{e['edition']}.html"

    def render_in_full(wanted: Sequence[tuple[dict[str, Any], bool, str]]) -> set[tuple[int, bool]]:
        """Render, here and now, the pages of the full editions among ``wanted`` (edition, as the list,
        key), their rows formatted by polars for all of them at once (:func:`list_rows_by_edition`)
        and made into text one page at a time. Returns the (edition, as the list) rendered; the
        others are left to :func:`list_rows` (jobs)."""
        done: set[tuple[int, bool]] = set()
        for as_list, names in ((False, names_deep), (True, names_top)):
            mine = [(e, key) for e, flag, key in wanted if flag == as_list and edition_shape(e, as_list)[0]]
            if not mine:
                continue
            frame = fed.entries.filter(pl.col("ed").is_in([e["index"] for e, _ in mine]))
            formatted = list_rows_by_edition(frame.select("ed", *_LIST_COLUMNS), names)
            if formatted is None:
                continue
            values = {ed: _facets(categories, statuses) for ed, categories, statuses in
                      frame.group_by("ed").agg(pl.col("category").unique(), pl.col("status").unique()).iter_rows()}
            for e, key in mine:
                render_edition(e, key, as_list=as_list, formatted=(formatted[e["index"]], values[e["index"]]))
                done.add((e["index"], as_list))
        return done

    def render_edition(e: dict[str, Any], key: str, *, as_list: bool = False,
                       formatted: tuple[Markup, dict[str, list[str]]] | None = None) -> None:
        in_full, previous = edition_shape(e, as_list)
        if formatted is None:
            rows = (slices if in_full or changed_on is None else changed_on).get(e["index"], [])
            names = names_top if as_list else names_deep
            formatted = (list_rows(rows, names, ranked=in_full or as_list),
                         _facets((r["category"] for r in rows), (r["status"] for r in rows)))
        html, filters = formatted
        ctx = {**common, "edition": shown(e), **filters, "extra_columns": extra_columns, "is_current": e is latest,
               "changes_only": not in_full, "previous": previous, "rows": html, "downloads": downloads(e)}
        if as_list:
            writer.write_keyed(edition_path(e, as_list), key,
                               lambda: edition_page.render(root="../", **ctx, corrections=None, is_list=True))
        else:
            corrections = diffs[e["index"]]
            writer.write_keyed(edition_path(e, as_list), key,
                               lambda: edition_page.render(root="../../", **ctx, corrections=correction_rows(corrections),
                                                           correction_reason=correction_reason(corrections)))

    # Player cards. A card is made from its base (everything but the games) and its games (the
    # explanations, most of the warehouse), which are read only for the cards that may have changed
    # (_plan_cards); the manifest keeps "full digest:base digest:last explanation row" for each card.
    def card_base(player_id: str) -> dict[str, Any]:
        listed = history.get(player_id, [])
        if by_change:
            # The editions where the player's line changed; a removed line (no rating) ends a stretch.
            # The card shows no figure of the current edition (its rank there comes from ranks.js), so
            # it changes only when the player's own lines, competitions or games do.
            mine = [row[0] for row in listed]
            series: list[float | None] = [row[1] for row in listed]
            chart_labels, chart_dates = [labels[i] for i in mine], [dates[i] for i in mine]
            line = dict(zip(ENTRY_COLUMNS, listed[-1], strict=True)) if listed else None
            figures: dict[str, Any] = {"line": line, "left": bool(line and line["status"] == LEFT),
                                       "last": shown(editions[mine[-1]]) if mine else None}
        else:
            series = [None] * len(editions)
            for row in listed:
                series[row[0]] = row[1]
            chart_labels, chart_dates = labels, dates
            figures = {"latest": shown(latest) if latest else None, "current": on_latest.get(player_id)}
        known = fed.players.get(player_id, {})
        name = known.get("name") or player_names.get(player_id) or player_id
        rated = fed.changes.get(player_id, [])
        inputs = {
            "player_id": player_id, "name": name, "known": known, "figures": figures, "listed": listed,
            "cells": [cells[row[0]] for row in listed], "rated": rated,
            "played": {c["competition_id"]: shown(competitions.get(c["competition_id"], {})) for c in rated},
            "chart": {"kind": "history", "target": "history-chart", "labels": chart_labels, "dates": chart_dates,
                      "ratings": series, "label": f"Rating of {name} by edition"},
            "points": sum(v is not None for v in series),
        }
        return inputs

    def card_page(player_id: str) -> str:
        return f"{base}/players/{page_name(player_id)}"

    def render_card(player_id: str) -> None:
        c = card_base(player_id)
        games = {(player_id, r["competition_id"], r["period"]): fed.explanations.get(
            (player_id, r["competition_id"], r["period"]), ()) for r in c["rated"]}
        opponents = known_names(g[1] for listed_games in games.values() for g in listed_games)
        key = base_key(player_id)
        writer.write_keyed(
            card_page(player_id),
            f"{_digest(key, games, opponents)}:{key}:{last_explained.get(player_id, -1)}",
            lambda: card.render(
                root="../../", **common, **c["figures"], player_id=player_id, name=c["name"], known=c["known"],
                by_change=by_change, editions_table=edition_rows(c["listed"][::-1], cells),
                competitions_html=competition_sections(c["rated"], c["played"], games, player_id, names_card),
                chart=_json_block(c["chart"]), points=c["points"]))

    # Competition pages: the organiser's report and the changes it produced.
    def render_competition(item: tuple[dict[str, Any], str]) -> None:
        comp, key = item
        cid = comp["competition_id"]
        changes = sorted(fed.changes_by_competition.get(cid, []), key=lambda c: -(c["rating_after"] or 0))
        has_period = any(c["period"] for c in changes)
        findings = sorted(fed.findings.get(cid, []),
                          key=lambda f: ({"reject": 0, "exclude": 1, "warn": 2}.get(f["severity"] or "", 3),
                                         f["line"] is None, f["line"] or 0))
        severities = {f["severity"] for f in findings}
        status = comp["status"]
        if status == "accepted" and "exclude" in severities:
            status = "accepted_with_exclusions"
        writer.write_keyed(
            competition_path(comp), key,
            lambda: competition_page.render(
                root="../../", **common, comp=shown(comp), status=status, findings=findings, changes=bool(changes),
                has_period=has_period, change_rows=change_rows(changes, names_deep, period=has_period)))

    def competition_path(comp: Mapping[str, Any]) -> str:
        return f"{base}/competitions/{page_name(comp['competition_id'])}"

    def chunks(items: Sequence[Any], render: Callable[[Any], None]) -> list[Callable[[], None]]:
        return [functools.partial(_each, render, items[i:i + _CHUNK]) for i in range(0, len(items), _CHUNK)]

    jobs: list[Callable[[], None]] = []
    wanted = [(e, as_list, key)
              for e, as_list in [*((e, False) for e in editions), *([(latest, True)] if latest is not None else [])]
              if not writer.stands(edition_path(e, as_list), key := edition_key(e, as_list))]
    rendered = render_in_full(wanted)
    jobs += [functools.partial(render_edition, e, key, as_list=as_list)
             for e, as_list, key in wanted if (e["index"], as_list) not in rendered]
    outcomes = [(c, key) for c in fed.competitions
                if not writer.stands(competition_path(c), key := competition_key(c))]
    to_render, state = _plan_cards(fed, engine, previous, writer, _digest(sorted(player_names.items())),
                                   player_ids, lambda pid: (card_page(pid), base_key(pid)))
    clock.lap("plan")
    # More than half the cards: one read of every row costs less than the lists of ids.
    read = queries.site_explanations(engine, fed.federation, None if 2 * len(to_render) > len(player_ids)
                                     else to_render)
    # One list of game tuples (GAME_COLUMNS) per player, competition and period, in rating order:
    # grouped by polars, the tuples made only when a card asks (in the worker that renders it).
    fed.explanations = _Grouped(read, ["player_id", "competition_id", "period"], GAME_COLUMNS)
    last_explained = dict(read.group_by("player_id").agg(pl.col("seq").max()).iter_rows())
    clock.lap("read")
    # The jobs' rows, made before the workers are forked (they use no polars): only those of the pages
    # rendered, a fraction of the archive on a night.
    left = [e["index"] for e, as_list, _ in wanted if (e["index"], as_list) not in rendered]
    slices.only(left)
    if changed_on is not None:
        changed_on.only(left)
    for rows in (history, fed.changes):
        rows.only(to_render)
    for rows in (fed.changes_by_competition, fed.findings):
        rows.only(c["competition_id"] for c, _ in outcomes)
    jobs += chunks([p for p in player_ids if p in to_render], render_card) + chunks(outcomes, render_competition)
    if by_change:
        # The cards' rank on the current edition (site.js fills it in): one file a night, not every card.
        writer.write(f"{base}/ranks.js", _ranks_script(latest, current_rows))
    _run_jobs(jobs, writer, workers if len(player_ids) >= PARALLEL_FROM else 1)
    clock.lap("pages")
    _write_archive(fed, writer, common, editions, extra_columns)
    result.players[fed.federation] = len(player_ids)
    result.competitions[fed.federation] = len(fed.competitions)
    result.removed += writer.prune(root / "players")
    result.removed += writer.prune(root / "competitions")
    result.removed += writer.prune(root / "editions")

    _write_overview(fed, writer, common, latest, editions, current_rows)
    result.editions[fed.federation] = len(editions)
    clock.lap("overview")

    last = fed.last_load
    night = [c for c in fed.competitions if last and c["load_id"] == last["load_id"]]
    return {**common, "dir": base, "latest": latest, "editions": len(editions), "players": len(player_ids),
            "last_load": last, "night": night}, state


def _activity(fed: _Federation) -> list[tuple[str, int, int, int]]:
    """The overview's activity by month of the competitions that end then and were not rejected:
    (month, competitions, rated games, players rated), oldest first, counted by polars (a large
    archive has a million rating changes)."""
    comps = pl.DataFrame(
        {"competition_id": [c["competition_id"] for c in fed.competitions],
         "end_date": [c["end_date"] for c in fed.competitions], "status": [c["status"] for c in fed.competitions],
         "games_rated": [c["games_rated"] for c in fed.competitions]},
        schema={"competition_id": pl.Utf8(), "end_date": pl.Date(), "status": pl.Utf8(), "games_rated": pl.Int64()},
    ).filter(pl.col("end_date").is_not_null() & (pl.col("status") != "rejected").fill_null(True)).select(
        "competition_id", pl.col("end_date").dt.strftime("%Y-%m").alias("month"), "games_rated")
    counts = comps.group_by("month").agg(pl.len().alias("competitions"),
                                         pl.col("games_rated").fill_null(0).sum().alias("games"))
    players = (fed.change_frame.select("competition_id", "player_id").join(comps, on="competition_id", how="inner")
               .group_by("month").agg(pl.col("player_id").n_unique().alias("players")))
    monthly = (counts.join(players, on="month", how="left").sort("month")
               .select("month", "competitions", "games", pl.col("players").fill_null(0)))
    return [(m, int(c), int(g), int(p)) for m, c, g, p in monthly.iter_rows()]


def _ranks_script(latest: Mapping[str, Any] | None, rows: Sequence[Mapping[str, Any]]) -> str:
    """``ranks.js``: the current edition and each listed player's rank on it (null: listed, no rank)."""
    if latest is None:
        return "window.ratingsCurrent = null;\n"
    current = {"edition": str(latest["edition"]), "as_of": latest["as_of"].isoformat(),
               "ranks": {r["player_id"]: r["rank"] for r in rows}}
    return f"window.ratingsCurrent = {_json_block(current)};\n"


def _changed_from(old: Sequence[Sequence[Any]] | None, new: Sequence[tuple[str, int]] | None) -> int | None:
    """The first row that may differ between two sets of block checksums (each ``(digest, rows)``):
    None when they are the same, 0 when either is unknown."""
    if old is None or new is None:
        return 0
    start = 0
    for now, before in zip(new, old, strict=False):
        if tuple(now) != tuple(before):
            return start
        start += now[1]
    return None if len(new) == len(old) else start


def _plan_cards(
    fed: _Federation, engine: Engine, previous: Mapping[str, Any] | None, writer: _Writer, names: str,
    players: Sequence[str], card: Callable[[str], tuple[str, str]],
) -> tuple[set[str], dict[str, Any]]:
    """The players whose card must be rendered (the others are kept as they are: ``writer.keep``), and
    the federation's state for the next generation to compare: the explanations' block checksums,
    and ``names`` (a digest of every player's name).

    ``card``: player -> (page, digest of the card's base), asked only when some card may stand
    (not on a first generation). A card stands when its base is the same,
    its file is there, and its games cannot have changed: the explanations' block checksums
    (``derived_state``) say from which row they may differ, and the card's last explanation row
    (kept in the manifest) is before it, and the player has no row from there on. When the
    checksums are unknown, or a player's name changed (cards link opponents by name), every card
    is rendered.
    """
    blocks = queries.site_derived_blocks(engine, fed.federation)
    state = {"names": names, "explanations": blocks}
    same_names = previous is not None and previous.get("names") == names
    from_row = _changed_from(previous.get("explanations") if previous and same_names else None, blocks)
    if from_row == 0:
        return set(players), state
    touched = set() if from_row is None else queries.site_explained_from(engine, fed.federation, from_row)
    render = set()
    for player_id in players:
        page, key = card(player_id)
        entry = writer.old_keys.get(page, "").split(":")
        if (len(entry) == 3 and entry[1] == key and player_id not in touched
                and (from_row is None or int(entry[2]) < from_row) and writer.exists(page)):
            writer.keep(page, ":".join(entry))
        else:
            render.add(player_id)
    return render, state


def _each(render: Callable[[Any], None], items: Iterable[Any]) -> None:
    for item in items:
        render(item)


def correction_rows(rows: Sequence[Mapping[str, Any]] | None) -> list[dict[str, Any]] | None:
    """A correcting edition's diff as its page shows it: the player, the edition corrected and
    the figure it published and holds now, whole as the lists print them, and the change.

    Examples
    --------
    >>> correction_rows([{"player_id": "102", "name": "Anna", "edition": "195", "edition_as_of": "2025-12-13",
    ...                   "published": "1047.0", "now": "1067.0", "reason": "BARRUF-195", "list_id": "22"}])
    [{'player_id': '102', 'name': 'Anna', 'edition': '195', 'as_of': '2025-12-13', 'published': '1047', 'now': '1067', 'change': '+20'}]
    >>> correction_rows([{"player_id": "9", "name": None, "edition": "3", "edition_as_of": "2026-01-01",
    ...                   "published": None, "now": "1400.0"}])[0]["published"]
    ''
    """
    if not rows:
        return None

    def figure(value: Any) -> float | None:
        return None if value in (None, "") else float(value)

    out = []
    for row in rows:
        published, now = figure(row.get("published")), figure(row.get("now"))
        change = None if published is None or now is None else float(fmt_rating(now)) - float(fmt_rating(published))
        out.append({"player_id": row.get("player_id"), "name": row.get("name"), "edition": row.get("edition"),
                    "as_of": row.get("edition_as_of"), "published": fmt_rating(published),
                    "now": fmt_rating(now), "change": signed(change)})
    return out


def correction_reason(rows: Sequence[Mapping[str, Any]] | None) -> str | None:
    """The competitions that made a correcting edition (its diff's ``reason``), once."""
    reasons = dict.fromkeys(str(r["reason"]) for r in rows or () if r.get("reason"))
    return ", ".join(reasons) or None


def _corrections_by_edition(corrections: pl.DataFrame | None, editions: Sequence[Mapping[str, Any]],
                            ) -> dict[int, list[dict[str, Any]] | None]:
    """The rows of the correction diff that belong to each edition (by ``index``), matched on the
    first of its columns ``correcting_edition``, ``edition`` and ``list_id`` that the diff has;
    None where no row does (or there is no diff)."""
    if corrections is None:
        return {e["index"]: None for e in editions}
    for column, field_ in (("correcting_edition", "edition"), ("edition", "edition"), ("list_id", "list_id")):
        if column in corrections.columns:
            rows = _grouped(corrections.to_dicts(), column)
            return {e["index"]: rows.get(str(e[field_])) or None for e in editions}
    return {e["index"]: None for e in editions}


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
    static = inside(out, out / "static")
    static.mkdir(exist_ok=True)
    for name in _STATIC_FILES:
        source = _STATIC / name
        target = inside(out, static / name)
        writer.seen.add(f"static/{name}")
        if not target.exists() or target.read_bytes() != source.read_bytes():
            shutil.copyfile(source, target)
    summaries = {}
    rebuilt: dict[str, dict[str, Any]] = {}
    try:
        for federation in wanted:
            info = {k: v for k, v in known[federation].items() if v is not None}
            for key, value in (names or {}).get(federation, {}).items():
                info.setdefault(key, value)
            started_read = time.process_time()
            fed = _read(engine, federation, info, out)
            # What was read lives until the federation's pages are done: out of the cyclic
            # collector's sight (until _run_jobs's workers are done, or to the end here), its full
            # passes (0.3 s each on a 1M archive) walk only the rest.
            gc.freeze()
            result.phases["read"] = result.phases.get("read", 0.0) + time.process_time() - started_read
            summaries[federation], rebuilt[federation] = _render_federation(fed, writer, out, result, workers,
                                                                            engine, states.get(federation))
            del fed
    finally:
        gc.unfreeze()
    # The index lists every federation with pages in the folder, generated now or before.
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
    writer.write("index.html", _template("index.html").render(
        root="", federations=listed, generated=(generated or date.today()).isoformat()))
    _write_manifest(out, pages, states, writer, rebuilt)
    result.pages, result.written, result.rendered = writer.pages, writer.written, writer.rendered
    result.seconds = time.perf_counter() - started
    return result

