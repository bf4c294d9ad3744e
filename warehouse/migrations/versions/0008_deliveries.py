"""organisers, deliveries and competitions.organiser_email: who receives the reports, and
what was sent to whom

``organisers`` is the installation's registry of organisers' addresses (``ratings
organiser``); ``deliveries`` records every message, one row per version of a report
(or digest) and recipient, unique, so a version is never sent twice
(``warehouse/deliveries.py``). ``competitions.organiser_email`` keeps the address a
file gave (the interchange CSV's ``organiser_email`` column), so that a later version of
the report (an officer's decision, a correcting edition) reaches the same organiser.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-03 12:10:00

"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | Sequence[str] | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Create both tables and their indexes, and the competitions' column."""
    with op.batch_alter_table("competitions") as batch:
        batch.add_column(sa.Column("organiser_email", sa.String(), nullable=True))
    op.create_table(
        "organisers",
        sa.Column("id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("federation", sa.String(), nullable=False),
        sa.Column("email", sa.String(), nullable=False),
        sa.Column("name", sa.String(), nullable=True),
        sa.Column("competitions", sa.String(), nullable=True),
        sa.Column("folder", sa.String(), nullable=True),
        sa.Column("added_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_organisers_federation", "organisers", ["federation"])
    op.create_table(
        "deliveries",
        sa.Column("id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("kind", sa.String(), nullable=False),
        sa.Column("federation", sa.String(), nullable=False),
        sa.Column("competition_id", sa.String(), nullable=False),
        sa.Column("version", sa.String(), nullable=False),
        sa.Column("recipient", sa.String(), nullable=False),
        sa.Column("subject", sa.String(), nullable=False),
        sa.Column("report_path", sa.String(), nullable=True),
        sa.Column("status", sa.String(), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("last_error", sa.String(), nullable=True),
        sa.Column("message_id", sa.String(), nullable=False),
        sa.Column("queued_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_attempt_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("next_attempt_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("sent_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("kind", "federation", "competition_id", "version", "recipient",
                            name="uq_deliveries_version"),
    )
    op.create_index("ix_deliveries_status", "deliveries", ["status"])


def downgrade() -> None:
    """Drop them."""
    op.drop_index("ix_deliveries_status", table_name="deliveries")
    op.drop_table("deliveries")
    op.drop_index("ix_organisers_federation", table_name="organisers")
    op.drop_table("organisers")
    with op.batch_alter_table("competitions") as batch:
        batch.drop_column("organiser_email")
