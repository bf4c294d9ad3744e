"""officer_decisions: the rating officer's approve / decline of held competitions

A competition the eligibility rules cannot settle is loaded ``held``;
the officer's decision (who, when, why) is kept here for good, and
``applied_at`` records when a run rated an approved competition.

Revision ID: 0004
Revises: 0003 (the lead re-chains it after 0003 when merging)
Create Date: 2026-11-30 23:30:00

"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | Sequence[str] | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Create the table and its index."""
    op.create_table(
        "officer_decisions",
        sa.Column("id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("federation", sa.String(), nullable=False),
        sa.Column("competition_id", sa.String(), nullable=False),
        sa.Column("decision", sa.String(), nullable=False),
        sa.Column("decided_by", sa.String(), nullable=False),
        sa.Column("decided_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("note", sa.String(), nullable=True),
        sa.Column("applied_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_officer_decisions_competition", "officer_decisions", ["federation", "competition_id"])


def downgrade() -> None:
    """Drop it."""
    op.drop_index("ix_officer_decisions_competition", table_name="officer_decisions")
    op.drop_table("officer_decisions")
