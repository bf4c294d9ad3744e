"""The organiser's report says why a file's result rows outnumber its games: the byes read beside
the games are counted on the "Games" line, in the text and the HTML report alike."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import polars as pl
import pytest

from formats.schema import BYES_SCHEMA, COMPETITIONS_SCHEMA, GAMES_SCHEMA, conform
from formats.trf import from_trf
from validations.report import build_report, render_report


def _games_line(text: str) -> str:
    return next(line for line in text.splitlines() if line.startswith("- Games:"))


def _batch(byes: int) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    """A competition of three games between four players and ``byes`` byes (one per round)."""
    competitions = conform(pl.DataFrame({"federation": ["fide"], "competition_id": ["C1"], "name": ["Open"],
                                         "start_date": [date(2026, 3, 1)], "end_date": [date(2026, 3, 2)],
                                         "source": ["open.csv"]}), COMPETITIONS_SCHEMA)
    games = conform(pl.DataFrame({"federation": ["fide"] * 3, "competition_id": ["C1"] * 3, "round": [1, 2, 3],
                                  "player_a": ["1", "1", "2"], "player_b": ["2", "3", "3"],
                                  "score_a": [1.0, 0.5, 0.0]}), GAMES_SCHEMA)
    bye_rows = conform(pl.DataFrame({"federation": ["fide"] * byes, "competition_id": ["C1"] * byes,
                                     "round": list(range(1, byes + 1)), "player_id": ["4"] * byes,
                                     "kind": ["full"] * byes}), BYES_SCHEMA)
    return competitions.with_columns(pl.lit("accepted").alias("status")), games, bye_rows


@pytest.mark.parametrize(("byes", "said"), [
    (0, "- Games: 3"),
    (1, "- Games: 3 (and 1 bye, not a game)"),
    (2, "- Games: 3 (and 2 byes, not games)"),
])
def test_the_games_line_counts_the_byes_beside_the_games(byes: int, said: str) -> None:
    competitions, games, bye_rows = _batch(byes)
    report = build_report(competitions, pl.DataFrame(), "C1", federation="fide", games=games, byes=bye_rows)
    assert _games_line(render_report(report)) == said
    html = render_report(report, fmt="html")
    assert f"<dt>Games</dt><dd>{said.removeprefix('- Games: ')}</dd>" in html


def test_without_the_byes_the_games_line_is_as_before() -> None:
    competitions, games, _ = _batch(1)
    report = build_report(competitions, pl.DataFrame(), "C1", federation="fide", games=games)
    assert report.byes is None
    assert _games_line(render_report(report)) == "- Games: 3"


def test_a_real_tournament_report_counts_its_byes(shared_data: Path) -> None:
    """A real FIDE TRF report (Frankfurt 2005): seven byes (a full-point, five zero-point and an
    absence) beside 980 games, none of them a game."""
    path = shared_data / "chess" / "karl_mala_frankfurt_2005.trf"
    read = from_trf(path.read_bytes(), path.name)
    competitions = read.competitions.with_columns(pl.lit("accepted").alias("status"))
    cid = competitions.get_column("competition_id").item()
    report = build_report(competitions, pl.DataFrame(), cid, federation="fide", games=read.games, byes=read.byes)
    assert (report.games, report.byes) == (980, 7)
    assert _games_line(render_report(report)) == "- Games: 980 (and 7 byes, not games)"
    assert "<dt>Games</dt><dd>980 (and 7 byes, not games)</dd>" in render_report(report, fmt="html")
