"""games: the index by competition also covers ``rated``

The site counts each competition's games and rated games on every generation
(``warehouse.site.site_competitions``). With ``(competition_key)`` alone, SQLite
chose the player index and read every game row of the federation: 0.9 s at 1M
games, each night. With ``(competition_key, rated)`` the count reads the index
only: 0.07 s. The new index replaces the old one, which is its prefix.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-01 16:45:00

"""
from collections.abc import Sequence

from alembic import op

revision: str = "0007"
down_revision: str | Sequence[str] | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Replace ``ix_games_competition`` by ``ix_games_competition_rated``."""
    op.create_index("ix_games_competition_rated", "games", ["competition_key", "rated"])
    op.drop_index("ix_games_competition", table_name="games")


def downgrade() -> None:
    """Put the index on ``competition_key`` alone back."""
    op.create_index("ix_games_competition", "games", ["competition_key"])
    op.drop_index("ix_games_competition_rated", table_name="games")
