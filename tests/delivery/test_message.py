"""The messages: what an organiser and the rating officer receive, and that nothing from a file
can add a header."""

from __future__ import annotations

import email
from datetime import date
from email.policy import default

import pytest
from hypothesis import given
from hypothesis import strategies as st

from delivery import (
    Digest,
    DigestLine,
    clean_header,
    digest_message,
    report_message,
    report_subject,
)
from tests.delivery.parts import body_text

SENDER = "Ratings <ratings@example.org>"


def _parsed(message: email.message.EmailMessage) -> email.message.EmailMessage:
    return email.message_from_bytes(message.as_bytes(), policy=default)


def test_report_is_text_html_and_the_markdown_attached() -> None:
    message = report_message(sender=SENDER, recipient="club@example.org", msgid="<r.1@example.org>",
                             subject=report_subject("ajusc", "CAT-2026-01", "Open de Girona", "accepted"),
                             markdown="# Open de Girona\n\nAccepted.\n", html_body="<h1>Open de Girona</h1>",
                             attachment_name="CAT-2026-01.md")
    got = _parsed(message)
    assert got["Subject"] == "[AJUSC] Open de Girona (CAT-2026-01): accepted and rated"
    assert got["To"] == "club@example.org" and got["Message-ID"] == "<r.1@example.org>"
    assert got["Auto-Submitted"] == "auto-generated"
    assert got.get_content_type() == "multipart/mixed"
    body = got.get_body(("plain",))
    html = got.get_body(("html",))
    assert body is not None and "Accepted." in body.get_content()
    assert html is not None and "<h1>Open de Girona</h1>" in html.get_content()
    (attachment,) = list(got.iter_attachments())
    assert attachment.get_filename() == "CAT-2026-01.md"
    assert attachment.get_content_type() == "text/markdown"
    assert "Accepted." in attachment.get_content()


@pytest.mark.parametrize("status, words", [
    ("rejected", "rejected: please correct the file and send it again"),
    ("held", "held for the rating officer's decision"),
    ("accepted_with_exclusions", "accepted, some games not rated"),
])
def test_subject_gives_the_outcome_in_words(status: str, words: str) -> None:
    assert report_subject("fide", "OPEN-1", None, status) == f"[FIDE] OPEN-1: {words}"


HOSTILE = ["X\r\nBcc: victim@example.org", "X\nSubject: spoof", "X\x1b]8;;http://evil\x07", "a\u2028b",
           "=?utf-8?q?Bcc:_x@example.org?=", "X\r\n\r\n<script>alert(1)</script>", "\x00NUL"]


@pytest.mark.parametrize("hostile", HOSTILE)
def test_hostile_ids_and_names_add_no_header(hostile: str) -> None:
    subject = report_subject("ajusc", hostile, hostile, "rejected")
    message = report_message(sender=SENDER, recipient="club@example.org", subject=subject, msgid="<r@example.org>",
                             markdown=f"# {hostile}\n", html_body=None, attachment_name=f"{hostile}.md")
    raw = message.as_bytes()
    got = _parsed(message)
    assert got.get_all("Bcc") is None and len(got.get_all("Subject") or []) == 1
    assert set(got.keys()) == {"From", "To", "Subject", "Date", "Message-ID", "Auto-Submitted", "Content-Type",
                               "MIME-Version"}
    head = raw.split(b"\r\n\r\n", 1)[0]
    assert b"\nBcc:" not in head and b"\x1b" not in head and b"\x00" not in head


@given(st.text(max_size=60))
def test_clean_header_never_holds_a_control_character(text: str) -> None:
    cleaned = clean_header(text)
    assert not any(ch in cleaned for ch in "\r\n\x00\x1b\x07")
    assert len(cleaned) <= 180


def test_digest_lists_what_the_officer_acts_on_with_links_escaped() -> None:
    digest = Digest(date(2026, 12, 3))
    digest.held.append(DigestLine("fide", "OPEN-1", "held (online play)", "fide/competitions/OPEN-1.html"))
    digest.rejected.append(DigestLine("ajusc", "<b>CAT</b>", "rejected", None))
    digest.undelivered.append(DigestLine("egf", "E1", "no organiser address"))
    digest.editions.append(DigestLine("ajusc", "edition 191", "published", "ajusc/editions/191.html"))
    message = _parsed(digest_message(sender=SENDER, recipient="officer@example.org", digest=digest,
                                     msgid="<d@example.org>", site_url="https://ratings.example.org/"))
    assert message["Subject"] == "Ratings night of 2026-12-03: 1 held, 1 rejected, 1 undelivered, 1 edition(s)"
    text = body_text(message)
    html = body_text(message, "html")
    assert text.index("Held for your decision") < text.index("Rejected") < text.index("Editions published")
    assert "<https://ratings.example.org/fide/competitions/OPEN-1.html>" in text
    assert '<a href="https://ratings.example.org/ajusc/editions/191.html">edition 191</a>' in html
    assert "&lt;b&gt;CAT&lt;/b&gt;" in html and "<b>CAT</b>" not in html


def test_an_empty_night_is_an_empty_digest() -> None:
    assert Digest(date(2026, 12, 3)).is_empty()
