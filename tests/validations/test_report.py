"""The organiser's report (Markdown and escaped HTML) and the nightly summary."""

from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import replace
from datetime import date
from html.parser import HTMLParser
from pathlib import Path

import markupsafe
import polars as pl
import pytest

from tests.conftest import require_browser
from tests.validations.conftest import Batch
from validations import (
    CompetitionReport,
    NightlySummary,
    ReportError,
    build_report,
    render_report,
    render_summary,
    validate,
    write_report,
)
from validations.report import md_escape

EVIL = '<script>alert("x")</script> & Smith | *Jones*'


def _findings() -> pl.DataFrame:
    return pl.DataFrame({
        "federation": ["ajusc"] * 3, "competition_id": ["C1"] * 3,
        "rule": ["ajusc.results_known", "ajusc.forfeit_not_rated", "quality.rating_range"],
        "severity": ["reject", "exclude", "warn"],
        "message": [f"The result of {EVIL} vs 2 (round 3) is unknown. Enter the score.",
                    "1 vs 4 (round 1) is a forfeit.", "Player 9 is declared with rating 3100."],
        "source": ["c1.results.csv"] * 3, "line": [7, 2, None], "field": ["score_a", "status", "rating"],
    }, schema_overrides={"line": pl.Int32})


def _changes() -> pl.DataFrame:
    return pl.DataFrame({
        "federation": ["ajusc"] * 2, "competition_id": ["C1"] * 2, "player_id": ["1", "2"],
        "name": [EVIL, "Martí Roé"], "rating_before": [1100.0, 1345.0], "games": [6, 6],
        "score": [4.0, 6.0], "expected": [3.2153, 4.700859], "k": [20.0, 20.0],
        "change": [15.694, 25.9828], "rating_after": [1116.0, 1371.0],
    })


def _report(status: str = "rejected", changes: pl.DataFrame | None = None) -> CompetitionReport:
    return CompetitionReport(
        federation="ajusc", competition_id="C1", name=f"Open {EVIL}", source="c1.results.csv",
        status=status, findings=_findings(),
        changes=changes if changes is not None else pl.DataFrame(),
        start_date=date(2025, 10, 4), end_date=date(2025, 10, 5), games=12, excluded_games=1,
    )


class _Text(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def test_html_escapes_user_text() -> None:
    page = render_report(_report("accepted_with_exclusions", _changes()), fmt="html")
    parser = _Text()
    parser.feed(page)
    assert "script" not in parser.tags                       # no markup from user text
    text = "".join(parser.text)
    assert EVIL in text                                       # ... but it is shown as written
    assert page.count(str(markupsafe.escape(EVIL))) >= 4      # title, h1, finding, change row
    assert "<style>" in page and "http" not in page           # self-contained: inline CSS, no links


def test_html_lists_every_finding_with_file_line_field_and_fix() -> None:
    page = render_report(_report(), fmt="html")
    rows = re.findall(r"<tr><td class=\"sev (\w+)\".*?</tr>", page, flags=re.DOTALL)
    assert rows == ["reject", "exclude", "warn"]              # most serious first
    assert ">7<" in page and ">score_a<" in page and "c1.results.csv" in page
    assert "Enter the score." in page
    assert "Rejected: the competition is not rated" in page
    assert "Not rated." in page


def test_markdown_report() -> None:
    md = render_report(_report("accepted_with_exclusions", _changes()), fmt="markdown")
    lines = md.splitlines()
    assert lines[0].startswith("# Validation report: Open &lt;script&gt;")
    assert "**Accepted with excluded games" in md
    finding_rows = [ln for ln in lines if ln.startswith(("| reject", "| exclude", "| warn"))]
    assert len(finding_rows) == 3
    assert all(row.count(" | ") == 5 for row in finding_rows)  # user pipes escaped: 6 cells
    assert "| 1 | &lt;script&gt;" in md
    change_row = next(ln for ln in lines if ln.startswith("| 2 |"))
    assert change_row.split(" | ")[2:] == ["1345", "6", "6.0", "4.70", "20", "+26.0", "1371 |"]
    assert "<script>" not in md


def test_markdown_escape() -> None:
    assert md_escape("a|b") == "a\\|b"
    assert md_escape("[x](http://e)") == "\\[x\\](http://e)"      # no link: the brackets are escaped
    # Plain text stays plain (ids with underscores, parentheses, "&").
    assert md_escape("fide.unrated_opponent (round 3) & co") == "fide.unrated_opponent (round 3) & co"
    assert md_escape(None) == ""
    assert md_escape("line\nbreak") == "line break"


def test_unknown_format_is_a_domain_error() -> None:
    with pytest.raises(ReportError, match="'pdf'"):
        render_report(_report(), fmt="pdf")  # type: ignore[arg-type]


def test_build_report_from_a_validation(tmp_path: Path) -> None:
    b = Batch("ajusc")
    b.competition("OK")
    g = b.competition("FF")
    g[0].update(status="forfeit")
    b.competition("KO", rounds=2)
    f = b.frames()
    v = validate(f["competitions"], f["games"], federation="ajusc")
    changes = pl.DataFrame({"competition_id": ["FF", "KO"], "player_id": ["1", "1"], "change": [1.0, 2.0]})
    players = pl.DataFrame({"player_id": ["1"], "name": ["Ona"]})
    ff = build_report(v.competitions, v.findings, "FF", federation="ajusc", changes=changes,
                      games=v.games, players=players)
    assert ff.status == "accepted_with_exclusions" and ff.excluded_games == 1 and ff.games == 6
    assert ff.changes.get_column("name").to_list() == ["Ona"]
    ko = build_report(v.competitions, v.findings, "KO", federation="ajusc", changes=changes)
    assert ko.status == "rejected" and ko.changes.is_empty()
    ok = build_report(v.competitions, v.findings, "OK", federation="ajusc")
    assert ok.status == "accepted" and ok.findings.is_empty()
    assert "No findings" in render_report(ok, fmt="markdown")
    md, page = write_report(ff, tmp_path / "reports")
    assert md.read_text(encoding="utf-8").startswith("# Validation report: Open FF")
    assert page.name == "FF.html" and page.parent.name == "ajusc"


def test_write_report_sanitises_the_file_name(tmp_path: Path) -> None:
    report = CompetitionReport(federation="egf", competition_id="../../etc/x y", name=None, source=None,
                               status="accepted", findings=pl.DataFrame(), changes=pl.DataFrame())
    md, _ = write_report(report, tmp_path)
    assert md.parent == tmp_path / "egf" and md.name.startswith("_.._etc_x_y-") and md.suffix == ".md"
    # An id that is already a safe name keeps it; the other gets a short hash of itself.
    plain = replace(report, competition_id="_.._etc_x_y")
    assert write_report(plain, tmp_path)[0].name == "_.._etc_x_y.md"


def test_nightly_summary() -> None:
    summary = NightlySummary.from_frames(
        files=pl.DataFrame({"source": ["a.csv", "b.xml", "c.trf"], "format": ["interchange-results", None, "trf"]}),
        competitions=pl.DataFrame({
            "federation": ["ajusc", "egf", "fide", "fide"], "competition_id": ["A1", "E1", "F1", "F2"],
            "name": ["Open | A", None, "F", "G"],
            "status": ["accepted", "rejected", "accepted_with_exclusions", "pending"],
        }),
        changes=pl.DataFrame({"federation": ["ajusc", "ajusc", "fide"], "player_id": ["1", "2", "1"],
                              "change": [3.0, 0.0, -2.0]}),
        as_of=date(2026, 1, 5), files_skipped=1,
    )
    md = render_summary(summary)
    assert md.splitlines()[0] == "# Nightly run 2026-01-05"
    for label, value in [("Files seen", 3), ("Files unreadable (quarantined)", 1),
                         ("Competitions accepted", 1), ("Competitions rejected (quarantined)", 1),
                         ("Competitions pending", 1), ("Players affected", 2),
                         ("Files already loaded (identical re-send)", 1)]:
        assert f"| {label} | {value} |" in md
    assert "Open \\| A" in md
    assert "Federations: ajusc, egf, fide" in md


def _chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.mark.slow
def test_html_report_screenshot(tmp_path: Path) -> None:
    """Render the report in a headless browser; a PNG of a real page is non-trivial in size."""
    require_browser(_chromium() is not None, "chromium is not installed (apt-get install chromium)")
    _, page = write_report(_report("accepted_with_exclusions", _changes()), tmp_path)
    shot = tmp_path / "report.png"
    subprocess.run(
        [str(_chromium()), "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--no-first-run", f"--screenshot={shot}", "--window-size=1200,1600",
         page.resolve().as_uri()],
        check=True, capture_output=True, timeout=120,
    )
    assert shot.exists() and shot.stat().st_size > 20_000


def test_many_warnings_are_summarised_but_rejections_never() -> None:
    n = 45
    findings = pl.DataFrame({
        "competition_id": ["C1"] * (n + 30), "rule": ["fide.unrated_opponent"] * n + ["fide.results_known"] * 30,
        "severity": ["warn"] * n + ["reject"] * 30, "message": ["m"] * (n + 30),
        "source": ["x.trf"] * (n + 30), "line": list(range(1, n + 31)), "field": ["player_b"] * (n + 30),
    }, schema_overrides={"line": pl.Int32})
    report = CompetitionReport(federation="fide", competition_id="C1", name=None, source="x.trf",
                               status="rejected", findings=findings, changes=pl.DataFrame())
    md = render_report(report, fmt="markdown", warn_limit=20)
    assert sum(ln.startswith("| reject") for ln in md.splitlines()) == 30
    assert sum(ln.startswith("| warn") for ln in md.splitlines()) == 20
    assert "… and 25 more warning(s) of fide.unrated_opponent" in md
    # One line per rule with its count; the decision comes before the long tail of warnings.
    assert "### fide.results_known: 30 rejections" in md and "### fide.unrated_opponent: 45 warnings" in md
    assert md.index("## Rating changes") < md.index("## Warnings (45): reported only")
    page = render_report(report, fmt="html", warn_limit=20)
    assert page.count('class="sev warn"') == 20 and "… and 25 more warning(s)" in page
    assert page.count("<details") == 2 and "<details open>" in page     # warnings folded, decision open
    assert render_report(report, fmt="html", warn_limit=None).count('class="sev warn"') == n


def test_fide_report_lists_unrated_players_progress() -> None:
    from validations.fide import initial_rating_progress

    comps = pl.DataFrame({"competition_id": ["A"], "end_date": [date(2025, 1, 5)]})
    ratings = pl.DataFrame({"player_id": ["r1", "r2", "r3"], "rating": [1800.0, 1900.0, 2000.0]})
    games = pl.DataFrame({"competition_id": ["A"] * 3, "round": [1, 2, 3], "player_a": ["u"] * 3,
                          "player_b": ["r1", "r2", "r3"], "score_a": [1.0, 0.0, 0.5], "status": ["played"] * 3})
    progress = initial_rating_progress(games, ratings, date(2025, 2, 1), competitions=comps).with_columns(
        pl.lit("Ona <b>Vidal</b> (u)").alias("label"))
    report = CompetitionReport(federation="fide", competition_id="A", name="A", source="a.trf",
                               status="accepted", findings=pl.DataFrame(), changes=pl.DataFrame(),
                               progress=progress)
    md = render_report(report, fmt="markdown")
    assert "## Unrated players: progress toward an initial rating" in md
    assert "| Ona &lt;b&gt;Vidal&lt;/b&gt; (u) | fide-2024 | 2022-12-01 – 2025-02-01 | 3 | 5 | A (1.5) |" in md
    assert "needs 2 more game(s)" in md
    page = render_report(report, fmt="html")
    assert "Ona &lt;b&gt;Vidal&lt;/b&gt; (u)" in page and "<b>Vidal" not in page


def test_unreadable_file_report() -> None:
    from validations import file_report

    findings = pl.DataFrame({
        "competition_id": [None, None], "rule": ["format.trf.bad_result", "format.trf.bad_date"],
        "severity": ["reject", "reject"], "message": ["result 'x' <b>", "date '31/02/2024'"],
        "source": ["a.trf", "b.trf"], "line": [14, 3], "field": ["result", "start_date"],
    }, schema_overrides={"line": pl.Int32, "competition_id": pl.Utf8})
    report = file_report("a.trf", findings, federation="fide")
    md = render_report(report, fmt="markdown")
    assert "| reject | a.trf | 14 | result | format.trf.bad_result | result 'x' &lt;b&gt; |" in md
    assert "b.trf" not in md and "could not be read" in md


def test_report_lists_the_published_figures_a_correcting_edition_changed() -> None:
    """The organiser sees which published figures the late competition changed."""
    from validations.report import CompetitionReport, render_report

    fixes = pl.DataFrame({"edition": [192, 192], "edition_as_of": [None, None], "player_id": ["7", "<9>"],
                          "name": ["Anna", None], "published": [1371.0, None], "now": [1366.0, 2109.306]})
    report = CompetitionReport(federation="ajusc", competition_id="B", name="B", source="b.csv", status="accepted",
                               findings=pl.DataFrame(), changes=pl.DataFrame(), corrections=fixes)
    markdown = render_report(report, fmt="markdown")
    assert "## Published editions corrected" in markdown
    assert "| 7 Anna | 192 | 1371 | 1366 |" in markdown and "not listed | 2109.31 |" in markdown
    html = render_report(report, fmt="html")
    assert "Published editions corrected" in html and "&lt;9&gt;" in html


def test_a_large_correction_lists_the_competitions_players_first_and_counts_the_rest() -> None:
    """A correction dated far back can change every figure of hundreds of editions: each
    report lists at most CORRECTION_LIMIT of them, its own players first, and says how many
    more there are (the benchmark's night once wrote 171 MB per report)."""
    from validations.report import CORRECTION_LIMIT, CompetitionReport, render_report

    n = 5_000
    fixes = pl.DataFrame({"edition": [100 + i // 50 for i in range(n)], "edition_as_of": [None] * n,
                          "player_id": [f"P{i}" for i in range(n)], "name": [None] * n,
                          "published": [1500.0] * n, "now": [1501.0] * n})
    changes = pl.DataFrame({"player_id": ["P4999", "P4000"]})
    report = CompetitionReport(federation="ajusc", competition_id="B", name="B", source="b.csv", status="accepted",
                               findings=pl.DataFrame(), changes=changes, corrections=fixes)
    markdown = render_report(report, fmt="markdown")
    section = markdown.split("## Published editions corrected")[1].split("\n## ")[0]
    listed = [line for line in section.splitlines() if line.startswith("| P") and "Player" not in line]
    assert len(listed) == CORRECTION_LIMIT
    assert listed[0].startswith("| P4000 |") and listed[1].startswith("| P4999 |")
    assert listed[2].startswith("| P0 |")
    assert f"and {n - CORRECTION_LIMIT:,} more corrected figure(s)" in markdown
    html = render_report(report, fmt="html")
    fixed = html.split("Published editions corrected")[1].split("<h2>")[0]
    assert fixed.count("<td>P") == CORRECTION_LIMIT and f"{n - CORRECTION_LIMIT:,} more" in html
    assert len(html) < 100_000


def test_rating_changes_are_ordered_by_the_rating_before_as_the_lists_are() -> None:
    import polars as pl

    from validations._report_rows import _change_rows

    changes = pl.DataFrame({
        "player_id": ["102", "17", "20", "99", "17"],
        "rating_before": [1100.0, 1500.0, 1300.0, 1700.0, 1510.0],
        "rating_after": [1110.0, 1510.0, 1290.0, 1690.0, 1515.0],
        "period": ["p1", "p1", "p1", "p1", "p2"],
    })
    rows = _change_rows(changes)
    assert [r["player_id"] for r in rows] == ["99", "17", "17", "20", "102"]
    assert [r["period"] for r in rows if r["player_id"] == "17"] == ["p1", "p2"]   # the engine's order within a player
    assert rows[0]["before"] == "1700"
