"""Every rule of ``validations/rules.toml``: one case that triggers it, one that does not.

Each federation's cases are competitions of one batch, validated once (a Great
Expectations run costs ~0.5 s; one per case would make the suite slow). A case
is built to break exactly one rule, and the assertion checks the *set* of rules
it broke, so a rule that fires where it should not fails the test as well.
"""

from __future__ import annotations

from datetime import date

import polars as pl
import pytest

from tests.validations.conftest import Batch, rules_by_competition
from validations import Validation, load_rules, validate


# ------------------------------------------------------------------ AJUSC (+ data quality)
def _ajusc_batch() -> Batch:
    b = Batch("ajusc")
    b.competition("CLEAN")                                   # 4 players, 3 rounds: the minimum
    b.competition("CLEAN-FORFEIT-FREE-5", players=[str(i) for i in range(1, 6)], rounds=5, rounds_=None)
    b.competition("DUPLICATE", modality="duplicate")
    b.competition("TWO-ROUNDS", rounds=2)
    b.competition("THREE-PLAYERS", players=["1", "2", "3"], rounds=3)
    b.competition("PRIVATE", results_public=False)
    unknown = b.competition("UNKNOWN")
    unknown[1].update(status="unknown", score_a=None)
    forfeit = b.competition("FORFEIT")
    forfeit[0].update(status="forfeit")
    b.competition("TWICE")
    b.game("TWICE", 1, "1", "5", 1.0)                         # player 1 twice in round 1
    b.competition("ROUND0")
    b.game("ROUND0", 0, "1", "2", 0.5)
    b.competition("NO-OPP")
    b.game("NO-OPP", 4, "1", None, 1.0)
    b.competition("BAD-STATUS")
    b.game("BAD-STATUS", 4, "1", "2", 1.0, status="abandoned")
    bad = b.competition("BAD-SCORE")
    bad[2].update(score_a=0.7)
    noscore = b.competition("NO-SCORE")
    noscore[2].update(score_a=None)
    b.competition("SELF")
    b.game("SELF", 4, "3", "3", 1.0)
    b.competition("DOUBLE")
    b.game("DOUBLE", 1, "4", "1", 0.0)                        # the round-1 game 1-4, reported again
    b.competition("DUP-ID")
    b.competitions.append(dict(b.competitions[-1]))           # DUP-ID twice in the batch
    b.competition("NO-DATE", start=None, end=None)
    b.competition("BACKWARDS", start=date(2025, 10, 5), end=date(2025, 10, 4))
    b.competition("OVER-ROUNDS", rounds_declared=2)
    b.competition("UNFINISHED", rounds_declared=5)
    b.competition("HIGH-RATING", players=["h1", "h2", "h3", "h4"])
    b.players.append({"federation": "ajusc", "player_id": "h1", "name": "Ada <Pi>", "declared_rating": 3100.0})
    b.players.append({"federation": "ajusc", "player_id": "h2", "name": "Bo", "declared_rating": 1400.0})
    for c in b.competitions:  # "rounds" is the declared number of rounds
        c["rounds"] = c.pop("rounds_declared", None)
        c.pop("rounds_", None)
    return b


AJUSC_CASES: dict[str, set[str]] = {
    "CLEAN": set(),
    "CLEAN-FORFEIT-FREE-5": set(),
    "DUPLICATE": {"ajusc.classic"},
    "TWO-ROUNDS": {"ajusc.min_rounds"},
    "THREE-PLAYERS": {"ajusc.min_players"},
    "PRIVATE": {"ajusc.results_public"},
    "UNKNOWN": {"ajusc.results_known"},
    "FORFEIT": {"ajusc.forfeit_not_rated"},
    "TWICE": {"ajusc.one_vs_one"},
    "ROUND0": {"quality.round_positive"},
    "NO-OPP": {"quality.players_present"},
    "BAD-STATUS": {"quality.status_domain"},
    "BAD-SCORE": {"quality.score_domain"},
    "NO-SCORE": {"quality.score_status"},
    "SELF": {"quality.self_play"},
    "DOUBLE": {"quality.pairing_once", "ajusc.one_vs_one"},
    "DUP-ID": {"quality.competition_unique"},
    "NO-DATE": {"quality.start_date_present"},
    "BACKWARDS": {"quality.dates_ordered"},
    "OVER-ROUNDS": {"quality.rounds_declared"},
    "UNFINISHED": {"quality.rounds_missing"},
    "HIGH-RATING": {"quality.rating_range"},
}


@pytest.fixture(scope="module")
def ajusc() -> tuple[Batch, Validation]:
    b = _ajusc_batch()
    f = b.frames()
    return b, validate(f["competitions"], f["games"], federation="ajusc", players=f["players"])


@pytest.mark.parametrize("cid", sorted(AJUSC_CASES))
def test_ajusc_case_breaks_exactly_its_rules(ajusc: tuple[Batch, Validation], cid: str) -> None:
    _, v = ajusc
    assert rules_by_competition(v.findings).get(cid, set()) == AJUSC_CASES[cid]


def _federation_rules(fed: str) -> list[str]:
    return sorted({r.id for r in load_rules() if fed in r.federations or "*" in r.federations})


@pytest.mark.parametrize("rule_id", _federation_rules("ajusc"))
def test_each_ajusc_rule_fires_and_passes(ajusc: tuple[Batch, Validation], rule_id: str) -> None:
    """A rule has a case that triggers it and clean competitions that do not."""
    _, v = ajusc
    fired = rules_by_competition(v.findings)
    triggers = [cid for cid, rules in AJUSC_CASES.items() if rule_id in rules]
    assert triggers, f"no case triggers {rule_id}"
    assert all(rule_id in fired.get(cid, set()) for cid in triggers)
    assert rule_id not in fired.get("CLEAN", set())


def test_ajusc_boundaries_are_inclusive(ajusc: tuple[Batch, Validation]) -> None:
    """Exactly 3 rounds and 4 players is eligible (RULES.md: "at least")."""
    _, v = ajusc
    status = dict(v.competitions.select("competition_id", "status").iter_rows())
    assert status["CLEAN"] == "accepted"
    assert status["TWO-ROUNDS"] == "rejected" and status["THREE-PLAYERS"] == "rejected"


def test_statuses_and_rated_flags(ajusc: tuple[Batch, Validation]) -> None:
    _, v = ajusc
    status = dict(v.competitions.select("competition_id", "status").iter_rows())
    assert status["FORFEIT"] == "accepted"          # an exclusion does not reject
    assert status["HIGH-RATING"] == "accepted"      # a warning does not reject
    assert status["UNKNOWN"] == "rejected"
    forfeit = v.games.filter(pl.col("competition_id") == "FORFEIT")
    assert forfeit.get_column("rated").to_list() == [False] + [True] * (forfeit.height - 1)
    assert not v.games.filter(pl.col("competition_id") == "UNKNOWN").get_column("rated").any()
    assert v.games.filter(pl.col("competition_id") == "CLEAN").get_column("rated").all()
    assert v.games.height == sum(1 for _ in _ajusc_batch().games)


def test_findings_name_file_line_and_field(ajusc: tuple[Batch, Validation]) -> None:
    b, v = ajusc
    unknown = v.findings.filter(pl.col("rule") == "ajusc.results_known").row(0, named=True)
    game = next(g for g in b.games if g["competition_id"] == "UNKNOWN" and g["status"] == "unknown")
    assert (unknown["source"], unknown["line"], unknown["field"]) == (
        "UNKNOWN.results.csv", game["source_line"], "score_a")
    assert f"{game['player_a']} vs {game['player_b']}" in unknown["message"]
    assert "Enter the score" in unknown["message"]
    rounds = v.findings.filter(pl.col("rule") == "ajusc.min_rounds").row(0, named=True)
    assert rounds["line"] is None and "2 round(s)" in rounds["message"] and "at least 3" in rounds["message"]


def test_duplicate_pairing_reports_only_the_repeat(ajusc: tuple[Batch, Validation]) -> None:
    """The first report of a pairing is not the mistake: only the repeated line is named."""
    b, v = ajusc
    dup = v.findings.filter(pl.col("rule") == "quality.pairing_once")
    assert dup.get_column("line").to_list() == [b.games[-1 - _after("DOUBLE", b)]["source_line"]]


def _after(cid: str, b: Batch) -> int:
    """How many games were added after the last game of ``cid``."""
    last = max(i for i, g in enumerate(b.games) if g["competition_id"] == cid)
    return len(b.games) - 1 - last


def test_messages_are_complete_sentences(ajusc: tuple[Batch, Validation]) -> None:
    _, v = ajusc
    for message in v.findings.get_column("message").to_list():
        assert "{" not in message and "?" not in message.replace("(none)", ""), message


def test_game_frame_with_only_required_columns() -> None:
    """``validate`` works with frames lacking optional columns (no status, handicap, colour)."""
    comps = pl.DataFrame({"competition_id": ["C"], "start_date": [date(2025, 10, 4)], "source": ["c.csv"]})
    games = pl.DataFrame({
        "competition_id": ["C"] * 6, "round": [1, 1, 2, 2, 3, 3],
        "player_a": ["1", "3", "1", "2", "1", "2"], "player_b": ["2", "4", "3", "4", "4", "3"],
        "score_a": [1.0, 0.0, 0.5, 1.0, 0.0, 1.0], "source_line": [2, 3, 4, 5, 6, 7],
    })
    v = validate(comps, games, federation="ajusc", byes=None)
    assert v.findings.is_empty()
    assert v.competitions.get_column("status").to_list() == ["accepted"]
    assert v.games.columns == [*games.columns, "rated"]


def test_unknown_federation_is_a_domain_error() -> None:
    from validations import UnknownFederationError

    with pytest.raises(UnknownFederationError, match="'xyz'"):
        validate(pl.DataFrame(), pl.DataFrame(), federation="xyz")
    assert issubclass(UnknownFederationError, ValueError)
