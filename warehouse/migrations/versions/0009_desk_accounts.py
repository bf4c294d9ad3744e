"""desk accounts, sessions, sign-in attempts, uploads and audit record

The desk (``ratings serve``): people who may sign in (argon2id hashes, roles), their
sessions (the sha256 of the cookie's token), every sign-in attempt (the rate limit),
the files organisers uploaded and where they went in the inbox, and every action
with who and when (``warehouse/accounts.py``).

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-03 12:20:00

"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | Sequence[str] | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Create the desk's tables and their indexes."""
    op.create_table(
        "desk_accounts",
        sa.Column("id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("username", sa.String(), nullable=False),
        sa.Column("password_hash", sa.String(), nullable=False),
        sa.Column("role", sa.String(), nullable=False),
        sa.Column("federation", sa.String(), nullable=True),
        sa.Column("disabled", sa.Boolean(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("password_changed_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("username", name="uq_desk_accounts_username"),
    )
    op.create_table(
        "desk_sessions",
        sa.Column("token_sha256", sa.String(), nullable=False),
        sa.Column("username", sa.String(), nullable=False),
        sa.Column("csrf", sa.String(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("token_sha256"),
    )
    op.create_table(
        "desk_login_attempts",
        sa.Column("id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("username", sa.String(), nullable=False),
        sa.Column("address", sa.String(), nullable=False),
        sa.Column("succeeded", sa.Boolean(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_desk_login_attempts_at", "desk_login_attempts", ["at"])
    op.create_table(
        "desk_uploads",
        sa.Column("id", sa.String(), nullable=False),
        sa.Column("username", sa.String(), nullable=False),
        sa.Column("federation", sa.String(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("outcome", sa.String(), nullable=False),
        sa.Column("confirmed_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_table(
        "desk_files",
        sa.Column("id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("upload_id", sa.String(), nullable=False),
        sa.Column("username", sa.String(), nullable=False),
        sa.Column("name", sa.String(), nullable=False),
        sa.Column("sha256", sa.String(), nullable=False),
        sa.Column("size", sa.BigInteger(), nullable=False),
        sa.Column("inbox_path", sa.String(), nullable=True),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_desk_files_upload", "desk_files", ["upload_id"])
    op.create_table(
        "desk_audit",
        sa.Column("id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("who", sa.String(), nullable=False),
        sa.Column("action", sa.String(), nullable=False),
        sa.Column("target", sa.String(), nullable=True),
        sa.Column("detail", sa.String(), nullable=True),
        sa.Column("address", sa.String(), nullable=True),
        sa.PrimaryKeyConstraint("id"),
    )


def downgrade() -> None:
    """Drop them."""
    op.drop_table("desk_audit")
    op.drop_index("ix_desk_files_upload", table_name="desk_files")
    op.drop_table("desk_files")
    op.drop_table("desk_uploads")
    op.drop_index("ix_desk_login_attempts_at", table_name="desk_login_attempts")
    op.drop_table("desk_login_attempts")
    op.drop_table("desk_sessions")
    op.drop_table("desk_accounts")
