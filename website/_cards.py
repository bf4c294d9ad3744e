"""The players' cards, and which of them a generation renders.

A card is made from its base (everything but the games) and its games (the explanations, most of
the warehouse), which are read only for the cards that may have changed (:func:`_plan_cards`);
the manifest keeps "full digest:base digest:last explanation row" for each card.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from warehouse import site as queries
from website._context import _Pages, shown
from website._manifest import _digest
from website._reading import LEFT, _Federation
from website._templates import _json_block
from website._writer import _Writer
from website.fragments import ENTRY_COLUMNS, competition_sections, edition_rows

if TYPE_CHECKING:  # the warehouse's engine type; SQLAlchemy itself stays in warehouse/
    from sqlalchemy.engine import Engine


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


def card_base(pages: _Pages, player_id: str) -> dict[str, Any]:
    """Everything a card shows but its games: its figures, its lines, its competitions and its chart."""
    listed = pages.history.get(player_id, [])
    editions, labels, dates = pages.editions, pages.labels, pages.dates
    if pages.by_change:
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
        latest = pages.latest
        figures = {"latest": shown(latest) if latest else None, "current": pages.on_latest.get(player_id)}
    known = pages.fed.players.get(player_id, {})
    name = known.get("name") or pages.player_names.get(player_id) or player_id
    rated = pages.fed.changes.get(player_id, [])
    return {
        "player_id": player_id, "name": name, "known": known, "figures": figures, "listed": listed,
        "cells": [pages.cells[row[0]] for row in listed], "rated": rated,
        "played": {c["competition_id"]: shown(pages.competitions.get(c["competition_id"], {})) for c in rated},
        "chart": {"kind": "history", "target": "history-chart", "labels": chart_labels, "dates": chart_dates,
                  "ratings": series, "label": f"Rating of {name} by edition"},
        "points": sum(v is not None for v in series),
    }


def render_card(pages: _Pages, player_id: str) -> None:
    """Write a player's card, unless its key (its base's, its games' and its opponents') stands."""
    c = card_base(pages, player_id)
    explanations = pages.fed.explanations
    games = {(player_id, r["competition_id"], r["period"]): explanations.get(
        (player_id, r["competition_id"], r["period"]), ()) for r in c["rated"]}
    opponents = pages.known_names(g[1] for listed_games in games.values() for g in listed_games)
    key = pages.base_key(player_id)
    card, common, cells, names_card = pages.card, pages.common, pages.cells, pages.names_card
    pages.writer.write_keyed(
        pages.card_page(player_id),
        f"{_digest(key, games, opponents)}:{key}:{pages.last_explained.get(player_id, -1)}",
        lambda: card.render(
            root="../../", **common, **c["figures"], player_id=player_id, name=c["name"], known=c["known"],
            by_change=pages.by_change, editions_table=edition_rows(c["listed"][::-1], cells),
            competitions_html=competition_sections(c["rated"], c["played"], games, player_id, names_card),
            chart=_json_block(c["chart"]), points=c["points"]))
