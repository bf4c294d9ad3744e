"""One night whose inbox holds, beside the good championships, every kind of file that used to
poison it: two identical copies of one file, a competition dated after the run and one before
the seed, an oversize file and a file of too many rows, special files and symlinks, and
control characters in a file name and a competition. The good championships are rated and
published; each bad entry has exactly one outcome line, and a report where it holds a
competition or was refused as a file."""

from __future__ import annotations

import os
import shutil
import sqlite3
from pathlib import Path

import polars as pl
import pytest

from tasks.ingest import read_inbox
from tests.reliability.cli import ratings

INBOX = Path(__file__).resolve().parents[2] / "examples" / "inbox"
HEADER = "federation,competition_id,competition_name,start_date,end_date,round,player_a,player_b,score_a\n"
ESC_FILE = "esc\x1b[31m.results.csv"
#: The sample season's championships that are rated (CAT-2025-03 has two rounds: rejected).
GOOD = ("CAT-2025-01", "CAT-2025-02", "CAT-2026-01")


def _seed() -> str:
    """A starting list of 2025-09-01 that holds every player of the sample season."""
    lines = (INBOX / "ajusc_2025_26.players.csv").read_text(encoding="utf-8").splitlines()[1:]
    ids = [line.split(",")[1] for line in lines if line.strip()]
    return "federation,player_id,name,rating,games,as_of\n" + "".join(
        f"ajusc,{pid},Player {pid},1000,40,2025-09-01\n" for pid in ids)


def _dated(source: str, new_id: str, day: str) -> str:
    text = (INBOX / f"{source}.results.csv").read_text(encoding="utf-8")
    old_day = text.splitlines()[1].split(",")[3]
    return text.replace(source, new_id).replace(old_day, day)


@pytest.fixture(scope="module")
def night(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, str]:
    tmp = tmp_path_factory.mktemp("hostile-night")
    inbox = tmp / "inbox"
    shutil.copytree(INBOX, inbox)
    (tmp / "start.ratings.csv").write_text(_seed(), encoding="utf-8")
    seeded = ratings(tmp, "seed", "--federation", "ajusc", "start.ratings.csv")
    assert seeded.returncode == 0, seeded.stderr
    shutil.copy(inbox / "CAT-2025-02.results.csv", inbox / "CAT-2025-02.results (1).csv")
    (inbox / "future.results.csv").write_text(_dated("CAT-2026-01", "FUT-1", "2027-05-01"), encoding="utf-8")
    (inbox / "ancient.results.csv").write_text(_dated("CAT-2025-01", "OLD-1", "0001-01-01"), encoding="utf-8")
    with (inbox / "big.results.csv").open("wb") as handle:
        handle.truncate(100 * 1024 * 1024)   # sparse: its size says it all
    rows = "".join(f"ajusc,ROWS-1,Rows,2025-10-04,2025-10-04,1,{1001 + i % 7},{1008 + i % 5},1\n"
                   for i in range(1_000_001))
    (inbox / "rows.results.csv").write_text(HEADER + rows, encoding="utf-8")
    os.mkfifo(inbox / "pipe.results.csv")
    (inbox / "dangling.results.csv").symlink_to(tmp / "nowhere.csv")
    (tmp / "elsewhere").mkdir()
    (tmp / "elsewhere" / "secret.results.csv").write_text(
        (INBOX / "CAT-2025-01.results.csv").read_text(encoding="utf-8").replace("CAT-2025-01", "SECRET-1"),
        encoding="utf-8")
    (inbox / "outside.results.csv").symlink_to(tmp / "elsewhere" / "secret.results.csv")
    (inbox / "linked").symlink_to(tmp / "elsewhere")
    (inbox / ESC_FILE).write_text(
        _dated("CAT-2025-01", "ESC\x1b[2J-1", "2025-10-05").replace("Obert de Tardor de Girona",
                                                                  "Obert \x1b]0;pwned\x07"),
        encoding="utf-8")
    (inbox / "twin.results.csv").write_text(   # the same competition id in another federation
        (INBOX / "CAT-2025-01.results.csv").read_text(encoding="utf-8").replace("ajusc,", "egf,"), encoding="utf-8")
    done = ratings(tmp, "run", "--inbox", "inbox", "--as-of", "2026-06-30")
    return tmp, done.stdout, done.stderr + f"\nrc={done.returncode}"


def _lines(out: str, name: str) -> list[str]:
    """The lines of the file outcome table that name ``name``."""
    table = out[out.index("┃ file"):]
    return [line for line in table.splitlines() if name in line]


def _status(tmp: Path, competition_id: str) -> str:
    with sqlite3.connect(tmp / "ratings.db") as db:
        rows = db.execute("SELECT status FROM competitions WHERE competition_id = ? AND status != 'superseded' "
                          "AND federation = 'ajusc'", (competition_id,)).fetchall()
    assert len(rows) == 1, (competition_id, rows)
    return str(rows[0][0])


def test_the_night_finishes_and_the_good_championships_are_rated_and_published(night: tuple[Path, str, str]) -> None:
    tmp, out, err = night
    assert err.endswith("rc=0"), out + err
    assert "internal error" not in out + err
    for cid in GOOD:
        assert _status(tmp, cid) == "accepted", cid
    listed = ratings(tmp, "list", "--federation", "ajusc", "--format", "csv")
    assert listed.returncode == 0, listed.stderr
    assert len(listed.stdout.splitlines()) > 5
    assert (tmp / "site" / "index.html").exists()


def test_an_identical_copy_is_one_file_not_a_second_half_of_the_competition(night: tuple[Path, str, str]) -> None:
    tmp, out, _ = night
    lines = _lines(out, "CAT-2025-02.results (1).csv")
    assert len(lines) == 1, out
    assert "identical copy of CAT-2025-02.results.csv" in lines[0]
    assert _status(tmp, "CAT-2025-02") == "accepted"
    with sqlite3.connect(tmp / "ratings.db") as db:
        games = db.execute("SELECT count(*) FROM games WHERE competition_id = 'CAT-2025-02'").fetchone()[0]
    expected = len((INBOX / "CAT-2025-02.results.csv").read_text(encoding="utf-8").splitlines()) - 1
    assert games == expected


@pytest.mark.parametrize(("name", "cid", "rule", "field"), [
    ("future.results.csv", "FUT-1", "dates.after_run", "end_date"),
    ("ancient.results.csv", "OLD-1", "dates.before_seed", "start_date"),
])
def test_an_impossible_date_is_held_for_the_officer(night: tuple[Path, str, str], name: str, cid: str, rule: str,
                                                    field: str) -> None:
    tmp, out, _ = night
    lines = _lines(out, name)
    assert len(lines) == 1, out
    assert "held" in lines[0] and rule in lines[0]
    assert _status(tmp, cid) == "held"
    report = ratings(tmp, "report", cid)
    assert report.returncode == 0, report.stderr
    assert rule in report.stdout and f"field '{field}'" in report.stdout
    listed = ratings(tmp, "list", "--federation", "ajusc", "--format", "json")
    assert "2027-05-01" not in listed.stdout and "0001-01-01" not in listed.stdout


@pytest.mark.parametrize(("name", "rule"), [("big.results.csv", "limits.file_too_large"),
                                            ("rows.results.csv", "limits.too_many")])
def test_a_file_over_a_limit_is_refused_whole_with_a_report(night: tuple[Path, str, str], name: str, rule: str) -> None:
    tmp, out, _ = night
    lines = _lines(out, name)
    assert len(lines) == 1, out
    assert rule in lines[0]
    report = ratings(tmp, "report", name)
    assert report.returncode == 0, report.stderr
    assert rule in report.stdout
    with sqlite3.connect(tmp / "ratings.db") as db:
        assert db.execute("SELECT count(*) FROM games WHERE competition_id = 'ROWS-1'").fetchone()[0] == 0


@pytest.mark.parametrize(("name", "why"), [
    ("pipe.results.csv", "skipped: not a regular file (a FIFO, socket or device)"),
    ("dangling.results.csv", "skipped: not a regular file (a dangling symlink)"),
    ("linked", "skipped: not a regular file (a symlinked folder)"),
    ("outside.results.csv", "skipped: a symlink to a file outside the inbox, not read"),
])
def test_an_entry_that_is_not_a_file_of_the_inbox_gets_a_line_and_is_not_read(
    night: tuple[Path, str, str], name: str, why: str,
) -> None:
    tmp, out, _ = night
    lines = _lines(out, f" {name} ")
    assert len(lines) == 1, out
    assert why in lines[0]
    with sqlite3.connect(tmp / "ratings.db") as db:
        assert db.execute("SELECT count(*) FROM competitions WHERE competition_id = 'SECRET-1'").fetchone()[0] == 0


def test_control_characters_are_shown_escaped_on_the_terminal_and_in_the_reports(night: tuple[Path, str, str]) -> None:
    tmp, out, err = night
    assert "\x1b" not in out + err and "\x07" not in out + err
    assert len(_lines(out, "esc\\x1b[31m.results.csv")) == 1, out
    reports = [p for p in (tmp / "reports").rglob("*.md")]
    assert reports
    for path in reports:
        text = path.read_text(encoding="utf-8")
        assert "\x1b" not in text and "\x07" not in text, path
    shown = ratings(tmp, "report", "ESC\x1b[2J-1")
    assert shown.returncode == 0, shown.stderr
    assert "\x1b" not in shown.stdout and "\\x1b" in shown.stdout
    assert "File: esc\\x1b\\[31m.results.csv" in shown.stdout


def test_a_refused_file_is_never_hashed(tmp_path: Path) -> None:
    (tmp_path / "ajusc").mkdir()
    with (tmp_path / "ajusc" / "huge.results.csv").open("wb") as handle:
        handle.truncate(8 * 1024 * 1024 * 1024)   # sparse: reading it would take seconds
    head = HEADER + "ajusc,R-1,R,2025-10-04,2025-10-04,1,1,2,1\n"
    (tmp_path / "many.results.csv").write_text(head + "ajusc,R-1,R,2025-10-04,2025-10-04,1,1,2,1\n" * 1_000_001,
                                               encoding="utf-8")
    ingested = read_inbox(tmp_path, set())
    batch = ingested.batches["ajusc"]
    assert batch.games.height == 0 and batch.competitions.height == 0
    rules = dict(zip(batch.findings.get_column("source").to_list(), batch.findings.get_column("rule").to_list(),
                     strict=True))
    assert rules == {"huge.results.csv": "limits.file_too_large", "many.results.csv": "limits.too_many"}
    digests = batch.files.get_column("source_sha256").to_list()
    assert len(set(digests)) == 2


def test_report_files_are_readable_like_the_site_pages(night: tuple[Path, str, str]) -> None:
    tmp, _, _ = night
    reports = [p for p in (tmp / "reports").rglob("*") if p.is_file() and p.suffix in (".md", ".html")]
    assert reports
    assert {oct(p.stat().st_mode & 0o777) for p in reports} == {"0o644"}


def test_ids_that_differ_only_in_unsafe_characters_get_distinct_report_files() -> None:
    from validations.report import report_name

    names = {report_name(cid) for cid in ("HOST/1", "HOST_1", "HOST 1", "HOST\\1")}
    assert len(names) == 4
    assert report_name("CAT-2025-01") == "CAT-2025-01"


@pytest.mark.parametrize(("player", "says"), [
    ("\uff11\uff10\uff10\uff11", "look-alike characters"),        # full-width digits
    ("10\u200b01", "invisible or control character (U+200B)"),  # zero-width space
    ("1001\u202e", "invisible or control character (U+202E)"),  # right-to-left override
    ("7" * 10_000, "more than the limit of 64"),
])
def test_a_look_alike_player_id_is_refused_with_line_and_field(player: str, says: str) -> None:
    from formats import read_bytes

    data = (HEADER + "ajusc,L-1,L,2025-10-04,2025-10-04,1,1001,1002,1\n"
            + f"ajusc,L-1,L,2025-10-04,2025-10-04,2,1003,{player},0\n").encode("utf-8")
    found = read_bytes(data, "look.results.csv").findings.filter(pl.col("rule") == "limits.player_id")
    assert found.height == 1
    row = found.row(0, named=True)
    assert (row["severity"], row["line"], row["field"], row["competition_id"]) == ("reject", 3, "player_b", "L-1")
    assert says in row["message"] and row["message"].startswith("look.results.csv, line 3, field 'player_b'")


@pytest.mark.parametrize("value", ["1e999", "nan", "999999"])
def test_an_impossible_what_if_rating_is_refused_in_one_line(night: tuple[Path, str, str], value: str) -> None:
    tmp, _, _ = night
    done = ratings(tmp, "whatif", "--federation", "ajusc", "--set-rating", f"1001={value}")
    assert done.returncode in (1, 64), done.stdout + done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("ratings: --set-rating 1001="), done.stderr
    assert "rating must be" in lines[0]


def test_a_backfill_that_ends_before_it_starts_is_a_usage_error(night: tuple[Path, str, str]) -> None:
    tmp, _, _ = night
    done = ratings(tmp, "backfill", "--federation", "ajusc", "--from", "2026-01-01", "--to", "2025-01-01")
    assert done.returncode == 64, done.stdout + done.stderr
    assert done.stderr.strip().splitlines() == [
        "ratings: --to 2025-01-01 is before --from 2026-01-01: give a --to on or after --from"]


def test_an_id_two_federations_hold_is_said_to_be_ambiguous(night: tuple[Path, str, str]) -> None:
    tmp, _, _ = night
    done = ratings(tmp, "report", "CAT-2025-01")
    assert done.returncode == 1, done.stdout + done.stderr
    assert done.stderr.strip().splitlines() == [
        "ratings: competition id 'CAT-2025-01' exists in federations ajusc, egf: give --federation"]
    chosen = ratings(tmp, "report", "CAT-2025-01", "--federation", "ajusc")
    assert chosen.returncode == 0, chosen.stderr
    assert "CAT-2025-01" in chosen.stdout


def test_a_full_disk_names_the_folder(tmp_path: Path) -> None:
    from formats.safety import DiskFullError, disk_full

    try:
        with open("/dev/full", "w", encoding="utf-8") as full:   # a real ENOSPC from the kernel
            full.write("x")
    except OSError as error:
        said = disk_full(error, tmp_path / "reports" / "ajusc")
    else:   # pragma: no cover - /dev/full always refuses
        pytest.fail("/dev/full accepted a write")
    assert isinstance(said, DiskFullError) and isinstance(said, OSError)
    assert str(said) == f"no space left on the device of {tmp_path / 'reports' / 'ajusc'}: free some space, then run again"
    other = disk_full(PermissionError(13, "Permission denied"), tmp_path)
    assert isinstance(other, PermissionError)
