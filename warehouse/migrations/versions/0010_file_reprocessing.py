"""file_reprocessing: the rating officer's requests to read a kept file again

``ratings reprocess FILE``: who asked, when and why, the file's checksum and the
version checksum the next run loads it as (``warehouse/reprocess.py``).

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-03 16:10:00

"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0010"
down_revision: str | Sequence[str] | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Create the table and its index."""
    op.create_table(
        "file_reprocessing",
        sa.Column("id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("federation", sa.String(), nullable=False),
        sa.Column("source", sa.String(), nullable=False),
        sa.Column("source_sha256", sa.String(), nullable=False),
        sa.Column("version_sha256", sa.String(), nullable=False),
        sa.Column("requested_by", sa.String(), nullable=False),
        sa.Column("requested_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("note", sa.String(), nullable=True),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_file_reprocessing_sha", "file_reprocessing", ["source_sha256"])


def downgrade() -> None:
    """Drop it."""
    op.drop_index("ix_file_reprocessing_sha", table_name="file_reprocessing")
    op.drop_table("file_reprocessing")
