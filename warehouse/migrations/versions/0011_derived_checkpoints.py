"""derived_checkpoints: where a federation's next run continues from (FIDE's period in progress)

FIDE was re-rated from its seed every night. The engine's state at the start of the last
rating period, the games unrated players had pooled before it and the state publication
rebuilds editions from are now stored with the derived rows, one row per list, so that a
night re-rates from the period it changes (``rating/run.py``). The rows of the three lists
are stored period by period, so the rows before the checkpoint are a prefix of ``seq``.

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-07 02:00:00

"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0011"
down_revision: str | Sequence[str] | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Create the table (empty: the next run of each federation fills it)."""
    op.create_table(
        "derived_checkpoints",
        sa.Column("federation", sa.String(), nullable=False),
        sa.Column("list_name", sa.String(), nullable=False),
        sa.Column("point", sa.String(), nullable=False),
        sa.Column("n_changes", sa.BigInteger(), nullable=False),
        sa.Column("n_explanations", sa.BigInteger(), nullable=False),
        sa.Column("state", sa.LargeBinary(), nullable=False),
        sa.Column("pooled", sa.LargeBinary(), nullable=False),
        sa.Column("start", sa.LargeBinary(), nullable=False),
        sa.PrimaryKeyConstraint("federation", "list_name"),
    )


def downgrade() -> None:
    """Drop it."""
    op.drop_table("derived_checkpoints")
