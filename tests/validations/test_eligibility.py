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
    b.competition("ORPHAN-HOST")
    b.game("NOT-DESCRIBED", 1, "1", "2", 1.0)                 # a competition id with no header
    b.competition("HIGH-RATING", players=["h1", "h2", "h3", "h4"])
    b.players.append({"federation": "ajusc", "player_id": "h1", "name": "Ada <Pi>", "declared_rating": 3100.0})
    b.players.append({"federation": "ajusc", "player_id": "h2", "name": "Bo", "declared_rating": 1400.0})
    # The lexicon's language, and a championship of players the list does not know.
    b.competition("ENGLISH", language="en")
    b.competition("UNDECLARED", language="undeclared")
    b.competition("CATALAN", language="ca")
    b.competition("STRANGERS", players=["s1", "s2", "s3", "1"])          # 3 of 4 not on the list
    b.competition("HALF-KNOWN", players=["s1", "s2", "1", "2"])          # 50%: at the limit, not held
    b.ratings.extend({"federation": "ajusc", "player_id": p, "rating": 1000.0, "games": 20}
                     for p in ["1", "2", "3", "4", "5", "h1", "h2", "h3", "h4"])
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
    "ORPHAN-HOST": set(),
    "NOT-DESCRIBED": {"quality.competition_known"},
    "ENGLISH": {"ajusc.language"},
    "UNDECLARED": {"ajusc.language_declared"},
    "CATALAN": set(),
    "STRANGERS": {"ajusc.players_known"},
    "HALF-KNOWN": set(),
}


@pytest.fixture(scope="module")
def ajusc() -> tuple[Batch, Validation]:
    b = _ajusc_batch()
    f = b.frames()
    return b, validate(f["competitions"], f["games"], federation="ajusc", players=f["players"],
                       ratings=f["ratings"])


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
    # Held, not rejected: its games keep ``rated`` so that an approval needs no re-validation.
    assert status["UNDECLARED"] == "held" and status["STRANGERS"] == "held" and status["ENGLISH"] == "rejected"
    assert v.games.filter(pl.col("competition_id") == "UNDECLARED").get_column("rated").all()
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


# ------------------------------------------------------------------ FIDE
RATED = {"r1": 2100.0, "r2": 2000.0, "r3": 1900.0, "r4": 1800.0, "r5": 1700.0}


def _fide_batch() -> Batch:
    b = Batch("fide")
    old, new = date(2023, 5, 6), date(2025, 5, 10)
    b.competition("CLEAN", start=old, players=["r1", "r2", "r3", "r4"])
    b.competition("CLEAN-2025", start=new, players=["r1", "r2", "r3", "r4"])
    ff = b.competition("FORFEIT", start=old, players=["r1", "r2", "r3", "r4"])
    ff[0].update(status="forfeit")
    unk = b.competition("UNKNOWN", start=old, players=["r1", "r2", "r3", "r4"])
    unk[0].update(status="unknown", score_a=None)
    # u1 is unrated: 3 rated opponents (enough before 2024) and 1 point in the first event.
    mixed = b.competition("UNRATED-OPP", start=old, players=["u1", "r1", "r2", "r3"], score=0.5)
    # u2 meets only two rated opponents (the third opponent, u3, is unrated) -- before 2024.
    few = b.competition("FEW-RATED", start=old, players=["u2", "u3", "r1", "r2"], score=0.5)
    # u4 meets no rated opponent at all in 2025 (only unrated ones).
    b.competition("NONE-RATED-2025", start=new, players=["u4", "u5", "u6", "u7"], score=0.5)
    # In 2025 one rated opponent is enough: u8 vs r5 only -> no unrated_rated_opponents finding.
    b.competition("ONE-RATED-2025", start=new, players=["u8", "u9", "u10", "r5"], score=0.5)
    # u11 loses every game against rated opponents in their first event.
    zero = b.competition("ZERO", start=old, players=["u11", "r1", "r2", "r3"])
    for g in zero:
        if "u11" in (g["player_a"], g["player_b"]):
            g.update(score_a=0.0 if g["player_a"] == "u11" else 1.0)
    b.competition("TWICE", start=old, players=["r1", "r2", "r3", "r4"])
    b.game("TWICE", 1, "r1", "r5", 1.0)
    b.competition("LOW-RATING", start=old, players=["r1", "r2", "r3", "low"])
    b.players.append({"federation": "fide", "player_id": "low", "name": "Low", "declared_rating": 900.0})
    # Online play, an unreadable time control, under 5 minutes.
    b.competition("ONLINE", start=old, players=["r1", "r2", "r3", "r4"], online=True)
    b.competition("TC-UNKNOWN", start=old, players=["r1", "r2", "r3", "r4"], modality="unknown",
                  time_control="moves/time, increment")
    b.competition("BULLET", start=old, players=["r1", "r2", "r3", "r4"], modality="bullet", time_control="1+0")
    b.competition("BLITZ", start=old, players=["r1", "r2", "r3", "r4"], modality="blitz", time_control="3+2")
    b.competition("ONLINE-CSV", start=old, players=["r1", "r2", "r3", "r4"], modality="online")   # interchange
    b.competition("RAPID-2011", start=date(2011, 11, 5), players=["r1", "r2", "r3", "r4"], modality="rapid")
    b.ratings.extend({"federation": "fide", "player_id": p, "rating": r, "games": 100} for p, r in RATED.items())
    b.ratings.append({"federation": "fide", "player_id": "low", "rating": None, "games": 0})
    del mixed, few
    return b


FIDE_CASES: dict[str, set[str]] = {
    "CLEAN": set(),
    "CLEAN-2025": set(),
    "FORFEIT": {"fide.unplayed_not_rated"},
    "UNKNOWN": {"fide.results_known"},
    "UNRATED-OPP": {"fide.unrated_opponent"},
    "FEW-RATED": {"fide.unrated_opponent", "fide.unrated_rated_opponents"},
    "NONE-RATED-2025": {"fide.unrated_rated_opponents"},
    "ONE-RATED-2025": {"fide.unrated_opponent"},
    "ZERO": {"fide.unrated_opponent", "fide.unrated_first_event_zero"},
    "TWICE": {"quality.player_once_per_round"},
    "LOW-RATING": {"fide.unrated_opponent", "quality.rating_range"},
    "ONLINE": {"fide.online"},
    "TC-UNKNOWN": {"fide.time_control_known"},
    "BULLET": {"fide.time_control_rated"},
    "BLITZ": set(),
    "RAPID-2011": {"fide.rapid_blitz_from_2012"},
    "ONLINE-CSV": {"fide.online"},
}


@pytest.fixture(scope="module")
def fide() -> tuple[Batch, Validation]:
    b = _fide_batch()
    f = b.frames()
    return b, validate(f["competitions"], f["games"], federation="fide", players=f["players"],
                       ratings=f["ratings"])


@pytest.mark.parametrize("cid", sorted(FIDE_CASES))
def test_fide_case_breaks_exactly_its_rules(fide: tuple[Batch, Validation], cid: str) -> None:
    _, v = fide
    assert rules_by_competition(v.findings).get(cid, set()) == FIDE_CASES[cid]


@pytest.mark.parametrize("rule_id", [r for r in _federation_rules("fide")
                                     if r.startswith("fide.") or r == "quality.player_once_per_round"])
def test_each_fide_rule_fires_and_passes(fide: tuple[Batch, Validation], rule_id: str) -> None:
    _, v = fide
    fired = rules_by_competition(v.findings)
    assert any(rule_id in rules for rules in FIDE_CASES.values())
    assert all(rule_id in fired.get(c, set()) for c, rules in FIDE_CASES.items() if rule_id in rules)
    assert rule_id not in fired.get("CLEAN", set()) | fired.get("CLEAN-2025", set())


def test_fide_rating_range_rule_on_declared_ratings() -> None:
    """A declared (file) rating below the floor warns; the listed rating (null) wins for rating."""
    b = Batch("fide")
    b.competition("LOW", start=date(2023, 5, 6), players=["a", "b", "c", "d"])
    b.players.append({"federation": "fide", "player_id": "a", "name": "A", "declared_rating": 900.0})
    b.players.append({"federation": "fide", "player_id": "b", "name": "B", "declared_rating": 1500.0})
    f = b.frames()
    v = validate(f["competitions"], f["games"], federation="fide", players=f["players"])
    rr = v.findings.filter(pl.col("rule") == "quality.rating_range")
    assert rr.height == 1 and "900" in rr.item(0, "message") and rr.item(0, "severity") == "warn"


def test_fide_edition_is_chosen_by_start_date(fide: tuple[Batch, Validation]) -> None:
    """FEW-RATED (2023) needs 3 rated opponents; ONE-RATED-2025 needs only 1 (B02 2024)."""
    _, v = fide
    few = v.findings.filter(pl.col("rule") == "fide.unrated_rated_opponents")
    assert sorted(set(few.get_column("competition_id"))) == ["FEW-RATED", "NONE-RATED-2025"]
    msg = few.filter(pl.col("competition_id") == "FEW-RATED").get_column("message").to_list()
    assert any("u2 met 2 rated opponent(s)" in m and "at least 3" in m for m in msg)


def test_fide_unrated_opponent_is_a_warning_per_game(fide: tuple[Batch, Validation]) -> None:
    b, v = fide
    warn = v.findings.filter((pl.col("rule") == "fide.unrated_opponent") & (pl.col("competition_id") == "UNRATED-OPP"))
    lines = sorted(g["source_line"] for g in b.games
                   if g["competition_id"] == "UNRATED-OPP" and "u1" in (g["player_a"], g["player_b"]))
    assert warn.get_column("line").sort().to_list() == lines and set(warn.get_column("severity")) == {"warn"}
    status = dict(v.competitions.select("competition_id", "status").iter_rows())
    assert status["UNRATED-OPP"] == "accepted" and status["FORFEIT"] == "accepted"
    assert status["UNKNOWN"] == "rejected"


# ------------------------------------------------------------------ EGF
def _egf_batch() -> Batch:
    b = Batch("egf")
    day, old = date(2024, 5, 18), date(2019, 3, 2)
    ranks = {"a": "3d", "b": "1k", "c": "5k", "d": "5k", "x": None, "y": None, "z": None, "w": None}
    b.players.extend({"federation": "egf", "player_id": p, "name": p.upper(), "declared_rank": r}
                     for p, r in ranks.items())
    b.competition("CLEAN", start=day, players=["a", "b", "c", "d"], event_class="A",
                  basic_time_min=60.0, adjusted_time_min=75.0)
    b.competition("CLEAN-OLD", start=old, players=["a", "b", "c", "d"], event_class="B")
    b.competition("CLEAN-TIME", start=day, players=["a", "b", "c", "d"], basic_time_min=45.0,
                  adjusted_time_min=57.0)                         # Bogazici 2024: class B from the clock
    unk = b.competition("UNKNOWN", start=day, players=["a", "b", "c", "d"], event_class="A")
    unk[0].update(status="unknown", score_a=None)
    ff = b.competition("FORFEIT", start=day, players=["a", "b", "c", "d"], event_class="A")
    ff[1].update(status="forfeit")
    b.competition("NO-CLASS", start=day, players=["a", "b", "c", "d"])
    b.competition("NO-CLASS-OLD", start=old, players=["a", "b", "c", "d"])
    b.competition("TOO-FAST", start=day, players=["a", "b", "c", "d"], event_class="C",
                  basic_time_min=20.0, adjusted_time_min=28.0)
    b.competition("OVERCLASSED", start=day, players=["a", "b", "c", "d"], event_class="A",
                  basic_time_min=40.0, adjusted_time_min=50.0)
    hr = b.competition("HANDICAP-12", start=day, players=["x", "y", "z", "w"], event_class="C")
    hr[0].update(handicap=12)
    b.competition("HANDICAP-BACKWARDS", start=day, players=["c", "d", "x", "y"], event_class="C")
    b.game("HANDICAP-BACKWARDS", 4, "b", "a", 1.0, handicap=3)       # 1k gives 3 stones to 3d
    b.competition("HANDICAP-TOO-MANY", start=day, players=["c", "d", "x", "y"], event_class="C")
    b.game("HANDICAP-TOO-MANY", 4, "a", "b", 1.0, handicap=5)        # 3d gives 5 to 1k: gap 3
    b.competition("TWICE", start=day, players=["a", "b", "c", "d"], event_class="A")
    b.game("TWICE", 2, "a", "x", 1.0)                               # a plays twice in round 2
    b.competition("HIGH-GOR", start=day, players=["g1", "g2", "g3", "g4"], event_class="A")
    b.players.append({"federation": "egf", "player_id": "g1", "name": "G1", "declared_rating": 3150.0})
    b.players.append({"federation": "egf", "player_id": "g2", "name": "G2", "declared_rating": -850.0})
    b.competition("HANDICAP-OK", start=day, players=["c", "d", "x", "y"], event_class="C")
    b.game("HANDICAP-OK", 4, "a", "c", 0.0, handicap=7)              # 3d gives 7 to 5k: gap 7
    return b


EGF_CASES: dict[str, set[str]] = {
    "CLEAN": set(),
    "CLEAN-OLD": set(),
    "CLEAN-TIME": set(),
    "UNKNOWN": {"egf.results_known"},
    "FORFEIT": {"egf.forfeit_not_rated"},
    "NO-CLASS": {"egf.event_class"},
    "NO-CLASS-OLD": set(),
    "TOO-FAST": {"egf.time_control_too_short"},
    "OVERCLASSED": {"egf.class_time_control"},
    "HANDICAP-12": {"egf.handicap_range"},
    "HANDICAP-BACKWARDS": {"egf.handicap_direction"},
    "HANDICAP-TOO-MANY": {"egf.handicap_gap"},
    "HANDICAP-OK": set(),
    "HIGH-GOR": {"quality.rating_range"},
    "TWICE": {"quality.player_once_per_round"},
}


def test_every_rule_of_the_table_has_a_triggering_case() -> None:
    """Coverage of the rule table itself: each (rule, federation) is triggered by some case."""
    triggered = {
        "ajusc": set().union(*AJUSC_CASES.values()),
        "fide": set().union(*FIDE_CASES.values()),
        "egf": set().union(*EGF_CASES.values()),
    }
    missing = [(r.id, fed) for r in load_rules() for fed in ("ajusc", "fide", "egf")
               if (fed in r.federations or ("*" in r.federations and fed == "ajusc"))
               and r.id not in triggered[fed]]
    assert missing == []


@pytest.fixture(scope="module")
def egf() -> tuple[Batch, Validation]:
    b = _egf_batch()
    f = b.frames()
    return b, validate(f["competitions"], f["games"], federation="egf", players=f["players"])


@pytest.mark.parametrize("cid", sorted(EGF_CASES))
def test_egf_case_breaks_exactly_its_rules(egf: tuple[Batch, Validation], cid: str) -> None:
    _, v = egf
    assert rules_by_competition(v.findings).get(cid, set()) == EGF_CASES[cid]


@pytest.mark.parametrize("rule_id", [r for r in _federation_rules("egf") if r.startswith("egf.")])
def test_each_egf_rule_fires_and_passes(egf: tuple[Batch, Validation], rule_id: str) -> None:
    _, v = egf
    fired = rules_by_competition(v.findings)
    assert any(rule_id in rules for rules in EGF_CASES.values())
    assert all(rule_id in fired.get(c, set()) for c, rules in EGF_CASES.items() if rule_id in rules)
    assert rule_id not in fired.get("CLEAN", set())


def test_egf_class_is_dated_and_follows_the_time_control(egf: tuple[Batch, Validation]) -> None:
    """From 2021 the class weights games: an unstated class warns (rated as A, the engine's
    default); a clock too short for class C rejects; a declared class above what the clock
    allows is lowered in the output, which the engine reads."""
    _, v = egf
    cls = v.findings.filter(pl.col("rule") == "egf.event_class")
    assert dict(cls.select("competition_id", "severity").iter_rows()) == {"NO-CLASS": "warn"}
    status = dict(v.competitions.select("competition_id", "status").iter_rows())
    assert status["NO-CLASS"] == "accepted" and status["NO-CLASS-OLD"] == "accepted"
    assert status["TOO-FAST"] == "rejected"
    assert status["OVERCLASSED"] == "accepted" and status["CLEAN-TIME"] == "accepted"
    over = v.findings.filter(pl.col("rule") == "egf.class_time_control").item(0, "message")
    assert "declares class A" in over and "rated as class B" in over
    rated_class = dict(v.competitions.select("competition_id", "event_class").iter_rows())
    assert rated_class["OVERCLASSED"] == "B"        # lowered to what 40/50 min allows
    assert rated_class["CLEAN-TIME"] == "B"         # filled in from 45 min + Canadian byo-yomi
    assert rated_class["CLEAN"] == "A" and rated_class["NO-CLASS"] is None
    assert "A, B, C or D" not in v.findings.filter(pl.col("rule") == "egf.time_control_too_short").item(
        0, "message")
