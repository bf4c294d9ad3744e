"""How a ``ratings`` command prints what its flow returned: the night's summary, the what-if
cells, and text from a file with its control characters and rich markup escaped.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

#: Above this many competitions a night's summary gives counts and only the refused ones.
SUMMARY_ROWS = 20


def shown(text: object) -> str:
    """Text from a file as the terminal shows it: control characters escaped, no rich markup."""
    from rich.markup import escape

    from tasks.check import terminal_text

    return escape(terminal_text(text, keep=""))


def console() -> Any:
    """A rich console for a command's output: the terminal's width on a terminal; piped or
    redirected, as wide as the content, so that no name is wrapped in the middle."""
    from rich.console import Console

    return Console() if sys.stdout.isatty() else Console(width=100_000)


def print_summary(summary) -> None:  # type: ignore[no-untyped-def]
    from rich.table import Table

    out = console()
    out.print(
        f"[bold]nightly as of {summary.as_of}[/bold]: {summary.files_seen} file(s) in the inbox, "
        f"{len(summary.files_skipped)} already loaded"
    )
    rows = [(fed, cid, status) for fed, comps in sorted(summary.competitions.items()) for cid, status in comps.items()]
    if len(rows) > SUMMARY_ROWS:
        # A thousand competitions: the counts, then only what the officer must look at.
        counts: dict[tuple[str, str], int] = {}
        for fed, _, status in rows:
            counts[fed, status] = counts.get((fed, status), 0) + 1
        out.print(", ".join(f"{fed}: {n} {status}" for (fed, status), n in sorted(counts.items())))
        rows = [row for row in rows if row[2] != "accepted"]
    table = Table("federation", "competition", "status")
    for row in rows:
        table.add_row(*map(shown, row))
    if table.row_count:
        out.print(table)
    outcomes = getattr(summary, "file_outcomes", {})
    if len(outcomes) > SUMMARY_ROWS:
        # As for competitions: only the files the officer must look at.
        outcomes = {name: text for name, text in outcomes.items()
                    if not text.startswith(("accepted", "loaded", "already loaded", "ignored"))}
    if outcomes:
        where = getattr(summary, "file_findings", {})
        files = Table("file", "outcome", *(["first finding"] if where else []))
        files.columns[1].overflow = "fold"   # a log file's path is broken over lines, never cut with "..."
        for name, text in sorted(outcomes.items()):
            files.add_row(shown(name), shown(text), *([shown(where.get(name, ""))] if where else []))
        out.print(files)
    for fed, pub in sorted(summary.published.items()):
        if fed == "unknown":   # the files of no federation: reported above, no list of theirs
            continue
        if pub.edition is None:   # the list in force still stands, with its own size
            out.print(f"{fed}: list unchanged (no new edition tonight)"
                          + (f", {pub.players_listed} player(s) listed" if pub.players_listed else ""))
            continue
        edition = f"edition {pub.edition}" if pub.edition is not None else "list unchanged"
        added = getattr(pub, "players_new", 0)
        out.print(
            f"{fed}: {pub.players_listed} player(s) listed, {pub.players_changed} rating(s) changed"
            + (f", {added} new player(s)" if added else "") + f", {edition}"
        )
    if summary.report_paths:
        folders = sorted({str(Path(p).parent) for p in summary.report_paths})
        out.print(f"reports written to {', '.join(folders)}", markup=False)
    delivered = getattr(summary, "delivered", None)
    if delivered is not None:
        for line in delivered.lines():
            out.print(plain(line), markup=False, highlight=False)


def plain(text: object) -> str:
    """Text from a file on a plain line (no rich markup): control characters escaped."""
    from tasks.check import terminal_text

    return terminal_text(text, keep="")


def whatif_cell(row: dict[str, Any], key: str) -> str:
    """One cell of the what-if table, ratings whole as ``ratings list`` prints them; the change
    is the difference of the two whole figures, so that the columns add up as read."""
    value = row[key]
    if value is None:
        return ""
    if key == "delta" and row.get("rating_now") is not None and row.get("rating_whatif") is not None:
        now, then = (float(f"{row[k]:.0f}") for k in ("rating_now", "rating_whatif"))
        return f"{then - now:+.0f}"
    return f"{value:.0f}" if isinstance(value, float) else str(value)
