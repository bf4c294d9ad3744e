"""Writing an organiser's report: its two files, atomically, under a name no id can escape."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from validations._report_render import _html, _markdown, _Parts
from validations._report_rows import WARN_LIMIT

if TYPE_CHECKING:
    from validations.report import CompetitionReport


@dataclass(frozen=True)
class WrittenReport:
    """A report as written tonight: what e-mail delivery sends (``tasks/deliver.py``)."""

    federation: str
    competition_id: str   #: the competition (or, for a file that holds none, the file)
    name: str | None
    status: str
    source: str | None    #: the file it was read from
    markdown: str         #: path of the Markdown file
    html: str             #: path of the HTML file beside it


def write_report(report: CompetitionReport, folder: Path, *, sync: bool = True) -> tuple[Path, Path]:
    """Write ``<federation>/<competition_id>.md`` and ``.html`` under ``folder``.

    The competition id is user input: characters unsafe in a file name are replaced.

    Parameters
    ----------
    sync
        Flush each file to disk before it replaces the old one (``fsync``). A bulk
        writer passes ``False`` and calls :func:`sync_reports` once after the last
        report: an ``fsync`` costs more than rendering the report.

    Returns
    -------
    tuple[Path, Path]
        The Markdown and HTML paths.
    """
    from formats.safety import atomic_write_text, path_inside

    # Ids and federation come from the file: never a path outside ``folder``;
    # written atomically, so a run killed mid-write leaves no half report.
    safe = report_name(report.competition_id)
    target = path_inside(folder, report.federation or "unknown")
    md, html = target / f"{safe}.md", target / f"{safe}.html"
    parts = _Parts.of(report, WARN_LIMIT)   # both renderings show the same rows: derive them once
    atomic_write_text(md, _markdown(report, WARN_LIMIT, parts), fsync=sync)
    atomic_write_text(html, _html(report, WARN_LIMIT, parts), fsync=sync)
    return md, html


def report_name(competition_id: str | None) -> str:
    """The file name (no suffix) of a competition's report: the id itself when it is a safe file
    name, else its safe form and a short hash of the id, so that two ids that differ only in
    what a file name cannot hold (``HOST/1``, ``HOST_1``) never share one report file.

    Examples
    --------
    >>> report_name("CAT-2025-01"), report_name("HOST_1"), report_name("HOST/1")
    ('CAT-2025-01', 'HOST_1', 'HOST_1-eb1779dd')
    """
    import hashlib

    from formats.safety import safe_filename

    safe = safe_filename(competition_id)
    if competition_id is None or safe == competition_id:
        return safe
    return f"{safe}-{hashlib.sha256(competition_id.encode('utf-8', 'surrogatepass')).hexdigest()[:8]}"


def sync_reports() -> None:
    """Flush reports written with ``write_report(..., sync=False)`` to disk, all at once."""
    import os

    os.sync()
