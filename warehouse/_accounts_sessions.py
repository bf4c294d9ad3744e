"""The desk's accounts, passwords, sessions, sign-in throttle and audit record (see
:mod:`warehouse.accounts`)."""

from __future__ import annotations

import datetime as dt
import hashlib
import secrets
from dataclasses import dataclass
from typing import TYPE_CHECKING

import polars as pl
import sqlalchemy as sa
from sqlalchemy import Engine

from warehouse._accounts_tables import _A, _AU, _L, _S, AccountError, _next_id, _now, _utc
from warehouse.db import write_transaction

if TYPE_CHECKING:
    from argon2 import PasswordHasher

__all__ = [
    "AUDIT_SCHEMA",
    "MAX_FAILURES_PER_ADDRESS",
    "MAX_FAILURES_PER_USER",
    "MAX_PASSWORD",
    "MIN_PASSWORD",
    "ROLES",
    "SESSION_HOURS",
    "THROTTLE_MINUTES",
    "AccountInfo",
    "account",
    "accounts",
    "add_account",
    "audit",
    "audit_log",
    "end_session",
    "hash_password",
    "login_refused",
    "new_session",
    "record_login",
    "session_account",
    "set_disabled",
    "set_password",
    "verify_password",
]

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

