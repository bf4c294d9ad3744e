"""One federation's unexpected error never stops the others' night.

Real runs of the installed ``ratings`` command on an inbox of three federations
(AJUSC interchange, EGF ``.h9``, FIDE TRF), with an unexpected error injected in one
federation's stage (``RATINGS_FAULT_AT``, ``warehouse.hooks.checkpoint``, ``tests/faults.py``): once in the
flow between two stages, in-process (no Prefect server), and once inside a task, under
the Prefect engine. The other federations are rated and published, the failed one's
files say so, the exit code is 2 with one line and a log file, and the next run finishes
the failed federation.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import warehouse
from flows import errors
from tests.reliability.cli import ratings
from tests.reliability.inbox import good_files

AS_OF = "2026-02-01"
#: The good files of one reader per federation (``tests/reliability/inbox.py``).
FILES = {"ajusc": "interchange", "egf": "egd", "fide": "trf"}


def _inbox(tmp: Path) -> dict[str, str]:
    """Write the three federations' files; federation -> file name."""
    inbox = tmp / "inbox"
    inbox.mkdir()
    good = good_files()
    names = {}
    for federation, reader in FILES.items():
        name, data = good[reader]
        (inbox / name).write_bytes(data)
        names[federation] = name
    return names


def _loaded(url: str) -> dict[str, int]:
    """Federation -> competitions in the warehouse."""
    db = warehouse.get_engine(url)
    return {fed: warehouse.history(db, fed).competitions.height for fed in FILES}


def _editions(url: str, federation: str) -> int:
    return warehouse.editions(warehouse.get_engine(url), federation).height


@pytest.mark.slow
@pytest.mark.parametrize(
    ("orchestrator", "fault", "stage"),
    [
        ("local", "rate:1", "rate"),          # between two stages, the flow in-process
        ("prefect", "report:1", "publish"),   # inside the publish task, under the Prefect engine
    ],
)
def test_an_error_in_one_federation_lets_the_others_finish(
    tmp_path: Path, orchestrator: str, fault: str, stage: str
) -> None:
    names = _inbox(tmp_path)
    url = f"sqlite:///{tmp_path / 'w.db'}"
    args = ("run", "--inbox", "inbox", "--warehouse", url, "--as-of", AS_OF, "--no-site")
    failed = ratings(tmp_path, *args, RATINGS_FAULT_AT=fault, RATINGS_ORCHESTRATOR=orchestrator)

    assert failed.returncode == errors.EXIT_INTERNAL, failed.stderr[-3000:]
    assert "Traceback" not in failed.stdout + failed.stderr
    ours = [line for line in failed.stderr.splitlines() if line.startswith("ratings:")]
    assert len(ours) == 1, failed.stderr[-3000:]
    # ajusc comes first: the fault hits it; egf and fide run to the end.
    assert "internal error (RuntimeError: fault injected" in ours[0]
    assert f"in the {stage} stage of ajusc" in ours[0]
    log = Path(ours[0].rsplit("details in ", 1)[1].strip())
    assert log.parent == tmp_path / "logs" and "Traceback" in log.read_text(encoding="utf-8")
    for federation in ("egf", "fide"):
        assert f"{federation}: " in failed.stdout and "player(s) listed" in failed.stdout, failed.stdout
    assert names["ajusc"] in failed.stdout and "not finished: internal error" in failed.stdout, failed.stdout
    loaded = _loaded(url)
    assert loaded["egf"] == 1 and loaded["fide"] == 1, loaded   # the EGF file is rejected alone too
    assert _editions(url, "fide") == 1
    if stage == "rate":   # nothing of it was written (a fault in publish comes after its load)
        assert loaded["ajusc"] == 0 and _editions(url, "ajusc") == 0, loaded

    again = ratings(tmp_path, *args, RATINGS_ORCHESTRATOR=orchestrator)
    assert again.returncode == errors.EXIT_OK, again.stderr[-3000:]
    assert _loaded(url)["ajusc"] == 1 and _editions(url, "ajusc") >= 1
