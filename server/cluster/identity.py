"""The cluster's name, taken from its database: processes on one database form one cluster, whatever
URL each reaches it through (another host name, a proxy, a pooler on another port).

The first process to start writes a random id into the ``settings`` table (key ``cluster``); every
process reads it back. With the database's own name (as the server knows it, not as a pooler calls
it) it makes the prefix of every Redis channel and key the processes share (`server.cluster.bus`,
the directory of tables, the visitors' counts in `server.rates`).
"""

from __future__ import annotations

import secrets

from sqlalchemy import func
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncEngine

from server.startup import StartFault
from server.store.models import SettingRow

__all__ = ["cluster_prefix"]

KEY = "cluster"  # the setting holding the cluster's id


async def cluster_prefix(engine: AsyncEngine) -> str:
    """The prefix of the Redis channels and keys of the processes on the PostgreSQL database behind
    ``engine``: the same for every process on that database, however it is reached.

    :raises sqlalchemy.exc.DBAPIError: when the database cannot be written to.
    :raises StartFault: when the setting holds no id (changed by hand).
    """
    mine = {"id": secrets.token_hex(8)}
    # One statement, outside any transaction (a start pays for each round trip, from as far away as
    # the database is): the row written now, or the one there already, which the update leaves as it
    # is (an update of a row another process is inserting waits for it, then sees it).
    written = (
        insert(SettingRow)
        .values(key=KEY, value=mine)
        .on_conflict_do_update(index_elements=["key"], set_={"value": SettingRow.value})
        .returning(SettingRow.value, func.current_database())
    )
    async with engine.execution_options(isolation_level="AUTOCOMMIT").connect() as connection:
        value, database = (await connection.execute(written)).one()
    ident = value.get("id") if isinstance(value, dict) else None
    if not isinstance(ident, str) or not ident:
        raise StartFault(
            f"the setting {KEY!r} in the database holds no cluster id ({value!r}): stop every process, delete it "
            f"(DELETE FROM settings WHERE key = '{KEY}') and start them again"
        )
    return f"sparrow:{ident}:{database}:"
