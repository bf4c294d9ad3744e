"""The desk's pages and forms: sign-in, the organisers' upload, pre-check and confirmation,
and the rating officer's decisions and accounts (``desk.app`` routes them)."""

from __future__ import annotations

import hashlib
import json
import os
import secrets
import shutil
import tempfile
from pathlib import Path
from typing import Any

from itsdangerous import BadSignature
from starlette.datastructures import FormData, UploadFile
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response

import warehouse
from desk._core import (
    PRESIGN_COOKIE,
    REPORT_CSP,
    SESSION_COOKIE,
    Desk,
    Signed,
    _address,
    _audit,
    _desk,
    _form,
    _page,
    _refused,
    _requires,
    _set_cookie,
    _signed,
    _too_large,
)
from desk.uploads import (
    MAX_UPLOAD_FILES,
    UploadError,
    check_name,
    place_in_inbox,
    remove_stale,
    staging,
)
from formats.limits import MAX_FILE_BYTES
from warehouse.accounts import AccountError

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
    """The pre-check of ``paths`` (the pipeline's: the report the next night would give), one at
    a time (they share the Great Expectations process)."""
    with desk.check_lock:
        return desk.pipeline.precheck(paths, federation, desk.warehouse_url)


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
    desk = _desk(request)
    signed: Signed = request.state.signed
    federation, competition_id = str(request.path_params["federation"]), str(request.path_params["cid"])
    if signed.account.role != "officer":
        own = warehouse.accounts.desk_competitions(desk.engine, checksums=warehouse.accounts.own_checksums(
            desk.engine, signed.account.username))
        if not own.filter((own["federation"] == federation) & (own["competition_id"] == competition_id)).height:
            return _refused(request, 404, "No such competition among yours.")
    page = desk.pipeline.report_page(desk.warehouse_url, competition_id, federation)
    if page is None:
        return _refused(request, 404, "No such competition.")
    return HTMLResponse(page, headers={"content-security-policy": REPORT_CSP})


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
            if federation is not None:
                desk.pipeline.federation_config(federation)
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
