"""`Lobby`: the registry of live tables; creates, finds, lists and stops their actors.

A server on its own runs every table. Several processes sharing one database (server/cluster) each
run some; the lobby then asks its `Elsewhere` about a table another process runs, so that every
request works in every process.

An adjourned table nobody is at leaves memory (`retire`): it is stored as adjourned, not restored on
start, and brought back from its journal by whichever process is asked about it (`find`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from dataclasses import replace
from typing import Protocol

from game.actions import Action
from game.errors import RulesError
from game.game import Game
from game.rulesets import ruleset
from server.tables.actor import SeatState, TableActor
from server.tables.clock import Clock, RealClock
from server.tables.connection import Connection
from server.tables.errors import TableError
from server.tables.handover import Baton
from server.tables.journal import Journal, MemoryJournal, StoredTable, WriteRefused, hash_token, new_table_id
from server.tables.messages import (
    AddBots,
    AdjournNow,
    Join,
    Leave,
    PutAway,
    Rematch,
    RematchMade,
    Remove,
    Start,
    request_from_wire,
    request_to_wire,
)
from server.tables.settings import TableSettings
from server.tables.view import adjourned_public

__all__ = ["Elsewhere", "Lobby", "Request"]

MAX_TABLES = 5000
# Tables one person (a member, or else an address) may have waiting for players at once, here.
MAX_WAITING = 5
# A finished table nobody has been at for this long leaves memory; its game stays in the history.
RETIRE_AFTER = 15 * 60.0
# A table still waiting for players that nobody has been at for this long closes, as an admin would close it.
EXPIRE_AFTER = 30 * 60.0
# An adjourned table nobody has been at for this long leaves memory; opening it brings it back.
PUT_AWAY_AFTER = 60.0
RETIRE_EVERY = 60.0  # how often the lobby looks for such tables
ADJOURNED_LISTED = 100  # adjourned tables the lobby list shows one person (the newest)
log = logging.getLogger("sparrow.lobby")

Request = Join | Leave | AddBots | Remove | Start | AdjournNow


class Elsewhere(Protocol):
    """The other server processes, as the lobby of one of them sees them (`server.cluster.node`)."""

    async def claim(self, table_id: str) -> None:
        """Make the table ``table_id`` this process's: a new one, before anything of it is stored, or
        an adjourned one nobody runs, before it is brought back.

        :raises TableError: when another process holds it.
        """

    def holds(self, table_id: str) -> bool:
        """Whether this process still holds the table ``table_id`` it claimed: it may have let it go
        since (its leases could not be renewed in time, or another process took it over)."""

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
        max_waiting: int = MAX_WAITING,
    ) -> None:
        self.clock = clock or RealClock()
        self.journal = journal or MemoryJournal()
        self.bot = bot
        self.max_tables = max_tables
        self.max_waiting = max_waiting
        self.tables: dict[str, TableActor] = {}
        self._opening: Counter[str] = Counter()  # tables being opened, per person (`_room_for`)
        self._opened: dict[str, list[TableActor]] = {}  # tables each person opened that may still wait
        self.accepting = True
        self.elsewhere: Elsewhere | None = None  # the other processes, when several share the database
        self.put_away_after = PUT_AWAY_AFTER
        self._retiring: asyncio.Task[None] | None = None
        self._waking: dict[str, asyncio.Task[TableActor | None]] = {}  # adjourned tables being brought back

    async def create(
        self,
        request: Mapping[str, object],
        *,
        seed: int | None = None,
        member: int | None = None,
        person: str | None = None,
    ) -> dict[str, object]:
        """Create a table from a create-table request and seat its creator (the logged-in ``member``,
        if one is), who owns it. It counts against ``person`` (a member, or an address; None: nobody)
        while it waits for players.

        :raises TableError: for bad settings or name, when ``person`` has `max_waiting` tables waiting
            already, or when the server is full or shutting down.
        """
        settings = TableSettings.from_json(request)
        with self._room_for(person):
            actor = await self._open(settings, seed)
            table_id = actor.id
            try:
                seat = await actor.ask(Join(request.get("player", ""), None, member))  # type: ignore[arg-type]
            except TableError:
                await actor.stop()
                del self.tables[table_id]
                raise
            assert isinstance(seat, dict)
            token = seat.get("token")
            if person is not None and isinstance(token, str):
                self._opened_by(actor, person, hash_token(token))
        return seat

    @contextlib.contextmanager
    def _room_for(self, person: str | None) -> Iterator[None]:
        """Hold one of ``person``'s places while a table is opened for them; the caller marks the new
        table theirs (`TableActor.opened_by`) before it is released.

        :raises TableError: (429) when ``person`` already has `max_waiting` tables waiting for players
            in this process (or being opened).
        """
        if person is None:
            yield
            return
        waiting = self._opening[person] + len(self._waiting(person))
        if waiting >= self.max_waiting:
            tables = "table" if waiting == 1 else "tables"
            raise TableError(
                "table/too_many",
                f"you already have {waiting} {tables} waiting for players; start or leave one first",
                status=429,
            )
        self._opening[person] += 1
        try:
            yield
        finally:
            self._opening[person] -= 1
            if not self._opening[person]:
                del self._opening[person]

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
        await self._room()
        table_id = new_table_id()
        actor = TableActor(table_id, settings, clock=self.clock, journal=self.journal, seed=seed, bot=self.bot)
        stored = StoredTable(table_id, settings, actor.seed, actor.created)
        try:
            if self.elsewhere is not None:
                await self.elsewhere.claim(table_id)
            await self.journal.table_created(stored)
            if seats is not None:
                await actor.seat_everyone(seats, owner)
        except TableError:
            raise  # refused with a reason of its own (a process that cannot keep a table just now): no fault here
        except Exception as exc:
            if not isinstance(exc, WriteRefused):  # (the journal said why)
                log.exception("could not store the new table %s", table_id, extra={"table": table_id, "seat": None})
            raise TableError(
                "server/storage", "the server could not save the new table; try again", status=503
            ) from None
        if self.elsewhere is not None and not self.elsewhere.holds(table_id):  # let go while it was stored
            raise TableError("server/storage", "the server could not keep the new table; try again", status=503)
        actor.start()
        self.tables[table_id] = actor
        return actor

    def _opened_by(self, actor: TableActor, person: str, token_hash: str) -> None:
        """``person`` opened ``actor`` and holds the seat of ``token_hash``: it is theirs while it waits."""
        actor.opened_by = (person, token_hash)
        self._opened.setdefault(person, []).append(actor)

    def _waiting(self, person: str) -> list[TableActor]:
        """The tables ``person`` has waiting for players here (forgetting the others they opened)."""
        mine = [a for a in self._opened.get(person, ()) if self.tables.get(a.id) is a and a.waiting_for == person]
        if mine:
            self._opened[person] = mine
        else:
            self._opened.pop(person, None)
        return mine

    async def rematch(
        self,
        table_id: str,
        token: str | None,
        member: int | None,
        person: str | None = None,
        keep_seats: bool = False,
    ) -> dict[str, object]:
        """The owner of a finished game opens a new table with the same settings and the same people in
        the same seats (their seat tokens, or their logins, work there too), waiting for the owner to
        start it. Asked again, it answers with the same table. The new table counts against ``person``
        (the owner: a member, or an address) while it waits, as `create`'s does. Its start draws the
        seats again if the game's did (R2.6), unless ``keep_seats``: then its option is off.

        :raises TableError: when there is no such table, the game is not over, not the owner asks, or
            ``person`` has `max_waiting` tables waiting already.
        """
        if self.local(table_id) is None and self.elsewhere is not None:
            args: dict[str, object] = {"token": token, "member": member, "person": person, "keep_seats": keep_seats}
            return await self._call(table_id, "rematch", args)  # type: ignore[return-value]
        old = self.get(table_id)
        plan = await old.ask(Rematch(token, member))
        assert isinstance(plan, dict)
        if "table" in plan:
            return {"table": plan["table"]}
        seats, owner = plan["seats"], plan["owner"]
        settings = old.settings
        if keep_seats and settings.ruleset.rules.seat_draw:  # R2.6: the same seats, not drawn again
            same = settings.ruleset
            settings = replace(settings, ruleset=ruleset(same.name, {**dict(same.overrides), "seat_draw": False}))
        try:
            with self._room_for(person):
                actor = await self._open(settings, None, seats, owner)
                mine = None if owner is None else seats[owner]
                if person is not None and mine is not None and mine.token_hash is not None:
                    self._opened_by(actor, person, mine.token_hash)
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

    def loaded(self, stored: StoredTable) -> TableActor | None:
        """The table ``stored``, rebuilt but not running: another server process is to hand it over while
        it plays (server/cluster/handover.py, `go_on`); None if its log does not replay."""
        try:
            return TableActor.loaded(stored, clock=self.clock, journal=self.journal, bot=self.bot)
        except RulesError:
            log.exception(
                "table %s could not be rebuilt from its log; it stays stored but closed",
                stored.id,
                extra={"table": stored.id, "seat": None},
            )
            return None

    def go_on(self, actor: TableActor, baton: Baton, conns: list[Connection]) -> None:
        """Run here ``actor`` (`loaded`), which another server process handed over, going on from
        ``baton`` with ``conns`` attached."""
        actor.go_on(baton, conns)
        actor.start()
        self.tables[actor.id] = actor

    def local(self, table_id: str) -> TableActor | None:
        """The table ``table_id`` if this process runs it."""
        actor = self.tables.get(table_id)
        return None if actor is None or actor.status == "closed" else actor

    async def find(self, table_id: str) -> TableActor | None:
        """The table ``table_id`` if this process runs it, or runs it now: an adjourned table that no
        process runs is brought back here from its journal, as a restart restores a table (None when
        there is no such table here, or this process is shutting down; another process may run it).

        :raises TableError: (503) when this process runs as many tables as it can.
        """
        actor = self.local(table_id)
        if actor is not None or not self.accepting:
            return actor
        waking = self._waking.get(table_id)
        if waking is None:  # one read and one revival, however many ask at once
            waking = self._waking[table_id] = asyncio.get_running_loop().create_task(self._wake(table_id))
            waking.add_done_callback(lambda _: self._waking.pop(table_id, None))
        return await asyncio.shield(waking)

    async def _wake(self, table_id: str) -> TableActor | None:
        if await self.journal.status(table_id) != "adjourned":
            return None
        if self.elsewhere is not None:
            try:
                await self.elsewhere.claim(table_id)
            except TableError:
                return None  # another process holds it, and runs it or is bringing it back
        try:
            # Read once the lease is held: until then another process might still have changed it.
            stored = await self.journal.load(table_id)
            if stored is not None and stored.status == "adjourned":
                await self._room()
        except BaseException:
            await self._let_go([table_id])
            raise
        held = self.elsewhere is None or self.elsewhere.holds(table_id)  # (not let go while it was read)
        if stored is None or stored.status != "adjourned" or not held or not self.revive(stored):
            await self._let_go([table_id])
            return None
        log.info("table %s was adjourned; brought back from its journal", table_id, extra={"table": table_id})
        return self.tables[table_id]

    async def _let_go(self, table_ids: list[str]) -> None:
        if table_ids and self.elsewhere is not None:
            await self.elsewhere.let_go(table_ids)

    async def request(self, table_id: str, msg: Request) -> object:
        """Ask the table ``table_id`` (wherever it runs) ``msg``, and return its answer.

        :raises TableError: the table's refusal, or 404 when there is no such live table.
        """
        actor = await self.find(table_id)
        if actor is None and self.elsewhere is not None:
            return await self._call(table_id, "ask", request_to_wire(msg))
        return await self.get(table_id).ask(msg)

    async def show(self, table_id: str) -> dict[str, object]:
        """The table ``table_id`` as anyone may see it (`TableState.public`), wherever it runs.

        :raises TableError: (404) when there is no such live table.
        """
        actor = await self.find(table_id)
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
                token, member, person = args.get("token"), args.get("member"), args.get("person")
                return await self.rematch(
                    table_id,
                    token if isinstance(token, str) else None,
                    member if isinstance(member, int) else None,
                    person if isinstance(person, str) else None,
                    args.get("keep_seats") is True,
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

    async def public_tables(self, member: int | None = None, *, admin: bool = False) -> list[dict[str, object]]:
        """Public tables that are waiting or playing, and the adjourned ones the logged-in ``member`` sat
        at (an admin: every one; at most `ADJOURNED_LISTED`, the newest), newest first (of every process).
        """
        return [t for _, t in await self.public_listed(member, admin=admin)]

    async def public_listed(
        self, member: int | None = None, *, admin: bool = False
    ) -> list[tuple[float, dict[str, object]]]:
        """`public_tables`, each with when it was created."""
        listed = [(c, t) for c, t in self.listed() if t["public"] and t["status"] in ("waiting", "playing")]
        if member is not None:  # adjourned: from the journal, whether or not some process runs them
            seen = {t["id"] for _, t in listed}
            adjourned = await self.journal.adjourned_tables(None if admin else member, ADJOURNED_LISTED)
            listed += [(a.created, adjourned_public(a)) for a in adjourned if a.id not in seen]
            listed.sort(key=lambda pair: pair[0], reverse=True)
        return listed

    def all_tables(self) -> list[dict[str, object]]:
        """Every live table (`TableState.public`) of every process, newest first."""
        return [t for _, t in self.listed()]

    def listed(self) -> list[tuple[float, dict[str, object]]]:
        """Every live table of every process with when it was created, newest first."""
        live = [(a.created, a.state.public()) for a in self.tables.values() if a.status != "closed"]
        if self.elsewhere is not None:
            live += [(created, t) for created, t in self.elsewhere.tables() if t["id"] not in self.tables]
        live.sort(key=lambda pair: pair[0], reverse=True)
        return live

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
        """Start looking for tables nobody is at to let go (`retire`) every `RETIRE_EVERY` seconds."""
        if self._retiring is None:
            self._retiring = asyncio.get_running_loop().create_task(self._retire_often(), name="lobby-retire")

    async def _retire_often(self) -> None:
        while True:
            await asyncio.sleep(RETIRE_EVERY)
            try:
                await self.retire()
            except Exception:
                log.exception("could not let tables nobody is at go; trying again in %g s", RETIRE_EVERY)

    async def retire(self) -> list[str]:
        """Stop running the tables nobody is at, and return their ids: a finished one nobody has been at
        for `RETIRE_AFTER` seconds (its game stays stored: the table's address leads to the game's
        history page), one still waiting for players that nobody has been at for `EXPIRE_AFTER`
        seconds, which closes as `close_table` closes it (it is not restored on the next start), and an
        adjourned one nobody has been at for `put_away_after` seconds, which stays stored as adjourned
        until someone opens it (`find`).
        """
        finished, expired, adjourned = [], [], []
        for table_id, actor in list(self.tables.items()):
            if self.tables.get(table_id) is not actor:
                continue  # closed while those before it stopped
            now, quiet, idle, dormant = self.clock.now(), actor.quiet_since, actor.idle_since, actor.dormant_since
            if dormant is not None and now - dormant >= self.put_away_after:
                if await self._put_away(actor):
                    adjourned.append(table_id)
                continue
            if quiet is not None and now - quiet >= RETIRE_AFTER:
                finished.append(table_id)
            elif idle is not None and now - idle >= EXPIRE_AFTER:
                expired.append(table_id)
            else:
                continue
            await self._let_leave(actor)
        if finished:
            log.info("let %d finished table(s) go: nobody had been at them for %g s", len(finished), RETIRE_AFTER)
        if expired:
            log.info(
                "closed %d table(s) waiting for players: nobody had been at them for %g s", len(expired), EXPIRE_AFTER
            )
        if adjourned:
            log.info(
                "%d adjourned table(s) left memory: nobody had been at them for %g s",
                len(adjourned),
                self.put_away_after,
            )
        for person in list(self._opened):  # who opened tables that have started, or closed, since
            self._waiting(person)
        gone = finished + expired + adjourned
        await self._let_go(gone)
        return gone

    async def _room(self) -> None:
        """Make room for one more table when the server runs as many as it may (`max_tables`), by
        letting tables nobody is at leave memory before their time, with nothing lost (`_make_room`).

        :raises TableError: (503) when every table has someone at it, or is waiting for players.
        """
        while len(self.tables) >= self.max_tables:
            if not await self._make_room():
                raise TableError("server/full", "this server has as many tables as it can run", status=503)

    async def _make_room(self) -> bool:
        """Let one table nobody is at leave memory, the one that has waited longest of the first kind
        there is: an adjourned one (stored as adjourned, as `retire` puts it away); a finished one (its
        game stays in the history); a game paused because nobody is at it (adjourned first, as a day of
        that pause would adjourn it: opening it brings it back from its journal and it plays on). A
        table waiting for players is left alone (`MAX_WAITING` bounds those). False when none could go.
        """
        ranked: list[tuple[int, float, TableActor]] = []
        for actor in self.tables.values():
            for rank, since in enumerate((actor.dormant_since, actor.quiet_since, actor.deserted_since)):
                if since is not None:
                    ranked.append((rank, since, actor))
                    break
        ranked.sort(key=lambda r: r[:2])
        for rank, since, actor in ranked[:5]:  # (one may have been opened, or closed, meanwhile)
            if self.tables.get(actor.id) is not actor:
                continue
            if rank == 1:
                await self._let_leave(actor)
            elif not await self._put_away(actor, paused=True):
                continue
            log.info(
                "the server is full: table %s, nobody at it for %.0f s, left memory to make room",
                actor.id,
                self.clock.now() - since,
                extra={"table": actor.id},
            )
            await self._let_go([actor.id])
            return True
        return False

    async def _put_away(self, actor: TableActor, paused: bool = False) -> bool:
        """Let the adjourned ``actor`` leave memory if nobody came meanwhile (it is stored as adjourned
        first; with ``paused``, a game paused because nobody is at it is adjourned first); its lease
        (several processes) is the caller's to let go."""
        try:
            gone = await actor.ask(PutAway(paused=paused))
        except TableError:
            return False  # it closed for another reason meanwhile, or its journal cannot be read now
        if gone is not True or self.tables.get(actor.id) is not actor:
            return False  # it stays, or it is back already (it was opened while it closed)
        del self.tables[actor.id]
        return True

    async def close_table(self, table_id: str) -> None:
        """Close a live table for good (an admin's decision): its sockets close, its game stays stored
        as it is, and it is not restored on the next start.

        :raises TableError: (404) when there is no such live table; (503) when another process took it
            over meanwhile.
        """
        if await self.find(table_id) is None and self.elsewhere is not None:
            await self._call(table_id, "close", {})
            return
        try:
            await self._stop_here(self.get(table_id))
        except WriteRefused:  # another process took it over meanwhile (the journal said so): ask it there
            moving = "that table is moving to another server process; try again"
            raise TableError("table/moving", moving, status=503) from None
        if self.elsewhere is not None:
            await self.elsewhere.let_go([table_id])

    async def _let_leave(self, actor: TableActor) -> None:
        """`_stop_here` for a table nobody is at: it leaves memory even when it cannot be marked stopped
        (then it is restored on the next start, and leaves again)."""
        try:
            await self._stop_here(actor)
        except WriteRefused:  # (the journal said why)
            pass
        except Exception:
            log.exception("table %s could not be marked stopped", actor.id, extra={"table": actor.id, "seat": None})

    async def _stop_here(self, actor: TableActor) -> None:
        """Stop running ``actor`` for good: it leaves memory and its sockets close (1000); unless its
        game is over, it is marked stopped in the journal, so that it is not restored on the next start.
        Its lease (several processes) is the caller's to let go."""
        finished = actor.status == "over"
        self.tables.pop(actor.id, None)
        await actor.stop(1000)
        if not finished:
            await self.journal.stopped(actor.id)

    async def close(self, code: int = 1001) -> None:
        """Stop accepting tables, let each table finish what is in its inbox, then stop it (its sockets
        close with ``code``: 1012 when the server restarts, so clients reconnect).
        """
        self.accepting = False
        for waking in list(self._waking.values()):  # tables being brought back: then stopped with the rest
            with contextlib.suppress(Exception):
                await waking
        if self._retiring is not None:
            self._retiring.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._retiring
        await asyncio.gather(*(actor.stop(code) for actor in self.tables.values()))
        self.tables.clear()
