"""The desk's web application (Starlette): pages, forms, sessions and the security around them.

Organisers sign in, upload one or more result files, read at once the report the next
night will give (the pre-check, :func:`flows.check.check`: the same code as ``ratings
check``), and confirm: the files go into ``<inbox>/<federation>/<user>/``. They see their
own uploads and competitions, and no one else's. The rating officer sees the held
competitions with their reasons and approves or declines each with a note
(:func:`warehouse.decisions.decide`, the row ``ratings approve`` writes), the night's
outcomes, the undelivered reports, the last runs, and manages the accounts.

Security: argon2id password hashes (``warehouse.accounts``); a session cookie that is
signed (``itsdangerous``), HttpOnly and SameSite=Strict, whose random token is replaced at
every sign-in; a CSRF token on every form (bound to the session; the sign-in form's to a
signed pre-session cookie); sign-in attempts limited per user name and per address;
uploads bounded in size and count (the readers' limits, ``desk.uploads``); every action
recorded in ``desk_audit``; templates autoescaped; a Content-Security-Policy that lets
the pages load nothing but the desk's own style sheet.
"""

from __future__ import annotations

import contextvars
import hashlib
import json
import os
import secrets
import shutil
import tempfile
import threading
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jinja2
from itsdangerous import BadSignature, URLSafeTimedSerializer
from starlette.applications import Starlette
from starlette.datastructures import FormData, UploadFile
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

import warehouse
from desk.uploads import (
    MAX_UPLOAD_BYTES,
    MAX_UPLOAD_FILES,
    UploadError,
    check_name,
    place_in_inbox,
    remove_stale,
    staging,
)
from formats.limits import MAX_FILE_BYTES
from warehouse.accounts import AccountError, AccountInfo

__all__ = ["SECRET_ENV", "create_app"]

#: The key that signs the desk's cookies (``RATINGS_DESK_SECRET``); unset, a random one per
#: process (every browser signs in again after a restart).
SECRET_ENV = "RATINGS_DESK_SECRET"
SESSION_COOKIE = "desk_session"
PRESIGN_COOKIE = "desk_presign"
HERE = Path(__file__).resolve().parent
#: Every page: nothing but the desk's own style sheet and forms to the desk itself.
CSP = ("default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; "
       "frame-ancestors 'none'; base-uri 'none'")
#: A full report page (the nightly's own HTML, its style inline): still no script, no request out.
REPORT_CSP = "default-src 'none'; style-src 'unsafe-inline'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'"


class UploadTooLarge(ValueError):
    """A request body over the upload limit."""


class _BodyLimit:
    """Refuse a request body over :data:`MAX_UPLOAD_BYTES`: by its ``Content-Length`` before it
    is read, and by counting what arrives when it has none (chunked)."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        length = dict(scope["headers"]).get(b"content-length")
        if length is not None and (not length.isdigit() or int(length) > self.limit):
            scope.setdefault("state", {})["too_large"] = True
            await self.app(scope, _empty_body, send)
            return
        seen = 0

        async def counted() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.limit:
                    raise UploadTooLarge("over the limit")
            return message

        await self.app(scope, counted, send)


async def _empty_body() -> Message:
    return {"type": "http.request", "body": b"", "more_body": False}


class _SecurityHeaders:
    """The headers every response carries (CSP, no sniffing, no framing, no referrer, no cache)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [(k, v) for k, v in message.get("headers", []) if k.lower() != b"content-security-policy"]
                own = dict(message.get("headers", []))
                headers += [
                    (b"content-security-policy", own.get(b"content-security-policy", CSP.encode())),
                    (b"x-content-type-options", b"nosniff"),
                    (b"x-frame-options", b"DENY"),
                    (b"referrer-policy", b"no-referrer"),
                    (b"cross-origin-opener-policy", b"same-origin"),
                ]
                if not scope["path"].startswith("/static/"):
                    headers.append((b"cache-control", b"no-store"))
                message["headers"] = headers
            await send(message)

        await self.app(scope, receive, with_headers)


@dataclass
class Desk:
    """What the handlers share: the warehouse, the inbox, the templates and the cookie signer."""

    engine: Any
    warehouse_url: str | None
    inbox: Path
    templates: jinja2.Environment
    signer: URLSafeTimedSerializer
    check_lock: threading.Lock
    prefect_ui: str | None
    secure_cookies: bool


@dataclass(frozen=True)
class Signed:
    """The signed-in person of a request."""

    account: AccountInfo
    token: str
    csrf: str


def _desk(request: Request) -> Desk:
    desk: Desk = request.app.state.desk
    return desk


def _address(request: Request) -> str:
    return request.client.host if request.client else "unknown"


def _page(request: Request, template: str, status: int = 200, **values: Any) -> HTMLResponse:
    desk = _desk(request)
    signed: Signed | None = getattr(request.state, "signed", None)
    body = desk.templates.get_template(template).render(
        signed=signed.account if signed else None, csrf=signed.csrf if signed else "", **values)
    return HTMLResponse(body, status_code=status)


def _refused(request: Request, status: int, message: str) -> HTMLResponse:
    return _page(request, "message.html", status=status, title="Refused", message=message)


def _set_cookie(response: Response, desk: Desk, name: str, value: str, max_age: int | None = None) -> None:
    response.set_cookie(name, value, max_age=max_age, httponly=True, samesite="strict", secure=desk.secure_cookies,
                        path="/")


def _signed(request: Request) -> Signed | None:
    """The live session of the request's cookie (signature, expiry, account enabled), or ``None``."""
    desk = _desk(request)
    raw = request.cookies.get(SESSION_COOKIE)
    if not raw:
        return None
    try:
        token = str(desk.signer.loads(raw, salt="session", max_age=warehouse.accounts.SESSION_HOURS * 3600))
    except BadSignature:
        return None
    found = warehouse.accounts.session_account(desk.engine, token)
    if found is None:
        return None
    return Signed(account=found[0], token=token, csrf=found[1])


Handler = Callable[[Request], Awaitable[Response]]


def _requires(role: str | None = None, *, form: bool = False) -> Callable[[Handler], Handler]:
    """A page for signed-in people (``role``: only them); ``form``: a POST whose CSRF token must
    match the session's."""

    def wrap(handler: Handler) -> Handler:
        async def guarded(request: Request) -> Response:
            signed = _signed(request)
            if signed is None:
                if request.method == "GET":
                    return RedirectResponse("/signin", status_code=303)
                return _refused(request, 401, "Sign in first.")
            request.state.signed = signed
            if role is not None and signed.account.role != role:
                return _refused(request, 403, "This page is not for your account.")
            if form:
                if getattr(request.state, "too_large", False):
                    return _too_large(request)
                try:
                    data = await request.form(max_files=MAX_UPLOAD_FILES, max_fields=50)
                except UploadTooLarge:
                    return _too_large(request)
                except Exception as error:   # noqa: BLE001 - Starlette's MultiPartException, a bad body
                    return _refused(request, 400, f"The form could not be read: {error}")
                try:
                    if not secrets.compare_digest(str(data.get("csrf") or ""), signed.csrf):
                        return _refused(request, 403, "The form has expired or did not come from this desk: "
                                                      "open the page again and send it from there.")
                    request.state.form = data
                    return await handler(request)
                finally:
                    await data.close()   # the spooled files of the upload
            return await handler(request)

        return guarded

    return wrap


def _too_large(request: Request) -> HTMLResponse:
    return _refused(request, 413, f"The upload is too large: at most {MAX_FILE_BYTES // (1024 * 1024)} MiB in all "
                                  f"(the inbox's limit for one file) and {MAX_UPLOAD_FILES} files.")


def _form(request: Request) -> FormData:
    data: FormData = request.state.form
    return data


def _audit(request: Request, action: str, target: str | None = None, detail: str | None = None,
           who: str | None = None) -> None:
    signed: Signed | None = getattr(request.state, "signed", None)
    warehouse.accounts.audit(_desk(request).engine, who or (signed.account.username if signed else "-"), action,
                             target, detail, _address(request))


# --- sign-in -------------------------------------------------------------------------------


async def home(request: Request) -> Response:
    signed = _signed(request)
    if signed is None:
        return RedirectResponse("/signin", status_code=303)
    return RedirectResponse("/officer" if signed.account.role == "officer" else "/upload", status_code=303)


async def signin_page(request: Request, message: str | None = None, status: int = 200) -> Response:
    desk = _desk(request)
    token = secrets.token_urlsafe(32)
    response = _page(request, "signin.html", status=status, presign=token, message=message)
    _set_cookie(response, desk, PRESIGN_COOKIE, desk.signer.dumps(token, salt="presign"), max_age=3600)
    return response


async def signin(request: Request) -> Response:
    desk = _desk(request)
    if getattr(request.state, "too_large", False):
        return _too_large(request)
    async with request.form(max_files=0, max_fields=10) as data:
        return await _signin(request, desk, data)


async def _signin(request: Request, desk: Desk, data: FormData) -> Response:
    try:
        expected = str(desk.signer.loads(request.cookies.get(PRESIGN_COOKIE, ""), salt="presign", max_age=3600))
    except BadSignature:
        expected = ""
    if not expected or not secrets.compare_digest(str(data.get("csrf") or ""), expected):
        return await signin_page(request, "The sign-in form expired: try again.", 403)
    username = str(data.get("username") or "").strip()[:200]
    password = str(data.get("password") or "")
    address = _address(request)
    if warehouse.accounts.login_refused(desk.engine, username, address):
        warehouse.accounts.audit(desk.engine, username or "-", "signin.throttled", username, None, address)
        return await signin_page(
            request, f"Too many failed sign-ins: wait {warehouse.accounts.THROTTLE_MINUTES} minutes and try again.", 429)
    found = warehouse.accounts.record_login(desk.engine, username, password, address)
    if found is None:
        warehouse.accounts.audit(desk.engine, username or "-", "signin.failed", username, None, address)
        return await signin_page(request, "Wrong user name or password (or the account is disabled).", 401)
    # A new session id at every sign-in: a token planted before it (fixation) opens nothing.
    previous = None
    raw = request.cookies.get(SESSION_COOKIE)
    if raw:
        try:
            previous = str(desk.signer.loads(raw, salt="session"))
        except BadSignature:
            previous = None
    token, _ = warehouse.accounts.new_session(desk.engine, found.username, replaces=previous)
    warehouse.accounts.audit(desk.engine, found.username, "signin", found.username, None, address)
    response = RedirectResponse("/officer" if found.role == "officer" else "/upload", status_code=303)
    _set_cookie(response, desk, SESSION_COOKIE, desk.signer.dumps(token, salt="session"),
                max_age=warehouse.accounts.SESSION_HOURS * 3600)
    response.delete_cookie(PRESIGN_COOKIE, path="/")
    return response


@_requires(form=True)
async def signout(request: Request) -> Response:
    signed: Signed = request.state.signed
    warehouse.accounts.end_session(_desk(request).engine, signed.token)
    _audit(request, "signout", signed.account.username)
    response = RedirectResponse("/signin", status_code=303)
    response.delete_cookie(SESSION_COOKIE, path="/")
    return response


# --- organisers: upload, pre-check, confirm ------------------------------------------------------


def _own_view(request: Request) -> dict[str, Any]:
    desk = _desk(request)
    signed: Signed = request.state.signed
    user = signed.account
    own = warehouse.accounts.desk_competitions(desk.engine, checksums=warehouse.accounts.own_checksums(
        desk.engine, user.username))
    return {"uploads": warehouse.accounts.uploads(desk.engine, user.username, limit=20),
            "competitions": own.to_dicts(),
            "limits": {"files": MAX_UPLOAD_FILES, "mib": MAX_FILE_BYTES // (1024 * 1024)}}


@_requires("organiser")
async def upload_page(request: Request) -> Response:
    return _page(request, "upload.html", **_own_view(request))


def _run_check(desk: Desk, paths: list[str], federation: str) -> list[dict[str, Any]]:
    """The pre-check of ``paths`` (``flows.check``: the report the next night would give), one at a
    time, outside any Prefect run (the desk's own flow run must not gather every check's tasks)."""
    from flows.check import check
    from tasks.check import report_record
    from tasks.lookup import render_reports

    with desk.check_lock:
        reports = contextvars.Context().run(check.fn, paths=paths, federation=federation,
                                            warehouse_url=desk.warehouse_url)
        pages = render_reports.fn(reports, "html")
    records = []
    for report, page in zip(reports, pages, strict=True):
        record = report_record(report)
        record["name"] = report.name
        record["html"] = page
        records.append(record)
    return records


_WORST = ("rejected", "held", "accepted_with_exclusions", "accepted")


def _outcome(records: list[dict[str, Any]], missing: list[str]) -> str:
    statuses = {str(r["status"]) for r in records}
    if missing or not records:
        return "rejected"
    return next((s for s in _WORST if s in statuses), min(statuses))


@_requires("organiser", form=True)
async def upload(request: Request) -> Response:
    desk = _desk(request)
    signed: Signed = request.state.signed
    user = signed.account
    files = [f for f in _form(request).getlist("files") if isinstance(f, UploadFile)]
    files = [f for f in files if f.filename or f.size]
    if not files:
        return _page(request, "upload.html", status=400, error="Choose one or more result files to send.",
                     **_own_view(request))
    try:
        names = [check_name(f.filename) for f in files]
        if len(set(names)) != len(names):
            raise UploadError("two files of the upload have the same name: send each once")
    except UploadError as error:
        _audit(request, "upload.refused", None, str(error))
        return _page(request, "upload.html", status=400, error=str(error), **_own_view(request))
    federation = user.federation or "unknown"
    root = desk.inbox / ".desk"
    root.mkdir(parents=True, exist_ok=True)
    remove_stale(desk.inbox)
    folder = Path(tempfile.mkdtemp(prefix="up-", dir=root))
    sums: list[tuple[str, str, int]] = []
    try:
        for name, item in zip(names, files, strict=True):
            digest = hashlib.sha256()
            size = 0
            with (folder / name).open("xb") as out:
                while chunk := await item.read(1024 * 1024):
                    size += len(chunk)
                    if size > MAX_FILE_BYTES:
                        raise UploadError(f"{name}: over {MAX_FILE_BYTES // (1024 * 1024)} MiB, the inbox's limit")
                    digest.update(chunk)
                    out.write(chunk)
            sums.append((name, digest.hexdigest(), size))
        from starlette.concurrency import run_in_threadpool

        records = await run_in_threadpool(_run_check, desk, [str(folder / n) for n in names], federation)
    except (UploadError, ValueError, OSError) as error:
        shutil.rmtree(folder, ignore_errors=True)
        _audit(request, "upload.refused", None, str(error).splitlines()[0] if str(error) else type(error).__name__)
        return _page(request, "upload.html", status=400, error=str(error).splitlines()[0], **_own_view(request))
    reported = {str(r["source"]) for r in records}
    missing = [n for n in names if n not in reported]
    outcome = _outcome(records, missing)
    upload_id = warehouse.accounts.record_upload(desk.engine, user.username, federation, outcome, sums)
    target = staging(desk.inbox, upload_id)
    os.rename(folder, target)
    (target / ".report.json").write_text(json.dumps({"reports": records, "missing": missing}, default=str),
                                         encoding="utf-8")
    _audit(request, "upload", upload_id, f"{len(names)} file(s): {', '.join(names)}; {outcome}")
    return RedirectResponse(f"/uploads/{upload_id}", status_code=303)


def _own_upload(request: Request) -> warehouse.accounts.Upload | None:
    """The upload of the address, when the signed-in person may see it (its organiser, or the officer)."""
    signed: Signed = request.state.signed
    owner = None if signed.account.role == "officer" else signed.account.username
    return warehouse.accounts.upload(_desk(request).engine, str(request.path_params["upload_id"]), owner)


def _stored_report(desk: Desk, found: warehouse.accounts.Upload) -> dict[str, Any]:
    try:
        data: dict[str, Any] = json.loads((staging(desk.inbox, found.id) / ".report.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {"reports": [], "missing": []}
    return data


@_requires()
async def upload_report(request: Request) -> Response:
    desk = _desk(request)
    found = _own_upload(request)
    if found is None:
        return _refused(request, 404, "No such upload among yours.")
    stored = _stored_report(desk, found)
    confirmable = found.confirmed_at is None and found.outcome != "rejected" and bool(stored["reports"])
    return _page(request, "report.html", upload=found, reports=stored["reports"], missing=stored["missing"],
                 confirmable=confirmable, placed=request.query_params.get("placed") == "1")


@_requires()
async def upload_full_report(request: Request) -> Response:
    desk = _desk(request)
    found = _own_upload(request)
    if found is None:
        return _refused(request, 404, "No such upload among yours.")
    reports = _stored_report(desk, found)["reports"]
    try:
        page = str(reports[int(request.path_params["n"])]["html"])
    except (IndexError, KeyError):
        return _refused(request, 404, "No such report.")
    return HTMLResponse(page, headers={"content-security-policy": REPORT_CSP})


@_requires("organiser", form=True)
async def confirm(request: Request) -> Response:
    desk = _desk(request)
    signed: Signed = request.state.signed
    found = _own_upload(request)
    if found is None:
        return _refused(request, 404, "No such upload among yours.")
    if found.confirmed_at is not None:
        return _refused(request, 409, "This upload is in the inbox already.")
    if found.outcome == "rejected":
        return _refused(request, 409, "The pre-check rejected this upload: correct the file and upload it again.")
    names = [f.name for f in found.files]
    try:
        placed = place_in_inbox(desk.inbox, found.federation, signed.account.username, found.id,
                                staging(desk.inbox, found.id), names)
    except (UploadError, OSError) as error:
        return _refused(request, 409, str(error))
    for name, path in zip(names, placed, strict=True):
        warehouse.accounts.confirm_file(desk.engine, found.id, name, path)
    _audit(request, "upload.confirm", found.id, "; ".join(placed))
    return RedirectResponse(f"/uploads/{found.id}?placed=1", status_code=303)


@_requires()
async def competition_page(request: Request) -> Response:
    """A competition's report from the warehouse: its organiser's own, or any for the officer."""
    from tasks.lookup import read_reports, render_reports

    desk = _desk(request)
    signed: Signed = request.state.signed
    federation, competition_id = str(request.path_params["federation"]), str(request.path_params["cid"])
    if signed.account.role != "officer":
        own = warehouse.accounts.desk_competitions(desk.engine, checksums=warehouse.accounts.own_checksums(
            desk.engine, signed.account.username))
        if not own.filter((own["federation"] == federation) & (own["competition_id"] == competition_id)).height:
            return _refused(request, 404, "No such competition among yours.")
    reports = read_reports.fn(desk.warehouse_url, competition_id, federation)
    if not reports:
        return _refused(request, 404, "No such competition.")
    return HTMLResponse(render_reports.fn(reports[:1], "html")[0], headers={"content-security-policy": REPORT_CSP})


# --- the rating officer ------------------------------------------------------------------------


def _held(desk: Desk) -> list[dict[str, Any]]:
    held = warehouse.accounts.desk_competitions(desk.engine, status="held").to_dicts()
    for row in held:
        detail = warehouse.competition_report(desk.engine, row["competition_id"], federation=row["federation"])
        findings = detail.findings
        row["reasons"] = findings.filter(findings["severity"] == "hold").to_dicts() if findings.height else []
    return held


@_requires("officer")
async def officer_page(request: Request) -> Response:
    return _officer(request)


def _officer(request: Request, message: str | None = None, status: int = 200) -> Response:
    desk = _desk(request)
    undelivered = warehouse.deliveries.deliveries(desk.engine, failed=True).head(50).to_dicts()
    return _page(
        request, "officer.html", status=status, message=message, failed=status >= 400, held=_held(desk),
        outcomes=warehouse.accounts.desk_competitions(desk.engine, limit=50).to_dicts(),
        undelivered=undelivered, loads=warehouse.accounts.last_loads(desk.engine).to_dicts(),
        prefect_ui=desk.prefect_ui, accounts=warehouse.accounts.accounts(desk.engine),
        audit=warehouse.accounts.audit_log(desk.engine, 30).to_dicts(),
        uploads=warehouse.accounts.uploads(desk.engine, limit=20),
    )


@_requires("officer", form=True)
async def decide(request: Request) -> Response:
    desk = _desk(request)
    signed: Signed = request.state.signed
    data = _form(request)
    federation, competition_id = str(data.get("federation") or ""), str(data.get("competition_id") or "")
    decision, note = str(data.get("decision") or ""), str(data.get("note") or "").strip()[:2000]
    try:
        status = warehouse.decisions.decide(desk.engine, federation, competition_id, decision, note=note or None,
                                            who=signed.account.username)
    except ValueError as error:
        return _officer(request, str(error), 400)
    _audit(request, f"decision.{decision}", f"{federation}/{competition_id}", note or None)
    verb = "approved" if decision == "approve" else "declined"
    return _officer(
        request, f"{competition_id} {verb}: now {status}" + (", the next night rates it." if status == "accepted" else "."))


@_requires("officer", form=True)
async def manage_accounts(request: Request) -> Response:
    desk = _desk(request)
    data = _form(request)
    action, username = str(data.get("action") or ""), str(data.get("username") or "").strip()
    try:
        if action == "add":
            role = str(data.get("role") or "organiser")
            federation = str(data.get("federation") or "").strip() or None
            from flows.config import federation_config

            if federation is not None:
                federation_config(federation)
            warehouse.accounts.add_account(desk.engine, username,
                                           warehouse.accounts.hash_password(str(data.get("password") or "")),
                                           role, federation)
        elif action == "reset":
            warehouse.accounts.set_password(desk.engine, username,
                                            warehouse.accounts.hash_password(str(data.get("password") or "")))
        elif action in ("disable", "enable"):
            warehouse.accounts.set_disabled(desk.engine, username, action == "disable")
        else:
            raise AccountError(f"unknown action {action!r}")
    except ValueError as error:
        return _officer(request, str(error), 400)
    _audit(request, f"account.{action}", username)
    return _officer(request, f"account {username}: {action} done")


def create_app(inbox: str | Path, warehouse_url: str | None = None, *, secret: str | None = None,
               secure_cookies: bool | None = None) -> Starlette:
    """The desk's application for the inbox ``inbox`` and the warehouse ``warehouse_url``.

    Parameters
    ----------
    inbox
        The nightly run's inbox; uploads wait in its hidden ``.desk/`` folder.
    warehouse_url
        ``None``: ``$RATINGS_WAREHOUSE_URL`` or the default warehouse.
    secret
        The key that signs the cookies (default ``$RATINGS_DESK_SECRET``, else a random one).
    secure_cookies
        Cookies only over HTTPS (default: ``$RATINGS_DESK_SECURE_COOKIES`` set, for a desk behind a
        TLS proxy).
    """
    os.environ.setdefault("RATINGS_GX_KEEP", "1")   # one Great Expectations process for every check
    folder = Path(inbox).resolve()
    folder.mkdir(parents=True, exist_ok=True)
    key = secret or os.environ.get(SECRET_ENV) or secrets.token_urlsafe(32)
    templates = jinja2.Environment(loader=jinja2.FileSystemLoader(HERE / "templates"), autoescape=True,
                                   undefined=jinja2.StrictUndefined)
    if secure_cookies is None:
        secure_cookies = os.environ.get("RATINGS_DESK_SECURE_COOKIES", "") not in ("", "0")
    desk = Desk(engine=warehouse.get_engine(warehouse_url), warehouse_url=warehouse_url, inbox=folder,
                templates=templates, signer=URLSafeTimedSerializer(key), check_lock=threading.Lock(),
                prefect_ui=os.environ.get("PREFECT_UI_URL") or None, secure_cookies=secure_cookies)
    routes = [
        Route("/", home),
        Route("/signin", signin_page, methods=["GET"]),
        Route("/signin", signin, methods=["POST"]),
        Route("/signout", signout, methods=["POST"]),
        Route("/upload", upload_page, methods=["GET"]),
        Route("/upload", upload, methods=["POST"]),
        Route("/uploads/{upload_id}", upload_report, methods=["GET"]),
        Route("/uploads/{upload_id}/report/{n:int}", upload_full_report, methods=["GET"]),
        Route("/uploads/{upload_id}/confirm", confirm, methods=["POST"]),
        Route("/competitions/{federation}/{cid:path}", competition_page, methods=["GET"]),
        Route("/officer", officer_page, methods=["GET"]),
        Route("/officer/decide", decide, methods=["POST"]),
        Route("/officer/accounts", manage_accounts, methods=["POST"]),
        Mount("/static", app=StaticFiles(directory=HERE / "static"), name="static"),
    ]
    app = Starlette(routes=routes, middleware=[Middleware(_SecurityHeaders),
                                               Middleware(_BodyLimit, limit=MAX_UPLOAD_BYTES)])
    app.state.desk = desk
    return app
