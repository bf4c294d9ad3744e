"""``benchmarks/bench_readers.py`` runs: a smoke run at a tiny size, never a timing assertion."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_bench_readers_prints_a_row_per_format_without_great_expectations(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "benchmarks/bench_readers.py", "--generated", "3", "--repeat", "1", "--tmp", str(tmp_path)],
        check=False, cwd=REPO, capture_output=True, text=True, timeout=600,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    rows = [line for line in done.stdout.splitlines() if line.startswith("| small sample")]
    assert {row.split("|")[2].strip() for row in rows} >= {"interchange-results", "trf", "opengotha", "egd",
                                                          "swissperfect", "tsh"}
    assert "| generated | interchange-results | 3 |" in done.stdout
    # Reading never imports Great Expectations (validation imports it lazily, STYLE.md).
    assert "great_expectations imported: False" in done.stdout


def test_harness_row_reads_every_generated_file(tmp_path: Path) -> None:
    sys.path.insert(0, str(REPO))
    from benchmarks.bench_readers import harness_row

    _, note = harness_row(4, folder=tmp_path)   # the seconds it took are the harness's to print
    assert note.startswith("4 small results files")
    assert len(list(tmp_path.glob("*.results.csv"))) == 4
