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

import datetime as dt
import hashlib
import secrets
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import polars as pl
import sqlalchemy as sa
from sqlalchemy import Engine
from sqlmodel import Field, SQLModel

from warehouse.db import write_transaction
from warehouse.errors import WarehouseError

if TYPE_CHECKING:
    from argon2 import PasswordHasher

__all__ = [
    "AUDIT_SCHEMA",
    "COMPETITIONS_SCHEMA",
    "LOADS_SCHEMA",
    "ROLES",
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

_TEXT = sa.String()
_TS = sa.DateTime(timezone=True)

#: The roles of the desk: organisers send files, the officer decides and manages accounts.
ROLES: tuple[str, ...] = ("organiser", "officer")
#: Shortest password accepted.
MIN_PASSWORD = 10
#: Longest password hashed (argon2 takes any length; this bounds the work a request causes).
MAX_PASSWORD = 1024
#: A session ends this long after sign-in.
SESSION_HOURS = 12
#: Failed sign-ins within :data:`THROTTLE_MINUTES` before a user name, or an address, is refused.
MAX_FAILURES_PER_USER = 5
MAX_FAILURES_PER_ADDRESS = 20
THROTTLE_MINUTES = 15


class AccountError(WarehouseError):
    """An account the warehouse cannot create or change (a duplicate, a bad role, a short password)."""


class Account(SQLModel, table=True):
    """One person who may sign in to the desk."""

    __tablename__ = "desk_accounts"
    __table_args__ = (sa.UniqueConstraint("username", name="uq_desk_accounts_username"),)

    id: int = Field(primary_key=True, sa_type=sa.BigInteger(), sa_column_kwargs={"autoincrement": False})
    username: str = Field(sa_type=_TEXT)
    password_hash: str = Field(sa_type=_TEXT)          #: argon2id, with its salt and parameters
    role: str = Field(sa_type=_TEXT)                   #: organiser | officer
    federation: str | None = Field(default=None, sa_type=_TEXT)   #: an organiser's federation
    disabled: bool = False
    created_at: dt.datetime = Field(sa_type=_TS)
    password_changed_at: dt.datetime = Field(sa_type=_TS)


class DeskSession(SQLModel, table=True):
    """A signed-in browser: the sha256 of the cookie's token, never the token."""

    __tablename__ = "desk_sessions"

    token_sha256: str = Field(primary_key=True, sa_type=_TEXT)
    username: str = Field(sa_type=_TEXT)
    csrf: str = Field(sa_type=_TEXT)                   #: the token every form of this session carries
    created_at: dt.datetime = Field(sa_type=_TS)
    expires_at: dt.datetime = Field(sa_type=_TS)


class LoginAttempt(SQLModel, table=True):
    """One sign-in attempt (the rate limit counts the failed ones)."""

    __tablename__ = "desk_login_attempts"
    __table_args__ = (sa.Index("ix_desk_login_attempts_at", "at"),)

    id: int = Field(primary_key=True, sa_type=sa.BigInteger(), sa_column_kwargs={"autoincrement": False})
    at: dt.datetime = Field(sa_type=_TS)
    username: str = Field(sa_type=_TEXT)
    address: str = Field(sa_type=_TEXT)
    succeeded: bool = False


class DeskUpload(SQLModel, table=True):
    """Files an organiser uploaded together, checked, and perhaps confirmed."""

    __tablename__ = "desk_uploads"

    id: str = Field(primary_key=True, sa_type=_TEXT)   #: random, in the page's address
    username: str = Field(sa_type=_TEXT)
    federation: str = Field(sa_type=_TEXT)
    created_at: dt.datetime = Field(sa_type=_TS)
    outcome: str = Field(sa_type=_TEXT)                #: the pre-check's worst status
    confirmed_at: dt.datetime | None = Field(default=None, sa_type=_TS)


class DeskFile(SQLModel, table=True):
    """One uploaded file: its name, checksum and, once confirmed, its place in the inbox."""

    __tablename__ = "desk_files"
    __table_args__ = (sa.Index("ix_desk_files_upload", "upload_id"),)

    id: int = Field(primary_key=True, sa_type=sa.BigInteger(), sa_column_kwargs={"autoincrement": False})
    upload_id: str = Field(sa_type=_TEXT)
    username: str = Field(sa_type=_TEXT)
    name: str = Field(sa_type=_TEXT)                   #: the safe file name
    sha256: str = Field(sa_type=_TEXT)
    size: int = Field(sa_type=sa.BigInteger())
    inbox_path: str | None = Field(default=None, sa_type=_TEXT)   #: relative to the inbox


class AuditEntry(SQLModel, table=True):
    """One action on the desk (sign-in, upload, confirm, decision, account change)."""

    __tablename__ = "desk_audit"

    id: int = Field(primary_key=True, sa_type=sa.BigInteger(), sa_column_kwargs={"autoincrement": False})
    at: dt.datetime = Field(sa_type=_TS)
    who: str = Field(sa_type=_TEXT)
    action: str = Field(sa_type=_TEXT)
    target: str | None = Field(default=None, sa_type=_TEXT)
    detail: str | None = Field(default=None, sa_type=_TEXT)
    address: str | None = Field(default=None, sa_type=_TEXT)


_A = Account.__table__  # type: ignore[attr-defined]
_S = DeskSession.__table__  # type: ignore[attr-defined]
_L = LoginAttempt.__table__  # type: ignore[attr-defined]
_U = DeskUpload.__table__  # type: ignore[attr-defined]
_FL = DeskFile.__table__  # type: ignore[attr-defined]
_AU = AuditEntry.__table__  # type: ignore[attr-defined]

#: ``audit_log()`` frame.
AUDIT_SCHEMA: dict[str, pl.DataType] = {
    "at": pl.Datetime(time_zone="UTC"), "who": pl.Utf8(), "action": pl.Utf8(), "target": pl.Utf8(),
    "detail": pl.Utf8(), "address": pl.Utf8(),
}


@dataclass(frozen=True)
class AccountInfo:
    """An account as the desk and the CLI show it (never its hash)."""

    username: str
    role: str                 #: organiser | officer
    federation: str | None    #: an organiser's federation
    disabled: bool
    created_at: dt.datetime


def _now() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


def _utc(value: dt.datetime) -> dt.datetime:
    """SQLite hands timestamps back naive: they were written in UTC."""
    return value if value.tzinfo is not None else value.replace(tzinfo=dt.UTC)


def _next_id(conn: sa.Connection, table: sa.Table) -> int:
    return int(conn.execute(sa.select(sa.func.max(table.c.id))).scalar() or 0) + 1


def _hasher() -> PasswordHasher:
    from argon2 import PasswordHasher

    return PasswordHasher()   # argon2id, the library's current parameters (RFC 9106 low-memory)


def hash_password(password: str) -> str:
    """The argon2id hash of ``password`` (salted; the parameters travel in the hash).

    Raises
    ------
    AccountError
        A password shorter than :data:`MIN_PASSWORD` or longer than :data:`MAX_PASSWORD` characters.

    Examples
    --------
    >>> hashed = hash_password("correct horse battery")
    >>> hashed.startswith("$argon2id$"), verify_password(hashed, "correct horse battery")
    (True, True)
    >>> verify_password(hashed, "wrong password")
    False
    """
    if len(password) < MIN_PASSWORD:
        raise AccountError(f"a password has at least {MIN_PASSWORD} characters, not {len(password)}")
    if len(password) > MAX_PASSWORD:
        raise AccountError(f"a password has at most {MAX_PASSWORD} characters, not {len(password)}")
    return str(_hasher().hash(password))


def verify_password(hashed: str, password: str) -> bool:
    """Does ``password`` match ``hashed``? (Constant-time in the library; never raises on a mismatch.)"""
    from argon2.exceptions import InvalidHashError, VerificationError

    if len(password) > MAX_PASSWORD:
        return False
    try:
        return bool(_hasher().verify(hashed, password))
    except (VerificationError, InvalidHashError):
        return False


#: A hash of no one's password: a sign-in with an unknown name costs the same as a wrong password.
_DUMMY_HASH: list[str] = []


def _dummy_hash() -> str:
    if not _DUMMY_HASH:
        _DUMMY_HASH.append(hash_password(secrets.token_urlsafe(16)))
    return _DUMMY_HASH[0]


def _check_username(username: str) -> str:
    name = username.strip()
    if not name or len(name) > 64 or not all(c.isalnum() or c in "-_." for c in name) or name.startswith("."):
        raise AccountError(
            f"a user name is 1 to 64 letters, digits, '-', '_' or '.' (not first), not {username!r}")
    return name


def add_account(
    engine: Engine, username: str, password_hash: str, role: str, federation: str | None = None,
    *, when: dt.datetime | None = None,
) -> AccountInfo:
    """Create an account from a password hash (:func:`hash_password`).

    Raises
    ------
    AccountError
        A bad or taken user name, an unknown role, an organiser without a federation.
    """
    name = _check_username(username)
    if role not in ROLES:
        raise AccountError(f"a role is {' or '.join(ROLES)}, not {role!r}")
    if role == "organiser" and not federation:
        raise AccountError("an organiser's account needs --federation F (the inbox folder it sends to)")
    if not password_hash.startswith("$argon2"):
        raise AccountError("the password must be hashed with hash_password before it is stored")
    when = when or _now()
    with write_transaction(engine) as conn:
        if conn.execute(sa.select(_A.c.id).where(_A.c.username == name)).first() is not None:
            raise AccountError(f"an account {name!r} exists already: `ratings account reset {name}` sets its password")
        conn.execute(sa.insert(_A).values(
            id=_next_id(conn, _A), username=name, password_hash=password_hash, role=role,
            federation=federation if role == "organiser" else federation or None, disabled=False,
            created_at=when, password_changed_at=when,
        ))
    return AccountInfo(username=name, role=role, federation=federation, disabled=False, created_at=when)


def _update_account(engine: Engine, username: str, **values: object) -> None:
    with write_transaction(engine) as conn:
        done = conn.execute(sa.update(_A).where(_A.c.username == username).values(**values))
        if not done.rowcount:
            raise AccountError(f"no account {username!r}")
        # Whatever changed (a new password, a disabled account): every open session ends.
        conn.execute(sa.delete(_S).where(_S.c.username == username))


def set_password(engine: Engine, username: str, password_hash: str) -> None:
    """Replace an account's password (and enable it again); its sessions end.

    Raises
    ------
    AccountError
        No such account.
    """
    if not password_hash.startswith("$argon2"):
        raise AccountError("the password must be hashed with hash_password before it is stored")
    _update_account(engine, username, password_hash=password_hash, disabled=False, password_changed_at=_now())


def set_disabled(engine: Engine, username: str, disabled: bool = True) -> None:
    """Disable (or enable) an account; its sessions end.

    Raises
    ------
    AccountError
        No such account.
    """
    _update_account(engine, username, disabled=disabled)


def _info(m: sa.RowMapping) -> AccountInfo:
    return AccountInfo(username=str(m["username"]), role=str(m["role"]),
                       federation=None if m["federation"] is None else str(m["federation"]),
                       disabled=bool(m["disabled"]), created_at=_utc(m["created_at"]))


def account(engine: Engine, username: str) -> AccountInfo | None:
    """The account ``username`` (``None``: no such account)."""
    with engine.connect() as conn:
        row = conn.execute(sa.select(_A).where(_A.c.username == username)).mappings().first()
    return None if row is None else _info(row)


def accounts(engine: Engine) -> list[AccountInfo]:
    """Every account, by user name."""
    with engine.connect() as conn:
        rows = conn.execute(sa.select(_A).order_by(_A.c.username)).mappings().all()
    return [_info(r) for r in rows]


def login_refused(engine: Engine, username: str, address: str, *, now: dt.datetime | None = None) -> bool:
    """Is a sign-in as ``username`` from ``address`` refused for now (too many recent failures)?"""
    since = (now or _now()) - dt.timedelta(minutes=THROTTLE_MINUTES)
    failed = (_L.c.at >= since) & sa.not_(_L.c.succeeded)
    with engine.connect() as conn:
        by_user = conn.execute(sa.select(sa.func.count()).where(failed & (_L.c.username == username))).scalar()
        by_address = conn.execute(sa.select(sa.func.count()).where(failed & (_L.c.address == address))).scalar()
    return int(by_user or 0) >= MAX_FAILURES_PER_USER or int(by_address or 0) >= MAX_FAILURES_PER_ADDRESS


def record_login(engine: Engine, username: str, password: str, address: str) -> AccountInfo | None:
    """Check a sign-in and record the attempt; the account when the password is right and it is
    enabled, else ``None`` (an unknown name costs the same hash as a wrong password)."""
    with engine.connect() as conn:
        row = conn.execute(sa.select(_A).where(_A.c.username == username)).mappings().first()
    good = verify_password(str(row["password_hash"]) if row is not None else _dummy_hash(), password)
    found = _info(row) if row is not None and good and not row["disabled"] else None
    with write_transaction(engine) as conn:
        conn.execute(sa.insert(_L).values(id=_next_id(conn, _L), at=_now(), username=username[:200],
                                          address=address, succeeded=found is not None))
    return found


def _token_key(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def new_session(engine: Engine, username: str, *, replaces: str | None = None) -> tuple[str, str]:
    """Open a session for ``username``: ``(token, csrf)``, both fresh and random. ``replaces``: the
    token of the browser's previous session, which ends (a new id at every sign-in)."""
    token, csrf = secrets.token_urlsafe(32), secrets.token_urlsafe(32)
    now = _now()
    with write_transaction(engine) as conn:
        if replaces:
            conn.execute(sa.delete(_S).where(_S.c.token_sha256 == _token_key(replaces)))
        conn.execute(sa.delete(_S).where(_S.c.expires_at < now))
        conn.execute(sa.insert(_S).values(token_sha256=_token_key(token), username=username, csrf=csrf,
                                          created_at=now, expires_at=now + dt.timedelta(hours=SESSION_HOURS)))
    return token, csrf


def session_account(engine: Engine, token: str) -> tuple[AccountInfo, str] | None:
    """The enabled account of a live session, and the session's CSRF token; ``None`` otherwise."""
    with engine.connect() as conn:
        row = conn.execute(
            sa.select(_S.c.csrf, _S.c.expires_at, _A).select_from(_S.join(_A, _A.c.username == _S.c.username))
            .where(_S.c.token_sha256 == _token_key(token))
        ).mappings().first()
    if row is None or row["disabled"] or _utc(row["expires_at"]) < _now():
        return None
    return _info(row), str(row["csrf"])


def end_session(engine: Engine, token: str) -> None:
    """Sign a browser out: its session row goes."""
    with write_transaction(engine) as conn:
        conn.execute(sa.delete(_S).where(_S.c.token_sha256 == _token_key(token)))


def audit(engine: Engine, who: str, action: str, target: str | None = None, detail: str | None = None,
          address: str | None = None) -> None:
    """Record one action of the desk (never rewritten)."""
    with write_transaction(engine) as conn:
        conn.execute(sa.insert(_AU).values(id=_next_id(conn, _AU), at=_now(), who=who, action=action,
                                           target=target, detail=detail, address=address))


def audit_log(engine: Engine, limit: int = 200) -> pl.DataFrame:
    """The latest actions (``AUDIT_SCHEMA``), newest first."""
    query = sa.select(*[_AU.c[n] for n in AUDIT_SCHEMA]).order_by(_AU.c.id.desc()).limit(limit)
    with engine.connect() as conn:
        rows = [tuple(r) for r in conn.execute(query)]
    if not rows:
        return pl.DataFrame(schema=AUDIT_SCHEMA)
    frame = pl.DataFrame(rows, schema=list(AUDIT_SCHEMA), orient="row")
    return frame.with_columns(pl.col("at").dt.replace_time_zone("UTC")).cast(pl.Schema(AUDIT_SCHEMA))


@dataclass(frozen=True)
class UploadFile:
    """One file of an upload."""

    name: str                    #: the safe file name
    sha256: str
    size: int
    inbox_path: str | None       #: relative to the inbox, once confirmed


@dataclass(frozen=True)
class Upload:
    """An upload: who, when, the pre-check's outcome, and whether it was confirmed."""

    id: str
    username: str
    federation: str
    created_at: dt.datetime
    outcome: str
    confirmed_at: dt.datetime | None
    files: tuple[UploadFile, ...]


def record_upload(engine: Engine, username: str, federation: str, outcome: str,
                  files: list[tuple[str, str, int]]) -> str:
    """Record an upload of ``files`` (name, sha256, size) and its pre-check outcome; its new id."""
    upload_id = secrets.token_urlsafe(18)
    with write_transaction(engine) as conn:
        conn.execute(sa.insert(_U).values(id=upload_id, username=username, federation=federation,
                                          created_at=_now(), outcome=outcome))
        first = _next_id(conn, _FL)
        for offset, (name, sha256, size) in enumerate(files):
            conn.execute(sa.insert(_FL).values(id=first + offset, upload_id=upload_id, username=username,
                                               name=name, sha256=sha256, size=size))
    return upload_id


def upload_files(engine: Engine, upload_id: str) -> tuple[UploadFile, ...]:
    """The files of an upload, in the order they were sent."""
    with engine.connect() as conn:
        rows = conn.execute(sa.select(_FL).where(_FL.c.upload_id == upload_id).order_by(_FL.c.id)).mappings().all()
    return tuple(UploadFile(name=str(r["name"]), sha256=str(r["sha256"]), size=int(r["size"]),
                            inbox_path=r["inbox_path"]) for r in rows)


def _upload(row: sa.RowMapping, files: tuple[UploadFile, ...]) -> Upload:
    confirmed = row["confirmed_at"]
    return Upload(id=str(row["id"]), username=str(row["username"]), federation=str(row["federation"]),
                  created_at=_utc(row["created_at"]), outcome=str(row["outcome"]),
                  confirmed_at=None if confirmed is None else _utc(confirmed), files=files)


def upload(engine: Engine, upload_id: str, username: str | None = None) -> Upload | None:
    """The upload ``upload_id`` (``username``: only when it is theirs); ``None`` otherwise."""
    query = sa.select(_U).where(_U.c.id == upload_id)
    if username is not None:
        query = query.where(_U.c.username == username)
    with engine.connect() as conn:
        row = conn.execute(query).mappings().first()
    return None if row is None else _upload(row, upload_files(engine, upload_id))


def uploads(engine: Engine, username: str | None = None, limit: int = 100) -> list[Upload]:
    """The latest uploads, newest first (``username``: only theirs)."""
    query = sa.select(_U).order_by(_U.c.created_at.desc()).limit(limit)
    if username is not None:
        query = query.where(_U.c.username == username)
    with engine.connect() as conn:
        rows = conn.execute(query).mappings().all()
    return [_upload(r, upload_files(engine, str(r["id"]))) for r in rows]


def confirm_file(engine: Engine, upload_id: str, name: str, inbox_path: str) -> None:
    """Record where a confirmed file went in the inbox (and that its upload is confirmed)."""
    with write_transaction(engine) as conn:
        conn.execute(sa.update(_FL).where((_FL.c.upload_id == upload_id) & (_FL.c.name == name))
                     .values(inbox_path=inbox_path))
        conn.execute(sa.update(_U).where((_U.c.id == upload_id) & _U.c.confirmed_at.is_(None))
                     .values(confirmed_at=_now()))


def own_checksums(engine: Engine, username: str) -> set[str]:
    """The checksums of the files ``username`` confirmed: their competitions are those loaded from them."""
    with engine.connect() as conn:
        rows = conn.execute(sa.select(_FL.c.sha256).where(
            (_FL.c.username == username) & _FL.c.inbox_path.is_not(None))).all()
    return {str(r[0]) for r in rows}


# --- what the desk's pages read -------------------------------------------------------------

#: ``desk_competitions()`` frame: the current version of each competition.
COMPETITIONS_SCHEMA: dict[str, pl.DataType] = {
    "federation": pl.Utf8(), "competition_id": pl.Utf8(), "name": pl.Utf8(), "end_date": pl.Date(),
    "status": pl.Utf8(), "source": pl.Utf8(), "source_sha256": pl.Utf8(), "load_id": pl.Int64(),
    "loaded_at": pl.Datetime(time_zone="UTC"),
}
#: ``last_loads()`` frame.
LOADS_SCHEMA: dict[str, pl.DataType] = {
    "id": pl.Int64(), "federation": pl.Utf8(), "kind": pl.Utf8(), "loaded_at": pl.Datetime(time_zone="UTC"),
    "games_loaded": pl.Int64(),
}


def _read(query: sa.Select[Any], engine: Engine, schema: dict[str, pl.DataType]) -> pl.DataFrame:
    with engine.connect() as conn:
        rows = [tuple(r) for r in conn.execute(query)]
    if not rows:
        return pl.DataFrame(schema=schema)
    frame = pl.DataFrame(rows, schema=list(schema), orient="row")
    return frame.with_columns(
        pl.col(c).dt.replace_time_zone("UTC") if frame.schema[c] == pl.Datetime else pl.col(c) for c in frame.columns
    ).cast(pl.Schema(schema))


def desk_competitions(
    engine: Engine, *, checksums: set[str] | None = None, status: str | None = None, limit: int = 500,
) -> pl.DataFrame:
    """The current version of competitions (``COMPETITIONS_SCHEMA``), the latest loaded first.

    ``checksums``: only those loaded from these files (an organiser's own); ``status``: only
    those with this status (``held``: waiting for the officer).
    """
    from warehouse.models import Competition, Load

    c = Competition.__table__.c  # type: ignore[attr-defined]
    lo = Load.__table__  # type: ignore[attr-defined]
    query = (sa.select(c.federation, c.competition_id, c.name, c.end_date, c.status, c.source, c.source_sha256,
                       c.load_id, lo.c.loaded_at)
             .select_from(Competition.__table__.join(lo, lo.c.id == c.load_id))  # type: ignore[attr-defined]
             .where(c.status != "superseded").order_by(c.load_id.desc(), c.competition_id).limit(limit))
    if checksums is not None:
        if not checksums:
            return pl.DataFrame(schema=COMPETITIONS_SCHEMA)
        query = query.where(c.source_sha256.in_(sorted(checksums)))
    if status is not None:
        query = query.where(c.status == status)
    return _read(query, engine, COMPETITIONS_SCHEMA)


def last_loads(engine: Engine, limit: int = 10) -> pl.DataFrame:
    """The latest loads of the nightly runs and seeds (``LOADS_SCHEMA``), newest first."""
    from warehouse.models import Load

    lo = Load.__table__.c  # type: ignore[attr-defined]
    query = sa.select(lo.id, lo.federation, lo.kind, lo.loaded_at, lo.games_loaded).order_by(lo.id.desc()).limit(limit)
    return _read(query, engine, LOADS_SCHEMA)
