"""Plain scalar reference implementations of the three rating systems.

Written game by game in ordinary Python straight from ``../shared/rules/RULES.md``,
independent of the compiled kernels, so that property tests can compare the fast
path with them on random histories. Slow on purpose: clarity over speed.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass
from datetime import date
from typing import Any

import polars as pl

from engine import rulesets
from engine.fide_elo import DP_TABLE, PD_UPPER, next_list

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


def _ordered(competitions: pl.DataFrame, games: pl.DataFrame) -> list[tuple[dict[str, Any], list[dict[str, Any]]]]:
    comps = sorted(competitions.iter_rows(named=True), key=lambda c: (c["end_date"], c["start_date"], c["competition_id"]))
    by_comp: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for g in games.iter_rows(named=True):
        if g.get("status", "played") not in (None, "played") or g["score_a"] is None:
            continue
        if g.get("rated") is False:
            continue
        by_comp[g["competition_id"]].append(g)
    return [(c, by_comp.get(c["competition_id"], [])) for c in comps]


def _seed(start: pl.DataFrame, column: str) -> dict[str, Any]:
    if column not in start.columns:
        return {}
    return {r["player_id"]: r[column] for r in start.iter_rows(named=True) if r[column] is not None}


# ---------------------------------------------------------------- BARRUF


def barruf(
    competitions: pl.DataFrame, games: pl.DataFrame, start: pl.DataFrame, *, newcomer: float = 950.0
) -> tuple[dict[Key, Change], dict[str, float]]:
    """BARRUF: per championship, pre-championship ratings, K by band and games including it."""
    rating: dict[str, float] = {k: float(v) for k, v in _seed(start, "rating").items()}
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


def _pd(diff: float, higher: bool, cap: bool) -> int:
    d = int(math.floor(abs(diff) + 0.5))
    if cap:
        d = min(d, 400)
    band = next((i for i, hi in enumerate(PD_UPPER) if d <= hi), len(PD_UPPER))
    high = 50 + band
    return high if higher else 100 - high


def fide(
    competitions: pl.DataFrame, games: pl.DataFrame, start: pl.DataFrame, *, birth_years: dict[str, int] | None = None
) -> tuple[dict[Key, Change], dict[str, float]]:
    """FIDE: periods, list in force at each start, rated changes, pooled initial ratings."""
    birth_years = birth_years or {}
    history: dict[str, list[tuple[date, float]]] = {
        p: [(date.min, float(r))] for p, r in _seed(start, "rating").items() if r and r > 0
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
    for i, (c, gs) in enumerate(sorted(ordered, key=lambda cg: (next_list(cg[0]["end_date"]), cg[0]["end_date"],
                                                              cg[0]["start_date"], cg[0]["competition_id"]))):
        by_period[next_list(c["end_date"])].append((i, c, gs))
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
        last_rs: dict[str, str] = {}
        for i, c, gs in entries:
            rs = rulesets.rule_set_for("fide-elo", c["start_date"])
            prm = rs.params
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
                        last_rs[p] = rs.name
                        row = rows.setdefault((c["competition_id"], p), [None, 0, 0.0, None, None, None])
                        row[1] += 1
                        row[2] += s
                        continue
                    if rp is None or ro is None:
                        continue
                    if prm["cap_400"] == "every":
                        cap = prm["cap_400_exempt_from"] is None or rp < prm["cap_400_exempt_from"]
                    else:
                        cap = capped_game.get(p, (0, -1))[1] == j
                    pd = _pd(rp - ro, rp >= ro, cap)
                    cur = history[p][-1][1]
                    if p in seed_k and p not in moved:
                        k = seed_k[p]
                    elif max(cur, rated_max.get(p, cur)) >= prm["k_top_from"]:
                        k = prm["k_top"]
                    elif count.get(p, 0) < prm["k_new_games"]:
                        k = prm["k_new"]
                    elif prm["k_junior"] and p in birth_years and period.year - birth_years[p] <= 18 and cur < prm["k_junior_below"]:
                        k = prm["k_junior"]
                    else:
                        k = prm["k_mid"]
                    if prm["k_cap"] and k * n_period[p] > prm["k_cap"]:
                        k = math.floor(prm["k_cap"] / n_period[p])
                    num[p] += int(k) * (int(round(s * 100)) - pd)
                    row = rows.setdefault((c["competition_id"], p), [rp, 0, 0.0, 0.0, float(k), 0.0])
                    row[1] += 1
                    row[2] += s
                    row[3] += pd / 100
                    row[5] += k * (s - pd / 100)
        for p, x in num.items():
            cur = history[p][-1][1]
            delta = (abs(x) + 50) // 100
            new = cur + (delta if x >= 0 else -delta)
            history[p].append((period, new))
            count[p] = count.get(p, 0) + n_period[p]
            rated_max[p] = max(rated_max.get(p, new), new)
            moved.add(p)
        for p in list(last_rs):
            if p in history:
                pools.pop(p, None)
                continue
            prm = rulesets.get(last_rs[p]).params
            y, m = divmod(period.year * 12 + period.month - 1 - int(prm["initial_window_months"]), 12)
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
                if en < prm["initial_min_rated_opponents"]:
                    continue
                if first and ew < prm["initial_min_points_first"]:
                    continue
                first = False
                n, w, tot = n + int(en), w + ew, tot + et
            if n < prm["initial_min_games"] or n == 0:
                continue
            if prm["initial_method"] == "ra_dp":
                hyp = prm["initial_hypothetical_games"]
                ra = (tot + prm["initial_hypothetical"] * hyp) / (n + hyp)
                pct = math.floor((w + hyp / 2) / (n + hyp) * 100 + 0.5 + 1e-9)
                ru = min(math.floor(ra + DP_TABLE[pct] + 0.5), prm["initial_cap"])
            else:
                rc = math.floor(tot / n + 0.5)
                if w > n / 2:
                    ru = math.floor(rc + prm["initial_per_half_point"] * (2 * w - n) + 0.5)
                else:
                    ru = rc + DP_TABLE[math.floor(w / n * 100 + 0.5 + 1e-9)]
            if ru < prm["initial_floor"]:
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


def _con_classic(r: float) -> float:
    xs = [100.0 * i for i in range(1, 28)]
    ys = [116, 110, 105, 100, 95, 90, 85, 80, 75, 70, 65, 60, 55, 51, 47, 43, 39, 35, 31, 27, 24, 21, 18, 15, 13, 11, 10]
    if r <= xs[0]:
        return float(ys[0])
    if r >= xs[-1]:
        return float(ys[-1])
    i = int((r - 100) // 100)
    t = (r - xs[i]) / 100.0
    return ys[i] + t * (ys[i + 1] - ys[i])


def egf(
    competitions: pl.DataFrame, games: pl.DataFrame, start: pl.DataFrame, *, rule_set: str | None = None,
    epsilon_mode: str = "stronger",
) -> tuple[dict[Key, Change], dict[str, float]]:
    """EGF GoR, both systems; every rating of a tournament is its pre-tournament one."""
    rating: dict[str, float] = {k: float(v) for k, v in _seed(start, "rating").items()}
    out: dict[Key, Change] = {}
    for comp, gs in _ordered(competitions, games):
        name = rule_set or rulesets.rule_set_for("egf-gor", comp["end_date"]).name
        weight = {"A": 1.0, "B": 0.75, "C": 0.5, "D": 0.25}[(comp.get("event_class") or "A").upper()]
        before = dict(rating)
        acc: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0, 0.0])
        for g in gs:
            a, b, s, h = g["player_a"], g["player_b"], g["score_a"], g.get("handicap") or 0
            r1, r2 = before[a], before[b]
            adj = 100.0 * (abs(h) - 0.5) if h else 0.0
            e1, e2 = r1 + (adj if h < 0 else 0.0), r2 + (adj if h > 0 else 0.0)
            if name == "egf-gor-1998":
                lo = min(max(min(r1, r2), 100.0), 2700.0)
                aa = 200 - (lo - 100) / 20
                eps = 0.016
                if e1 <= e2:
                    s1 = 1 / (math.exp((e2 - e1) / aa) + 1)
                    s2 = 1 - s1 - (eps / 2 if epsilon_mode == "split" else eps)
                    s1 -= eps / 2 if epsilon_mode == "split" else 0.0
                else:
                    s2 = 1 / (math.exp((e1 - e2) / aa) + 1)
                    s1 = 1 - s2 - (eps / 2 if epsilon_mode == "split" else eps)
                    s2 -= eps / 2 if epsilon_mode == "split" else 0.0
                k1, k2 = _con_classic(r1), _con_classic(r2)
                c1, c2 = k1 * (s - s1), k2 * ((1 - s) - s2)
            else:
                e1, e2 = min(e1, 3299.0), min(e2, 3299.0)  # beta is undefined from 3300
                s1 = 1 / (1 + math.exp(-7 * math.log(3300 - e2) + 7 * math.log(3300 - e1)))
                s2 = 1 - s1
                k1, k2 = ((3300 - min(r1, 3299.0)) / 200) ** 1.6, ((3300 - min(r2, 3299.0)) / 200) ** 1.6
                c1 = weight * (k1 * (s - s1) + math.log1p(math.exp((2300 - r1) / 80)) / 5)
                c2 = weight * (k2 * ((1 - s) - s2) + math.log1p(math.exp((2300 - r2) / 80)) / 5)
            for p, sc, se, k, ch in ((a, s, s1, k1, c1), (b, 1 - s, s2, k2, c2)):
                acc[p][0] += 1
                acc[p][1] += sc
                acc[p][2] += se
                acc[p][3] += ch
                acc[p].append(k)
        floor = 100.0 if name == "egf-gor-1998" else -900.0
        for p, v in acc.items():
            n, w, e, ch = v[:4]
            new = max(before[p] + ch, floor)
            out[(comp["competition_id"], p)] = Change(before[p], int(n), w, e, v[4], ch, new)
            rating[p] = new
    return out, rating
