"""Storage: SQLAlchemy models, the engine and sessions, migrations, and the repository functions."""
