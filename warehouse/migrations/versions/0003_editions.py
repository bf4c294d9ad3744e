"""Editions as the federations publish them, and the record of corrections

DESIGN.md *Publication*: a federation publishes one edition per rated competition
(AJUSC, EGF) or a monthly list (FIDE), numbered from the seeded list's ``edition``;
a late competition that changes figures already published gets ONE correcting
edition, with the diff of every published edition it touched.

- ``rating_lists`` gains ``list_name`` (which of the federation's lists; null on rows
  published before this revision: the federation's first list), ``kind``
  (``ordinary`` | ``correcting``; null before: ordinary) and ``covers`` (the last point
  of the history the edition holds: ``end|start|competition_id`` of its last
  competition, or the monthly list's date). New columns only: the rows stay
  immutable (ADD COLUMN fires no row trigger).
- ``seed_list.edition``: the edition number the seeded list carried.
- ``edition_corrections``: one row per player and published edition whose figure a
  correcting edition changed; immutable like the lists.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-30 23:15:00

"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | Sequence[str] | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Add the columns, the corrections table and its immutability triggers."""
    with op.batch_alter_table("rating_lists") as batch:
        batch.add_column(sa.Column("list_name", sa.String(), nullable=True))
        batch.add_column(sa.Column("kind", sa.String(), nullable=True))
        batch.add_column(sa.Column("covers", sa.String(), nullable=True))
    with op.batch_alter_table("seed_list") as batch:
        batch.add_column(sa.Column("edition", sa.Integer(), nullable=True))
    op.create_table(
        "edition_corrections",
        sa.Column("id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("list_id", sa.BigInteger(), nullable=False),
        sa.Column("federation", sa.String(), nullable=False),
        sa.Column("list_name", sa.String(), nullable=True),
        sa.Column("correcting_edition", sa.Integer(), nullable=False),
        sa.Column("edition", sa.Integer(), nullable=False),
        sa.Column("edition_as_of", sa.Date(), nullable=True),
        sa.Column("player_id", sa.String(), nullable=False),
        sa.Column("name", sa.String(), nullable=True),
        sa.Column("published", sa.Double(), nullable=True),
        sa.Column("now", sa.Double(), nullable=True),
        sa.Column("reason", sa.String(), nullable=True),
        sa.ForeignKeyConstraint(["list_id"], ["rating_lists.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("edition_corrections") as batch:
        batch.create_index("ix_edition_corrections_list", ["list_id"], unique=False)
        batch.create_index("ix_edition_corrections_player", ["federation", "player_id"], unique=False)
    if op.get_context().dialect.name == "postgresql":
        # ratings_refuse_change() was created by 0001.
        op.execute(
            "CREATE TRIGGER edition_corrections_immutable BEFORE UPDATE OR DELETE ON edition_corrections "
            "FOR EACH ROW EXECUTE FUNCTION ratings_refuse_change()"
        )
    else:
        for action in ("UPDATE", "DELETE"):
            op.execute(
                f"CREATE TRIGGER edition_corrections_no_{action.lower()} BEFORE {action} ON edition_corrections "
                "BEGIN SELECT RAISE(ABORT, 'published rating lists are immutable (table edition_corrections)'); END"
            )


def downgrade() -> None:
    """Drop the corrections table and the added columns."""
    if op.get_context().dialect.name == "postgresql":
        op.execute("DROP TRIGGER IF EXISTS edition_corrections_immutable ON edition_corrections")
    else:
        for action in ("update", "delete"):
            op.execute(f"DROP TRIGGER IF EXISTS edition_corrections_no_{action}")
    with op.batch_alter_table("edition_corrections") as batch:
        batch.drop_index("ix_edition_corrections_player")
        batch.drop_index("ix_edition_corrections_list")
    op.drop_table("edition_corrections")
    with op.batch_alter_table("seed_list") as batch:
        batch.drop_column("edition")
    with op.batch_alter_table("rating_lists") as batch:
        batch.drop_column("covers")
        batch.drop_column("kind")
        batch.drop_column("list_name")
