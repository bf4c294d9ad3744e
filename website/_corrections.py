"""A correcting edition's diff (the figures of earlier editions it changed) as its page shows it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import polars as pl

from website._rows import _grouped
from website._templates import fmt_rating
from website.fragments import signed


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
