"""`Lobby`: the registry of live tables; creates, finds, lists and stops their actors.

A server on its own runs every table. Several processes sharing one database (server/cluster) each
run some; the lobby then asks its `Elsewhere` about a table another process runs, so that every
request works in every process.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Mapping
from typing import Protocol

from game.actions import Action
from game.errors import RulesError
from game.game import Game
from server.tables.actor import SeatState, TableActor
from server.tables.clock import Clock, RealClock
from server.tables.errors import TableError
from server.tables.journal import Journal, MemoryJournal, StoredTable, new_table_id
from server.tables.messages import (
    AddBots,
    AdjournNow,
    Join,
    Leave,
    Rematch,
    RematchMade,
    Remove,
    Start,
    request_from_wire,
    request_to_wire,
)
from server.tables.settings import TableSettings

__all__ = ["Elsewhere", "Lobby", "Request"]

MAX_TABLES = 5000
# A finished table nobody has been at for this long leaves memory; its game stays in the history.
RETIRE_AFTER = 15 * 60.0
RETIRE_EVERY = 60.0  # how often the lobby looks for such tables
log = logging.getLogger("sparrow.lobby")

Request = Join | Leave | AddBots | Remove | Start | AdjournNow


class Elsewhere(Protocol):
    """The other server processes, as the lobby of one of them sees them (`server.cluster.node`)."""

    async def claim(self, table_id: str) -> None:
        """Make the new table ``table_id`` this process's, before anything of it is stored."""

    async def call(self, table_id: str, op: str, args: dict[str, object]) -> object:
        """Have the process running ``table_id`` do ``op`` (`Lobby.serve_call`) and answer.

        :raises TableError: that process's refusal; 404 when no process runs the table; 503 while it
            moves between processes.
        """

    def tables(self) -> list[tuple[float, dict[str, object]]]:
        """The tables the other processes run: when each was created, and `TableState.public`, as
        those processes last said."""

    async def let_go(self, table_ids: list[str]) -> None:
        """This process no longer runs ``table_ids`` (closed, or finished and retired): their leases go."""


class Lobby:
    """Every table this server process runs."""

    def __init__(
        self,
        *,
        clock: Clock | None = None,
        journal: Journal | None = None,
        bot: Callable[[Game, int], Action] | None = None,
        max_tables: int = MAX_TABLES,
    ) -> None:
        self.clock = clock or RealClock()
        self.journal = journal or MemoryJournal()
        self.bot = bot
        self.max_tables = max_tables
        self.tables: dict[str, TableActor] = {}
        self.accepting = True
        self.elsewhere: Elsewhere | None = None  # the other processes, when several share the database
        self._retiring: asyncio.Task[None] | None = None

    async def create(
        self, request: Mapping[str, object], *, seed: int | None = None, member: int | None = None
    ) -> dict[str, object]:
        """Create a table from a create-table request and seat its creator (the logged-in ``member``,
        if one is), who owns it.

        :raises TableError: for bad settings or name, or when the server is full or shutting down.
        """
        actor = await self._open(TableSettings.from_json(request), seed)
        table_id = actor.id
        try:
            seat = await actor.ask(Join(request.get("player", ""), None, member))  # type: ignore[arg-type]
        except TableError:
            await actor.stop()
            del self.tables[table_id]
            raise
        assert isinstance(seat, dict)
        return seat

    async def _open(
        self,
        settings: TableSettings,
        seed: int | None = None,
        seats: list[SeatState | None] | None = None,
        owner: int | None = None,
    ) -> TableActor:
        """A new table, stored, (with ``seats`` seated) and running.

        :raises TableError: when the server is full or shutting down, or the table cannot be stored.
        """
        if not self.accepting:
            raise TableError("server/shutting_down", "the server is restarting; try again in a moment", status=503)
        if len(self.tables) >= self.max_tables:
            raise TableError("server/full", "this server has as many tables as it can run", status=503)
        table_id = new_table_id()
        actor = TableActor(table_id, settings, clock=self.clock, journal=self.journal, seed=seed, bot=self.bot)
        stored = StoredTable(table_id, settings, actor.seed, actor.created)
        try:
            if self.elsewhere is not None:
                await self.elsewhere.claim(table_id)
            await self.journal.table_created(stored)
            if seats is not None:
                await actor.seat_everyone(seats, owner)
        except Exception:
            log.exception("could not store the new table %s", table_id, extra={"table": table_id, "seat": None})
            raise TableError(
                "server/storage", "the server could not save the new table; try again", status=503
            ) from None
        actor.start()
        self.tables[table_id] = actor
        return actor

    async def rematch(self, table_id: str, token: str | None, member: int | None) -> dict[str, object]:
        """The owner of a finished game opens a new table with the same settings and the same people in
        the same seats (their seat tokens, or their logins, work there too), waiting for the owner to
        start it. Asked again, it answers with the same table.

        :raises TableError: when there is no such table, the game is not over, or not the owner asks.
        """
        if self.local(table_id) is None and self.elsewhere is not None:
            return await self._call(table_id, "rematch", {"token": token, "member": member})  # type: ignore[return-value]
        old = self.get(table_id)
        plan = await old.ask(Rematch(token, member))
        assert isinstance(plan, dict)
        if "table" in plan:
            return {"table": plan["table"]}
        try:
            actor = await self._open(old.settings, None, plan["seats"], plan["owner"])
        except TableError:
            old.post(RematchMade(None))
            raise
        old.post(RematchMade(actor.id))
        return {"table": actor.id}

    async def restore(self) -> int:
        """Rebuild every unfinished table from the journal; returns how many were restored."""
        return sum([self.revive(stored) for stored in await self.journal.unfinished()])

    def revive(self, stored: StoredTable) -> bool:
        """Rebuild the table ``stored`` and run it here; False if its log does not replay."""
        try:
            actor = TableActor.restore(stored, clock=self.clock, journal=self.journal, bot=self.bot)
        except RulesError:
            log.exception(
                "table %s could not be rebuilt from its log; it stays stored but closed",
                stored.id,
                extra={"table": stored.id, "seat": None},
            )
            return False
        actor.start()
        self.tables[stored.id] = actor
        return True

    def local(self, table_id: str) -> TableActor | None:
        """The table ``table_id`` if this process runs it."""
        actor = self.tables.get(table_id)
        return None if actor is None or actor.status == "closed" else actor

    async def request(self, table_id: str, msg: Request) -> object:
        """Ask the table ``table_id`` (wherever it runs) ``msg``, and return its answer.

        :raises TableError: the table's refusal, or 404 when there is no such live table.
        """
        actor = self.local(table_id)
        if actor is None and self.elsewhere is not None:
            return await self._call(table_id, "ask", request_to_wire(msg))
        return await self.get(table_id).ask(msg)

    async def show(self, table_id: str) -> dict[str, object]:
        """The table ``table_id`` as anyone may see it (`TableState.public`), wherever it runs.

        :raises TableError: (404) when there is no such live table.
        """
        actor = self.local(table_id)
        if actor is None and self.elsewhere is not None:
            return await self._call(table_id, "show", {})  # type: ignore[return-value]
        return self.get(table_id).state.public()

    async def _call(self, table_id: str, op: str, args: dict[str, object]) -> object:
        assert self.elsewhere is not None
        return await self.elsewhere.call(table_id, op, args)

    async def serve_call(self, table_id: str, op: str, args: dict[str, object]) -> object:
        """Do what another process asked of the table ``table_id``, which runs here (`Elsewhere.call`).

        :raises TableError: the table's refusal; 503 when it does not run here (it is moving).
        """
        if self.local(table_id) is None:
            raise TableError("table/moving", "that table is moving to another server process; try again", status=503)
        match op:
            case "ask":
                try:
                    msg = request_from_wire(args)
                except (TypeError, ValueError) as exc:
                    raise TableError("input/malformed", str(exc)) from None
                return await self.request(table_id, msg)
            case "show":
                return await self.show(table_id)
            case "rematch":
                token, member = args.get("token"), args.get("member")
                return await self.rematch(
                    table_id, token if isinstance(token, str) else None, member if isinstance(member, int) else None
                )
            case "close":
                await self.close_table(table_id)
                return {"closed": table_id}
        raise TableError("input/malformed", f"no such call: {op!r}")

    def get(self, table_id: str) -> TableActor:
        """The live table ``table_id``.

        :raises TableError: (404) when there is none.
        """
        actor = self.tables.get(table_id)
        if actor is None or actor.status == "closed":
            raise TableError("table/not_found", f"there is no table {table_id!r} (it may have closed)", status=404)
        return actor

    def public_tables(self) -> list[dict[str, object]]:
        """Public tables that are waiting, playing or adjourned, newest first (of every process)."""
        shown = ("waiting", "playing", "adjourned")
        return [t for t in self.all_tables() if t["public"] and t["status"] in shown]

    def all_tables(self) -> list[dict[str, object]]:
        """Every live table (`TableState.public`) of every process, newest first."""
        live = [(a.created, a.state.public()) for a in self.tables.values() if a.status != "closed"]
        if self.elsewhere is not None:
            live += [(created, t) for created, t in self.elsewhere.tables() if t["id"] not in self.tables]
        live.sort(key=lambda pair: pair[0], reverse=True)
        return [t for _, t in live]

    def cut_off(self, member: int, reason: str = "your membership was disabled") -> int:
        """Close every socket of ``member`` (disabled by an admin, or logged out everywhere) at once;
        returns how many."""
        closed = 0
        for actor in self.tables.values():
            for conn in list(actor.connections):
                if conn.member == member and not conn.closed:
                    conn.close(1008, reason)
                    closed += 1
        return closed

    def start(self) -> None:
        """Start looking for finished tables to let go (`retire`) every `RETIRE_EVERY` seconds."""
        if self._retiring is None:
            self._retiring = asyncio.get_running_loop().create_task(self._retire_often(), name="lobby-retire")

    async def _retire_often(self) -> None:
        while True:
            await asyncio.sleep(RETIRE_EVERY)
            try:
                await self.retire()
            except Exception:
                log.exception("could not let finished tables go; trying again in %g s", RETIRE_EVERY)

    async def retire(self) -> list[str]:
        """Stop running the finished tables nobody has been at for `RETIRE_AFTER` seconds, and return
        their ids. Their games stay stored: the table's address leads to the game's history page.
        """
        now = self.clock.now()
        gone = []
        for table_id, actor in list(self.tables.items()):
            quiet = actor.quiet_since
            if quiet is not None and now - quiet >= RETIRE_AFTER:
                gone.append(table_id)
                del self.tables[table_id]
                await actor.stop(1000)
        if gone:
            log.info("let %d finished table(s) go: nobody had been at them for %g s", len(gone), RETIRE_AFTER)
            if self.elsewhere is not None:
                await self.elsewhere.let_go(gone)
        return gone

    async def close_table(self, table_id: str) -> None:
        """Close a live table for good (an admin's decision): its sockets close, its game stays stored
        as it is, and it is not restored on the next start.

        :raises TableError: (404) when there is no such live table.
        """
        if self.local(table_id) is None and self.elsewhere is not None:
            await self._call(table_id, "close", {})
            return
        actor = self.get(table_id)
        finished = actor.status == "over"
        await actor.stop(1000)
        self.tables.pop(table_id, None)
        if not finished:
            await self.journal.stopped(table_id)
        if self.elsewhere is not None:
            await self.elsewhere.let_go([table_id])

    async def close(self, code: int = 1001) -> None:
        """Stop accepting tables, let each table finish what is in its inbox, then stop it (its sockets
        close with ``code``: 1012 when the server restarts, so clients reconnect).
        """
        self.accepting = False
        if self._retiring is not None:
            self._retiring.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._retiring
        await asyncio.gather(*(actor.stop(code) for actor in self.tables.values()))
        self.tables.clear()
