"""Alembic environment for Sparrow. Run through `sparrow db upgrade` (or `sparrow serve`, which
upgrades by itself); both hand Alembic an open connection in ``config.attributes["connection"]``.
"""

from __future__ import annotations

import asyncio

from alembic import context
from sqlalchemy.engine import Connection

from server.store.models import Base
from server.store.session import make_engine

config = context.config
target_metadata = Base.metadata


def _run(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        render_as_batch=connection.dialect.name == "sqlite",  # SQLite alters tables by copying them
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


async def _run_async(url: str) -> None:
    engine = make_engine(url)
    async with engine.begin() as connection:
        await connection.run_sync(_run)
    await engine.dispose()


if context.is_offline_mode():
    context.configure(url=config.get_main_option("sqlalchemy.url"), target_metadata=target_metadata, literal_binds=True)
    with context.begin_transaction():
        context.run_migrations()
else:
    given = config.attributes.get("connection")
    if given is not None:
        _run(given)
    else:
        asyncio.run(_run_async(str(config.get_main_option("sqlalchemy.url"))))
