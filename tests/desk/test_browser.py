"""The desk as people use it, in Debian's Chromium driven by Playwright, against the desk under
uvicorn: an organiser signs in, uploads a broken file, reads the finding, fixes it, uploads it
again and confirms; a held competition goes in too; a real night loads them; the officer
approves the held one; the next night rates it.

Skipped where ``/usr/bin/chromium`` is absent, except under ``RATINGS_REQUIRE_BROWSER=1``
(``.ci/run``), where that fails. Screenshots of the upload, report and officer pages (1280 px
wide) go to ``$RATINGS_DESK_SHOTS`` when set, else the test's temporary folder.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import warehouse
from tests.conftest import chromium
from tests.desk.conftest import HELD_T, PASSWORDS, SAMPLE, Installation, night


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium() as launched:
        yield launched


def _page(browser: Any, base: str) -> tuple[Any, list[str]]:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    # Nothing but the desk itself is requested (recorded, then refused).
    leaving: list[str] = []

    def refuse(route: Any) -> None:
        leaving.append(route.request.url)
        route.abort()

    context.route(lambda url: not url.startswith(base), refuse)
    page = context.new_page()
    errors: list[str] = leaving
    page.on("pageerror", lambda e: errors.append(f"page error: {e}"))
    page.on("console", lambda m: errors.append(f"console: {m.text}") if m.type == "error" else None)
    return page, errors


def _sign_in(page: Any, base: str, user: str) -> None:
    page.goto(f"{base}/signin")
    page.fill("input[type=text]", user)
    page.fill("input[type=password]", PASSWORDS[user])
    page.click("button[type=submit]")


@pytest.mark.timeout(300)
def test_organiser_sends_fixes_and_confirms_officer_approves_night_rates(
    browser: Any, live_desk: str, installation: Installation, tmp_path: Path,
) -> None:
    shots = Path(os.environ.get("RATINGS_DESK_SHOTS") or tmp_path / "shots")
    shots.mkdir(parents=True, exist_ok=True)
    good = (SAMPLE / "CAT-2025-01.results.csv").read_text(encoding="utf-8")
    lines = good.splitlines(keepends=True)
    broken = tmp_path / "broken" / "CAT-2025-01.results.csv"
    broken.parent.mkdir()
    broken.write_text(lines[0] + lines[1] + lines[2].replace(",1,played,", ",7,played,") + "".join(lines[3:]),
                      encoding="utf-8")
    fixed = tmp_path / "CAT-2025-01.results.csv"
    fixed.write_text(good, encoding="utf-8")
    held = tmp_path / "lliga-manresa.t"
    held.write_text(HELD_T, encoding="utf-8")

    page, errors = _page(browser, live_desk)
    _sign_in(page, live_desk, "anna")
    assert page.url.endswith("/upload")
    page.screenshot(path=str(shots / "upload.png"), full_page=True)

    # The broken file: the finding names the file, the line and the field, and says how to fix it.
    page.set_input_files("input[type=file]", str(broken))
    page.click("button[type=submit]")
    assert page.inner_text("#outcome") == "rejected"
    finding = page.inner_text("table.findings tbody tr")
    assert "reject" in finding and "3" in finding and "score_a" in finding and "must be 1, 0.5 or 0" in finding
    assert page.query_selector("#confirm") is None   # nothing to confirm: it would be rejected
    page.screenshot(path=str(shots / "report-rejected.png"), full_page=True)

    # Fixed, with the held championship: the report shows the rating changes; confirm.
    page.click("text=Upload other files")
    page.set_input_files("input[type=file]", [str(fixed), str(held)])
    page.click("button[type=submit]")
    assert page.inner_text("#outcome") == "held"
    assert "Rating changes it would make" in page.content() and "ajusc.language_declared" in page.content()
    page.screenshot(path=str(shots / "report.png"), full_page=True)
    page.click("#confirm")
    assert "In the inbox" in page.inner_text("#placed")
    assert "Rating changes it would make" in page.content()   # the pre-check's report stays on the page
    placed = sorted(p.relative_to(installation.inbox).parts for p in installation.inbox.rglob("*")
                    if p.is_file() and ".desk" not in p.parts)
    assert [p[:2] for p in placed] == [("ajusc", "anna")] * 2
    assert {p[-1] for p in placed} == {"CAT-2025-01.results.csv", "lliga-manresa.t"}

    first = night(installation)
    statuses = first.competitions["ajusc"]
    assert statuses["CAT-2025-01"] == "accepted" and sorted(statuses.values()) == ["accepted", "held"]
    (held_id,) = [cid for cid, status in statuses.items() if status == "held"]
    page.goto(f"{live_desk}/upload")
    assert "CAT-2025-01" in page.inner_text("main") and held_id in page.inner_text("main")

    # The officer sees the held competition and why, and approves it with a note.
    officer, officer_errors = _page(browser, live_desk)
    _sign_in(officer, live_desk, "marta")
    assert officer.url.endswith("/officer")
    row = officer.inner_text("#held tbody tr")
    assert held_id in row and "ajusc.language_declared" in row
    officer.screenshot(path=str(shots / "officer.png"), full_page=True)
    officer.fill("#held input[name=note]", "played with DISC, checked with the organiser")
    officer.click("#held button[value=approve]")
    assert "approved: now accepted" in officer.inner_text("#message")
    db = warehouse.get_engine(installation.url)
    decided = warehouse.decisions.decisions(db, "ajusc", held_id)
    assert decided.select("decision", "decided_by", "note").rows() == [
        ("approve", "marta", "played with DISC, checked with the organiser")]

    second = night(installation)
    assert second.competitions["ajusc"] == {held_id: "accepted"}
    rated = set(warehouse.rating_changes(db, "ajusc").get_column("competition_id"))
    assert rated == {"CAT-2025-01", held_id}
    officer.goto(f"{live_desk}/officer")
    assert "None: nothing waits for a decision." in officer.inner_text("#held")
    officer.screenshot(path=str(shots / "officer-after.png"), full_page=True)
    assert errors == [] and officer_errors == []
