"""The cluster's name, taken from its database: processes on one database form one cluster, whatever
URL each reaches it through (another host name, a proxy, a pooler on another port).

The first process to start writes a random id into the ``settings`` table (key ``cluster``); every
process reads it back. With the database's own name (as the server knows it, not as a pooler calls
it) it makes the prefix of every Redis channel and key the processes share (`server.cluster.bus`,
the directory of tables, the visitors' counts in `server.rates`).
"""

from __future__ import annotations

import secrets

from sqlalchemy import select, text
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncEngine

from server.startup import StartFault
from server.store.models import SettingRow

__all__ = ["cluster_prefix"]

KEY = "cluster"  # the setting holding the cluster's id


async def cluster_prefix(engine: AsyncEngine) -> str:
    """The prefix of the Redis channels and keys of the processes on the PostgreSQL database behind
    ``engine``: the same for every process on that database, however it is reached.

    :raises sqlalchemy.exc.DBAPIError: when the database cannot be read (or, the first time, written).
    :raises StartFault: when the setting holds no id (changed by hand).
    """
    mine = {"id": secrets.token_hex(8)}
    written = insert(SettingRow).values(key=KEY, value=mine).on_conflict_do_nothing(index_elements=["key"])
    async with engine.begin() as connection:
        # (Read committed: once the insert has waited for another process's, the select sees its row.)
        await connection.execute(written)
        value = await connection.scalar(select(SettingRow.value).where(SettingRow.key == KEY))
        database = await connection.scalar(text("SELECT current_database()"))
    ident = value.get("id") if isinstance(value, dict) else None
    if not isinstance(ident, str) or not ident:
        raise StartFault(
            f"the setting {KEY!r} in the database holds no cluster id ({value!r}): stop every process, delete it "
            f"(DELETE FROM settings WHERE key = '{KEY}') and start them again"
        )
    return f"sparrow:{ident}:{database}:"
