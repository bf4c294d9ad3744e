"""The desk's accounts, sessions, sign-in attempts, uploads and audit record.

The desk (``ratings serve``) lets organisers send their files and the rating officer
decide held competitions from a browser. What it must remember lives here, in the
warehouse, so that the CLI (``ratings account add|reset|disable``) and the web app
read the same rows:

* ``desk_accounts``: one row per person: a unique user name, an argon2id password
  hash (never the password), a role (``organiser`` or ``officer``), the organiser's
  federation, and whether the account is disabled;
* ``desk_sessions``: signed-in browsers; the cookie carries a random token and the row
  only its sha256, so a copy of the database opens no session;
* ``desk_login_attempts``: every sign-in attempt, for the rate limit per user and per
  address (:func:`login_refused`);
* ``desk_uploads`` and ``desk_files``: what an organiser uploaded and checked, and
  where each file went in the inbox once confirmed (their own competitions are found by
  the files' checksums, :func:`own_checksums`);
* ``desk_audit``: every action, with who, when, what and its target; never rewritten.
"""

from __future__ import annotations

from warehouse._accounts_sessions import (
    AUDIT_SCHEMA,
    MAX_FAILURES_PER_ADDRESS,
    MAX_FAILURES_PER_USER,
    MAX_PASSWORD,
    MIN_PASSWORD,
    ROLES,
    SESSION_HOURS,
    THROTTLE_MINUTES,
    AccountInfo,
    account,
    accounts,
    add_account,
    audit,
    audit_log,
    end_session,
    hash_password,
    login_refused,
    new_session,
    record_login,
    session_account,
    set_disabled,
    set_password,
    verify_password,
)
from warehouse._accounts_tables import (
    Account,
    AccountError,
    AuditEntry,
    DeskFile,
    DeskSession,
    DeskUpload,
    LoginAttempt,
)
from warehouse._accounts_uploads import (
    COMPETITIONS_SCHEMA,
    LOADS_SCHEMA,
    Upload,
    UploadFile,
    confirm_file,
    desk_competitions,
    last_loads,
    own_checksums,
    record_upload,
    upload,
    upload_files,
    uploads,
)

__all__ = [
    "AUDIT_SCHEMA",
    "COMPETITIONS_SCHEMA",
    "LOADS_SCHEMA",
    "MAX_FAILURES_PER_ADDRESS",
    "MAX_FAILURES_PER_USER",
    "MAX_PASSWORD",
    "MIN_PASSWORD",
    "ROLES",
    "SESSION_HOURS",
    "THROTTLE_MINUTES",
    "Account",
    "AccountError",
    "AccountInfo",
    "AuditEntry",
    "DeskFile",
    "DeskSession",
    "DeskUpload",
    "LoginAttempt",
    "Upload",
    "UploadFile",
    "account",
    "accounts",
    "add_account",
    "audit",
    "audit_log",
    "confirm_file",
    "desk_competitions",
    "end_session",
    "hash_password",
    "last_loads",
    "login_refused",
    "new_session",
    "own_checksums",
    "record_login",
    "record_upload",
    "session_account",
    "set_disabled",
    "set_password",
    "upload",
    "upload_files",
    "uploads",
    "verify_password",
]
