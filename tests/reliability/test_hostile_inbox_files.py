"""Files that used to stop every federation's night: a field over the csv module's limit, a
compressed file named ``*.results.csv``, a federation id nobody configured, an entry that
cannot be read. Each gets its own outcome; the good championships beside them are rated."""

from __future__ import annotations

import gzip
import os
import shutil
from pathlib import Path

import pytest

from tests.reliability.cli import ratings

INBOX = Path(__file__).resolve().parents[2] / "examples" / "inbox"
HEADER = "federation,competition_id,competition_name,start_date,end_date,round,player_a,player_b,score_a\n"


@pytest.fixture(scope="module")
def night(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    tmp = tmp_path_factory.mktemp("hostile-inbox")
    inbox = tmp / "inbox"
    shutil.copytree(INBOX, inbox)
    good = (INBOX / "CAT-2025-01.results.csv").read_text(encoding="utf-8")
    (inbox / "huge.results.csv").write_text(
        HEADER + "ajusc,HUGE-1," + "x" * 200_000 + ",2025-10-04,2025-10-04,1,1001,1002,1\n", encoding="utf-8")
    (inbox / "packed.results.csv").write_bytes(gzip.compress(good.encode() * 20))
    (inbox / "typo.results.csv").write_text(
        good.replace("ajusc,CAT-2025-01", "ajsuc,TYPO-1"), encoding="utf-8")
    if Path("/proc/self/mem").exists():
        os.symlink("/proc/self/mem", inbox / "mem.results.csv")
    done = ratings(tmp, "run", "--inbox", "inbox", "--as-of", "2026-06-30")
    return tmp, done.stdout + done.stderr + f"\nrc={done.returncode}"


def test_the_night_finishes_and_rates_the_good_championships(night: tuple[Path, str]) -> None:
    tmp, out = night
    assert out.endswith("rc=0"), out
    listed = ratings(tmp, "list", "--federation", "ajusc", "--format", "csv")
    assert listed.returncode == 0, listed.stderr
    assert len(listed.stdout.splitlines()) > 5


@pytest.mark.parametrize("name", ["huge.results.csv", "packed.results.csv", "typo.results.csv"])
def test_each_hostile_file_has_an_outcome_line(night: tuple[Path, str], name: str) -> None:
    _, out = night
    lines = [line for line in out.splitlines() if name in line]
    assert lines, out
    assert "internal error" not in out


def test_a_federation_nobody_configured_goes_to_unknown_with_a_report(night: tuple[Path, str]) -> None:
    tmp, _ = night
    reports = list((tmp / "reports" / "unknown").glob("*")) if (tmp / "reports" / "unknown").exists() else []
    found = ratings(tmp, "report", "typo.results.csv")
    assert found.returncode == 0 or reports, found.stdout + found.stderr
    assert "ajsuc" in found.stdout + "".join(p.read_text(encoding="utf-8") for p in reports if p.suffix == ".md")
