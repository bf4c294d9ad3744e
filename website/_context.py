"""What every page of one federation shares: its rows, read and prepared once in this process (all
that needs polars), and the planning key of each page.

A page's key digests the rows it is made from, hashed by polars for every page at once
(:func:`website._rows._group_digests`), plus the few values of its own; the rows themselves are
made only for the pages rendered. A page is rendered when its key is not the manifest's.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import polars as pl

from warehouse import site as queries
from website._corrections import _corrections_by_edition
from website._manifest import _code_key, _digest, _fed_dir
from website._paging import Page, page_count, page_path
from website._reading import _edition_summaries, _Federation
from website._rows import _Dicts, _group_digests, _Grouped
from website._templates import _template
from website._writer import _Writer
from website.fragments import ENTRY_COLUMNS, Names, edition_cells
from website.safe import page_name

#: Columns of an edition or a competition that no page made with a digest shows (the archive shows
#: the day of ``published_at``, the index the last load): a re-run that publishes the same figures
#: stamps them anew.
_UNSHOWN = frozenset({"published_at", "load_id"})

#: Edition columns that are bookkeeping, not something a reader of the list needs.
_INTERNAL_EDITION_COLUMNS = frozenset({"covers", "list_id"})

#: The columns of an edition's line that its page shows (list_rows).
_LIST_COLUMNS: tuple[str, ...] = ("player_id", "rank", "rating", "change", "new", "category", "status", "games")


def shown(row: Mapping[str, Any]) -> dict[str, Any]:
    """An edition or a competition without its bookkeeping (:data:`_UNSHOWN`), which no page made
    with a digest shows, so that a re-run that publishes the same figures renders nothing again."""
    return {k: v for k, v in row.items() if k not in _UNSHOWN}


def _player_names(fed: _Federation, own: pl.DataFrame) -> dict[str, str | None]:
    """Each player's name: the starting list's, else the last one the player's lines carry."""
    player_names = {pid: p.get("name") for pid, p in fed.players.items()}
    for row in own.filter(pl.col("name").is_not_null()).select("player_id", "name").unique(
            "player_id", keep="last").iter_rows():
        if not player_names.get(row[0]):
            player_names[row[0]] = row[1]
    return player_names


class _Pages:
    """One federation's pages: the rows and values they share, and each page's planning key."""

    def __init__(self, fed: _Federation, writer: _Writer) -> None:
        self.fed = fed
        self.writer = writer
        self.base = _fed_dir(fed.federation)
        self._rows()
        self._names()
        #: Each card's last explanation row (set once the explanations are read).
        self.last_explained: dict[str, int] = {}

    def _rows(self) -> None:
        fed = self.fed
        self.editions = editions = _edition_summaries(fed)
        self.extra_columns = [c for c in (fed.editions[0] if fed.editions else {})
                              if c not in queries.EDITIONS_SCHEMA and c not in _INTERNAL_EDITION_COLUMNS]
        # The full editions' lines (fed.entries, by edition and position), as Python rows where a page
        # needs them: the current edition's, and those of the editions polars does not format.
        self.slices = _Dicts(fed.entries, ["ed"], _LIST_COLUMNS)
        self.latest = latest = editions[-1] if editions else None
        self.current_rows = (fed.entries.filter(pl.col("ed") == latest["index"]).select(_LIST_COLUMNS).to_dicts()
                             if latest else [])
        self.on_latest = {r["player_id"]: r for r in self.current_rows}
        # Large-archive mode: editions not in fed.entries show their own lines (the changes), cards the
        # player's own lines.
        self.by_change = fed.lines is not None
        self.own = own = fed.lines if fed.lines is not None else fed.entries
        self.changed_on = _Dicts(own, ["ed"], _LIST_COLUMNS) if self.by_change else None
        self.labels = [e["edition"] for e in editions]
        self.dates = [e["as_of"].isoformat() for e in editions]
        # What every page of the federation shows of it; ``latest`` goes only to the pages that show it.
        self.common = {"federation": fed.federation, "dir": self.base,
                       "fed_name": fed.info.get("name") or fed.federation, "info": fed.info}
        self.stable = _digest(_code_key(), self.common)
        self.diffs = _corrections_by_edition(fed.corrections, editions)

    def _names(self) -> None:
        fed = self.fed
        self.player_names = player_names = _player_names(fed, self.own)
        self.names_deep = Names(player_names, "../players/")   # from editions/ and competitions/
        self.names_top = Names(player_names, "players/")       # from the federation's index
        self.names_card = Names(player_names, "")              # from a card to another card
        self.cells = edition_cells(self.editions)
        # Each player's lines on every edition, or where it changed (ENTRY_COLUMNS tuples, oldest first).
        self.history = _Grouped(self.own, ["player_id"], ENTRY_COLUMNS)
        self.player_ids = sorted(set(self.history) | set(fed.changes))
        self.competitions = {c["competition_id"]: c for c in fed.competitions}
        self.edition_page, self.card, self.competition_page = (
            _template(n) for n in ("edition.html", "player.html", "competition.html"))

    def plan_keys(self) -> None:
        """The digests of every page's rows, by the key of the page they belong to."""
        fed, own, editions = self.fed, self.own, self.editions
        self.links = pl.DataFrame({"player_id": list(self.player_names), "_link": list(self.player_names.values())},
                                  schema={"player_id": pl.Utf8(), "_link": pl.Utf8()})
        self.full_keys = _group_digests(self.linked(fed.entries), "ed", [*_LIST_COLUMNS, "_link"])
        self.changed_keys = (_group_digests(self.linked(own), "ed", [*_LIST_COLUMNS, "_link"])
                             if self.by_change else {})
        # The rows of each edition's page, which say how many pages it takes.
        self.full_counts = dict(fed.entries.group_by("ed").len().iter_rows())
        self.changed_counts = dict(own.group_by("ed").len().iter_rows()) if self.by_change else {}
        edition_keys = pl.DataFrame({"ed": [e["index"] for e in editions],
                                     "_ed": [_digest(shown(e)) for e in editions]},
                                    schema={"ed": pl.Int64(), "_ed": pl.Utf8()})
        competition_keys = pl.DataFrame(
            {"competition_id": list(self.competitions),
             "_competition": [_digest(shown(c)) for c in self.competitions.values()]},
            schema={"competition_id": pl.Utf8(), "_competition": pl.Utf8()})
        change_columns = [*fed.change_frame.columns, "_competition"]
        self.line_keys = _group_digests(own.join(edition_keys, on="ed", how="left", maintain_order="left"),
                                        "player_id", [*ENTRY_COLUMNS, "_ed"])
        self.rated_keys = _group_digests(
            fed.change_frame.join(competition_keys, on="competition_id", how="left", maintain_order="left"),
            "player_id", change_columns)
        self.finding_keys = _group_digests(fed.finding_frame, "competition_id", fed.finding_frame.columns)
        self.outcome_keys = _group_digests(self.linked(fed.change_frame), "competition_id",
                                           [*fed.change_frame.columns, "_link"])
        # A card of a federation within FULL_LINES charts every edition and shows the current one.
        self.every_edition = self.stable if self.by_change else _digest(self.stable, [shown(e) for e in editions])

    def linked(self, frame: pl.DataFrame) -> pl.DataFrame:
        """``frame`` with the name each row's player is linked by (``_link``)."""
        return frame.join(self.links, on="player_id", how="left", maintain_order="left")

    def base_key(self, player_id: str) -> str:
        """The key of everything a card shows but its games (:func:`website._cards.card_base`'s inputs)."""
        latest = self.latest
        current = None if self.by_change else (shown(latest) if latest else None, self.on_latest.get(player_id))
        return _digest(self.every_edition, "card", player_id, self.fed.players.get(player_id),
                       self.player_names.get(player_id), self.line_keys.get(player_id),
                       self.rated_keys.get(player_id), current)

    def edition_shape(self, e: Mapping[str, Any], as_list: bool) -> tuple[bool, dict[str, Any] | None]:
        """Whether an edition's page lists it in full, and the edition before it (shown), for its key
        and its render alike."""
        editions = self.editions
        in_full = not self.by_change or e["index"] in self.slices
        if as_list:
            previous = editions[-2] if len(editions) > 1 else None
        else:
            previous = editions[e["index"] - 1] if e["index"] else None
        return in_full, shown(previous) if previous else None

    def edition_key(self, e: Mapping[str, Any], as_list: bool) -> str:
        in_full, previous = self.edition_shape(e, as_list)
        rows = self.full_keys.get(e["index"]) if in_full else self.changed_keys.get(e["index"])
        return _digest(self.stable, "list" if as_list else "edition", shown(e), in_full, e is self.latest,
                       self.extra_columns, previous, rows, None if as_list else self.diffs[e["index"]])

    def edition_pages(self, e: Mapping[str, Any], as_list: bool) -> list[Page]:
        """The pages of an edition's list (:mod:`website._paging`), each keyed by the edition's key,
        its number and how many there are: a list that fits one page keeps the edition's key."""
        in_full, _ = self.edition_shape(e, as_list)
        count = page_count((self.full_counts if in_full else self.changed_counts).get(e["index"], 0))
        key, first = self.edition_key(e, as_list), self.edition_path(e, as_list)
        return [Page(n, count, page_path(first, n), key if count == 1 else _digest(key, n, count))
                for n in range(1, count + 1)]

    def competition_key(self, comp: Mapping[str, Any]) -> str:
        cid = comp["competition_id"]
        return _digest(self.stable, "competition", shown(comp), self.finding_keys.get(cid),
                       self.outcome_keys.get(cid))

    def known_names(self, ids: Iterable[str | None]) -> dict[str, str | None]:
        return {pid: self.player_names.get(pid) for pid in ids if pid is not None}

    def edition_path(self, e: Mapping[str, Any], as_list: bool) -> str:
        return f"{self.base}/index.html" if as_list else f"{self.base}/editions/{e['edition']}.html"

    def card_page(self, player_id: str) -> str:
        return f"{self.base}/players/{page_name(player_id)}"

    def competition_path(self, comp: Mapping[str, Any]) -> str:
        return f"{self.base}/competitions/{page_name(comp['competition_id'])}"
