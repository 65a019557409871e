"""`Leases`: which server process runs each live table, kept in PostgreSQL (table ``table_leases``).

A process holds a table through a lease that a thread of its own renews twice a second
(`server.cluster.renewer`); the lease runs out `TTL` seconds after the last renewal. A process
whose leases it cannot renew stops touching its tables before they run out
(`server.cluster.node`). A table whose lease ran out (its process died, or lost the database) is
taken over by another process: taking it raises its ``token``, and every journal write carries
the token its writer holds (`server.store.journal.SqlJournal`), so a write from a process that lost
the table is refused (a fencing token) whatever that process believes. Times are the database's
own (``now()``), so the processes' clocks do not matter.
"""

from __future__ import annotations

from collections.abc import Collection
from datetime import timedelta

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

__all__ = ["PROBE", "RENEW", "TICK", "TTL", "Leases"]

TTL = 5.0  # seconds a lease lasts after its last renewal
TICK = 1.0  # seconds between looks for tables nobody holds

_LIVE = "expires_at > now()"

# A renewal of the leases of the tables a process runs (``$1`` its owner, ``$2`` the tables, ``$3``
# the interval granted), which the renewer sends on a plain connection of its own
# (server/cluster/renewer.py): rows it still owns. A lease that ran out while the process was slow is
# still its own until another takes it (taking it changes the owner, and a renewal and a takeover of
# one row wait for each other), so it is renewed too. A table the process let go (it stopped running
# it: the database failed, or it closed) is never renewed, even if its row still names the process:
# its lease runs out and any process, that one too, takes it over.
RENEW = (
    "UPDATE table_leases SET expires_at = now() + $3::interval "
    "WHERE owner = $1 AND table_id = ANY($2::text[]) RETURNING table_id"
)
# A write that changes nothing, for a process with no table: it fails while the database cannot be
# written to (down, or read-only), as any UPDATE does, and tells the process that it writes (/healthz).
PROBE = "UPDATE table_leases SET owner = owner WHERE false"


class Leases:
    """The leases of process ``owner`` on the database behind ``engine`` (PostgreSQL), as its event
    loop takes, lets go and looks them up; its thread renews them (`server.cluster.renewer`)."""

    def __init__(self, engine: AsyncEngine, owner: str, *, ttl: float = TTL) -> None:
        # Each statement here stands alone (``take``'s two each do what they do atomically, and the
        # second runs only if the first found nothing), so each is committed as it ends, without
        # BEGIN and COMMIT: two round trips fewer per statement, which matter with a distant database.
        self.engine = engine.execution_options(isolation_level="AUTOCOMMIT")
        self.owner = owner
        self.ttl = ttl

    def _params(self, **more: object) -> dict[str, object]:
        return {"me": self.owner, "ttl": timedelta(seconds=self.ttl), **more}

    async def take(self, table: str) -> int | None:
        """Take ``table`` if nobody holds it (a new table, or one whose lease ran out); its new
        fencing token, or None when another process holds it.

        A lease row locked by another session (a process hung inside a transaction that reads it
        before a journal write) is skipped, not waited for: None, and it is looked at again at the next
        tick, once the database has ended that session (``idle_in_transaction_session_timeout``,
        server/store/session.py). So no takeover waits behind another table's."""
        run_out = text(
            "WITH free AS (SELECT table_id FROM table_leases WHERE table_id = :t AND expires_at <= now() "
            "FOR UPDATE SKIP LOCKED) "
            "UPDATE table_leases l SET owner = :me, token = l.token + 1, expires_at = now() + CAST(:ttl AS interval) "
            "FROM free WHERE l.table_id = free.table_id RETURNING l.token"
        )
        new = text(
            "INSERT INTO table_leases (table_id, owner, token, expires_at) "
            "VALUES (:t, :me, 1, now() + CAST(:ttl AS interval)) ON CONFLICT (table_id) DO NOTHING RETURNING token"
        )
        async with self.engine.begin() as connection:
            token = (await connection.execute(run_out, self._params(t=table))).scalar()
            if token is None:  # no lease that ran out: a new table's, unless the row exists (held, or locked)
                token = (await connection.execute(new, self._params(t=table))).scalar()
        return None if token is None else int(token)

    async def renew(self, tables: Collection[str]) -> set[str]:
        """Renew the leases of ``tables`` for a lease (`RENEW`, as the renewer does); those this
        process still holds."""
        if not tables:
            return set()
        async with self.engine.connect() as connection:
            result = await connection.exec_driver_sql(RENEW, (self.owner, list(tables), timedelta(seconds=self.ttl)))
            return {row[0] for row in result}

    async def release(self, tables: Collection[str]) -> None:
        """Let ``tables`` go at once (this process stops, or stopped running them): another process
        may take those still unfinished now. The row stays, with its token (so that a later owner's
        token is higher still) and no owner (so that no renewal of this process's takes it back)."""
        if not tables:
            return
        sql = text(
            "UPDATE table_leases SET owner = '', expires_at = now() - interval '1 second' "
            "WHERE owner = :me AND table_id = ANY(:tables)"
        )
        async with self.engine.begin() as connection:
            await connection.execute(sql, self._params(tables=list(tables)))

    async def hand(self, table: str, token: int, to: str, *, holder: str | None = None) -> int | None:
        """Give ``table``, held by this process (or by ``holder``) with ``token``, to process ``to`` at
        once, in one statement: its new token (one more), or None when that lease is no longer so held.
        Its lease runs from now; ``to`` renews it from its next renewal."""
        sql = text(
            "UPDATE table_leases SET owner = :to, token = token + 1, expires_at = now() + CAST(:ttl AS interval) "
            "WHERE table_id = :t AND owner = :holder AND token = :token RETURNING token"
        )
        params = self._params(t=table, to=to, holder=holder or self.owner, token=token)
        async with self.engine.begin() as connection:
            new = (await connection.execute(sql, params)).scalar()
        return None if new is None else int(new)

    async def owners(self, tables: Collection[str]) -> dict[str, str]:
        """The process holding each of ``tables`` that is held (a table nobody holds is left out)."""
        if not tables:
            return {}
        sql = text(f"SELECT table_id, owner FROM table_leases WHERE table_id = ANY(:tables) AND {_LIVE}")
        async with self.engine.connect() as connection:
            rows = await connection.execute(sql, {"tables": list(tables)})
            return {table: owner for table, owner in rows}

    async def unfinished(self, table: str) -> bool:
        """Whether ``table`` is a stored game that is waiting, playing or adjourned (held or not)."""
        sql = text("SELECT 1 FROM games WHERE id = :t AND status IN ('waiting', 'playing', 'adjourned')")
        async with self.engine.connect() as connection:
            return (await connection.execute(sql, {"t": table})).first() is not None

    async def orphans(self, limit: int) -> list[tuple[str, str]]:
        """Up to ``limit`` unfinished tables that nobody holds, in random order (so that processes
        looking at once mostly pick different ones), each with the process whose lease ran out (or
        ``''``: let go, or never held)."""
        sql = text(
            "SELECT g.id, coalesce(l.owner, '') FROM games g LEFT JOIN table_leases l ON l.table_id = g.id "
            "WHERE g.status IN ('waiting', 'playing') AND (l.table_id IS NULL OR l.expires_at <= now()) "
            "ORDER BY random() LIMIT :n"
        )
        async with self.engine.connect() as connection:
            return [(table, owner) for table, owner in await connection.execute(sql, {"n": limit})]
