"""The tasks behind the command line's own flows: seed, decisions, lookups, site.

Each task's function (``.fn``) on a real SQLite warehouse; the held competition comes from
a nightly run in-process (a TSH ``.t`` file that names no lexicon is held, as in
``tests/flows/test_officer.py``).
"""

from __future__ import annotations

from datetime import date
from pathlib import Path

import polars as pl
import pytest

import formats
import warehouse
from tasks.decisions import Decision, record_decision
from tasks.lookup import (
    LIST_COLUMNS,
    Edition,
    export_entries,
    find_edition,
    read_edition_entries,
    read_reports,
    render_reports,
)
from tasks.seed import SeedLoaded, load_seed_list
from tasks.site import build_site
from tests.cli_warehouse import SEED, held_competition, publish_two_editions, write_seed


@pytest.fixture
def url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'ratings.db'}"


@pytest.fixture
def seed_file(tmp_path: Path) -> Path:
    return write_seed(tmp_path)


@pytest.fixture
def held(tmp_path: Path, url: str) -> str:
    """A warehouse holding one held AJUSC competition; its id."""
    return held_competition(tmp_path, url)


def test_load_seed_list_loads_once_and_says_what_the_cli_prints(seed_file: Path, url: str) -> None:
    first = load_seed_list.fn(str(seed_file), "ajusc", url)
    assert first == SeedLoaded(federation="ajusc", source="start.ratings.csv", players=2, edition=190,
                               as_of=date(2025, 9, 1), competitions=0)
    stored = warehouse.history(warehouse.get_engine(url), "ajusc")
    assert stored.seed.height == 2 and stored.seed_edition == 190
    again = load_seed_list.fn(str(seed_file), "ajusc", url)
    assert again.players == 0   # the same file: already in the ledger


def test_load_seed_list_refuses_a_missing_file_and_a_bad_value(tmp_path: Path, url: str) -> None:
    with pytest.raises(FileNotFoundError, match="no such file"):
        load_seed_list.fn(str(tmp_path / "nowhere.ratings.csv"), "ajusc", url)
    bad = tmp_path / "bad.ratings.csv"
    bad.write_text(SEED.replace("1100,40", "nan,40"), encoding="utf-8")
    with pytest.raises(formats.RatingsFileError, match="line 3, field 'rating'"):
        load_seed_list.fn(str(bad), "ajusc", url)


def test_load_seed_list_counts_the_competitions_already_rated(held: str, seed_file: Path, url: str) -> None:
    assert load_seed_list.fn(str(seed_file), "ajusc", url).competitions == 1


def test_record_decision_approves_a_held_competition(held: str, url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RATINGS_OFFICER", "Marta (AJUSC)")
    done = record_decision.fn("ajusc", held, "approve", "played with DISC", url)
    assert done == Decision(federation="ajusc", competition_id=held, decision="approve", officer="Marta (AJUSC)",
                            status="accepted")
    recorded = warehouse.decisions.decisions(warehouse.get_engine(url), "ajusc", held)
    assert recorded.select("decision", "decided_by", "note").row(0) == ("approve", "Marta (AJUSC)", "played with DISC")
    with pytest.raises(warehouse.decisions.DecisionError, match="is accepted, not held"):
        record_decision.fn("ajusc", held, "decline", "x", url)


def test_record_decision_refuses_an_unknown_competition_and_a_decline_without_reason(held: str, url: str) -> None:
    with pytest.raises(warehouse.UnknownCompetitionError, match="no competition 'NOPE' for ajusc"):
        record_decision.fn("ajusc", "NOPE", "approve", None, url)
    with pytest.raises(warehouse.decisions.DecisionError, match="needs a reason"):
        record_decision.fn("ajusc", held, "decline", " ", url)


def test_find_edition_by_number_date_or_latest(url: str) -> None:
    publish_two_editions(url, seeded=True)
    latest = find_edition.fn(url, "ajusc")
    assert latest is not None and latest.edition == 192
    numbered = find_edition.fn(url, "ajusc", edition=191)
    assert numbered is not None and numbered.edition == 191
    on = find_edition.fn(url, "ajusc", as_of=date(2025, 11, 1))
    assert on is not None and (on.edition, on.as_of, on.kind) == (191, date(2025, 10, 4), "ordinary")
    assert find_edition.fn(url, "ajusc", as_of=date(2025, 9, 1)) is None
    assert find_edition.fn(url, "ajusc", edition=300) is None
    assert find_edition.fn(url, "fide") is None


def test_read_edition_entries_and_the_export(url: str) -> None:
    publish_two_editions(url, seeded=True)
    found = find_edition.fn(url, "ajusc", edition=191)
    assert found is not None
    entries = read_edition_entries.fn(url, found.list_id)
    assert entries.columns == [c for c in LIST_COLUMNS if c in entries.columns]
    assert entries.select("player_id", "rating").row(0) == ("7", 1110.5)
    exported = export_entries.fn(entries, found, {})
    # BARRUF publishes whole ratings, rounded half away from zero; each row names its edition.
    assert exported.select("rating", "edition", "as_of").row(0) == (1111, 191, "2025-10-04")
    assert exported.schema["rating"] == pl.Int64


def test_export_keeps_an_empty_rating(url: str) -> None:
    rows = pl.DataFrame({"federation": ["ajusc", "ajusc"], "player_id": ["1", "2"], "rating": [None, 1000.4]},
                        schema_overrides={"rating": pl.Float64})
    header = Edition("ajusc", list_id=1, edition=3, kind="correcting", as_of=date(2026, 1, 1))
    assert export_entries.fn(rows, header, {}).get_column("rating").to_list() == [None, 1000]


def test_read_and_render_reports_by_id_or_file(held: str, url: str) -> None:
    by_id = read_reports.fn(url, held, "ajusc")
    by_file = read_reports.fn(url, "some/folder/lliga-manresa.t")
    assert by_id is not None and by_file is not None and len(by_id) == len(by_file) == 1
    (markdown,) = render_reports.fn(by_id, "markdown")
    (html,) = render_reports.fn(by_file, "html")
    assert "**Held: loaded, not rated until the rating officer decides**" in markdown
    assert html.lstrip().startswith("<") and "ajusc.language_declared" in html
    assert read_reports.fn(url, "NOPE") is None
    assert read_reports.fn(url, held, "fide") is None


def test_build_site_with_or_without_a_list(url: str, tmp_path: Path) -> None:
    empty = build_site.fn(url, str(tmp_path / "empty"), workers=1)
    assert empty.federations == [] and (tmp_path / "empty" / "index.html").is_file()
    publish_two_editions(url, seeded=True)
    done = build_site.fn(url, str(tmp_path / "site"), "ajusc", date(2026, 1, 1), workers=1)
    assert done.federations == ["ajusc"] and done.editions["ajusc"] == 2
    assert (tmp_path / "site" / "ajusc" / "index.html").is_file()
