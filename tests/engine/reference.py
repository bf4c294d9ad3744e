"""Plain scalar reference implementations of the three rating systems.

Written game by game in ordinary Python straight from ``../shared/rules/RULES.md``,
independent of the compiled kernels, so that property tests can compare the fast
path with them on random histories. Slow on purpose: clarity over speed.

Nothing here comes from the engine: the FIDE PD and dp tables and the EGF ``con``
/ ``a`` table are read from the regulation tables beside RULES.md, the dated
parameters of each version and the FIDE list calendar are written out below from
RULES.md's text, so a misread regulation cannot pass on both sides.
"""

from __future__ import annotations

import csv
import functools
import itertools
import math
import re
from collections import defaultdict
from dataclasses import dataclass, replace
from datetime import date
from pathlib import Path
from typing import Any

import polars as pl

#: The regulation tables (../shared/rules beside the repository; never copied into it).
RULES = Path(__file__).resolve().parents[2].parent / "shared" / "rules"

Key = tuple[str, str]  # (competition_id, player_id)


@dataclass
class Change:
    rating_before: float | None
    games: int
    score: float
    expected: float | None
    k: float | None
    change: float | None
    rating_after: float | None


def _round_half_away(x: float) -> float:
    return math.copysign(math.floor(abs(x) + 0.5 + 1e-9), x) + 0.0


def _counts(g: dict[str, Any]) -> bool:
    """A game is rated when played, with a score, and not marked unrated."""
    return g.get("status", "played") in (None, "played") and g["score_a"] is not None and g.get("rated") is not False


def _ordered(competitions: pl.DataFrame, games: pl.DataFrame) -> list[tuple[dict[str, Any], list[dict[str, Any]]]]:
    comps = sorted(competitions.iter_rows(named=True), key=lambda c: (c["end_date"], c["start_date"], c["competition_id"]))
    by_comp: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for g in games.iter_rows(named=True):
        if _counts(g):
            by_comp[g["competition_id"]].append(g)
    return [(c, by_comp.get(c["competition_id"], [])) for c in comps]


def _seed(start: pl.DataFrame, column: str) -> dict[str, Any]:
    if column not in start.columns:
        return {}
    return {r["player_id"]: r[column] for r in start.iter_rows(named=True) if r[column] is not None}


def _table(name: str) -> list[dict[str, str]]:
    """Rows of a regulation table in ``../shared/rules`` (read once)."""
    return _read_table(RULES / name)


@functools.cache
def _read_table(path: Path) -> list[dict[str, str]]:
    if not path.is_file():
        raise FileNotFoundError(
            f"regulation table {path} is absent: the reference reads its tables from ../shared/rules"
        )
    with path.open(newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def _declared(players: pl.DataFrame | None, column: str, games: pl.DataFrame) -> dict[str, Any]:
    """``players[column]`` of the players of a counted game (a declared rating alone rates no one)."""
    if players is None:
        return {}
    present = {p for g in games.iter_rows(named=True) if _counts(g) for p in (g["player_a"], g["player_b"])}
    return {p: v for p, v in _seed(players, column).items() if p in present}


# ---------------------------------------------------------------- BARRUF


def barruf(
    competitions: pl.DataFrame, games: pl.DataFrame, start: pl.DataFrame, *, newcomer: float = 950.0,
    players: pl.DataFrame | None = None,
) -> tuple[dict[Key, Change], dict[str, float]]:
    """BARRUF: per championship, pre-championship ratings, K by band and games including it.

    ``players`` (optional): a player the seed does not rate starts from his ``declared_rating``.
    """
    rating: dict[str, float] = {k: float(v) for k, v in _seed(start, "rating").items()}
    for p, r in _declared(players, "declared_rating", games).items():
        rating.setdefault(p, float(r))
    count: dict[str, int] = {k: int(v) for k, v in _seed(start, "games").items()}
    out: dict[Key, Change] = {}
    for comp, gs in _ordered(competitions, games):
        before: dict[str, float] = {}
        acc: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0])
        for g in gs:
            for p in (g["player_a"], g["player_b"]):
                before.setdefault(p, rating.get(p, newcomer))
        for g in gs:
            a, b, s = g["player_a"], g["player_b"], g["score_a"]
            e = 0.5 * (1 + math.erf((before[a] - before[b]) / (283.84 * math.sqrt(2))))
            acc[a][0] += s
            acc[a][1] += e
            acc[a][2] += 1
            acc[b][0] += 1 - s
            acc[b][1] += 1 - e
            acc[b][2] += 1
        for p, (w, e, n) in acc.items():
            r = before[p]
            total = count.get(p, 0) + int(n)
            if r < 1500:
                k = 30.0 if total <= 50 else 20.0
            else:
                k = 24.0 if total <= 50 else 16.0
            change = k * (w - e)
            new = r + _round_half_away(change)
            out[(comp["competition_id"], p)] = Change(r, int(n), w, e, k, change, new)
            rating[p] = new
            count[p] = total
    return out, rating


# ---------------------------------------------------------------- FIDE


@dataclass(frozen=True)
class FideRules:
    """One dated version of the FIDE rules, as RULES.md ("FIDE — chess") states it."""

    cap_400: str
    """``every`` game, or ``once`` (only the largest difference of a tournament, 2022–Feb 2024)."""
    cap_exempt_from: float | None
    """Players rated at least this are not capped (from Oct 2025: 2650)."""
    k_new: float
    k_new_games: int
    """K ``k_new`` until this many games."""
    k_mid: float
    k_top: float
    k_top_from: float
    """K ``k_top`` once this rating has been reached (permanent)."""
    k_junior: float | None
    k_junior_below: float | None
    k_cap: float | None
    """K x n above this in a period: K = floor(k_cap / n)."""
    initial_window_months: int
    initial_min_games: int
    initial_min_points_first: float
    initial_min_rated_opponents: int
    initial_floor: float
    initial_per_half_point: float
    initial_hypothetical_games: int = 0
    """From Mar 2024: hypothetical draws against ``initial_hypothetical`` added (Ru = Ra + dp)."""
    initial_hypothetical: float = 0.0
    initial_cap: float | None = None


#: Until Jun 2014: K 30 until 30 games, 15 below 2400, 10 once 2400 reached; every
#: difference above 400 counts as 400; initial ratings: >= 9 games over at most two
#: years, >= 1 point in the first event, >= 3 rated opponents per event, 12.5 per
#: half point above 50 %, floor 1200.
FIDE_2009 = FideRules(
    cap_400="every", cap_exempt_from=None, k_new=30.0, k_new_games=30, k_mid=15.0, k_top=10.0, k_top_from=2400.0,
    k_junior=None, k_junior_below=None, k_cap=None, initial_window_months=24, initial_min_games=9,
    initial_min_points_first=1.0, initial_min_rated_opponents=3, initial_floor=1200.0, initial_per_half_point=12.5,
)
#: From Jul 2014: K 40 until 30 games, 40 under 18 below 2300, 20 below 2400, 10 from
#: 2400, K x n <= 700; initial ratings: >= 5 games over <= 26 months, 20 per half point,
#: floor 1000. RULES.md is silent on the first-event and opponent conditions after 2014:
#: the handbook (B02 7.1.4, 2014) drops an event where the newcomer scores zero and no
#: longer asks for 3 rated opponents per event.
FIDE_2014 = replace(
    FIDE_2009, k_new=40.0, k_mid=20.0, k_junior=40.0, k_junior_below=2300.0, k_cap=700.0, initial_window_months=26,
    initial_min_games=5, initial_min_points_first=0.5, initial_min_rated_opponents=1, initial_floor=1000.0,
    initial_per_half_point=20.0,
)
#: 2022 to Feb 2024: only one game per tournament may use the 400-point rule.
FIDE_2022 = replace(FIDE_2014, cap_400="once")
#: From Mar 2024: every game capped again; initial ratings with two hypothetical draws
#: against 1800, Ru = Ra + dp, at least 1400, at most 2200.
FIDE_2024 = replace(FIDE_2014, initial_hypothetical_games=2, initial_hypothetical=1800.0, initial_floor=1400.0,
                    initial_cap=2200.0)
#: From Oct 2025: players rated 2650 or more are not capped.
FIDE_2025 = replace(FIDE_2024, cap_exempt_from=2650.0)
#: Versions by the date they took effect; earlier dates use the oldest.
FIDE_VERSIONS: tuple[tuple[date, FideRules], ...] = (
    (date(2009, 7, 1), FIDE_2009), (date(2014, 7, 1), FIDE_2014), (date(2022, 1, 1), FIDE_2022),
    (date(2024, 3, 1), FIDE_2024), (date(2025, 10, 1), FIDE_2025),
)


def fide_rules(start: date) -> FideRules:
    """The version in force when a tournament starts (its ratings: the list in force then)."""
    chosen = FIDE_VERSIONS[0][1]
    for since, rules in FIDE_VERSIONS:
        if start >= since:
            chosen = rules
    return chosen


def fide_next_list(day: date) -> date:
    """The first FIDE list after ``day``: the period a tournament ending that day is rated in.

    Lists are monthly since July 2012 (RULES.md); before, FIDE published them every
    two months from July 2009 (January, March, ..., November) and quarterly before
    that (January, April, July, October).
    """
    y, m = divmod(day.year * 12 + day.month, 12)  # the month after ``day``, 0-based month
    month = date(y, m + 1, 1)
    if month >= date(2012, 7, 1):
        return month
    step, first = (2, 1) if month >= date(2009, 7, 1) else (3, 1)
    ahead = (first - month.month) % step  # months to the next list month of that calendar
    y, m = divmod(month.year * 12 + month.month - 1 + ahead, 12)
    return date(y, m + 1, 1)


@functools.cache
def _pd_bands() -> tuple[tuple[int, float, int], ...]:
    """(lowest difference, highest difference, PD of the higher-rated player in %) per band."""
    return tuple(
        (int(r["diff_lo"]), float(r["diff_hi"]) if r["diff_hi"] else math.inf, round(float(r["PD_higher_H"]) * 100))
        for r in _table("fide_expected_score_table_PD.csv")
    )


@functools.cache
def _dp() -> dict[int, int]:
    """dp by percentage score (0..100) from ``fide_dp_table_p_to_dp.csv``."""
    return {round(float(r["p"]) * 100): int(r["dp"]) for r in _table("fide_dp_table_p_to_dp.csv")}


def _pd(diff: float, higher: bool, cap: bool) -> int:
    """PD in % of a player ``diff`` points above (or below) the opponent, from the banded table."""
    d = math.floor(abs(diff) + 0.5)
    if cap:
        d = min(d, 400)
    high = next(pct for lo, hi, pct in _pd_bands() if lo <= d <= hi)
    return high if higher else 100 - high


def fide(
    competitions: pl.DataFrame, games: pl.DataFrame, start: pl.DataFrame, *, birth_years: dict[str, int] | None = None,
    players: pl.DataFrame | None = None,
) -> tuple[dict[Key, Change], dict[str, float]]:
    """FIDE: periods, list in force at each start, rated changes, pooled initial ratings.

    ``players`` (optional): ``birth_year`` (junior K) and ``declared_rating`` (a
    rating for a player the seed does not rate; a seeded rating wins, 0 is unrated).
    """
    birth_years = {**_declared(players, "birth_year", games), **(birth_years or {})}
    seeded = _seed(start, "rating")
    declared = {p: r for p, r in _declared(players, "declared_rating", games).items() if p not in seeded}
    history: dict[str, list[tuple[date, float]]] = {
        p: [(date.min, float(r))] for p, r in {**declared, **seeded}.items() if r and r > 0
    }
    count: dict[str, int] = {k: int(v) for k, v in _seed(start, "games").items()}
    seed_k: dict[str, float] = {k: float(v) for k, v in _seed(start, "k").items()}
    rated_max: dict[str, float] = {p: h[-1][1] for p, h in history.items()}
    for p, v in _seed(start, "rated_max").items():
        rated_max[p] = max(rated_max.get(p, v), v)
    moved: set[str] = set()
    pools: dict[str, list[tuple[int, date, float, float]]] = defaultdict(list)  # (comp order, end, opp, score)

    def at(p: str, day: date) -> float | None:
        hist = [r for d, r in history.get(p, []) if d <= day]
        return hist[-1] if hist else None

    ordered = _ordered(competitions, games)
    by_period: dict[date, list[tuple[int, dict[str, Any], list[dict[str, Any]]]]] = defaultdict(list)
    for i, (c, gs) in enumerate(sorted(ordered, key=lambda cg: (fide_next_list(cg[0]["end_date"]), cg[0]["end_date"],
                                                              cg[0]["start_date"], cg[0]["competition_id"]))):
        by_period[fide_next_list(c["end_date"])].append((i, c, gs))
    out: dict[Key, Change] = {}
    for period in sorted(by_period):
        entries = by_period[period]
        n_period: dict[str, int] = defaultdict(int)
        for _, c, gs in entries:
            for g in gs:
                if at(g["player_a"], c["start_date"]) is not None and at(g["player_b"], c["start_date"]) is not None:
                    n_period[g["player_a"]] += 1
                    n_period[g["player_b"]] += 1
        num: dict[str, int] = defaultdict(int)
        rows: dict[Key, list[Any]] = {}
        last_rules: dict[str, FideRules] = {}
        for i, c, gs in entries:
            prm = fide_rules(c["start_date"])
            # 2022: per player and tournament, only the game of the largest difference above 400 is capped
            capped_game: dict[str, tuple[float, int]] = {}
            for j, g in enumerate(gs):
                ra, rb = at(g["player_a"], c["start_date"]), at(g["player_b"], c["start_date"])
                if ra is None or rb is None:
                    continue
                d = abs(ra - rb)
                for p in (g["player_a"], g["player_b"]):
                    if d > capped_game.get(p, (400.0, -1))[0]:
                        capped_game[p] = (d, j)
            for j, g in enumerate(gs):
                for p, o, s in ((g["player_a"], g["player_b"], g["score_a"]), (g["player_b"], g["player_a"], 1 - g["score_a"])):
                    rp, ro = at(p, c["start_date"]), at(o, c["start_date"])
                    if rp is None and ro is not None:
                        pools[p].append((i, c["end_date"], ro, s))
                        last_rules[p] = prm
                        row = rows.setdefault((c["competition_id"], p), [None, 0, 0.0, None, None, None])
                        row[1] += 1
                        row[2] += s
                        continue
                    if rp is None or ro is None:
                        continue
                    if prm.cap_400 == "every":
                        cap = prm.cap_exempt_from is None or rp < prm.cap_exempt_from
                    else:
                        cap = capped_game.get(p, (0, -1))[1] == j
                    pd = _pd(rp - ro, rp >= ro, cap)
                    cur = history[p][-1][1]
                    # B02 (2014) 8.3.3: K 40 "until the end of the year of their 18th birthday"
                    # below 2300, the year being the rating period's.
                    junior = (prm.k_junior is not None and prm.k_junior_below is not None and p in birth_years
                              and period.year - birth_years[p] <= 18 and cur < prm.k_junior_below)
                    if p in seed_k and p not in moved:
                        k = seed_k[p]
                    elif max(cur, rated_max.get(p, cur)) >= prm.k_top_from:
                        k = prm.k_top
                    elif count.get(p, 0) < prm.k_new_games:
                        k = prm.k_new
                    elif junior:
                        k = prm.k_junior  # type: ignore[assignment]
                    else:
                        k = prm.k_mid
                    if prm.k_cap and k * n_period[p] > prm.k_cap:
                        k = math.floor(prm.k_cap / n_period[p])
                    num[p] += int(k) * (round(s * 100) - pd)
                    row = rows.setdefault((c["competition_id"], p), [rp, 0, 0.0, 0.0, float(k), 0.0])
                    row[1] += 1
                    row[2] += s
                    row[3] += pd / 100
                    row[5] += k * (s - pd / 100)
        for p, x in num.items():
            cur = history[p][-1][1]
            delta = (abs(x) + 50) // 100  # K x sum in hundredths, rounded once, half away from zero
            new = cur + (delta if x >= 0 else -delta)
            history[p].append((period, new))
            count[p] = count.get(p, 0) + n_period[p]
            rated_max[p] = max(rated_max.get(p, new), new)
            moved.add(p)
        for p in list(last_rules):
            if p in history:
                pools.pop(p, None)
                continue
            prm = last_rules[p]
            y, m = divmod(period.year * 12 + period.month - 1 - prm.initial_window_months, 12)
            cutoff = date(y, m + 1, 1)
            events: dict[int, list[float]] = {}
            for i, end, opp, s in pools[p]:
                if end >= cutoff:
                    e = events.setdefault(i, [0, 0.0, 0.0])
                    e[0] += 1
                    e[1] += s
                    e[2] += opp
            n, w, tot, first = 0, 0.0, 0.0, True
            for i in sorted(events):
                en, ew, et = events[i]
                if en < prm.initial_min_rated_opponents:
                    continue
                if first and ew < prm.initial_min_points_first:
                    continue
                first = False
                n, w, tot = n + int(en), w + ew, tot + et
            if n < prm.initial_min_games or n == 0:
                continue
            if prm.initial_hypothetical_games:
                hyp = prm.initial_hypothetical_games
                ra = (tot + prm.initial_hypothetical * hyp) / (n + hyp)
                pct = math.floor((w + hyp / 2) / (n + hyp) * 100 + 0.5 + 1e-9)
                ru: float = math.floor(ra + _dp()[pct] + 0.5)
                if prm.initial_cap is not None:
                    ru = min(ru, prm.initial_cap)
            else:
                rc = math.floor(tot / n + 0.5)
                if w > n / 2:
                    ru = math.floor(rc + prm.initial_per_half_point * (2 * w - n) + 0.5)
                else:
                    ru = rc + _dp()[math.floor(w / n * 100 + 0.5 + 1e-9)]
            if ru < prm.initial_floor:
                continue
            history[p] = [(period, float(ru))]
            count[p] = n
            rated_max[p] = float(ru)
            moved.add(p)
            pools.pop(p)
        for (cid, p), (rb_, n, w, e, k, ch) in rows.items():
            after = history[p][-1][1] if p in history else None
            out[(cid, p)] = Change(rb_, n, w, e, k, ch, after)
    return out, {p: h[-1][1] for p, h in history.items()}


# ---------------------------------------------------------------- EGF

#: The 2021 system replaced the classic one (1998–2020) on 1 January 2021 (RULES.md);
#: a tournament is rated with the system in force when it ends.
EGF_2021_FROM = date(2021, 1, 1)
#: Tournament class weights of the 2021 system.
EGF_CLASS_WEIGHTS = {"A": 1.0, "B": 0.75, "C": 0.5, "D": 0.25}
#: Classic system: deflation correction and rating floor; 2021 system: floor.
EGF_EPSILON, EGF_FLOOR_CLASSIC, EGF_FLOOR_2021 = 0.016, 100.0, -900.0


@functools.cache
def _classic_table() -> tuple[tuple[float, float, float], ...]:
    """(GoR, con, a) rows of ``egf_old_con_a_table.csv``, by GoR."""
    return tuple(sorted((float(r["GoR"]), float(r["con"]), float(r["a"])) for r in _table("egf_old_con_a_table.csv")))


def _classic(r: float, column: int) -> float:
    """``con`` (column 1) or ``a`` (column 2) of the classic system, linear between rows, flat outside."""
    rows = _classic_table()
    if r <= rows[0][0]:
        return rows[0][column]
    if r >= rows[-1][0]:
        return rows[-1][column]
    for lo, hi in itertools.pairwise(rows):
        if lo[0] <= r <= hi[0]:
            return lo[column] + (r - lo[0]) / (hi[0] - lo[0]) * (hi[column] - lo[column])
    raise AssertionError(r)  # pragma: no cover


def egf_con_2021(r: float) -> float:
    """``con = ((3300 - r) / 200) ** 1.6`` (RULES.md, system from 2021)."""
    return float(((3300 - min(r, 3299.0)) / 200) ** 1.6)


def egf_bonus_2021(r: float) -> float:
    """``bonus = ln(1 + e ** ((2300 - r) / 80)) / 5`` (RULES.md, system from 2021)."""
    return math.log1p(math.exp((2300 - r) / 80)) / 5


def egf_se_2021(r1: float, r2: float) -> float:
    """``Se = 1 / (1 + e ** (beta(r2) - beta(r1)))``, ``beta(r) = -7 ln(3300 - r)``."""
    r1, r2 = min(r1, 3299.0), min(r2, 3299.0)  # beta is undefined from 3300
    return 1 / (1 + math.exp(-7 * math.log(3300 - r2) + 7 * math.log(3300 - r1)))


def egf_grade_rating(grade: str) -> float:
    """Starting rating of a declared grade (RULES.md): 20k = 100 ... 1k = 2000, 1d = 2100 ... 7d = 2700."""
    m = re.fullmatch(r"(\d+)([kd])", grade.strip().lower())
    if not m:
        raise ValueError(f"not a kyu/dan grade: {grade!r}")
    n = int(m.group(1))
    return 2100.0 - 100.0 * n if m.group(2) == "k" else 2000.0 + 100.0 * n


def egf(
    competitions: pl.DataFrame, games: pl.DataFrame, start: pl.DataFrame, *, rule_set: str | None = None,
    epsilon_mode: str = "stronger", players: pl.DataFrame | None = None,
) -> tuple[dict[Key, Change], dict[str, float]]:
    """EGF GoR, both systems; every rating of a tournament is its pre-tournament one.

    ``rule_set`` pins a system (``egf-gor-1998`` or ``egf-gor-2021``) for every date.
    ``players`` (optional): a player the seed does not rate starts from his
    ``declared_rating``, else from his ``declared_rank`` (grade).
    """
    rating: dict[str, float] = {k: float(v) for k, v in _seed(start, "rating").items()}
    for p, r in _declared(players, "declared_rating", games).items():
        rating.setdefault(p, float(r))
    for p, grade in _declared(players, "declared_rank", games).items():
        rating.setdefault(p, egf_grade_rating(grade))
    out: dict[Key, Change] = {}
    for comp, gs in _ordered(competitions, games):
        classic = rule_set == "egf-gor-1998" if rule_set else comp["end_date"] < EGF_2021_FROM
        weight = EGF_CLASS_WEIGHTS[(comp.get("event_class") or "A").upper()]
        before = dict(rating)
        acc: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0, 0.0])
        for g in gs:
            a, b, s, h = g["player_a"], g["player_b"], g["score_a"], g.get("handicap") or 0
            r1, r2 = before[a], before[b]
            adj = 100.0 * (abs(h) - 0.5) if h else 0.0
            e1, e2 = r1 + (adj if h < 0 else 0.0), r2 + (adj if h > 0 else 0.0)
            if classic:
                aa = _classic(min(r1, r2), 2)  # a of the lower-rated player
                eps = EGF_EPSILON
                if e1 <= e2:
                    s1 = 1 / (math.exp((e2 - e1) / aa) + 1)
                    s2 = 1 - s1 - (eps / 2 if epsilon_mode == "split" else eps)
                    s1 -= eps / 2 if epsilon_mode == "split" else 0.0
                else:
                    s2 = 1 / (math.exp((e1 - e2) / aa) + 1)
                    s1 = 1 - s2 - (eps / 2 if epsilon_mode == "split" else eps)
                    s2 -= eps / 2 if epsilon_mode == "split" else 0.0
                k1, k2 = _classic(r1, 1), _classic(r2, 1)
                c1, c2 = k1 * (s - s1), k2 * ((1 - s) - s2)
            else:
                s1 = egf_se_2021(e1, e2)
                s2 = 1 - s1
                k1, k2 = egf_con_2021(r1), egf_con_2021(r2)
                c1 = weight * (k1 * (s - s1) + egf_bonus_2021(r1))
                c2 = weight * (k2 * ((1 - s) - s2) + egf_bonus_2021(r2))
            for p, sc, se, k, ch in ((a, s, s1, k1, c1), (b, 1 - s, s2, k2, c2)):
                acc[p][0] += 1
                acc[p][1] += sc
                acc[p][2] += se
                acc[p][3] += ch
                acc[p].append(k)
        floor = EGF_FLOOR_CLASSIC if classic else EGF_FLOOR_2021
        for p, v in acc.items():
            n, w, e, ch = v[:4]
            new = max(before[p] + ch, floor)
            out[(comp["competition_id"], p)] = Change(before[p], int(n), w, e, v[4], ch, new)
            rating[p] = new
    return out, rating
