"""Alembic environment of the warehouse.

``warehouse.db.migrate`` passes an open connection in
``config.attributes["connection"]``; the ``alembic`` command line works too
(``alembic -x url=sqlite:///ratings.db upgrade head`` with a config whose
``script_location`` is this folder).
"""

from __future__ import annotations

from alembic import context
from sqlalchemy import create_engine

from warehouse.models import metadata

config = context.config


def _run(connection: object) -> None:
    context.configure(
        connection=connection,  # type: ignore[arg-type]
        target_metadata=metadata,
        render_as_batch=True,  # SQLite cannot ALTER most things: batch mode copies tables
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


connection = config.attributes.get("connection")
if connection is not None:
    _run(connection)
else:
    url = context.get_x_argument(as_dictionary=True).get("url") or config.get_main_option("sqlalchemy.url")
    if not url:
        raise SystemExit("alembic: give the warehouse URL with -x url=...")
    engine = create_engine(url)
    with engine.begin() as conn:
        _run(conn)
    engine.dispose()
