"""The benchmark harness runs: a smoke run at a tiny size, never a timing assertion."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest

REPO = Path(__file__).resolve().parents[1]


def _harness(*args: str) -> str:
    done = subprocess.run([sys.executable, "-m", "benchmarks", *args], cwd=REPO, capture_output=True,
                          text=True, timeout=900, check=False)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return done.stdout


def test_generator_is_seeded_and_realistic() -> None:
    from benchmarks.generate import generate

    one, two = generate("egf", 5_000, seed=3), generate("egf", 5_000, seed=3)
    assert one.results.equals(two.results)
    sizes = one.results.group_by("competition_id").agg(
        players=pl.concat_list("player_a", "player_b").explode().n_unique(), rounds=pl.col("round").max(),
    )
    assert sizes["players"].is_between(4, 200).all()
    assert sizes["rounds"].is_between(3, 15).all()
    statuses = set(one.results.get_column("status"))
    assert statuses == {"played", "forfeit"}
    newcomers = set(one.results["player_a"]) - set(one.seed["player_id"])
    assert newcomers, "some players are unrated newcomers"


def test_engine_rows_for_every_system() -> None:
    out = _harness("--sizes", "2k", "--engine-only", "--reference-games", "2000")
    for system in ("ajusc", "fide", "egf"):
        assert f"| {system:6s} |" in out
    assert out.count("engine / reference") == 6   # printed as measured, then in the final table


@pytest.mark.slow
def test_end_to_end_rows_on_sqlite(tmp_path: Path) -> None:
    out = _harness("--sizes", "2k", "--systems", "ajusc", "--reference-games", "0", "--work", str(tmp_path))
    for what in ("io floor", "fixed", "run", "incremental", "backfill", "whatif", "site"):
        assert f"| {what:12s} |" in out
    assert "stages done" not in out and "validate " in out   # the run rows say where the time went
    assert "| month        |" not in out   # a whole month is of the FIDE shape alone
    assert "| ajusc | 2,000 | sqlite | " in out   # the summary line
    # The explanations kept against derived on read, on the warehouse the rows filled.
    (db,) = tmp_path.glob("ajusc-*/sqlite/bench.db")
    done = subprocess.run([sys.executable, "benchmarks/bench_explanations.py", "--warehouse", f"sqlite:///{db}",
                           "--federation", "ajusc"], cwd=REPO, capture_output=True, text=True, timeout=600,
                          check=False)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "| re-rate the whole history from the seed |" in done.stdout and "derived on read:" in done.stdout
    assert "note:" not in done.stdout   # the re-rate builds as many rows as the warehouse keeps


def test_a_row_past_its_timeout_is_stopped_and_said() -> None:
    out = _harness("--sizes", "2k", "--systems", "ajusc", "--reference-games", "0", "--row-timeout", "0.3")
    assert "| stopped      | sqlite" in out and "did not finish within --row-timeout" in out
    assert "| run          |" not in out


def test_the_incremental_night_has_competitions_of_its_own() -> None:
    """A night reusing the history's competition ids would be read as corrections of them."""
    from datetime import timedelta

    from benchmarks.generate import generate

    history = generate("ajusc", 3_000, seed=7)
    night = generate("ajusc", 10_000_000, players=history.players.height, seed=8, max_competitions=50,
                     competitions_after=history.last_day + timedelta(days=1), competition_prefix="N")
    ids = set(history.results["competition_id"])
    assert ids and not ids & set(night.results["competition_id"])
    assert set(night.results["player_a"]) <= set(history.players["player_id"])


def test_a_history_is_written_in_files_under_the_inbox_limit(tmp_path: Path) -> None:
    """A 1M-game history in one file (97 MB) is refused by the readers' 64 MiB limit, and the
    run would time nothing: the history goes in parts, each competition whole in one part."""
    from benchmarks.generate import generate, write_interchange

    fed = generate("ajusc", 3_000, seed=5)
    write_interchange(fed, tmp_path, games_per_file=1_000)
    parts = sorted(tmp_path.glob("*.results.csv"))
    assert len(parts) >= 3
    frames = [pl.read_csv(p) for p in parts]
    assert sum(f.height for f in frames) == fed.results.height
    owners = [set(f["competition_id"]) for f in frames]
    assert all(not (a & b) for i, a in enumerate(owners) for b in owners[i + 1:])


def test_a_run_that_loaded_less_than_its_history_is_an_error() -> None:
    from benchmarks._measure import loaded

    loaded("[ 1.0s] load: x: loaded 1 file(s), 1 competition(s), 10 game(s)\n"
           "[ 2.0s] load: y: loaded 2 file(s) (1 already loaded), 1 competition(s), 5 game(s)", 15)
    with pytest.raises(RuntimeError, match="loaded 0 games of 1,000"):
        loaded("unreadable: rejected (format.too_large)", 1_000)


def test_the_fide_shape_is_benched_from_its_monthly_files() -> None:
    out = _harness("--sizes", "20k", "--systems", "fide", "--shape", "fide", "--engine-only",
                   "--reference-games", "2000")
    assert "--shape fide, written in" in out and "on the starting list (2012-07-01 .." in out
    assert out.count("engine / reference") == 2


def test_the_fide_shape_is_of_fide_alone() -> None:
    from benchmarks.__main__ import main

    with pytest.raises(SystemExit) as refused:
        main(["--shape", "fide", "--systems", "ajusc,fide", "--engine-only"])
    assert refused.value.code == 2


@pytest.mark.slow
def test_end_to_end_rows_on_sqlite_of_the_fide_shape(tmp_path: Path) -> None:
    """Every row runs on the monthly files: the run loads every game of them (``loaded``), the
    night is the month after, the what-if sets a player of the starting list."""
    out = _harness("--sizes", "20k", "--systems", "fide", "--shape", "fide", "--reference-games", "0",
                   "--work", str(tmp_path))
    for what in ("io floor", "fixed", "run", "incremental", "month", "backfill", "whatif", "site"):
        assert f"| {what:12s} |" in out
    assert "stages done" not in out and "--set-rating 1000001=1500" in out
    assert len(list(tmp_path.glob("fide-*/history/fide-*.results.csv"))) > 12
