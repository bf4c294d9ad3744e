"""The delivery task over days: a failed message is retried with backoff until it is sent or
its tries are spent, and a report that changed before it was sent goes out as it stands."""

from __future__ import annotations

import datetime as dt
from datetime import date
from pathlib import Path

import pytest

import warehouse
from delivery import DeliverySettings
from tasks.deliver import NightOutcome, deliver_night
from tests.delivery.parts import body_text
from tests.delivery.smtp_server import SMTPServer
from validations.report import WrittenReport
from warehouse.deliveries import add_organiser, deliveries

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

T0 = dt.datetime(2026, 12, 3, 2, 0, tzinfo=dt.UTC)


def _setup(tmp: Path) -> tuple[str, WrittenReport]:
    url = f"sqlite:///{tmp / 'w.db'}"
    add_organiser(warehouse.get_engine(url), "ajusc", "club@example.org")
    md = tmp / "reports" / "ajusc" / "CAT-1.md"
    md.parent.mkdir(parents=True)
    md.write_text("# CAT-1\n\nAccepted.\n", encoding="utf-8")
    md.with_suffix(".html").write_text("<h1>CAT-1</h1>", encoding="utf-8")
    return url, WrittenReport("ajusc", "CAT-1", "Open", "accepted", "CAT-1.results.csv", str(md),
                              str(md.with_suffix(".html")))


def _settings(server: SMTPServer, **extra: object) -> DeliverySettings:
    return DeliverySettings.model_validate({"smtp_host": "127.0.0.1", "smtp_port": server.port, "security": "none",
                                           "sender": "r@example.org", "timeout": 1.0, **extra})


def _night(tmp: Path, url: str, reports: list[WrittenReport], settings: DeliverySettings, now: dt.datetime) -> object:
    outcome = NightOutcome(as_of=now.date(), statuses={"ajusc": {r.competition_id: r.status for r in reports}},
                           editions={})
    return deliver_night.fn(url, reports, outcome, settings, str(tmp / "reports"), now=now)


def test_a_failed_message_is_retried_with_backoff_until_sent(tmp_path: Path) -> None:
    url, report = _setup(tmp_path)
    with SMTPServer("refuse") as server:
        settings = _settings(server)
        _night(tmp_path, url, [report], settings, T0)
        (row,) = deliveries(warehouse.get_engine(url)).to_dicts()
        assert (row["status"], row["attempts"]) == ("failed", 1)
        assert row["next_attempt_at"] == T0 + dt.timedelta(minutes=5)
        server.set_mood("accept")
        _night(tmp_path, url, [], settings, T0 + dt.timedelta(minutes=1))   # not due yet: not tried
        assert server.received == []
        assert deliveries(warehouse.get_engine(url)).get_column("attempts").to_list() == [1]
        _night(tmp_path, url, [], settings, T0 + dt.timedelta(minutes=6))   # due: sent
        assert len(server.received) == 1
    (row,) = deliveries(warehouse.get_engine(url)).to_dicts()
    assert (row["status"], row["attempts"], row["last_error"] is not None) == ("sent", 2, True)


def test_tries_end_after_max_attempts_and_the_row_stays_failed(tmp_path: Path) -> None:
    url, report = _setup(tmp_path)
    with SMTPServer("refuse") as server:
        settings = _settings(server, max_attempts=2)
        _night(tmp_path, url, [report], settings, T0)
        _night(tmp_path, url, [], settings, T0 + dt.timedelta(hours=1))
        _night(tmp_path, url, [], settings, T0 + dt.timedelta(days=3))
    (row,) = deliveries(warehouse.get_engine(url), failed=True).to_dicts()
    assert (row["status"], row["attempts"], row["next_attempt_at"]) == ("failed", 2, None)


def test_a_report_changed_before_it_was_sent_goes_out_as_it_stands(tmp_path: Path) -> None:
    url, report = _setup(tmp_path)
    with SMTPServer("refuse") as server:
        settings = _settings(server)
        _night(tmp_path, url, [report], settings, T0)
        Path(report.markdown).write_text("# CAT-1\n\nRejected now.\n", encoding="utf-8")
        server.set_mood("accept")
        _night(tmp_path, url, [report], settings, T0 + dt.timedelta(days=1))
        (message,) = server.received
    assert "Rejected now." in body_text(message.message)
    statuses = deliveries(warehouse.get_engine(url)).sort("id").get_column("status").to_list()
    assert statuses == ["superseded", "sent"]


def test_the_digest_says_what_was_not_delivered(tmp_path: Path) -> None:
    url, report = _setup(tmp_path)
    lost = WrittenReport("egf", "E-1", None, "rejected", "e.h9", str(tmp_path / "reports" / "egf" / "E-1.md"),
                         str(tmp_path / "reports" / "egf" / "E-1.html"))
    Path(lost.markdown).parent.mkdir(parents=True)
    Path(lost.markdown).write_text("# E-1\n", encoding="utf-8")
    with SMTPServer() as server:
        settings = _settings(server, officer="officer@example.org")
        outcome = NightOutcome(as_of=date(2026, 12, 3), statuses={"ajusc": {"CAT-1": "accepted"},
                                                                  "egf": {"E-1": "rejected"}},
                               editions={"ajusc": [191]}, internal_errors={"fide": "internal error (boom)"})
        done = deliver_night.fn(url, [report, lost], outcome, settings, str(tmp_path / "reports"), now=T0)
        digest = next(m.message for m in server.received if m.recipients == ["officer@example.org"])
    text = body_text(digest)
    assert digest["Subject"] == "Ratings night of 2026-12-03: 1 rejected, 1 undelivered, 1 rated, 1 edition(s), " \
                                "1 internal error(s)"
    assert "EGF E-1: no organiser address" in text and "fide: internal error (boom)" in text
    assert done.no_address == ["egf E-1"]
    assert sorted((tmp_path / "reports" / "digests").glob("2026-12-03-all-*.md"))
