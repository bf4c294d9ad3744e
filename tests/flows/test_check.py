"""``ratings check`` on real files gives the outcome the next night then records, and writes nothing."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import sqlalchemy as sa

from tests.conftest import shared_path
from tests.reliability.cli import ratings

RESULTS = ("data", "fide", "published_periods", "results")


def _real_results() -> list[Path]:
    folder = Path(__file__).resolve().parents[2].parent / "shared" / Path(*RESULTS)
    return sorted(folder.glob("*.csv")) if folder.is_dir() else []


#: Real result folders: (federation, folder under ../shared, its seeded list or None).
REAL = [
    ("fide", RESULTS, "seed.ratings.csv"),
    ("ajusc", ("data", "ajusc", "barruf_2025_26", "results"), None),
]


@pytest.mark.parametrize(("federation", "parts", "seed"), REAL, ids=[r[0] for r in REAL])
def test_check_predicts_the_night(tmp_path: Path, federation: str, parts: tuple[str, ...], seed: str | None) -> None:
    """One warehouse, every real result file of the folder checked in one command, then one night."""
    folder = shared_path(*parts)
    files = sorted(folder.glob("*.csv"))
    assert files
    url = f"sqlite:///{tmp_path / 'w.db'}"
    if seed:
        seeded = ratings(tmp_path, "seed", "--federation", federation, str(folder.parent / seed), "--warehouse", url)
        assert seeded.returncode == 0, seeded.stderr
    before = (tmp_path / "w.db").read_bytes() if seed else None

    checked = ratings(tmp_path, "check", *map(str, files), "--federation", federation, "--format", "json",
                      "--warehouse", url)
    assert checked.returncode == 0, checked.stderr
    predicted = {r["competition_id"]: r["status"] for r in json.loads(checked.stdout)}
    assert len(predicted) == len(files)
    assert ((tmp_path / "w.db").read_bytes() if seed else None) == before   # nothing written, nothing created
    assert seed or not (tmp_path / "w.db").exists()
    assert not (tmp_path / "reports").exists()

    inbox = tmp_path / "inbox" / federation
    inbox.mkdir(parents=True)
    for path in files:
        shutil.copy(path, inbox / path.name)
    night = ratings(tmp_path, "run", "--inbox", str(tmp_path / "inbox"), "--federation", federation, "--no-site",
                    "--warehouse", url)
    assert night.returncode in (0, 1), night.stderr
    with sa.create_engine(url).connect() as connection:
        rows = connection.execute(sa.text(
            "SELECT competition_id, status FROM competitions WHERE federation = :f AND status != 'superseded'"
        ), {"f": federation}).all()
    recorded = {competition: status for competition, status in rows}
    assert len(recorded) == len(files)
    assert {c: predicted[c] for c in recorded} == recorded


def test_check_missing_warehouse_creates_nothing(tmp_path: Path) -> None:
    """A warehouse that does not exist yet is read as an empty one; no file appears."""
    files = _real_results()[:2]
    if not files:
        shared_path(*RESULTS)
    url = f"sqlite:///{tmp_path / 'absent.db'}"
    checked = ratings(tmp_path, "check", *map(str, files), "--federation", "fide", "--warehouse", url)
    assert checked.returncode == 0, checked.stderr
    assert "Validation report" in checked.stdout
    assert not (tmp_path / "absent.db").exists()


def test_check_missing_file_is_one_line(tmp_path: Path) -> None:
    """A file that is not there: one line naming it, exit code 1, no traceback."""
    checked = ratings(tmp_path, "check", str(tmp_path / "nope.csv"), "--warehouse", f"sqlite:///{tmp_path / 'w.db'}")
    assert checked.returncode == 1
    assert "nope.csv" in checked.stderr and "Traceback" not in checked.stderr
    assert len(checked.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "w.db").exists()


def test_check_escapes_a_hostile_file_name(tmp_path: Path) -> None:
    """A file name with a terminal escape and markup is printed escaped, never raw."""
    files = _real_results()[:1]
    if not files:
        shared_path(*RESULTS)
    hostile = tmp_path / "x\x1b[31m<b>.results.csv"
    shutil.copy(files[0], hostile)
    checked = ratings(tmp_path, "check", str(hostile), "--federation", "fide",
                      "--warehouse", f"sqlite:///{tmp_path / 'w.db'}")
    assert checked.returncode == 0, checked.stderr
    assert "\x1b" not in checked.stdout
    assert "Validation report" in checked.stdout


def test_check_json_escapes_c1_controls_and_overrides(tmp_path: Path) -> None:
    """``--format json`` writes C1 controls (CSI, U+009B) and bidirectional overrides in a file
    name as JSON escapes: the same name once parsed, nothing a terminal acts on."""
    files = _real_results()[:1]
    if not files:
        shared_path(*RESULTS)
    name = "x\u009b31m\u202e\x1b[1m.results.csv"
    shutil.copy(files[0], tmp_path / name)
    checked = ratings(tmp_path, "check", str(tmp_path / name), "--federation", "fide", "--format", "json",
                      "--warehouse", f"sqlite:///{tmp_path / 'w.db'}")
    assert checked.returncode == 0, checked.stderr
    assert not {"\x1b", "\u009b", "\u202e"} & set(checked.stdout)
    assert "\\u009b31m\\u202e\\u001b[1m" in checked.stdout
    assert [r["source"] for r in json.loads(checked.stdout)] == [name]


#: The other real files of ../shared/data, each set checked together, then one night of it.
OTHERS = [
    ("manacup", ("data", "ajusc", "manacup_2025_26"), "*"),
    ("go", ("data", "go"), "*.*"),
    ("chess", ("data", "chess"), "*"),
    ("scrabble", ("data", "scrabble"), "*"),
]


@pytest.mark.parametrize(("label", "parts", "pattern"), OTHERS, ids=[o[0] for o in OTHERS])
def test_check_predicts_the_night_on_every_other_real_file(tmp_path: Path, label: str, parts: tuple[str, ...],
                                                           pattern: str) -> None:
    """The Swiss Perfect, OpenGotha, Pairgoth, TRF, chess-results and TSH files: what ``check``
    predicts for each competition (or unreadable file) is what the night records."""
    folder = shared_path(*parts)
    files = sorted(p for p in folder.glob(pattern) if p.is_file())
    assert files
    url = f"sqlite:///{tmp_path / 'w.db'}"
    checked = ratings(tmp_path, "check", *map(str, files), "--format", "json", "--warehouse", url)
    assert checked.returncode == 0, checked.stderr
    predicted = {(r["federation"], r["competition_id"]): r["status"] for r in json.loads(checked.stdout)}
    assert predicted and not (tmp_path / "w.db").exists()
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    for path in files:
        shutil.copy(path, inbox / path.name)
    night = ratings(tmp_path, "run", "--inbox", str(inbox), "--no-site", "--warehouse", url)
    assert night.returncode in (0, 1), night.stderr
    with sa.create_engine(url).connect() as connection:
        rows = connection.execute(sa.text(
            "SELECT federation, competition_id, status FROM competitions WHERE status != 'superseded'")).all()
    recorded = {(fed, cid): status for fed, cid, status in rows}
    # The warehouse keeps accepted for a report's "accepted, some games excluded".
    stored = {"accepted_with_exclusions": "accepted"}
    competitions = {key: stored.get(status, status) for key, status in predicted.items() if key in recorded}
    assert competitions == {key: recorded[key] for key in competitions}
    # Every competition the night recorded was predicted, and every prediction is a competition the
    # night recorded or a file it could not read (whose report ``ratings report FILE`` shows).
    assert set(recorded) <= set(predicted)
    for fed, name in set(predicted) - set(recorded):
        shown = ratings(tmp_path, "report", name, "--warehouse", url)
        assert shown.returncode == 0, (fed, name, shown.stderr)
