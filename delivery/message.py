"""The messages: an organiser's report, and the rating officer's nightly digest.

A report goes out as a multipart message: a text body (the report's Markdown, which
reads as plain text), an HTML body (the same report as the HTML file written beside
it) and the Markdown attached. The subject names the federation, the competition and
the outcome. Every header is built by :mod:`email` from text cleaned of control
characters, so an id or a name from a file can never add a header.
"""

from __future__ import annotations

import hashlib
import html
import unicodedata
from dataclasses import dataclass, field
from datetime import date
from email.message import EmailMessage
from email.policy import SMTP
from email.utils import formatdate, parseaddr

from formats.safety import escape_controls

__all__ = [
    "OUTCOMES",
    "Digest",
    "DigestLine",
    "clean_header",
    "digest_message",
    "message_id",
    "report_message",
    "report_subject",
]

#: The outcome in the subject, in the organiser's words.
OUTCOMES = {
    "accepted": "accepted and rated",
    "accepted_with_exclusions": "accepted, some games not rated",
    "rejected": "rejected: please correct the file and send it again",
    "held": "held for the rating officer's decision",
    "pending": "waiting for the rating officer",
    "superseded": "replaced by a corrected file",
    "unreadable": "could not be read: please send it again",
}

_MAX_HEADER = 180
#: RFC 5322's line limit, so that a header of up to 180 characters is never folded (a folded
#: subject reads with a leading space in some clients).
_POLICY = SMTP.clone(max_line_length=998)


def clean_header(text: str) -> str:
    """``text`` made safe for a header: control characters (line breaks included) become
    spaces, runs of spaces one, and at most 180 characters.

    Examples
    --------
    >>> clean_header("Open\\r\\nBcc: victim@example.org")
    'Open Bcc: victim@example.org'
    >>> clean_header("\\x1b[31mred\\x1b[0m")
    '[31mred [0m'
    """
    out = "".join(" " if unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp") else ch for ch in text)
    out = " ".join(out.split())
    return out if len(out) <= _MAX_HEADER else out[: _MAX_HEADER - 1] + "…"


def message_id(kind: str, federation: str, competition_id: str, version: str, recipient: str, sender: str) -> str:
    """A ``Message-ID`` that is the same for the same delivery row: a message sent again
    after a crash between the server's acceptance and the record is recognisably the
    same message.

    Examples
    --------
    >>> message_id("report", "ajusc", "CAT-1", "ab" * 32, "o@example.org", "Ratings <r@example.org>")
    '<report.ajusc.588db03a179ae48e7ae05172@example.org>'
    """
    key = f"{kind}\x1f{federation}\x1f{competition_id}\x1f{version}\x1f{recipient}".encode()
    digest = hashlib.sha256(key).hexdigest()[:24]
    domain = parseaddr(sender)[1].rpartition("@")[2] or "ratings.invalid"
    fed = "".join(ch for ch in federation if ch.isalnum()) or "all"
    return f"<{kind}.{fed}.{digest}@{domain}>"


def report_subject(federation: str, competition_id: str, name: str | None, status: str) -> str:
    """``[AJUSC] Open de Girona (CAT-2026-01): accepted and rated``.

    Examples
    --------
    >>> report_subject("ajusc", "CAT-1", None, "rejected")
    '[AJUSC] CAT-1: rejected: please correct the file and send it again'
    """
    what = f"{name} ({competition_id})" if name and name != competition_id else competition_id
    outcome = OUTCOMES.get(status, status)
    return clean_header(f"[{federation.upper()}] {what}: {outcome}")


def _base(sender: str, recipient: str, subject: str, msgid: str) -> EmailMessage:
    message = EmailMessage(policy=_POLICY)
    message["From"] = clean_header(sender)
    message["To"] = clean_header(recipient)
    message["Subject"] = clean_header(subject)
    message["Date"] = formatdate(localtime=False, usegmt=True)
    message["Message-ID"] = msgid
    # RFC 3834: sent by a program, so no auto-reply loops.
    message["Auto-Submitted"] = "auto-generated"
    return message


def report_message(
    *, sender: str, recipient: str, subject: str, msgid: str, markdown: str, html_body: str | None,
    attachment_name: str,
) -> EmailMessage:
    """The organiser's report as a message: text and HTML bodies, the Markdown attached."""
    message = _base(sender, recipient, subject, msgid)
    message.set_content(markdown, subtype="plain", charset="utf-8")
    if html_body is not None:
        message.add_alternative(html_body, subtype="html", charset="utf-8")
    message.add_attachment(markdown.encode("utf-8"), maintype="text", subtype="markdown",
                           filename=clean_header(attachment_name) or "report.md")
    return message


@dataclass(frozen=True)
class DigestLine:
    """One line of the digest: a competition (or file), an edition or an undelivered report."""

    federation: str
    what: str          #: the competition id, the file or ``edition N``
    detail: str        #: the outcome, the reason, the recipient and its error
    link: str | None = None   #: a path inside the site, when one is configured


@dataclass
class Digest:
    """What the rating officer reads about one night."""

    as_of: date
    held: list[DigestLine] = field(default_factory=list)
    rejected: list[DigestLine] = field(default_factory=list)
    rated: list[DigestLine] = field(default_factory=list)
    undelivered: list[DigestLine] = field(default_factory=list)
    editions: list[DigestLine] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def sections(self) -> list[tuple[str, list[DigestLine]]]:
        """The non-empty sections, in the order the officer acts on them."""
        parts = [
            ("Held for your decision (ratings approve / decline)", self.held),
            ("Rejected: the organisers were told what to fix", self.rejected),
            ("Reports not delivered (no address, or the mail server refused)", self.undelivered),
            ("Rated", self.rated),
            ("Editions published", self.editions),
        ]
        return [(title, lines) for title, lines in parts if lines]

    def is_empty(self) -> bool:
        """Nothing happened that the officer needs to read."""
        return not self.sections() and not self.errors

    def subject(self) -> str:
        """``Ratings night of 2026-12-03: 2 held, 1 rejected, 3 editions``."""
        counts = [(len(self.held), "held"), (len(self.rejected), "rejected"),
                  (len(self.undelivered), "undelivered"), (len(self.rated), "rated"),
                  (len(self.editions), "edition(s)")]
        words = ", ".join(f"{n} {label}" for n, label in counts if n) or "nothing new"
        if self.errors:
            words += f", {len(self.errors)} internal error(s)"
        return clean_header(f"Ratings night of {self.as_of.isoformat()}: {words}")

    def text(self, site_url: str | None = None) -> str:
        """The digest as plain text (Markdown)."""
        out = [f"# {self.subject()}", ""]
        for message in self.errors:
            out += [f"**Internal error:** {escape_controls(message)}", ""]
        for title, lines in self.sections():
            out += [f"## {title}", ""]
            for line in lines:
                where = f" <{_join(site_url, line.link)}>" if site_url and line.link else ""
                out.append(f"- {line.federation.upper()} {escape_controls(line.what)}: {escape_controls(line.detail)}{where}")
            out.append("")
        return "\n".join(out)

    def html(self, site_url: str | None = None) -> str:
        """The digest as an HTML page (every value escaped)."""
        e = html.escape
        body = [f'<h1 style="font-size:1.35rem">{e(self.subject())}</h1>']
        for message in self.errors:
            body.append(f"<p><strong>Internal error:</strong> {e(escape_controls(message))}</p>")
        for title, lines in self.sections():
            body.append(f'<h2 style="font-size:1.1rem;margin-top:1.4rem">{e(title)}</h2><ul>')
            for line in lines:
                what = e(escape_controls(line.what))
                if site_url and line.link:
                    what = f'<a href="{e(_join(site_url, line.link), quote=True)}">{what}</a>'
                body.append(f"<li>{e(line.federation.upper())} {what}: {e(escape_controls(line.detail))}</li>")
            body.append("</ul>")
        return ("<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">"
                f"<title>{e(self.subject())}</title></head>"
                '<body style="font-family:system-ui,-apple-system,Segoe UI,sans-serif;max-width:46rem;'
                'margin:1rem auto;padding:0 1rem;line-height:1.5;color:#1f2933">'
                f"{''.join(body)}</body></html>")


def _join(site_url: str, path: str) -> str:
    return site_url.rstrip("/") + "/" + path.lstrip("/")


def digest_message(*, sender: str, recipient: str, digest: Digest, msgid: str, site_url: str | None) -> EmailMessage:
    """The officer's digest as a message: text and HTML bodies."""
    message = _base(sender, recipient, digest.subject(), msgid)
    message.set_content(digest.text(site_url), subtype="plain", charset="utf-8")
    message.add_alternative(digest.html(site_url), subtype="html", charset="utf-8")
    return message
