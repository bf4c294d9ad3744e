"""The desk's tables (accounts, sessions, sign-in attempts, uploads, files, audit) and the
helpers every part of :mod:`warehouse.accounts` shares."""

from __future__ import annotations

import datetime as dt

import sqlalchemy as sa
from sqlmodel import Field, SQLModel

from warehouse._model_types import TEXT as _TEXT
from warehouse._model_types import TS as _TS
from warehouse._model_types import table_of
from warehouse.errors import WarehouseError

__all__ = [
    "Account",
    "AccountError",
    "AuditEntry",
    "DeskFile",
    "DeskSession",
    "DeskUpload",
    "LoginAttempt",
]

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

_A = table_of(Account)
_S = table_of(DeskSession)
_L = table_of(LoginAttempt)
_U = table_of(DeskUpload)
_FL = table_of(DeskFile)
_AU = table_of(AuditEntry)


def _now() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


def _utc(value: dt.datetime) -> dt.datetime:
    """SQLite hands timestamps back naive: they were written in UTC."""
    return value if value.tzinfo is not None else value.replace(tzinfo=dt.UTC)


def _next_id(conn: sa.Connection, table: sa.Table) -> int:
    return int(conn.execute(sa.select(sa.func.max(table.c.id))).scalar() or 0) + 1

