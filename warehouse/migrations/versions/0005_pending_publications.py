"""pending_publications: loads whose publication has not finished

``load_batch`` writes a row in the load's own transaction and the publish step
deletes it at its end; a run killed in between leaves the row, and the next run
finishes that publication (editions and reports) before anything else.

Revision ID: 0005
Revises: 0004 (the lead re-chains it after the last revision when merging)
Create Date: 2026-12-01 03:30:00

"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | Sequence[str] | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Create the table."""
    op.create_table(
        "pending_publications",
        sa.Column("federation", sa.String(), nullable=False),
        sa.Column("load_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.PrimaryKeyConstraint("federation", "load_id"),
    )


def downgrade() -> None:
    """Drop it."""
    op.drop_table("pending_publications")
