"""The SQL warehouse: SQLModel tables, migrations, exactly-once loads and the read API."""
