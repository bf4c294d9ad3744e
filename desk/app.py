"""The desk's web application (Starlette): pages, forms, sessions and the security around them.

Organisers sign in, upload one or more result files, read at once the report the next
night will give (the pre-check: the same code as ``ratings check``, handed in as a
:class:`desk.pipeline.Pipeline` by the flow that serves the desk), and confirm: the files go into ``<inbox>/<federation>/<user>/``. They see their
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

The plumbing (middleware, sessions, the page guard) is ``desk/_core.py``; the pages and
forms are ``desk/_pages.py``; this module routes them.
"""

from __future__ import annotations

import os
import secrets
import threading
from pathlib import Path

import jinja2
from itsdangerous import URLSafeTimedSerializer
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

import warehouse
from desk._core import HERE, SECRET_ENV, Desk, UploadTooLarge, _BodyLimit, _SecurityHeaders
from desk._pages import (
    competition_page,
    confirm,
    decide,
    home,
    manage_accounts,
    officer_page,
    signin,
    signin_page,
    signout,
    upload,
    upload_full_report,
    upload_page,
    upload_report,
)
from desk.pipeline import Pipeline
from desk.uploads import (
    MAX_UPLOAD_BYTES,
)

__all__ = ["SECRET_ENV", "Pipeline", "UploadTooLarge", "create_app"]


def create_app(inbox: str | Path, warehouse_url: str | None = None, *, pipeline: Pipeline,
               secret: str | None = None, secure_cookies: bool | None = None) -> Starlette:
    """The desk's application for the inbox ``inbox`` and the warehouse ``warehouse_url``.

    Parameters
    ----------
    inbox
        The nightly run's inbox; uploads wait in its hidden ``.desk/`` folder.
    warehouse_url
        ``None``: ``$RATINGS_WAREHOUSE_URL`` or the default warehouse.
    pipeline
        The pipeline's code the pages run (``flows.desk.desk_pipeline``: the pre-check, the
        reports, the federations' config); the desk imports no flow or task.
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
                prefect_ui=os.environ.get("PREFECT_UI_URL") or None, secure_cookies=secure_cookies,
                pipeline=pipeline)
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

