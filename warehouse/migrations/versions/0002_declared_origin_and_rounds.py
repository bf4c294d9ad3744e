"""players.declared_rating_origin and competitions.rounds_declared

The canonical frames gained two columns (formats/schema.py): whose list a rating
printed in a file comes from (a newcomer is seeded from it only when it is the
federation's own), and how many rounds a file announces (an unfinished
tournament is rejected). Both nullable: existing rows read as "unsaid".

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-30 03:45:00

"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | Sequence[str] | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Add the two nullable columns."""
    with op.batch_alter_table("players") as batch:
        batch.add_column(sa.Column("declared_rating_origin", sa.String(), nullable=True))
    with op.batch_alter_table("competitions") as batch:
        batch.add_column(sa.Column("rounds_declared", sa.Integer(), nullable=True))


def downgrade() -> None:
    """Drop them again."""
    with op.batch_alter_table("competitions") as batch:
        batch.drop_column("rounds_declared")
    with op.batch_alter_table("players") as batch:
        batch.drop_column("declared_rating_origin")
