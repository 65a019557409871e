"""`Handovers`: a process that stops (SIGTERM; each worker of `sparrow serve --workers N` restarted on
SIGHUP) hands its tables to the other processes of the cluster while they play, then moves its sockets.

Before uvicorn closes anything (server/stopping.py) the process stops taking new connections, tables
and takeovers, and gives each table it runs to the live process running fewest, a few at a time:

1. that process reads the table from the journal and rebuilds it, not running (``prepare``), while
   it still plays here; then, here:
2. its sockets here stay open and their messages are held (`_Link.held`), as are those of the sockets
   other processes forward here (`_Hosted.held`; those processes are told that the table is moving,
   so that they keep their sockets, ``moving``);
3. the table handles what its inbox holds, writing it to the journal, and stops without closing its
   sockets, handing back what the journal does not hold (`server.tables.handover.Baton`);
4. its lease goes to the other process in one statement (owner, token + 1), which is told to run it
   (``take``, with the actions played since it read the journal): it catches up, takes the baton and
   the sockets, sends each a snapshot and plays on;
5. once it says so (``taken``), the held messages go there, and every socket's process forwards to it
   from then on (``moved``): no socket closed, no message was refused or lost, and the table paused for
   the time of one database statement and two messages across Redis.

A table that no other process reads in time (a process that says it cannot, or does not answer
within `HAND_WAIT`, is passed over for the next; all of them have `PREPARE_WITHIN`) stops here as on
a restart (its sockets close with 1012, its lease goes and another process takes it over); one whose move fails
after it stopped here closes its sockets with 1012, and its lease runs out, as after a crash. Once its
tables are gone, every page whose
socket this process holds is told to open another (``reconnect``: it reaches another process) and
then close this one, which keeps working meanwhile; those still open after `SWITCH_WAIT` are closed
with 1012. A process with no other (one alone) hands nothing over: it closes its sockets with 1012.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from dataclasses import dataclass, field

import orjson
from redis.exceptions import RedisError

from server.cluster.node import MOVED, Node, _Hosted, _Link, _Remote
from server.tables.actor import TableActor
from server.tables.connection import Connection, encode
from server.tables.handover import Baton
from server.ws import Reader

__all__ = ["AT_ONCE", "HAND_WAIT", "SWITCH_WAIT", "Handovers"]

HAND_WAIT = 10.0  # seconds a process waits for another to say that it runs a table handed to it
SWITCH_WAIT = 5.0  # seconds the pages have to open a socket elsewhere once told to
AT_ONCE = 8  # tables being handed over at once
READ_AT_ONCE = 2  # tables a process reads at once for others to hand over (the tables running there go on)
PREPARE_WITHIN = 20.0  # seconds for the other processes to read every table: those left stop here (1012)
_RECONNECT = encode("reconnect", {})
_GONE = "the table could not move to another server process: reconnecting"
log = logging.getLogger("sparrow.cluster")


@dataclass(slots=True)
class _Move:
    """A table being handed over from here."""

    peer: str
    answer: asyncio.Future[bool]
    links: list[_Link] = field(default_factory=list)


@dataclass(slots=True)
class _Ready:
    """A table read here from the journal, for another process to hand over (``prepare``)."""

    actor: TableActor
    since: float  # (monotonic)


class Handovers:
    """The tables ``node`` hands to other processes, and those they hand to it."""

    def __init__(self, node: Node) -> None:
        self.node = node
        self.moving: dict[str, _Move] = {}  # by table
        self.preparing: dict[str, asyncio.Future[int]] = {}  # by table: the version the other process read
        self.relayed: dict[tuple[str, int], str] = {}  # sockets forwarded here whose table moved: where to
        self.ready: dict[str, _Ready] = {}  # tables read here for another process to hand over, by table
        self.leaving = False  # this process is handing its tables over: it takes none
        self._silent: set[str] = set()  # processes that did not answer: nothing more is handed to them
        self._reading = asyncio.Semaphore(READ_AT_ONCE)

    # ------------------------------------------------------------ leaving
    async def hand_over(self) -> bool:
        """Hand every table to the other processes and move the sockets (see the module); False when
        there is no other process to hand them to (nothing is done: the caller closes the sockets)."""
        node = self.node
        node.lobby.accepting = False  # no new table here, no takeover, no adjourned table brought back
        self.leaving = True
        await node.halt_rounds()
        try:
            peers = await self._peers()
        except RedisError as exc:  # logged once by the bus, until Redis is back
            node.bus.trouble(exc)
            peers = {}
        if not peers:
            return False
        with contextlib.suppress(RedisError):
            await node.bus.redis.set(self._leaving_key(node.id), b"1", ex=int(HAND_WAIT + SWITCH_WAIT + 60))
        started = time.monotonic()
        actors = [actor for actor in node.lobby.tables.values() if actor.status != "closed"]
        log.warning(
            "stopping: handing %d table(s) over to %d other process(es), then moving this process's sockets",
            len(actors),
            len(peers),
        )
        plan: list[tuple[TableActor, str]] = []
        for actor in actors:  # each to the process running fewest
            peer = min(peers, key=lambda p: (peers[p], p))
            peers[peer] += 1
            plan.append((actor, peer))
        slots = asyncio.Semaphore(AT_ONCE)
        deadline = time.monotonic() + PREPARE_WITHIN  # (a process with thousands of tables stops in time)

        async def prepare(actor: TableActor, peer: str) -> tuple[str, int | None]:
            """The process that read ``actor`` (``peer``, or another if it cannot), and what it read."""
            async with slots:
                for other in dict.fromkeys([peer, *sorted(peers, key=lambda p: (peers[p], p))]):
                    if time.monotonic() > deadline:
                        break
                    version = await self._prepare(actor.id, other)
                    if version is not None:
                        return other, version
                return peer, None

        async def hand(actor: TableActor, peer: str, version: int | None) -> bool:
            async with slots:
                return await self._hand(actor, peer, version)

        # Every table is read by its next process first, then each stops here and goes on there: a
        # table stops only for its own move, never while another is read.
        read = await asyncio.gather(*(prepare(actor, peer) for actor, peer in plan))
        done = await asyncio.gather(*(hand(a, p, v) for (a, _), (p, v) in zip(plan, read, strict=True)))
        with contextlib.suppress(RedisError):
            await node.bus.redis.delete(node._directory_key(node.id))
        handed = time.monotonic()
        moved, closed = await self._move_sockets()
        failed = len(done) - sum(done)
        log.warning(
            "stopping: %d table(s) handed over in %.2f s%s; %d socket(s) moved to other processes in %.2f s%s",
            sum(done),
            handed - started,
            f" ({failed} could not be: their sockets were closed with 1012)" if failed else "",
            moved,
            time.monotonic() - handed,
            f", {closed} closed with 1012 (their pages did not move in {SWITCH_WAIT:g} s)" if closed else "",
        )
        return True

    def _leaving_key(self, proc: str) -> str:
        return f"{self.node.prefix}leaving:{proc}"

    async def _peers(self) -> dict[str, int]:
        """The other processes that are not stopping too, each with how many tables it runs."""
        node = self.node
        others = [p for p in await node.bus.members() if p != node.id]
        if not others:
            return {}
        leaving = await node.bus.redis.mget([self._leaving_key(p) for p in others])
        others = [p for p, gone in zip(others, leaving, strict=True) if not gone]
        if not others:
            return {}
        said = await node.bus.redis.mget([node._directory_key(p) for p in others])
        return {p: len(_listed(s)) for p, s in zip(others, said, strict=True)}

    async def _prepare(self, table: str, peer: str) -> int | None:
        """Have ``peer`` read ``table`` from the journal: how many actions it read (0: no game yet), or
        None when it could not in time."""
        if peer in self._silent:
            return None
        answer = self.preparing[table] = asyncio.get_running_loop().create_future()
        try:
            self.node.bus.post(peer, ["prepare", self.node.id, table])
            version = await asyncio.wait_for(answer, HAND_WAIT)
        except TimeoutError:
            log.warning("cluster: process %s did not read table %s within %g s", peer, table, HAND_WAIT)
            self._silent.add(peer)
            return None
        finally:
            del self.preparing[table]
        return None if version < 0 else version

    def prepared(self, table: str, version: int) -> None:
        """The other process read ``table`` (``version``: how many actions; -1: it could not)."""
        answer = self.preparing.get(table)
        if answer is not None and not answer.done():
            answer.set_result(version)

    async def _hand(self, actor: TableActor, peer: str, version: int | None) -> bool:
        """Hand ``actor`` over to process ``peer``, which read it up to action ``version``; whether it
        runs there now."""
        node, table = self.node, actor.id
        if node.lobby.tables.get(table) is not actor or actor.status == "closed":
            return False  # closed meanwhile (an admin, or retired)
        if version is None:  # stopped here as on a restart: another process takes it over at once
            del node.lobby.tables[table]
            await actor.stop(MOVED)
            node.let_go_here(table)
            with contextlib.suppress(Exception):
                await node.leases.release([table])
            return False
        del node.lobby.tables[table]
        move = self.moving[table] = _Move(peer, asyncio.get_running_loop().create_future())
        for conn in list(actor.connections):  # this process's sockets: their messages are held
            if not isinstance(conn, _Remote) and not conn.closed:
                link = _Link(node, conn, table, peer, held=[])
                node._links[conn.id] = link
                conn.relay = link
                move.links.append(link)
        hosted = [(key, h) for key, h in node._hosted.items() if h.actor is actor]
        for (proc, socket_id), h in hosted:  # the other processes' sockets: held too, and kept there
            h.held = []
            node.bus.post(proc, ["moving", node.id, socket_id])
        ok, lease = False, False
        try:
            handed = await actor.hand_over()
            if handed is not None:
                baton, conns = handed
                token = node.journal.tokens.get(table)
                new = None if token is None else await node.leases.hand(table, token, peer)
                lease = new is not None
                node.let_go_here(table)
                if new is None:
                    log.warning("cluster: table %s was no longer this process's to hand over", table)
                else:
                    game = actor.game
                    handover = {
                        "baton": baton.to_json(),
                        "sockets": [self._where(conn) for conn in conns],
                        "version": 0 if game is None else game.version,
                        "since": version,
                        "actions": [] if game is None else [list(a) for a in game.log[version:]],
                        "chat": list(actor.chat),
                    }
                    node.bus.post(peer, ["take", node.id, table, new, handover])
                    ok = await asyncio.wait_for(asyncio.shield(move.answer), HAND_WAIT)
                    if not ok:
                        log.warning("cluster: process %s could not take table %s over", peer, table)
        except TimeoutError:
            log.warning("cluster: process %s did not take table %s over within %g s", peer, table, HAND_WAIT)
        except Exception:
            log.exception("cluster: table %s could not be handed over", table)
        finally:
            del self.moving[table]
        if not lease:  # still this process's: another takes it at once
            node.let_go_here(table)
            with contextlib.suppress(Exception):
                await node.leases.release([table])
        self._settle(move, hosted, ok)
        return ok

    def _where(self, conn: Connection) -> list[object]:
        """The process holding ``conn``, and its id there."""
        if isinstance(conn, _Remote):
            return [conn.proc, conn.remote_id]
        return [self.node.id, conn.id]

    def _settle(self, move: _Move, hosted: list[tuple[tuple[str, int], _Hosted]], ok: bool) -> None:
        """The move is over: the held messages go to the new process, and every socket's process
        forwards there from now on; or, if it failed, the sockets close (1012)."""
        node, peer = self.node, move.peer
        for link in move.links:
            held, link.held = link.held or [], None
            if ok:
                for frame in held:
                    node.bus.post(peer, ["in", node.id, link.conn.id, frame])
            else:
                node._links.pop(link.conn.id, None)
                link.conn.close(MOVED, _GONE)
        for key, h in hosted:
            proc, socket_id = key
            if node._hosted.get(key) is h:
                del node._hosted[key]
            if ok and not h.conn.closed:
                self.relayed[key] = peer
                for frame in h.held or []:
                    node.bus.post(peer, ["in", proc, socket_id, frame])
                node.bus.post(proc, ["moved", node.id, socket_id, peer])
            else:
                node.bus.post(proc, ["close", node.id, socket_id, MOVED, _GONE])

    def taken(self, table: str, ok: bool) -> None:
        """Process ``peer`` says whether it runs ``table``, handed to it."""
        move = self.moving.get(table)
        if move is not None and not move.answer.done():
            move.answer.set_result(ok)

    async def _move_sockets(self) -> tuple[int, int]:
        """Tell every page whose socket is here to open another, and wait until they have closed these
        (at most `SWITCH_WAIT` s); close those still open (1012). How many moved, and closed."""
        node = self.node
        deadline = time.monotonic() + SWITCH_WAIT
        told: set[int] = set()
        while node._links and time.monotonic() < deadline:
            for link in list(node._links.values()):  # (those attached meanwhile too)
                if id(link) not in told:
                    told.add(id(link))
                    link.conn.send(_RECONNECT)
            await asyncio.sleep(0.05)
        left = list(node._links.values())
        for link in left:
            node._links.pop(link.conn.id, None)
            node.bus.post(link.owner, ["leave", node.id, link.conn.id])
            link.conn.close(MOVED, "the server is restarting: reconnect now")
        return len(told) - len(left), len(left)

    async def moved_to(self, table: str) -> str | None:
        """The process ``table`` is being handed to, once it runs there (None: it is not moving from
        here, or its move failed)."""
        move = self.moving.get(table)
        if move is None:
            return None
        with contextlib.suppress(TimeoutError):
            if await asyncio.wait_for(asyncio.shield(move.answer), HAND_WAIT):
                return move.peer
        return None

    # ------------------------------------------------------------ arriving
    async def prepare(self, proc: str, table: str) -> None:
        """Read ``table`` from the journal and rebuild it, not running, for process ``proc`` to hand it
        over (`take`); tell ``proc`` how many actions it read (-1: it could not)."""
        node, version = self.node, -1
        try:
            now = time.monotonic()
            for stale in [t for t, r in self.ready.items() if now - r.since > 2 * HAND_WAIT]:
                del self.ready[stale]  # (never taken: its move failed)
            async with self._reading:
                if not self._can_take(table):
                    return
                stored = await node.journal.load(table)
                # The log is replayed beside the event loop, not in it: a long game takes a while, which
                # the tables running here (and the bus's echo: server/cluster/bus.py) must not wait for.
                actor = None if stored is None else await asyncio.to_thread(node.lobby.loaded, stored)
            if actor is not None:
                self.ready[table] = _Ready(actor, time.monotonic())
                version = 0 if actor.game is None else actor.game.version
        except Exception:
            log.exception("cluster: could not read table %s for %s to hand it over", table, proc)
        finally:
            node.bus.post(proc, ["prepared", table, version])

    async def take(self, proc: str, table: str, token: int, data: object) -> None:
        """Run ``table``, which process ``proc`` hands over with lease ``token`` (``data``: its baton and
        where its sockets are), and tell ``proc`` whether it does."""
        ok = False
        try:
            ok = await self._take(table, token, data)
        except Exception:
            log.exception("cluster: could not take table %s over from %s", table, proc)
        finally:
            self.node.bus.post(proc, ["taken", table, ok])

    async def _take(self, table: str, token: int, data: object) -> bool:
        node = self.node
        if not self._can_take(table):
            if table not in node.lobby.tables:
                await node.leases.release([table])  # (given to this process: another takes it at once)
            return False
        ready = self.ready.pop(table, None)
        if not isinstance(data, dict):
            raise ValueError("a handover is an object")
        baton = Baton.from_json(data.get("baton"))
        sockets = data.get("sockets")
        if not isinstance(sockets, list) or len(sockets) != len(baton.sockets):
            raise ValueError("a handover names where each of its sockets is")
        where = [(str(p), int(s)) for p, s in sockets]
        node.journal.tokens[table] = token
        node.renewer.beat(node.journal.tokens)  # renewed from now on
        actor = None if ready is None else _caught_up(ready.actor, data)
        read = actor is not None
        if actor is None:  # (not read beforehand, or changed since otherwise than by actions)
            try:
                stored = await node.journal.load(table)
            except Exception:
                node.let_go_here(table)
                with contextlib.suppress(Exception):
                    await node.leases.release([table])
                raise
            actor = None if stored is None else node.lobby.loaded(stored)
        if node.journal.tokens.get(table) != token or actor is None:
            return False  # let go meanwhile (the leases could not be renewed), or its log does not replay
        conns = [_Remote(node, p, s) for p, s in where]
        node.lobby.go_on(actor, baton, list[Connection](conns))
        for conn, key in zip(conns, where, strict=True):
            node._hosted[key] = _Hosted(conn, actor, Reader(conn, actor, node.config, limit=False))
        log.info(
            "cluster: took over table %s, handed over while it played (lease token %d; %s)",
            table,
            token,
            "read beforehand" if read else "read from the journal then",
        )
        return True

    def _can_take(self, table: str) -> bool:
        """Whether this process may take ``table`` over: it is not stopping, its leases are renewed in
        time (`Node._lapsed`), and it does not run that table already."""
        node = self.node
        return not self.leaving and node.lobby.accepting and node._lapsed is None and table not in node.lobby.tables

    # ---------------------------------------------------------- passing on
    def relay(self, proc: str, socket_id: int, item: list[object]) -> bool:
        """Pass ``item`` (a message about a socket another process forwards here) on to where its table
        moved; False when it did not."""
        peer = self.relayed.get((proc, socket_id))
        if peer is None:
            return False
        if item[0] == "leave":
            del self.relayed[proc, socket_id]
        self.node.bus.post(peer, item)
        return True


def _caught_up(actor: TableActor, data: dict[str, object]) -> TableActor | None:
    """``actor``, read before its handover, caught up with the actions played since (``data``: the
    handover); None when it cannot be (its seats or its status changed otherwise, say)."""
    game = actor.game
    version = 0 if game is None else game.version
    actions, chat = data.get("actions"), data.get("chat")
    if data.get("since") != version or not isinstance(actions, list) or not isinstance(chat, list):
        return None
    baton = data.get("baton")
    status = baton.get("status") if isinstance(baton, dict) else None
    if actor.status == "waiting" or status not in ("playing", "over"):
        return None  # (seats may have changed, which the journal has: it is read again)
    try:
        actor.catch_up([(int(seat), dict(action)) for seat, action in actions], [dict(line) for line in chat])
    except (ValueError, TypeError):
        return None
    game = actor.game
    if game is None or game.version != data.get("version") or actor.status != status:
        return None
    return actor


def _listed(said: bytes | str | None) -> list[object]:
    """The tables a process said it runs (its directory entry, `Node._share_directory`), or none."""
    if not said:
        return []
    value = orjson.loads(said)
    return value if isinstance(value, list) else []
