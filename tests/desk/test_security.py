"""The desk's security, request by request, against the real app (Starlette's TestClient):
who may see what, CSRF, sessions and cookies, the sign-in rate limit, hostile uploads."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from desk.app import create_app
from desk.uploads import MAX_UPLOAD_BYTES, MAX_UPLOAD_FILES
from flows.desk import desk_pipeline
from tests.desk.conftest import PASSWORDS, SAMPLE, Installation, csrf_of, night, sign_in
from tests.formats.test_opengotha import DOC
from warehouse import accounts

GOOD = (SAMPLE / "CAT-2025-01.results.csv").read_bytes()
# The entity bomb of the OpenGotha reader's tests, in a tournament file of a Go organiser.
BOMB = DOC.replace('<?xml version="1.0" encoding="UTF-8"?>',
                   '<?xml version="1.0"?><!DOCTYPE t [<!ENTITY a "aaaa"><!ENTITY b "&a;&a;&a;">]>').encode()

BACKENDS = pytest.mark.parametrize("installation", ["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)],
                                   indirect=True)


def _client(installation: Installation, **options: Any) -> TestClient:
    return TestClient(create_app(installation.inbox, installation.url, pipeline=desk_pipeline(), **options))


def _signed(installation: Installation, user: str) -> TestClient:
    client = _client(installation)
    assert sign_in(client, user).status_code == 303
    return client


def _upload(client: TestClient, *files: tuple[str, bytes]) -> Any:
    token = csrf_of(client.get("/upload").text)
    return client.post("/upload", data={"csrf": token}, files=[("files", (n, d, "text/csv")) for n, d in files])


def _upload_id(response: Any) -> str:
    found = re.search(r"/uploads/([A-Za-z0-9_-]+)", str(response.url))
    assert found, response.text
    return found.group(1)


def _inbox_files(installation: Installation) -> list[Path]:
    return sorted(p for p in installation.inbox.rglob("*")
                  if p.is_file() and not any(part.startswith(".") for part in p.relative_to(installation.inbox).parts))


def test_unauthenticated_requests_are_refused(installation: Installation) -> None:
    client = _client(installation)
    for path in ("/upload", "/officer", "/uploads/abc", "/uploads/abc/report/0", "/competitions/ajusc/CAT-2025-01"):
        response = client.get(path, follow_redirects=False)
        assert (response.status_code, response.headers["location"]) == (303, "/signin"), path
    for path in ("/upload", "/uploads/abc/confirm", "/officer/decide", "/officer/accounts", "/signout"):
        assert client.post(path, data={"csrf": "x"}).status_code == 401, path
    # A cookie that is not signed by the desk opens nothing.
    client.cookies.set("desk_session", "forged-token")
    assert client.get("/upload", follow_redirects=False).status_code == 303


@BACKENDS
def test_an_organiser_reads_only_their_own_uploads_and_competitions(installation: Installation) -> None:
    anna, bernat = _signed(installation, "anna"), _signed(installation, "bernat")
    shown = _upload(anna, ("CAT-2025-01.results.csv", GOOD))
    upload_id = _upload_id(shown)
    assert "Obert de Tardor de Girona" in shown.text
    for path in (f"/uploads/{upload_id}", f"/uploads/{upload_id}/report/0"):
        assert anna.get(path).status_code == 200
        other = bernat.get(path)
        assert other.status_code == 404 and "Obert de Tardor" not in other.text, path
    token = csrf_of(bernat.get("/upload").text)
    assert bernat.post(f"/uploads/{upload_id}/confirm", data={"csrf": token}).status_code == 404
    assert _inbox_files(installation) == []
    confirmed = anna.post(f"/uploads/{upload_id}/confirm", data={"csrf": csrf_of(anna.get('/upload').text)})
    assert confirmed.status_code == 200 and 'id="placed"' in confirmed.text
    (placed,) = _inbox_files(installation)
    assert placed.relative_to(installation.inbox).parts[:2] == ("ajusc", "anna")
    assert placed.read_bytes() == GOOD
    night(installation)
    assert "CAT-2025-01" in anna.get("/upload").text
    assert "CAT-2025-01" not in bernat.get("/upload").text
    assert anna.get("/competitions/ajusc/CAT-2025-01").status_code == 200
    assert bernat.get("/competitions/ajusc/CAT-2025-01").status_code == 404
    # Organisers never reach the officer's pages or forms.
    assert anna.get("/officer").status_code == 403
    decided = anna.post("/officer/decide", data={"csrf": csrf_of(anna.get("/upload").text), "federation": "ajusc",
                                                 "competition_id": "CAT-2025-01", "decision": "approve"})
    assert decided.status_code == 403


def test_forged_or_missing_csrf_tokens_are_refused(installation: Installation) -> None:
    anna = _signed(installation, "anna")
    marta = _signed(installation, "marta")
    for data in ({}, {"csrf": ""}, {"csrf": "forged"}, {"csrf": csrf_of(marta.get("/officer").text)}):
        response = anna.post("/upload", data=data, files=[("files", ("a.results.csv", GOOD, "text/csv"))])
        assert response.status_code == 403 and "did not come from this desk" in response.text
    refused = marta.post("/officer/accounts", data={"csrf": "forged", "action": "add", "username": "mallory",
                                                    "role": "officer", "password": "mallory-password"})
    assert refused.status_code == 403 and accounts.account(installation.engine, "mallory") is None
    # The sign-in form's token is bound to the browser's pre-session cookie.
    fresh = _client(installation)
    assert fresh.post("/signin", data={"csrf": "x", "username": "anna", "password": PASSWORDS["anna"]},
                      follow_redirects=False).status_code == 403
    assert _inbox_files(installation) == [] and not list((installation.inbox / ".desk").glob("*"))


def test_session_is_rotated_at_sign_in_and_cookies_are_flagged(installation: Installation) -> None:
    client = _client(installation)
    first = sign_in(client, "anna")
    cookie = first.headers["set-cookie"]
    assert "desk_session=" in cookie and "HttpOnly" in cookie and "SameSite=strict" in cookie and "Path=/" in cookie
    assert "Secure" not in cookie   # plain HTTP on localhost; behind TLS, see below
    before = client.cookies.get("desk_session")
    # Signing in again (or as someone else) gives a new session id; the old one is dead.
    sign_in(client, "anna")
    after = client.cookies.get("desk_session")
    assert after and before and after != before
    stale = _client(installation)
    stale.cookies.set("desk_session", before, domain="testserver.local")
    assert stale.get("/upload", follow_redirects=False).status_code == 303
    # A session id planted before sign-in (fixation) is not the one the sign-in gives.
    victim = _client(installation)
    victim.cookies.set("desk_session", after, domain="testserver.local")
    given = sign_in(victim, "bernat").headers["set-cookie"]
    assert "desk_session=" in given and f"desk_session={after}" not in given
    assert "bernat" in victim.get("/upload").text and "anna" in client.get("/upload").text
    secure = _client(installation, secure_cookies=True)
    assert "Secure" in sign_in(secure, "anna").headers["set-cookie"]
    # Signing out ends the session on the server, not only in the browser.
    token = client.cookies.get("desk_session")
    assert token is not None
    client.post("/signout", data={"csrf": csrf_of(client.get("/upload").text)})
    replay = _client(installation)
    replay.cookies.set("desk_session", token, domain="testserver.local")
    assert replay.get("/upload", follow_redirects=False).status_code == 303


@BACKENDS
def test_sign_in_attempts_are_rate_limited_per_user_and_per_address(installation: Installation) -> None:
    client = _client(installation)
    for _ in range(accounts.MAX_FAILURES_PER_USER):
        assert sign_in(client, "anna", "wrong-password").status_code == 401
    # Now even the right password is refused for a while, with a clear message.
    throttled = sign_in(client, "anna")
    assert throttled.status_code == 429 and "Too many failed sign-ins" in throttled.text
    assert sign_in(client, "bernat").status_code == 303   # another user from this address is still let in
    for n in range(accounts.MAX_FAILURES_PER_ADDRESS):
        sign_in(client, f"nobody{n}", "wrong-password")
    assert sign_in(client, "marta").status_code == 429   # the address is refused now
    # Refused attempts are not counted as failures: anna's 5 and 15 of the 20 reach the address's
    # limit, the last 5 are refused, then marta: 1 + 5 + 1 refusals, each recorded.
    log = accounts.audit_log(installation.engine)
    assert log.filter(log["action"] == "signin.throttled").height == 7


def test_a_disabled_account_cannot_sign_in_and_its_sessions_end(installation: Installation) -> None:
    anna = _signed(installation, "anna")
    marta = _signed(installation, "marta")
    done = marta.post("/officer/accounts", data={"csrf": csrf_of(marta.get("/officer").text), "action": "disable",
                                                 "username": "anna"})
    assert done.status_code == 200
    assert anna.get("/upload", follow_redirects=False).status_code == 303
    assert sign_in(_client(installation), "anna").status_code == 401


def test_oversize_uploads_are_refused_with_a_clear_message(installation: Installation) -> None:
    anna = _signed(installation, "anna")
    token = csrf_of(anna.get("/upload").text)
    huge = b"x" * (MAX_UPLOAD_BYTES + 1)
    response = anna.post("/upload", data={"csrf": token}, files=[("files", ("big.results.csv", huge, "text/csv"))])
    assert response.status_code == 413 and "The upload is too large: at most 64 MiB" in response.text

    def chunks() -> Any:   # no Content-Length: counted as it arrives
        boundary = b"--b\r\nContent-Disposition: form-data; name=\"files\"; filename=\"big.csv\"\r\n\r\n"
        yield boundary
        for _ in range(65):
            yield b"y" * (1024 * 1024)

    streamed = anna.post("/upload", content=chunks(), headers={"content-type": "multipart/form-data; boundary=b"})
    assert streamed.status_code == 413
    many = [("files", (f"f{n}.results.csv", GOOD, "text/csv")) for n in range(MAX_UPLOAD_FILES + 1)]
    too_many = anna.post("/upload", data={"csrf": token}, files=many)
    assert too_many.status_code == 400 and "Too many files" in too_many.text
    assert _inbox_files(installation) == [] and not list((installation.inbox / ".desk").glob("*"))


def test_hostile_uploads_are_refused_and_nothing_leaves_the_inbox(installation: Installation) -> None:
    anna = _signed(installation, "anna")
    outside = installation.root / "x.csv"
    for name, message in (("../../x.csv", "send the file itself, with no folder in its name"),
                          ("..\\..\\x.csv", "no folder in its name"),
                          (".hidden.results.csv", "a name that starts with a dot"),
                          ("ajusc.ratings.csv", "a starting rating list is imported by the rating officer")):
        response = _upload(anna, (name, GOOD))
        assert response.status_code == 400 and message in response.text, name
    assert not outside.exists()
    accounts.add_account(installation.engine, "gorka", accounts.hash_password("gorka-password"), "organiser", "egf")
    gorka = _client(installation)
    assert sign_in(gorka, "gorka", "gorka-password").status_code == 303
    bomb = _upload(gorka, ("bomb.xml", BOMB))
    assert bomb.status_code == 200 and 'id="outcome">rejected' in bomb.text
    assert "format.xml.forbidden" in bomb.text and "aaaaaaaa" not in bomb.text
    refused = gorka.post(f"/uploads/{_upload_id(bomb)}/confirm", data={"csrf": csrf_of(bomb.text)})
    assert refused.status_code == 409 and "The pre-check rejected this upload" in refused.text
    assert _inbox_files(installation) == []


def test_hostile_names_are_escaped(installation: Installation) -> None:
    anna = _signed(installation, "anna")
    hostile = GOOD.replace(b"Obert de Tardor de Girona", b"<script>alert(1)</script><img src=x onerror=alert(2)>")
    response = _upload(anna, ("<b>open<b>.results.csv", hostile))
    assert response.status_code == 200
    assert "<script>alert(1)" not in response.text and "<img src=x" not in response.text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in response.text
    assert "_b_open_b_.results.csv" in response.text   # the stored name is a safe one
    full = anna.get(f"/uploads/{_upload_id(response)}/report/0")
    assert "<script>alert(1)" not in full.text and "script-src" not in full.headers["content-security-policy"]
    assert full.headers["content-security-policy"].startswith("default-src 'none'")


def test_security_headers_and_only_the_desks_own_files_are_served(installation: Installation) -> None:
    client = _client(installation)
    page = client.get("/signin")
    assert page.headers["content-security-policy"].startswith("default-src 'none'; style-src 'self'")
    assert page.headers["x-frame-options"] == "DENY" and page.headers["x-content-type-options"] == "nosniff"
    assert page.headers["cache-control"] == "no-store"
    assert client.get("/static/desk.css").status_code == 200
    for path in ("/static/../app.py", "/static/%2e%2e/app.py", "/templates/base.html", "/desk/app.py",
                 "/static/../../pyproject.toml"):
        assert client.get(path).status_code == 404, path


def test_every_action_is_recorded_with_who_and_when(installation: Installation) -> None:
    anna = _signed(installation, "anna")
    sign_in(_client(installation), "bernat", "wrong-password")
    shown = _upload(anna, ("CAT-2025-01.results.csv", GOOD))
    anna.post(f"/uploads/{_upload_id(shown)}/confirm", data={"csrf": csrf_of(shown.text)})
    log = accounts.audit_log(installation.engine)
    rows = log.select("who", "action").rows()
    assert ("anna", "signin") in rows and ("bernat", "signin.failed") in rows
    assert ("anna", "upload") in rows and ("anna", "upload.confirm") in rows
    assert log.get_column("at").null_count() == 0


@pytest.mark.parametrize("decision", ["decline"])
def test_a_decline_without_a_reason_is_refused_in_one_line(installation: Installation, decision: str) -> None:
    marta = _signed(installation, "marta")
    response = marta.post("/officer/decide", data={"csrf": csrf_of(marta.get("/officer").text),
                                                   "federation": "ajusc", "competition_id": "NOPE",
                                                   "decision": decision, "note": ""})
    assert response.status_code == 400 and "a decline needs a reason" in response.text


def test_the_officer_page_links_the_prefect_ui_where_one_is_configured(
    installation: Installation, monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert "Prefect UI" not in _signed(installation, "marta").get("/officer").text
    monkeypatch.setenv("PREFECT_UI_URL", "http://127.0.0.1:4200")
    page = _signed(installation, "marta").get("/officer").text
    assert '<a href="http://127.0.0.1:4200/runs">The runs in the Prefect UI</a>' in page


def test_the_officer_sees_the_undelivered_reports_escaped(installation: Installation) -> None:
    from warehouse import deliveries

    db = installation.engine
    deliveries.queue_delivery(db, kind="report", federation="ajusc", competition_id="CAT-2025-01", version="v1",
                              recipient="org@example.org", subject="s", report_path=None, message_id="<m1@x>")
    (row,) = deliveries.deliveries(db).iter_rows(named=True)
    deliveries.record_attempt(db, row["id"], sent=False, error="550 <b>mailbox unavailable</b>")
    page = _signed(installation, "marta").get("/officer").text
    section = page.split('id="undelivered"', 1)[1].split("</section>", 1)[0]
    assert "Undelivered reports (1)" in section and "org@example.org" in section and "CAT-2025-01" in section
    assert "550 &lt;b&gt;mailbox unavailable&lt;/b&gt;" in section and "<b>mailbox" not in section
