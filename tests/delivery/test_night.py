"""E-mail delivery in a real night: ``ratings run`` with a real SMTP server on localhost.

One message per report and one digest; a second night sends nothing; a corrected file sends
its new report once; a server that refuses, drops or is slow leaves the night finished and the
record right; ``--no-deliver`` and ``deliver = false`` send nothing; the password is never printed.
"""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

import pytest

from tests.delivery.parts import body_text
from tests.delivery.smtp_server import SMTPServer
from tests.reliability.cli import TIMEOUT_S, ratings

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

SAMPLE = Path(__file__).resolve().parents[2] / "examples" / "inbox"
AS_OF = "2026-02-01"
CLUB = "club@example.org"
WINTER = "hivern@example.org"   # given by the file itself (organiser_email column)


def _inbox(tmp: Path) -> Path:
    inbox = tmp / "inbox"
    shutil.copytree(SAMPLE, inbox)
    # One file names its organiser; the others get the registry's address for AJUSC.
    path = inbox / "CAT-2026-01.results.csv"
    lines = path.read_text(encoding="utf-8").splitlines()
    path.write_text("\n".join([lines[0] + ",organiser_email", *(line + f",{WINTER}" for line in lines[1:])]) + "\n",
                    encoding="utf-8")
    return inbox


def _run(tmp: Path, config: Path, *extra: str, **env: str) -> tuple[int, str, str]:
    done = ratings(tmp, "--config", str(config), "run", "--inbox", str(tmp / "inbox"), "--warehouse",
                   f"sqlite:///{tmp / 'w.db'}", "--as-of", AS_OF, "--reports", str(tmp / "reports"), "--no-site",
                   *extra, timeout=TIMEOUT_S, **env)
    return done.returncode, done.stdout, done.stderr


def _record(tmp: Path, *extra: str) -> list[dict[str, object]]:
    done = ratings(tmp, "deliveries", "--format", "json", "--warehouse", f"sqlite:///{tmp / 'w.db'}", *extra)
    assert done.returncode == 0, done.stderr
    rows: list[dict[str, object]] = json.loads(done.stdout)
    return rows


def _register(tmp: Path) -> None:
    done = ratings(tmp, "organiser", "add", "--federation", "ajusc", "--email", CLUB, "--name", "Club",
                   "--warehouse", f"sqlite:///{tmp / 'w.db'}")
    assert done.returncode == 0, done.stderr
    assert "organiser entry 1" in done.stdout


def test_a_night_sends_each_report_once_and_one_digest(tmp_path: Path) -> None:
    _inbox(tmp_path)
    _register(tmp_path)
    with SMTPServer() as server:
        config = server.config(tmp_path)
        code, out, err = _run(tmp_path, config)
        assert code == 0, err
        first = server.received
        reports = [m for m in first if m.recipients != ["officer@example.org"]]
        digests = [m for m in first if m.recipients == ["officer@example.org"]]
        written = sorted(p.stem for p in (tmp_path / "reports" / "ajusc").glob("*.md"))
        assert sorted(str(m.message["Subject"]).split("(")[-1].split(")")[0] for m in reports) == written
        assert len(digests) == 1
        by_to = Counter(m.recipients[0] for m in reports)
        assert by_to == {CLUB: len(written) - 1, WINTER: 1}
        winter = next(m for m in reports if m.recipients == [WINTER]).message
        assert winter["Subject"] == "[AJUSC] Open d'Hivern de Barcelona (CAT-2026-01): accepted and rated"
        assert winter.get_body(("html",)) is not None and list(winter.iter_attachments())
        digest = body_text(digests[0].message)
        assert "Rated" in digest and "CAT-2026-01" in digest and "Editions published" in digest
        assert f"e-mail: {len(first)} message(s) sent, 0 failed" in out

        # A second night: nothing new, nothing sent.
        code, out, err = _run(tmp_path, config)
        assert code == 0, err
        assert len(server.received) == len(first)

        # A corrected file: its new report once, and a digest of that night.
        path = tmp_path / "inbox" / "CAT-2026-01.results.csv"
        lines = path.read_text(encoding="utf-8").splitlines()
        path.write_text("\n".join(lines[:-1]) + "\n", encoding="utf-8")   # one game less
        code, out, err = _run(tmp_path, config)
        assert code == 0, err
        new = server.received[len(first):]
        assert sorted(m.recipients[0] for m in new) == sorted([WINTER, "officer@example.org"])
        code, out, err = _run(tmp_path, config)
        assert len(server.received) == len(first) + 2
    record = _record(tmp_path)
    assert {r["status"] for r in record} == {"sent"}
    assert len(record) == len(first) + 2
    assert len({r["message_id"] for r in record}) == len(record)


def test_no_deliver_and_the_federation_switch_send_nothing(tmp_path: Path) -> None:
    _inbox(tmp_path)
    _register(tmp_path)
    with SMTPServer() as server:
        code, out, err = _run(tmp_path, server.config(tmp_path), "--no-deliver")
        assert code == 0, err
        assert server.received == [] and "e-mail:" not in out
    assert _record(tmp_path) == []
    other = tmp_path / "second"
    other.mkdir()
    _inbox(other)
    _register(other)
    with SMTPServer() as server:
        config = server.config(other)
        config.write_text(config.read_text(encoding="utf-8") + "\n[ajusc]\ndeliver = false\n", encoding="utf-8")
        code, out, err = _run(other, config)
        assert code == 0, err
        assert [m.recipients for m in server.received] == [["officer@example.org"]]   # the digest alone


@pytest.mark.parametrize("mood", ["refuse", "drop", "slow"])
def test_a_failing_server_leaves_the_night_finished_and_the_record_right(tmp_path: Path, mood: str) -> None:
    _inbox(tmp_path)
    _register(tmp_path)
    with SMTPServer(mood, delay=4.0) as server:
        code, out, err = _run(tmp_path, server.config(tmp_path, timeout=1.0))
        assert code == 0, err
        assert server.received == []
    assert "ajusc: " in out and "edition" in out   # the lists were published all the same
    failed = _record(tmp_path, "--failed")
    reports = [r for r in failed if r["kind"] == "report"]
    assert reports and all(r["status"] == "failed" and r["attempts"] == 1 for r in failed)
    assert all(r["next_attempt_at"] for r in failed)
    expected = {"refuse": "refused (550", "drop": "closed the connection", "slow": "did not answer within 1 s"}[mood]
    assert all(expected in str(r["last_error"]) for r in failed), failed[0]["last_error"]
    assert "not delivered:" in out and expected in out
    shown = ratings(tmp_path, "deliveries", "--failed", "--warehouse", f"sqlite:///{tmp_path / 'w.db'}")
    assert shown.returncode == 0 and "failed" in shown.stdout and "next try after" in shown.stdout


def test_the_password_is_never_printed_nor_recorded(tmp_path: Path) -> None:
    _inbox(tmp_path)
    _register(tmp_path)
    secret = "pa55-Never-Shown"
    with SMTPServer(tls_folder=tmp_path, password="the-right-one") as server:
        code, out, err = _run(tmp_path, server.config(tmp_path), RATINGS_SMTP_USER="ratings",
                              RATINGS_SMTP_PASSWORD=secret)
        assert code == 0, err
        assert server.received == []
    record = _record(tmp_path, "--failed")
    assert record and all("535" in str(r["last_error"]) for r in record)
    logs = "".join(p.read_text(encoding="utf-8", errors="replace") for p in (tmp_path / "logs").rglob("*")
                   if p.is_file()) if (tmp_path / "logs").exists() else ""
    for text in (out, err, json.dumps(record), logs, (tmp_path / "w.db").read_bytes().decode("latin-1")):
        assert secret not in text


def test_a_bad_delivery_table_is_one_line_naming_the_key(tmp_path: Path) -> None:
    _inbox(tmp_path)
    config = tmp_path / "ratings.toml"
    config.write_text('[delivery]\nsender = "r@example.org"\nofficer = "not an address"\n', encoding="utf-8")
    code, _out, err = _run(tmp_path, config)
    assert code == 1
    assert err.strip().startswith("ratings: ") and "[delivery].officer" in err and len(err.strip().splitlines()) == 1


def test_the_registry_routes_by_inbox_folder_then_pattern_and_the_rest_reach_the_digest(tmp_path: Path) -> None:
    inbox = tmp_path / "inbox"
    shutil.copytree(SAMPLE, inbox)
    (inbox / "ajusc" / "girona").mkdir(parents=True)
    (inbox / "CAT-2025-01.results.csv").rename(inbox / "ajusc" / "girona" / "CAT-2025-01.results.csv")
    url = f"sqlite:///{tmp_path / 'w.db'}"
    for args in (["--folder", "girona", "--email", "girona@example.org"],
                 ["--competitions", "CAT-2025-0[23]", "--email", "Pattern@Example.org"]):
        done = ratings(tmp_path, "organiser", "add", "--federation", "ajusc", *args, "--warehouse", url)
        assert done.returncode == 0, done.stderr
    listed = ratings(tmp_path, "organiser", "list", "--warehouse", url)
    assert "inbox/ajusc/girona/" in listed.stdout and "Pattern@example.org" in listed.stdout
    with SMTPServer() as server:
        code, out, err = _run(tmp_path, server.config(tmp_path, site_url="https://ratings.example.org"))
        assert code == 0, err
        to = {str(m.message["Subject"]).split("(")[-1].split(")")[0]: m.recipients[0] for m in server.received
              if m.recipients != ["officer@example.org"]}
        assert to == {"CAT-2025-01": "girona@example.org", "CAT-2025-02": "Pattern@example.org",
                      "CAT-2025-03": "Pattern@example.org"}
        (digest,) = [m.message for m in server.received if m.recipients == ["officer@example.org"]]
        text = body_text(digest)
        assert "AJUSC CAT-2026-01: no organiser address (ratings organiser add)" in text
        assert "<https://ratings.example.org/ajusc/competitions/CAT-2026-01.html>" in text
        assert "1 report(s) without an address" in out


def test_organiser_commands_refuse_mistakes_in_one_line(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'w.db'}"

    def run(*args: str) -> tuple[int, str, str]:
        done = ratings(tmp_path, "organiser", *args, "--warehouse", url)
        return done.returncode, done.stdout, done.stderr

    code, _, err = run("add", "--federation", "ajusc", "--email", "nobody at example.org")
    assert code == 1 and err.startswith("ratings: not an e-mail address: 'nobody at example.org'")
    code, _, err = run("add", "--federation", "ajsuc", "--email", "a@example.org")
    assert code == 1 and "unknown federation 'ajsuc'" in err
    code, _, err = run("add", "--federation", "ajusc", "--email", "a@example.org", "--folder", "x",
                       "--competitions", "C*")
    assert code == 64 and "not both" in err
    assert run("add", "--federation", "ajusc", "--email", "a@example.org")[0] == 0
    code, _, err = run("add", "--federation", "ajusc", "--email", "A@example.org ")
    assert code == 1 and "already registered" in err
    code, _, err = run("remove", "7")
    assert code == 1 and "no organiser entry 7" in err
    code, out, _ = run("remove", "1")
    assert code == 0 and "removed organiser entry 1 (ajusc: a@example.org)" in out
    code, out, _ = run("list")
    assert code == 0 and "no organiser registered" in out
    done = ratings(tmp_path, "deliveries", "--warehouse", url)
    assert done.returncode == 0 and "nothing e-mailed yet" in done.stdout
    missing = ratings(tmp_path, "deliveries", "--warehouse", f"sqlite:///{tmp_path / 'typo.db'}")
    assert missing.returncode == 1 and not (tmp_path / "typo.db").exists()


def test_an_officers_decision_sends_the_new_version_of_the_report(tmp_path: Path) -> None:
    """A TSH file that names no lexicon is held; the organiser (registered by the inbox folder)
    is told so, then told again once the officer approved it and the next night rated it."""
    inbox = tmp_path / "inbox"
    (inbox / "ajusc" / "manresa").mkdir(parents=True)
    (inbox / "ajusc" / "manresa" / "lliga-manresa.t").write_text(
        "#date 2025-10-04\nPuig, Anna 1200 2 3 4; 400 400 400\nVila, Pere 1100 1 4 3; 300 400 400\n"
        "Roca, Marta 1000 4 1 2; 400 300 300\nSoler, Jan 1000 3 2 1; 300 300 300\n", encoding="utf-8")
    url = f"sqlite:///{tmp_path / 'w.db'}"
    added = ratings(tmp_path, "organiser", "add", "--federation", "ajusc", "--folder", "manresa", "--email",
                    "manresa@example.org", "--warehouse", url)
    assert added.returncode == 0, added.stderr
    with SMTPServer() as server:
        config = server.config(tmp_path)
        code, _out, err = _run(tmp_path, config)
        assert code == 0, err
        (held,) = [m.message for m in server.received if m.recipients == ["manresa@example.org"]]
        assert str(held["Subject"]).endswith(": held for the rating officer's decision")
        competition = str(held["Subject"]).split(" (")[-1].split("):")[0]
        approved = ratings(tmp_path, "approve", "--federation", "ajusc", competition, "--note", "Catalan lexicon",
                           "--warehouse", url)
        assert approved.returncode == 0, approved.stderr
        code, _out, err = _run(tmp_path, config)
        assert code == 0, err
        again = [m.message for m in server.received if m.recipients == ["manresa@example.org"]]
    assert len(again) == 2 and "accepted" in str(again[1]["Subject"])
    assert again[0]["Message-ID"] != again[1]["Message-ID"]


def test_a_correcting_edition_resends_the_reports_whose_figures_changed(tmp_path: Path) -> None:
    """A championship that arrives late (dated before one already rated) re-rates it: the later
    championship's organiser receives its report again, with the new rating changes."""
    _inbox(tmp_path)
    _register(tmp_path)
    with SMTPServer() as server:
        config = server.config(tmp_path)
        code, _, err = _run(tmp_path, config)
        assert code == 0, err
        first = len(server.received)
        late = (SAMPLE / "CAT-2025-02.results.csv").read_text(encoding="utf-8").replace(
            "CAT-2025-02", "CAT-2025-04").replace("2025-11-15", "2025-12-20").replace("Campionat de Lleida", "Late")
        (tmp_path / "inbox" / "CAT-2025-04.results.csv").write_text(late, encoding="utf-8")
        code, _out, err = _run(tmp_path, config)
        assert code == 0, err
        new = {str(m.message["Subject"]).split(" (")[-1].split("):")[0]: m for m in server.received[first:]
               if m.recipients != ["officer@example.org"]}
    assert "CAT-2025-04" in new and "CAT-2026-01" in new        # the late one, and the one it re-rated
    assert "CAT-2025-01" not in new and "CAT-2025-02" not in new  # rated before it: unchanged, not sent
    body = body_text(new["CAT-2026-01"].message)
    assert "correct" in body.lower()
