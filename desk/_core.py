"""The desk's plumbing: its security middleware (body limit, headers), what the handlers
share (:class:`Desk`), the signed-in person of a request, and the guard every page and form
goes through (:func:`_requires`: the session, the role, the CSRF token)."""

from __future__ import annotations

import secrets
import threading
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jinja2
from itsdangerous import BadSignature, URLSafeTimedSerializer
from starlette.datastructures import FormData
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

import warehouse
from desk.pipeline import Pipeline
from desk.uploads import (
    MAX_UPLOAD_FILES,
)
from formats.limits import MAX_FILE_BYTES
from warehouse.accounts import AccountInfo

__all__ = ["CSP", "PRESIGN_COOKIE", "REPORT_CSP", "SECRET_ENV", "SESSION_COOKIE", "Desk", "Signed"]

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
    pipeline: Pipeline   #: the pipeline's code the pages run (the pre-check, the reports)


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
