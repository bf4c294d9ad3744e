"""Write the bundled sample inbox: a small, invented AJUSC season in the interchange CSV.

Four championships of classic Scrabble between twelve invented players; the third
(two rounds only) is ineligible under the AJUSC rules and must be rejected.
Deterministic (fixed seed): running it again rewrites the same bytes.

    python examples/make_sample_inbox.py
"""

from __future__ import annotations

import csv
import random
from pathlib import Path

HERE = Path(__file__).resolve().parent / "inbox"

PLAYERS = [
    ("1001", "Núria Puigdomènech", "Girona"), ("1002", "Jordi Casals", "Lleida"),
    ("1003", "Montserrat Ferrer", "Barcelona"), ("1004", "Pere Vilaró", "Reus"),
    ("1005", "Laia Soler", "Girona"), ("1006", "Marc Bosch", "Barcelona"),
    ("1007", "Aina Riera", "Manacor"), ("1008", "Oriol Camps", "Lleida"),
    ("1009", "Marta Serra", "Barcelona"), ("1010", "Arnau Pujol", "Reus"),
    ("1011", "Carme Vidal", "Manacor"), ("1012", "Xavier Roca", "Girona"),
]
STRENGTH = {pid: 1.0 + 0.15 * (len(PLAYERS) - i) for i, (pid, _, _) in enumerate(PLAYERS)}

CHAMPIONSHIPS = [
    # id, name, date, rounds, number of players
    ("CAT-2025-01", "Obert de Tardor de Girona", "2025-10-04", 5, 10),
    ("CAT-2025-02", "Campionat de Lleida", "2025-11-15", 4, 8),
    ("CAT-2025-03", "Trobada de Reus", "2025-12-13", 2, 6),   # ineligible: fewer than 3 rounds
    ("CAT-2026-01", "Open d'Hivern de Barcelona", "2026-01-24", 6, 12),
]

HEADER = ["federation", "competition_id", "competition_name", "start_date", "end_date", "round",
          "player_a", "player_b", "score_a", "status", "handicap", "results_public", "modality",
          "event_class"]


def pairings(players: list[str], rounds: int, rng: random.Random) -> list[list[tuple[str, str]]]:
    """Random pairings without repeats (retried until one fits); a bye when the count is odd."""
    while True:
        met: set[frozenset[str]] = set()
        schedule = []
        for _ in range(rounds):
            pool = players[:]
            rng.shuffle(pool)
            round_pairs = []
            while len(pool) > 1:
                a = pool.pop()
                partner = next((b for b in pool if frozenset((a, b)) not in met), None)
                if partner is None:
                    break
                pool.remove(partner)
                met.add(frozenset((a, partner)))
                round_pairs.append((a, partner))
            else:
                schedule.append(round_pairs)
                continue
            break
        if len(schedule) == rounds:
            return schedule


def main() -> None:
    rng = random.Random(2025)
    HERE.mkdir(parents=True, exist_ok=True)
    with (HERE / "ajusc_2025_26.players.csv").open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(["federation", "player_id", "name", "country", "club", "birth_year", "declared_rank"])
        for pid, name, club in PLAYERS:
            writer.writerow(["ajusc", pid, name, "ESP", club, "", ""])
    for cid, name, day, rounds, n in CHAMPIONSHIPS:
        entrants = [pid for pid, _, _ in rng.sample(PLAYERS, n)]
        with (HERE / f"{cid}.results.csv").open("w", newline="", encoding="utf-8") as handle:
            writer = csv.writer(handle, lineterminator="\n")
            writer.writerow(HEADER)
            for rnd, pairs in enumerate(pairings(entrants, rounds, rng), start=1):
                for a, b in pairs:
                    p_a = STRENGTH[a] / (STRENGTH[a] + STRENGTH[b])
                    draw = rng.random() < 0.04
                    score = 0.5 if draw else (1 if rng.random() < p_a else 0)
                    writer.writerow(["ajusc", cid, name, day, day, rnd, a, b, score, "played", "",
                                     "true", "classic", ""])


if __name__ == "__main__":
    main()
