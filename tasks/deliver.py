"""E-mail delivery at the end of a night: each new version of a report to its organiser,
the failed ones retried with backoff, and one digest to the rating officer.

The record is the warehouse's ``deliveries`` table (:mod:`warehouse.deliveries`). A
version is queued once (its key is unique) and a row is sent only while it is queued or
failed, so a rerun, or the run after a killed one, sends nothing twice. The one window
left is between the server's acceptance and the record's commit (microseconds): a
message sent again from there carries the same ``Message-ID``
(:func:`delivery.message_id`), so the receiving side can tell.

A failed delivery never stops the night: the task records it (status ``failed``, the
error in one line, the next try with backoff) and the night goes on.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from email.message import EmailMessage
from pathlib import Path

import polars as pl
import sqlalchemy as sa

import warehouse
from delivery import (
    Credentials,
    DeliverySettings,
    Digest,
    DigestLine,
    Mailer,
    SendError,
    credentials_from_environment,
    message_id,
    report_message,
    report_subject,
)
from tasks.runtime import get_run_logger, task
from validations.report import WrittenReport
from warehouse.deliveries import (
    Queued,
    competition_addresses,
    deliveries,
    due_deliveries,
    organiser_for,
    organisers,
    queue_delivery,
    record_attempt,
)
from warehouse.guard import checkpoint
from website.safe import folder_name, page_name

__all__ = ["Delivered", "NightOutcome", "backoff", "deliver_night"]

#: The first retry after this long, then four times longer each time, at most a day.
FIRST_RETRY = dt.timedelta(minutes=5)
LONGEST_RETRY = dt.timedelta(days=1)


def backoff(attempts: int) -> dt.timedelta:
    """How long after its ``attempts``-th failure a delivery is tried again.

    Examples
    --------
    >>> [str(backoff(n)) for n in (1, 2, 3, 6)]
    ['0:05:00', '0:20:00', '1:20:00', '1 day, 0:00:00']
    """
    factor: int = 4 ** max(attempts - 1, 0)
    return min(FIRST_RETRY * factor, LONGEST_RETRY)


@dataclass
class NightOutcome:
    """What the digest tells of the night (filled by the nightly flow)."""

    as_of: dt.date
    statuses: Mapping[str, Mapping[str, str]]   #: federation -> competition -> status
    editions: Mapping[str, Sequence[int]]       #: federation -> editions published tonight
    internal_errors: Mapping[str, str] = field(default_factory=dict)
    federation: str | None = None               #: the run was for this federation only


@dataclass
class Delivered:
    """What delivery did tonight."""

    queued: int = 0
    sent: int = 0
    failed: list[str] = field(default_factory=list)       #: one line each: recipient, report, error
    no_address: list[str] = field(default_factory=list)   #: reports no address was found for
    digest: str | None = None                             #: the digest's outcome (sent, failed: ..., none)

    def lines(self) -> list[str]:
        """The summary's lines about delivery."""
        out = [f"e-mail: {self.sent} message(s) sent, {len(self.failed)} failed"
               + (f", {len(self.no_address)} report(s) without an address (in the digest)" if self.no_address else "")]
        out += [f"  not delivered: {line}" for line in self.failed]
        if self.digest:
            out.append(f"  digest: {self.digest}")
        return out


def _version(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


def _addresses(db: sa.Engine, reports: Sequence[WrittenReport]) -> dict[tuple[str, str], str]:
    """The address each report's file gave (``competitions.organiser_email``)."""
    by_fed: dict[str, list[str]] = {}
    for report in reports:
        by_fed.setdefault(report.federation, []).append(report.competition_id)
    return {(fed, cid): email for fed, ids in by_fed.items()
            for cid, email in competition_addresses(db, fed, ids).items()}


def _credentials(settings: DeliverySettings) -> Credentials | None:
    """The environment's login; the password from the Prefect Secret block when one is named."""
    found = credentials_from_environment()
    if settings.password_secret is None:
        return found
    from prefect.blocks.system import Secret
    from pydantic import SecretStr

    password = Secret.load(settings.password_secret).get()   # type: ignore[union-attr]
    return Credentials(found.user if found else "", SecretStr(str(password)))


def _report_of(row: Queued, settings: DeliverySettings) -> tuple[EmailMessage | None, str | None]:
    """The message of a queued report, or why it cannot be sent (``superseded``: the file
    on disk is a newer version, which has its own row)."""
    if row.report_path is None:
        return None, "the report has no file"
    md = Path(row.report_path)
    try:
        data = md.read_bytes()
    except OSError as error:
        return None, f"the report file {md} cannot be read: {error.strerror or error}"
    if hashlib.sha256(data).hexdigest() != row.version:
        return None, "superseded"
    html_path = md.with_suffix(".html")
    try:
        html_body: str | None = html_path.read_text(encoding="utf-8")
    except OSError:
        html_body = None
    return report_message(
        sender=settings.sender, recipient=row.recipient, subject=row.subject, msgid=row.message_id,
        markdown=data.decode("utf-8", "replace"), html_body=html_body, attachment_name=md.name,
    ), None


def _send_due(db: sa.Engine, mailer: Mailer, settings: DeliverySettings, now: dt.datetime, done: Delivered,
              kind: str) -> None:
    """Attempt every due row of ``kind``; record each outcome as it happens."""
    for row in due_deliveries(db, now):
        if row.kind != kind:
            continue
        message, problem = _report_of(row, settings)
        if problem == "superseded":
            record_attempt(db, row.id, sent=False, superseded=True)
            continue
        checkpoint("deliver")
        try:
            if message is None:
                raise SendError(problem or "nothing to send")
            mailer.send(message)
        except SendError as error:
            attempts = row.attempts + 1
            retry = now + backoff(attempts) if attempts < settings.max_attempts else None
            record_attempt(db, row.id, sent=False, error=str(error), retry_at=retry, when=now)
            later = f"next try after {retry:%Y-%m-%d %H:%M} UTC" if retry else "no more tries: see ratings deliveries"
            done.failed.append(f"{row.recipient} ({row.federation or 'digest'} {row.competition_id}): {error}; {later}")
            if kind == "digest":
                done.digest = f"not sent to {row.recipient}: {error}"
        else:
            record_attempt(db, row.id, sent=True, when=now)
            done.sent += 1
            if kind == "digest":
                done.digest = f"sent to {row.recipient}"
        checkpoint("delivered")


def _digest(outcome: NightOutcome, reports: Sequence[WrittenReport], done: Delivered, db: sa.Engine) -> Digest:
    digest = Digest(outcome.as_of)
    names = {(r.federation, r.competition_id): r for r in reports}
    for fed, statuses in sorted(outcome.statuses.items()):
        for cid, status in sorted(statuses.items()):
            written = names.get((fed, cid))
            detail = status + (f" ({written.name})" if written and written.name else "")
            line = DigestLine(fed, cid, detail, f"{folder_name(fed)}/competitions/{page_name(cid)}")
            if status in ("held", "pending"):
                digest.held.append(line)
            elif status in ("rejected", "unreadable"):
                digest.rejected.append(line)
            else:
                digest.rated.append(line)
    for fed, numbers in sorted(outcome.editions.items()):
        for number in numbers:
            digest.editions.append(DigestLine(fed, f"edition {number}", "published",
                                              f"{folder_name(fed)}/editions/{number}.html"))
    for missing in done.no_address:
        fed, _, rest = missing.partition(" ")
        digest.undelivered.append(DigestLine(fed, rest, "no organiser address (ratings organiser add)"))
    undelivered = deliveries(db, failed=True)
    for row in undelivered.filter(pl.col("kind") == "report").iter_rows(named=True):
        if row["status"] == "failed":
            digest.undelivered.append(DigestLine(
                row["federation"], row["competition_id"],
                f"to {row['recipient']}: {row['last_error']} ({row['attempts']} attempt(s))"))
    digest.errors = [f"{fed}: {line}" for fed, line in sorted(outcome.internal_errors.items())]
    return digest


def _queue_digest(db: sa.Engine, digest: Digest, settings: DeliverySettings, federation: str,
                  reports_dir: Path, now: dt.datetime, done: Delivered) -> None:
    """Write the digest beside the reports (``digests/<night>-<version>.md`` and ``.html``)
    and queue it: a digest that fails is retried from its files, like a report."""
    from formats.safety import atomic_write_text

    text = digest.text(settings.site_url)
    version = hashlib.sha256(text.encode()).hexdigest()
    night = digest.as_of.isoformat()
    md = reports_dir / "digests" / f"{night}-{federation or 'all'}-{version[:12]}.md"
    atomic_write_text(md, text)
    atomic_write_text(md.with_suffix(".html"), digest.html(settings.site_url))
    officer = str(settings.officer)
    msgid = message_id("digest", federation, night, version, officer, settings.sender)
    if queue_delivery(db, kind="digest", federation=federation, competition_id=night, version=version,
                      recipient=officer, subject=digest.subject(), report_path=str(md), message_id=msgid, when=now):
        done.queued += 1


@task(name="deliver_night")
def deliver_night(
    warehouse_url: str | None,
    reports: Sequence[WrittenReport],
    outcome: NightOutcome,
    settings: DeliverySettings,
    reports_dir: str,
    no_delivery: Sequence[str] = (),
    now: dt.datetime | None = None,
) -> Delivered:
    """Queue tonight's new report versions, send what is due, then the officer's digest.

    Parameters
    ----------
    warehouse_url
        The warehouse holding the delivery record and the organiser registry.
    reports
        Every report written tonight (``Published.written``).
    outcome
        The night's statuses, editions and errors, for the digest.
    settings
        The installation's ``[delivery]`` table.
    reports_dir
        The reports folder: the digest is written under its ``digests/``.
    no_delivery
        Federations whose table says ``deliver = false``: their reports are not e-mailed.
    now
        The time of the attempts (default: now).
    """
    logger = get_run_logger()
    now = now or dt.datetime.now(dt.UTC)
    db = warehouse.get_engine(warehouse_url)
    done = Delivered()
    registry = organisers(db)
    addresses = _addresses(db, reports)
    for report in reports:
        if report.federation in no_delivery:
            continue
        path = Path(report.markdown)
        version = _version(path)
        recipient = addresses.get((report.federation, report.competition_id)) or organiser_for(
            registry, report.federation, report.competition_id, None)
        if version is None or recipient is None:
            done.no_address.append(f"{report.federation} {report.competition_id}")
            continue
        subject = report_subject(report.federation, report.competition_id, report.name, report.status)
        msgid = message_id("report", report.federation, report.competition_id, version, recipient, settings.sender)
        if queue_delivery(db, kind="report", federation=report.federation, competition_id=report.competition_id,
                          version=version, recipient=recipient, subject=subject, report_path=str(path),
                          message_id=msgid, when=now):
            done.queued += 1
    broken: str | None = None
    try:
        credentials = _credentials(settings)
    except Exception as error:   # noqa: BLE001 - a missing block fails the sending, not the night
        credentials, broken = None, f"the Prefect Secret block {settings.password_secret!r} cannot be read ({error})"
    wanted = settings.officer is not None and bool(reports or any(outcome.editions.values()) or outcome.internal_errors)
    if wanted:
        # Queued before anything is sent: a run killed while sending still leaves the night's
        # digest queued, and the next run sends it with the rest.
        _queue_digest(db, _digest(outcome, reports, done, db), settings, outcome.federation or "",
                      Path(reports_dir), now, done)
    elif settings.officer is None:
        done.digest = "none: [delivery] names no officer"
    with Mailer(settings, credentials) as mailer:
        if broken is not None:
            mailer.fail_all(broken)   # every due message fails with this line, and is retried later
        _send_due(db, mailer, settings, now, done, "report")
        if wanted and done.failed:
            # What the server refused tonight is in the digest too: this version supersedes the first.
            _queue_digest(db, _digest(outcome, reports, done, db), settings, outcome.federation or "",
                          Path(reports_dir), now, done)
        _send_due(db, mailer, settings, now, done, "digest")
    for line in done.lines():
        logger.info("%s", line)
    return done
