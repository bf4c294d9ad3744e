"""rating_list_lines: an edition stores its changes, the view rating_list_entries gives it in full

AJUSC and EGF publish an edition after each rated competition, so a
migrated archive of 12,000 competitions and 50,000 players held 10^8 full lines,
0.5 % of which differ in a figure from the edition before. An edition now stores
the lines that changed (``rating_lists.lines = 'changes'``) or, when its ranks or
order do not follow from its figures, every line as published (``'full'``);
``base_edition`` is the edition its lines start from.

- ``rating_list_lines`` replaces the table ``rating_list_entries``; the lines
  published before move there as ``full`` editions (null ``lines``: full).
- ``rating_list_entries`` becomes a view with the same columns, giving every edition
  in full (ranks and positions derived for ``changes`` editions, the same rule as the
  engine's lists), so the analysts' SQL keeps working. It refuses writes like the
  table did (INSTEAD OF triggers), and the lines are immutable (triggers).

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-01 10:30:00

"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | Sequence[str] | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_REFUSE = "published rating lists are immutable (table {table})"


def entries_view(dialect: str) -> str:
    """The SELECT of the view: every edition's lines in full, in the published order.

    For each edition, the newest line of each player among the editions of its list from
    ``base_edition`` to itself; a ``full`` edition's own lines as stored.
    """
    # Player ids order byte by byte, as polars sorts them (PostgreSQL's default collation would not).
    pid = 'player_id COLLATE "C"' if dialect == "postgresql" else "player_id"
    return f"""
    WITH held AS (
        SELECT l.id AS list_id, l.federation, COALESCE(l.lines, 'full') AS lines,
               d.player_id, d.name, d.rating, d.games, d.status, d.category, d.rank, d.position, d.removed,
               CASE WHEN COALESCE(l.lines, 'full') = 'full' THEN 1
                    ELSE ROW_NUMBER() OVER (PARTITION BY l.id, d.player_id ORDER BY ld.edition DESC) END AS newest
        FROM rating_lists l
        JOIN rating_lists ld
          ON ld.federation = l.federation
         AND COALESCE(ld.list_name, '') = COALESCE(l.list_name, '')
         AND ld.edition BETWEEN COALESCE(l.base_edition, l.edition) AND l.edition
        JOIN rating_list_lines d ON d.list_id = ld.id
    ), listed AS (
        SELECT held.*,
               CASE WHEN lines = 'full' THEN rank
                    WHEN status = 'active'
                    THEN RANK() OVER (PARTITION BY list_id, status = 'active' ORDER BY rating DESC NULLS LAST) END AS derived_rank
        FROM held
        WHERE newest = 1 AND NOT removed
    )
    SELECT list_id,
           CASE WHEN lines = 'full' THEN position
                ELSE ROW_NUMBER() OVER (PARTITION BY list_id
                                        ORDER BY derived_rank ASC NULLS LAST, rating DESC NULLS LAST, {pid})
           END AS position,
           federation, player_id, name, rating, games, status, category, derived_rank AS rank
    FROM listed
    """


def _triggers(dialect: str) -> None:
    """Lines refuse UPDATE and DELETE; the view refuses every write."""
    if dialect == "postgresql":
        op.execute("CREATE TRIGGER rating_list_lines_immutable BEFORE UPDATE OR DELETE ON rating_list_lines "
                   "FOR EACH ROW EXECUTE FUNCTION ratings_refuse_change()")
        op.execute("CREATE TRIGGER rating_list_entries_immutable INSTEAD OF INSERT OR UPDATE OR DELETE "
                   "ON rating_list_entries FOR EACH ROW EXECUTE FUNCTION ratings_refuse_change()")
        return
    for action in ("UPDATE", "DELETE"):
        op.execute(f"CREATE TRIGGER rating_list_lines_no_{action.lower()} BEFORE {action} ON rating_list_lines "
                   f"BEGIN SELECT RAISE(ABORT, '{_REFUSE.format(table='rating_list_lines')}'); END")
    for action in ("INSERT", "UPDATE", "DELETE"):
        op.execute(f"CREATE TRIGGER rating_list_entries_no_{action.lower()} INSTEAD OF {action} "
                   f"ON rating_list_entries "
                   f"BEGIN SELECT RAISE(ABORT, '{_REFUSE.format(table='rating_list_entries')}'); END")


def upgrade() -> None:
    """Create the lines, move the published lines there, replace the table by the view."""
    dialect = op.get_context().dialect.name
    with op.batch_alter_table("rating_lists") as batch:
        batch.add_column(sa.Column("lines", sa.String(), nullable=True))
        batch.add_column(sa.Column("base_edition", sa.Integer(), nullable=True))
    op.create_table(
        "rating_list_lines",
        sa.Column("list_id", sa.BigInteger(), nullable=False),
        sa.Column("seq", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("federation", sa.String(), nullable=False),
        sa.Column("player_id", sa.String(), nullable=True),
        sa.Column("name", sa.String(), nullable=True),
        sa.Column("rating", sa.Double(), nullable=True),
        sa.Column("games", sa.BigInteger(), nullable=True),
        sa.Column("status", sa.String(), nullable=True),
        sa.Column("category", sa.String(), nullable=True),
        sa.Column("rank", sa.BigInteger(), nullable=True),
        sa.Column("position", sa.Integer(), nullable=True),
        sa.Column("removed", sa.Boolean(), nullable=False),
        sa.ForeignKeyConstraint(["list_id"], ["rating_lists.id"]),
        sa.PrimaryKeyConstraint("list_id", "seq"),
    )
    with op.batch_alter_table("rating_list_lines") as batch:
        batch.create_index("ix_rating_list_lines_player", ["federation", "player_id"], unique=False)
    op.execute(
        "INSERT INTO rating_list_lines (list_id, seq, federation, player_id, name, rating, games, status, "
        "category, rank, position, removed) "
        "SELECT list_id, position, federation, player_id, name, rating, games, status, category, rank, "
        f"position, {'false' if dialect == 'postgresql' else '0'} FROM rating_list_entries"
    )
    if dialect == "postgresql":
        op.execute("DROP TRIGGER IF EXISTS rating_list_entries_immutable ON rating_list_entries")
    else:
        for action in ("update", "delete"):
            op.execute(f"DROP TRIGGER IF EXISTS rating_list_entries_no_{action}")
    op.drop_table("rating_list_entries")
    op.execute(f"CREATE VIEW rating_list_entries AS {entries_view(dialect)}")
    _triggers(dialect)


def downgrade() -> None:
    """Back to the table of full lines: every edition's lines, as the view gives them."""
    dialect = op.get_context().dialect.name
    op.execute("DROP VIEW rating_list_entries")
    op.create_table(
        "rating_list_entries",
        sa.Column("list_id", sa.BigInteger(), nullable=False),
        sa.Column("position", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("federation", sa.String(), nullable=False),
        sa.Column("player_id", sa.String(), nullable=True),
        sa.Column("name", sa.String(), nullable=True),
        sa.Column("rating", sa.Double(), nullable=True),
        sa.Column("games", sa.BigInteger(), nullable=True),
        sa.Column("status", sa.String(), nullable=True),
        sa.Column("category", sa.String(), nullable=True),
        sa.Column("rank", sa.BigInteger(), nullable=True),
        sa.ForeignKeyConstraint(["list_id"], ["rating_lists.id"]),
        sa.PrimaryKeyConstraint("list_id", "position"),
    )
    with op.batch_alter_table("rating_list_entries") as batch:
        batch.create_index("ix_rating_list_entries_player", ["federation", "player_id"], unique=False)
    op.execute(
        "INSERT INTO rating_list_entries (list_id, position, federation, player_id, name, rating, games, "
        f"status, category, rank) SELECT * FROM ({entries_view(dialect)}) AS v"
    )
    if dialect == "postgresql":
        op.execute("DROP TRIGGER IF EXISTS rating_list_lines_immutable ON rating_list_lines")
        op.execute("CREATE TRIGGER rating_list_entries_immutable BEFORE UPDATE OR DELETE ON rating_list_entries "
                   "FOR EACH ROW EXECUTE FUNCTION ratings_refuse_change()")
    else:
        for action in ("update", "delete"):
            op.execute(f"DROP TRIGGER IF EXISTS rating_list_lines_no_{action}")
            op.execute(f"CREATE TRIGGER rating_list_entries_no_{action} BEFORE {action.upper()} "
                       f"ON rating_list_entries "
                       f"BEGIN SELECT RAISE(ABORT, '{_REFUSE.format(table='rating_list_entries')}'); END")
    op.drop_table("rating_list_lines")
    with op.batch_alter_table("rating_lists") as batch:
        batch.drop_column("base_edition")
        batch.drop_column("lines")
