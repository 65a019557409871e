"""`Node`: one of several server processes sharing one PostgreSQL database and one Redis.

Each table runs in exactly one process, the holder of its lease (`server.cluster.leases`). Any
process takes any request or socket and gets it to that process over the bus (`server.cluster.bus`):

- an HTTP request about a table becomes a *call* (``ask``, ``show``, ``rematch``, ``close``); the
  running process does it (`Lobby.serve_call`) and answers;
- a socket at a table another process runs stays where it connected: its messages go to the running
  process, which reads them as its own sockets' (`server.ws.Reader`) and sends back the frames of
  that seat's projection, which the first process writes to the socket unread. Forwarding rather
  than redirecting, because behind one address (``--workers N``, or a proxy) a browser cannot pick
  the process it reaches.

A thread of each process renews its leases (`server.cluster.renewer`: a busy event loop cannot
starve it, and a loop stuck for good stops it). Every `TICK` seconds each process takes over tables
nobody holds, a few at a time (a process
that died, or one that could not renew), closes the sockets it forwards to a process that is gone
or no longer runs their table (1012: the browser reconnects, to whichever process runs it now), and
tells the others which tables it runs, for the lobby list, and reads the club (members, settings)
again, which another process may have changed. A process that cannot renew its leases
stops touching its tables before they run out (a lease it has just taken holds for a lease of its
own, renewed or not), and renews only the tables it runs, so those it let go run out and are taken
over (by any process, itself too) once the database answers again; one whose write is refused as
stale (a newer lease token) drops that table at once. A table runs here only while this process
holds its lease: one let go while its takeover was reading it is not run.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import math
import os
import secrets
import socket
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import orjson
from redis.exceptions import RedisError
from sqlalchemy.exc import DataError, DBAPIError, IntegrityError, ProgrammingError

from server import metrics
from server.club.club import Club
from server.cluster.bus import Bus
from server.cluster.leases import TICK, TTL, Leases
from server.cluster.renewer import BEAT, Renewer
from server.lobby import Lobby
from server.store.journal import SqlJournal
from server.tables.actor import TableActor
from server.tables.connection import Connection
from server.tables.errors import TableError
from server.tables.messages import Attach, Detach
from server.ws import Reader, SocketConfig

if TYPE_CHECKING:
    from server.cluster.handover import Handovers

__all__ = ["CALL_TIMEOUT", "Node"]

CALL_TIMEOUT = 5.0  # seconds another process has to answer a call
MOVE_WAIT = 30.0  # seconds a socket forwarded to a table being handed over waits to hear where it went
MOVED = 1012  # the close code that makes a browser reconnect with its seat token
ORPHANS_LOOKED_AT = 500  # tables nobody holds, looked at per tick
TAKEN_PER_TICK = 10  # tables nobody holds taken over per tick, at most: a takeover of many is spread
#   over several ticks, so that restoring them never holds the event loop for long
TAKEN_AT_ONCE = 4  # tables whose takeover (lease, then journal) is under way at once
log = logging.getLogger("sparrow.cluster")


_LOST_TOUCH = "the server lost touch with the table's process: reconnecting"


def _moving() -> TableError:
    return TableError("table/moving", "that table is moving to another server process; try again", status=503)


@dataclass(slots=True)
class _Link:
    """This process's end of a socket at a table another process runs."""

    node: Node
    conn: Connection
    table: str
    owner: str
    held: list[str] | None = None  # the client's messages, kept while its table moves from here (handover.py)
    moving: float | None = None  # (monotonic) since when its table is moving from ``owner`` to another process

    def reader(self, conn: Connection, config: SocketConfig) -> Reader:
        return _Forwarder(conn, None, config, link=self)

    def forward(self, frame: str | bytes) -> None:
        """Pass a message the client sent on to the table's process (`server.tables.connection.Relay`)."""
        text = frame if isinstance(frame, str) else frame.decode("utf-8", "replace")
        if self.held is not None:
            self.held.append(text)
        else:
            self.node.bus.post(self.owner, ["in", self.node.id, self.conn.id, text])

    def leave(self, conn: Connection) -> None:
        if conn.relay is self:
            conn.relay = None  # (no reference cycle left for the collector)
        if self.node._links.pop(conn.id, None) is not None:
            self.node.bus.post(self.owner, ["leave", self.node.id, conn.id])


class _Forwarder(Reader):
    """Counts a forwarded socket's messages here, and passes on those let through unread."""

    def __init__(self, conn: Connection, actor: TableActor | None, config: SocketConfig, *, link: _Link) -> None:
        super().__init__(conn, actor, config)
        self.link = link

    @property
    def table(self) -> str | None:
        return self.link.table

    def handle(self, frame: str | bytes) -> None:
        self.link.forward(frame)


class _Remote(Connection):
    """A socket held by process ``proc`` at a table running here: its frames go back over the bus."""

    def __init__(self, node: Node, proc: str, remote_id: int) -> None:
        super().__init__(None, limit=1)
        self.node, self.proc, self.remote_id = node, proc, remote_id

    def send(self, frame: str) -> bool:
        if self.closed:
            return False
        self.node.bus.post(self.proc, ["out", self.node.id, self.remote_id, frame])
        return True

    def close(self, code: int, reason: str) -> None:
        if not self.mark_closed(code, reason):
            return
        self.node._hosted.pop((self.proc, self.remote_id), None)
        self.node.bus.post(self.proc, ["close", self.node.id, self.remote_id, code, reason])


@dataclass(slots=True)
class _Hosted:
    conn: _Remote
    actor: TableActor
    reader: Reader
    held: list[str] | None = None  # the client's messages, kept while its table moves from here (handover.py)


class Node:
    """This process's part in a cluster: its leases, its end of the bus, its forwarded sockets."""

    def __init__(
        self,
        lobby: Lobby,
        journal: SqlJournal,
        redis_url: str,
        config: SocketConfig,
        *,
        prefix: str,
        ttl: float = TTL,
        tick: float = TICK,
    ) -> None:
        self.id = f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(3)}"
        self.lobby, self.journal, self.config = lobby, journal, config
        self.ttl, self.tick = ttl, tick
        self.leases = Leases(journal.engine, self.id, ttl=ttl)
        self.renewer = Renewer(journal.engine.url.render_as_string(hide_password=False), self.id, ttl=ttl)
        self._seen: object = None  # the renewer's latest renewal the loop has acted on
        self._trouble_since: float | None = None  # (monotonic) when the loop saw the journal's trouble
        # (monotonic) by table: a lease this process took lately holds at least until then, renewed
        # or not (the renewer may not have renewed it yet, nor anything since its last failure)
        self._held_until: dict[str, float] = {}
        self._lapsed: float | None = None  # (monotonic) since the renewals fell behind (said once): no table is taken
        self.prefix = prefix  # of the bus's channels and keys: `server.cluster.identity.cluster_prefix`
        self.bus = Bus(redis_url, self.id, self.prefix, on_gone=self._gone, on_down=self._bus_down, on_up=self._bus_up)
        self._rids = itertools.count(1)
        self._calls: dict[int, tuple[str, asyncio.Future[object]]] = {}  # by id: the owner asked, the answer
        self._calls_at: dict[int, str] = {}  # by id: the table each call is about
        self._links: dict[int, _Link] = {}  # sockets here at tables elsewhere, by connection id
        self._hosted: dict[tuple[str, int], _Hosted] = {}  # sockets elsewhere at tables here
        self._elsewhere: list[tuple[float, dict[str, object]]] = []  # what the others last said they run
        self.club: Club | None = None  # reloaded every tick: another process may have changed it
        self._tasks: list[asyncio.Task[None]] = []
        self._handling: set[asyncio.Task[None]] = set()
        self._unsaid: list[tuple[str, list[object]]] = []  # what to tell others once Redis is back
        self._db_down_since: float | None = None  # the cluster's steps cannot reach the database (said once)
        self._halted = False  # no more rounds: the process hands its tables over (`halt_rounds`)
        self._stepping = False  # a round is under way
        journal.on_stale = self._stale
        from server.cluster.handover import Handovers

        self.handovers: Handovers = Handovers(self)

    # ------------------------------------------------------------ life
    async def start(self) -> None:
        """Join the bus, take the tables nobody holds, and tick from now on.

        :raises redis.RedisError: when Redis cannot be reached.
        """
        await self.bus.start(self._heard)
        self.renewer.beat(self.journal.tokens)
        self.renewer.start()
        loop = asyncio.get_running_loop()
        # The loop beats from now on: while it does not, the renewer stops renewing (after a bound).
        self._tasks = [loop.create_task(self._beat(), name="cluster-beat")]
        await self._round(club=False)  # (the club was read as the process started)
        self._tasks.append(loop.create_task(self._run(self._round), name="cluster-round"))

    async def close(self) -> None:
        """Stop ticking, let this process's tables go at once (after the lobby has stopped them and
        the journal has written their last actions) and leave the bus."""
        for task in self._tasks:
            task.cancel()
            with contextlib.suppress(BaseException):
                await task
        await self.renewer.stop()
        for conn in [link.conn for link in self._links.values()]:
            conn.close(MOVED, "the server is restarting")
        try:
            await self.leases.release(list(self.journal.tokens))
        except Exception:
            log.exception("could not let this process's tables go; others take them when the leases run out")
        self.journal.tokens.clear()
        with contextlib.suppress(Exception):
            await self.bus.redis.delete(self._directory_key(self.id))
        await self.bus.close()

    async def _run(self, step: Callable[[], Awaitable[None]]) -> None:
        while not self._halted:
            await asyncio.sleep(self.tick)
            self._stepping = True
            try:
                await step()
            finally:
                self._stepping = False

    async def halt_rounds(self) -> None:
        """Tick no more (the leases are still renewed): a round under way ends first, so that no
        takeover is cut short."""
        self._halted = True
        for task in self._tasks[1:]:
            if not self._stepping:
                task.cancel()
            with contextlib.suppress(BaseException):
                await task

    async def hand_over(self) -> bool:
        """Before this process stops: hand its tables to the others, then move its sockets
        (server/cluster/handover.py); False when there is no other process (nothing is done)."""
        return await self.handovers.hand_over()

    async def _beat(self) -> None:
        while True:
            self.renewer.beat(self.journal.tokens)
            try:
                self._heed_renewals()
            except Exception:
                log.exception("cluster: acting on the leases' renewal failed")
            await asyncio.sleep(BEAT)

    async def _round(self, *, club: bool = True) -> None:
        """One tick's steps, and (``club``) the club read again beside them: on a distant database
        its reads take round trips that would otherwise hold up the takeovers."""
        steps = (self._take_orphans, self._check_links, self._check_hosted, self._share_directory)
        unreachable = False

        async def run(step: Callable[[], Awaitable[None]]) -> None:
            nonlocal unreachable
            started = time.monotonic()
            try:
                await step()
            except RedisError as exc:  # logged once by the bus, until Redis is back
                self.bus.trouble(exc, started)
            except (OSError, DBAPIError) as exc:
                if isinstance(exc, IntegrityError | ProgrammingError | DataError):  # a wrong query: a bug
                    log.exception("cluster: %s failed; trying again in %g s", step.__name__.strip("_"), self.tick)
                    return
                unreachable = True
                if self._db_down_since is None:  # said once when it starts, and once when it ends
                    self._db_down_since = started
                    why = f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"[:300]
                    log.warning("cluster: the database cannot be reached (%s); trying again every %g s", why, self.tick)
            except Exception:
                log.exception("cluster: %s failed; trying again in %g s", step.__name__.strip("_"), self.tick)

        async def in_turn() -> None:
            for step in steps:
                await run(step)

        await asyncio.gather(in_turn(), *([run(self._reload_club)] if club else []))
        if not unreachable and self._db_down_since is not None:
            lasted = time.monotonic() - self._db_down_since
            log.warning("cluster: the database answers again after %.0f s", lasted)
            self._db_down_since = None

    # ----------------------------------------------------------- leases
    async def claim(self, table_id: str) -> None:
        """Take the lease of a new table (`Elsewhere.claim`).

        :raises TableError: (503) when the lease cannot be taken.
        """
        if self._lapsed is not None:
            why = "this server process cannot keep a table just now: its database answers too slowly, or not at all"
            raise TableError("server/storage", f"{why}; try again in a moment", status=503)
        asked = time.monotonic()
        token = await self.leases.take(table_id)
        if token is None:
            raise TableError("server/storage", "could not take the new table's lease; try again", status=503)
        self.journal.tokens[table_id] = token
        self._held_until[table_id] = asked + self.ttl
        self.renewer.beat(self.journal.tokens)  # renewed from now on, not from the next beat

    def holds(self, table_id: str) -> bool:
        """`Elsewhere.holds`: whether this process holds the lease of ``table_id`` (its writes carry its token)."""
        return table_id in self.journal.tokens

    def _heed_renewals(self) -> None:
        """Act on what the renewer found: drop the tables another process took, and every table whose
        lease may run out within a tick (before it does) while the renewals are not keeping it: the
        latest failed, one is still under way (a database far away, or silent), or the renewer died;
        the database writes again once a renewal (a write) begun after a failed write succeeds.
        Renewals that fall behind (`Renewer.lagging`: failed, or too slow to keep a lease) are said
        once, and once when they keep up again; meanwhile this process takes no table (`lapsed`)."""
        renewer = self.renewer
        last, good = renewer.last, renewer.good
        now = time.monotonic()
        if last is not None and last is not self._seen:
            self._seen = last
            if not last.failed:
                for table_id, token in last.asked.items():
                    if table_id not in last.held and self.journal.tokens.get(table_id) == token:
                        log.error("cluster: table %s is no longer this process's; it stops here", table_id)
                        self._drop(table_id)
        # A lease holds until the last good renewal's grant from when it was sent (the database counts
        # from later still), or, taken lately (a takeover as the database came back, before the
        # renewer's next renewal), a lease from its taking. A renewer that succeeded and waits to renew
        # again renews in time: its grants are short only while this loop was silent (a busy loop
        # keeps its tables, server/cluster/renewer.py), and its next renewal, due within `EVERY`
        # seconds, grants a whole lease.
        renewed = -math.inf if good is None else good.until
        keeping = renewer.alive and last is not None and not last.failed and renewer.asking is None
        due = [
            table_id
            for table_id in self.journal.tokens
            if not keeping and now >= max(renewed, self._held_until.get(table_id, -math.inf)) - self.tick
        ]
        why = renewer.lagging(now)
        if (why is not None or due) and self._lapsed is None:
            self._lapsed = now
            log.error(
                "cluster: the leases cannot be renewed in time (%s); this process lets its tables go before their "
                "leases run out, and takes none until they can",
                why or "a lease may run out before it is renewed",
            )
        elif why is None and not due and self._lapsed is not None and renewed - self.tick > now:
            log.warning("cluster: the leases are renewed in time again after %.0f s", now - self._lapsed)
            self._lapsed = None
        for table_id in due:
            self._drop(table_id)
        for table_id in [t for t, until in self._held_until.items() if until <= now]:
            del self._held_until[table_id]  # held by the renewals alone from now on
        if self.journal.trouble is None:
            self._trouble_since = None
        elif self._trouble_since is None:
            self._trouble_since = now
        elif good is not None and good.started > self._trouble_since:
            # The renewal was a write (a process with no table probes with one: without a write of its
            # own nothing would find that the database writes again, and /healthz answered 503 for good).
            self.journal.writes_again()
            self._trouble_since = None

    async def let_go(self, table_ids: list[str]) -> None:
        """The lobby stopped running ``table_ids`` (closed, or finished and retired): their leases go
        now, rather than being renewed for as long as this process lives (`Elsewhere.let_go`)."""
        for table_id in table_ids:
            self.journal.tokens.pop(table_id, None)
            self._held_until.pop(table_id, None)
        self.renewer.beat(self.journal.tokens)
        await self.leases.release(table_ids)

    def let_go_here(self, table_id: str) -> None:
        """This process holds ``table_id`` no more (it handed it over, or its takeover failed): no
        renewal, no write."""
        self.journal.tokens.pop(table_id, None)
        self._held_until.pop(table_id, None)
        self.renewer.beat(self.journal.tokens)

    def _stale(self, table_id: str) -> None:
        """A write of ``table_id`` was refused as stale: another process has it now (the journal said so)."""
        log.debug("cluster: table %s was taken over by another process; it stops here", table_id)
        self._drop(table_id)

    def _drop(self, table_id: str) -> None:
        """Stop running ``table_id`` here at once, writing nothing more; its sockets close with 1012."""
        self.journal.tokens.pop(table_id, None)
        self._held_until.pop(table_id, None)
        self.renewer.beat(self.journal.tokens)  # renewed no more from now on
        actor = self.lobby.tables.pop(table_id, None)
        if actor is not None:
            metrics.LOST.inc()
            actor.abandon(MOVED)

    async def _take_orphans(self) -> None:
        if not self.lobby.accepting or self._lapsed is not None:  # (tables it could not keep)
            return
        found = await self.leases.orphans(ORPHANS_LOOKED_AT)
        if not found:
            return
        # A process whose leases ran out is not renewing (hung, or cut off), though it may still be
        # listening on the bus: it takes no share of the work.
        stalled = {owner for _, owner in found}
        # Redis out of reach: leases need no Redis (each table moves once), so this process takes its
        # share as if alone, the database's answers telling which are still free.
        members = 1
        if self.bus.down_since is None:
            asked = time.monotonic()
            try:
                members = max(1, len(set(await self.bus.members()) - stalled))
            except RedisError as exc:  # logged once by the bus, until Redis is back
                self.bus.trouble(exc, asked)
        orphans = [table_id for table_id, _ in found]
        share = min(math.ceil(len(orphans) / members), TAKEN_PER_TICK)  # survivors split the work
        # A few at once, so that the database's answers overlap; each restore is a step of its own,
        # and whatever else is due (moves, sockets) runs between two.
        # Down the list until this process has its share: the others, looking at once, take some of it.
        taking, left = asyncio.Semaphore(TAKEN_AT_ONCE), [share]
        done = await asyncio.gather(*(self._take(t, taking, left) for t in orphans), return_exceptions=True)
        failed = [error for error in done if isinstance(error, Exception)]
        if failed:
            raise failed[0]

    async def _take(self, table_id: str, taking: asyncio.Semaphore, left: list[int]) -> None:
        """Take over ``table_id`` (nobody held it) and run it here, unless another process was quicker,
        ``left[0]`` more tables are not wanted, or it was let go while its log was read (`_drop`: the
        leases could not be renewed, or a write was refused as stale): it never runs here without
        its lease, whose token fences its writes and which the renewer renews."""
        async with taking:
            if left[0] <= 0 or table_id in self.lobby.tables or not self.lobby.accepting:
                return
            left[0] -= 1
            asked = time.monotonic()
            token = await self.leases.take(table_id)
            if token is None:
                left[0] += 1
                return  # another process took it first
            self.journal.tokens[table_id] = token
            self._held_until[table_id] = asked + self.ttl
            self.renewer.beat(self.journal.tokens)
            try:
                stored = await self.journal.load(table_id)
            except Exception:  # (a lock on its rows, the database gone): let it go, to be taken again
                self.journal.tokens.pop(table_id, None)
                self._held_until.pop(table_id, None)
                with contextlib.suppress(Exception):
                    await self.leases.release([table_id])  # else it runs out: it is no longer renewed
                raise
        if self.journal.tokens.get(table_id) != token:  # let go meanwhile: its lease runs out, or is another's
            log.warning("cluster: table %s was let go while it was being taken over; it does not run here", table_id)
            return
        if stored is None or not self.lobby.revive(stored):
            return  # held, so that nobody loops on it; it stays stored but closed (as on a restart)
        metrics.TAKEN_OVER.inc()
        log.info("cluster: took over table %s (lease token %d)", table_id, token)

    # ------------------------------------------------------------ calls
    async def call(self, table_id: str, op: str, args: dict[str, object], owner: str | None = None) -> object:
        """`Elsewhere.call`: have the process running ``table_id`` (``owner``, if looked up already) do ``op``."""
        owner = owner or await self._owner(table_id)
        if self.bus.down_since is not None:
            raise _moving()  # (no answer could come)
        rid = next(self._rids)
        answer: asyncio.Future[object] = asyncio.get_running_loop().create_future()
        self._calls[rid] = (owner, answer)
        self._calls_at[rid] = table_id
        self.bus.post(owner, ["call", self.id, rid, table_id, op, args])
        try:
            return await asyncio.wait_for(answer, CALL_TIMEOUT)
        except TimeoutError:
            log.warning("cluster: %s %s got no answer from %s in %g s", op, table_id, owner, CALL_TIMEOUT)
            raise _moving() from None
        finally:
            self._calls.pop(rid, None)
            self._calls_at.pop(rid, None)

    async def _owner(self, table_id: str) -> str:
        """The other process running ``table_id``.

        :raises TableError: 503 while the table moves between processes (or is ours but not yet
            running), 404 when there is no such live table.
        """
        moved = await self.handovers.moved_to(table_id)  # (being handed over from here: once it runs there)
        if moved is not None:
            return moved
        owner = (await self.leases.owners([table_id])).get(table_id)
        if owner is None and not await self.leases.unfinished(table_id):
            raise TableError("table/not_found", f"there is no table {table_id!r} (it may have closed)", status=404)
        if owner is None or owner == self.id:
            raise _moving()
        return owner

    async def attach(self, table: str, token: str | None, member: int | None, conn: Connection) -> _Link:
        """`server.ws.Forwarding.attach`: attach ``conn`` to ``table`` in the process running it."""
        owner = await self._owner(table)
        link = _Link(self, conn, table, owner)
        self._links[conn.id] = link
        try:
            answer = await self.call(table, "attach", {"socket": conn.id, "token": token, "member": member}, owner)
        except BaseException:
            self._links.pop(conn.id, None)
            raise
        seat = answer.get("seat") if isinstance(answer, dict) else None
        conn.seat = seat if isinstance(seat, int) else None
        return link

    # ---------------------------------------------------- what arrives
    def _heard(self, item: list[object]) -> None:
        match item:
            case ["call", str(proc), int(rid), str(table_id), str(op), dict(args)]:
                task = asyncio.get_running_loop().create_task(self._serve(proc, rid, table_id, op, args))
                self._handling.add(task)
                task.add_done_callback(self._handling.discard)
            case ["answer", int(rid), bool(ok), value]:
                call = self._calls.get(rid)
                if call is None or call[1].done():
                    return
                if ok:
                    call[1].set_result(value)
                else:
                    error = value if isinstance(value, dict) else {}
                    call[1].set_exception(
                        TableError(
                            str(error.get("reason")), str(error.get("message")), status=int(error.get("status", 500))
                        )
                    )
            case ["in", str(proc), int(socket_id), str(frame)]:
                hosted = self._hosted.get((proc, socket_id))
                if hosted is not None and hosted.held is not None:  # its table is moving from here
                    hosted.held.append(frame)
                elif hosted is not None:
                    hosted.reader.take_safely(frame)
                elif not self.handovers.relay(proc, socket_id, item):  # (its table moved from here)
                    # forgotten here (its process was out of reach): the page reconnects
                    self.bus.post(proc, ["close", self.id, socket_id, MOVED, _LOST_TOUCH])
            case ["leave", str(proc), int(socket_id)]:
                hosted = self._hosted.pop((proc, socket_id), None)
                if hosted is not None:
                    hosted.actor.post(Detach(hosted.conn))
                else:
                    self.handovers.relay(proc, socket_id, item)
            case ["out", str(proc), int(socket_id), str(frame)]:
                link = self._links.get(socket_id)
                if link is not None:
                    link.conn.send(frame)
                else:  # closed here while Redis was out of reach: the table forgets it
                    self.bus.post(proc, ["leave", self.id, socket_id])
            case ["close", str(_), int(socket_id), int(code), str(reason)]:
                link = self._links.pop(socket_id, None)
                if link is not None:
                    link.conn.close(code, reason)
            case ["take", str(proc), str(table_id), int(token), handover]:  # a table handed over to this process
                task = asyncio.get_running_loop().create_task(self.handovers.take(proc, table_id, token, handover))
                self._handling.add(task)
                task.add_done_callback(self._handling.discard)
            case ["taken", str(table_id), bool(ok)]:
                self.handovers.taken(table_id, ok)
            case ["prepare", str(proc), str(table_id)]:  # a table to read, for ``proc`` to hand it over
                task = asyncio.get_running_loop().create_task(self.handovers.prepare(proc, table_id))
                self._handling.add(task)
                task.add_done_callback(self._handling.discard)
            case ["prepared", str(table_id), int(version)]:
                self.handovers.prepared(table_id, version)
            case ["moving", str(proc), int(socket_id)]:  # the table of a socket forwarded to ``proc`` is moving
                link = self._links.get(socket_id)
                if link is not None and link.owner == proc:
                    link.moving = time.monotonic()
            case ["moved", str(proc), int(socket_id), str(owner)]:  # … and runs at ``owner`` now
                link = self._links.get(socket_id)
                if link is not None and link.owner == proc:
                    link.owner, link.moving = owner, None
            case ["revoked_link", int(link_id)]:
                if self.club is not None:
                    self.club.passes.sockets.revoked([link_id])
            case ["back", str(proc)]:  # it was cut off from the bus: a call sent it meanwhile may be lost
                for owner, answer in self._calls.values():
                    if owner == proc and not answer.done():
                        answer.set_exception(_moving())  # (refused now, and tried again, not after CALL_TIMEOUT)
            case _:
                log.error("cluster: a message nobody understands: %r", item[:3])

    async def _serve(self, proc: str, rid: int, table_id: str, op: str, args: dict[str, object]) -> None:
        """Do a call another process made, and answer it."""
        try:
            if op == "attach":
                value = await self._host(proc, table_id, args)
            else:
                value = await self.lobby.serve_call(table_id, op, args)
            orjson.dumps(value)  # an answer that cannot cross fails here, not in the bus
            answer: list[object] = ["answer", rid, True, value]
        except TableError as exc:
            answer = ["answer", rid, False, {**exc.to_json(), "status": exc.status}]
        except Exception:
            log.exception("cluster: a call %r to table %s failed", op, table_id)
            message = "the server could not handle that; the table is unchanged"
            answer = ["answer", rid, False, {"reason": "server/internal", "message": message, "status": 500}]
        self.bus.post(proc, answer)

    async def _host(self, proc: str, table_id: str, args: dict[str, object]) -> object:
        """Attach a socket that process ``proc`` holds to the table ``table_id``, which runs here."""
        actor = self.lobby.local(table_id)
        socket_id, token, member = args.get("socket"), args.get("token"), args.get("member")
        if actor is None:
            raise _moving()
        if not isinstance(socket_id, int) or (token is not None and not isinstance(token, str)):
            raise TableError("input/malformed", "a socket id and a seat token (or none) are needed")
        conn = _Remote(self, proc, socket_id)
        answer = await actor.ask(Attach(conn, token, member if isinstance(member, int) else None))
        self._hosted[proc, socket_id] = _Hosted(conn, actor, Reader(conn, actor, self.config, limit=False))
        return answer

    def revoked_link(self, link_id: int) -> None:
        """A guest link was revoked here: every other process closes its guests' sockets (`Passes.on_revoked`;
        a message lost on the way is made good by each process's reload, `Passes.refresh`)."""
        task = asyncio.get_running_loop().create_task(self._tell_others(["revoked_link", link_id]))
        self._handling.add(task)
        task.add_done_callback(self._handling.discard)

    async def _tell_others(self, item: list[object]) -> None:
        started = time.monotonic()
        try:
            others = [p for p in await self.bus.members() if p != self.id]
        except RedisError as exc:  # logged once by the bus, until Redis is back
            self.bus.trouble(exc, started)
            return
        for proc in others:
            self.bus.post(proc, item)

    # -------------------------------------------------- who is gone
    def _gone(self, proc: str) -> None:
        """Nobody heard what was sent to ``proc``: it has stopped."""
        self._lost(proc)
        for owner, answer in self._calls.values():
            if owner == proc and not answer.done():
                answer.set_exception(_moving())

    def _bus_down(self) -> None:
        """Redis is out of reach: what crossed it may be lost, so no socket waits on it. Forwarded
        sockets close (1012: their pages reconnect), sockets forwarded here are forgotten, calls are
        refused; the other ends are told once Redis is back (`_bus_up`)."""
        for link in list(self._links.values()):
            self._links.pop(link.conn.id, None)
            self._unsaid.append((link.owner, ["leave", self.id, link.conn.id]))
            link.conn.close(MOVED, _LOST_TOUCH)
        for (proc, socket_id), hosted in list(self._hosted.items()):
            del self._hosted[proc, socket_id]
            hosted.conn.mark_closed(MOVED, _LOST_TOUCH)
            hosted.actor.post(Detach(hosted.conn))
            self._unsaid.append((proc, ["close", self.id, socket_id, MOVED, _LOST_TOUCH]))
        for _, answer in self._calls.values():
            if not answer.done():
                answer.set_exception(_moving())

    def _bus_up(self) -> None:
        """Redis is back: tell the other ends of the sockets let go meanwhile, and every process that
        this one is back (what they asked it meanwhile may have been lost)."""
        unsaid, self._unsaid = self._unsaid, []
        for proc, item in unsaid:
            self.bus.post(proc, item)
        task = asyncio.get_running_loop().create_task(self._tell_others(["back", self.id]))
        self._handling.add(task)
        task.add_done_callback(self._handling.discard)

    def _lost(self, proc: str, tables: set[str] | None = None) -> None:
        """Close the sockets forwarded to ``proc`` (at ``tables`` only, if given), and forget those it
        forwarded here."""
        for link in list(self._links.values()):
            if link.owner == proc and (tables is None or link.table in tables):
                self._links.pop(link.conn.id, None)
                link.conn.close(MOVED, "the table moved to another server process: reconnecting")
        if tables is None:
            for key, hosted in list(self._hosted.items()):
                if key[0] == proc:
                    del self._hosted[key]
                    hosted.actor.post(Detach(hosted.conn))

    async def _check_links(self) -> None:
        """Close forwarded sockets whose table is no longer run where they are forwarded, and refuse
        (``table/moving``) the calls waiting on a process that no longer runs their table (it was
        taken over: the caller tries again where it runs now rather than wait out `CALL_TIMEOUT`)."""
        links = list(self._links.values())  # those attached while the owners are looked up are not checked
        calls = list(self._calls_at.items())
        if not links and not calls:
            return
        owners = await self.leases.owners({link.table for link in links} | {table for _, table in calls})
        now = time.monotonic()
        for link in links:
            if link.moving is not None and now - link.moving < MOVE_WAIT:
                continue  # its table is being handed over: the process it moves from says where to
            if owners.get(link.table) != link.owner and self._links.get(link.conn.id) is link:
                self._lost(link.owner, {link.table})
        for rid, table_id in calls:
            call = self._calls.get(rid)
            if call is not None and owners.get(table_id) not in (None, call[0]) and not call[1].done():
                call[1].set_exception(_moving())

    async def _check_hosted(self) -> None:
        """Forget sockets held by processes that are gone (killed: they could not say goodbye)."""
        procs = sorted({proc for proc, _ in self._hosted})
        if procs:
            alive = await self.bus.alive(procs)
            for proc in procs:
                if proc not in alive:
                    self._lost(proc)

    async def _reload_club(self) -> None:
        if self.club is not None:
            await self.club.reload()

    # ------------------------------------------------------ directory
    def _directory_key(self, proc: str) -> str:
        return f"{self.prefix}tables:{proc}"

    async def _share_directory(self) -> None:
        """Say which tables run here, and read what the others say (`tables`)."""
        mine = [(a.created, a.state.public()) for a in self.lobby.tables.values() if a.status != "closed"]
        expiry = max(1, math.ceil(self.ttl))
        await self.bus.redis.set(self._directory_key(self.id), orjson.dumps(mine), ex=expiry)
        others = [p for p in await self.bus.members() if p != self.id]
        tables: list[tuple[float, dict[str, object]]] = []
        if others:
            for said in await self.bus.redis.mget([self._directory_key(p) for p in others]):
                if said:
                    tables += [(float(created), table) for created, table in orjson.loads(said)]
        self._elsewhere = tables

    def tables(self) -> list[tuple[float, dict[str, object]]]:
        """`Elsewhere.tables`."""
        return self._elsewhere

    def describe(self) -> dict[str, object]:
        """This process in /healthz."""
        return {"process": self.id, "tables_here": len(self.journal.tokens), "forwarded_sockets": len(self._links)}
