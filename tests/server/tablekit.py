"""Test kit for live tables: a lobby on a fake clock, and clients that rebuild their state from the
frames the table queues for them, exactly as a browser would (snapshot, then diffs in order).
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from server.lobby import Lobby
from server.statediff import patch
from server.tables.actor import TableActor
from server.tables.clock import FakeClock
from server.tables.connection import Connection
from server.tables.journal import Journal, MemoryJournal
from server.tables.messages import Act, AddBots, Attach, Chat, Detach, Join, Resync, Start

SETTLES_WITHIN = 60.0  # real seconds a table has to handle what it was sent: a safety net


class Client:
    """A connection plus the state it has rebuilt from its frames."""

    def __init__(self, actor: TableActor, token: str | None) -> None:
        self.actor = actor
        self.token = token
        self.conn = Connection(None)
        self.state: Any = None
        self.seq = 0
        self.frames: list[dict[str, Any]] = []  # every frame received, decoded
        self.answers: dict[int, dict[str, Any]] = {}  # ack/refused by request id
        self.next_id = 0
        self.closed: tuple[int | None, str] | None = None

    async def attach(self) -> None:
        await self.actor.ask(Attach(self.conn, self.token))

    def pump(self) -> list[dict[str, Any]]:
        """Take every queued frame, apply it, and return them."""
        got = []
        while not self.conn.queue.empty():
            raw = self.conn.queue.get_nowait()
            if raw is None:
                self.closed = (self.conn.close_code, self.conn.close_reason)
                continue
            frame = json.loads(raw)
            got.append(frame)
            self.frames.append(frame)
            tag, data = frame["t"], frame["d"]
            if tag == "snapshot":
                self.state, self.seq = data["state"], data["seq"]
            elif tag == "diff":
                assert data["seq"] == self.seq + 1, f"gap: {self.seq} then {data['seq']}"
                self.state, self.seq = patch(self.state, data["ops"]), data["seq"]
                if "ack" in data:  # an ack riding in the diff its intent caused
                    self.answers[data["ack"]] = {"t": "ack", "d": {"id": data["ack"]}}
            elif tag in ("ack", "refused"):
                self.answers[data["id"]] = frame
        return got

    def act(self, action: dict[str, Any], window: Any = None) -> int:
        self.next_id += 1
        w = self.state["clock"]["window"] if window is None else window
        self.actor.post(Act(self.conn, self.next_id, action, w))
        return self.next_id

    def chat(self, text: Any) -> int:
        self.next_id += 1
        self.actor.post(Chat(self.conn, self.next_id, text))
        return self.next_id

    def resync(self) -> None:
        self.actor.post(Resync(self.conn))

    def detach(self) -> None:
        self.actor.post(Detach(self.conn))

    @property
    def legal(self) -> list[dict[str, Any]]:
        game = self.state["game"]
        return [] if game is None else game["legal_actions"]


class Kit:
    """A lobby with a fake clock and a memory journal."""

    def __init__(self, journal: Journal | None = None) -> None:
        self.clock = FakeClock()
        self.journal: Any = journal or MemoryJournal()
        self.lobby = Lobby(clock=self.clock, journal=self.journal)

    async def finished_game(self, *, seed: int = 7, humans: int = 1) -> TableActor:
        """An East round played to its end: the people time out every turn (3 s) and bots play."""
        actor, _ = await self.table(humans=humans, seed=seed, overrides={"game_length": "east"}, timers={"turn": 3})
        while actor.status == "playing":
            await self.advance(actor, 3)
        return actor

    async def table(
        self,
        *,
        humans: int = 4,
        bots: bool = True,
        timers: dict[str, Any] | None = None,
        seed: int = 7,
        **settings: Any,
    ) -> tuple[TableActor, list[Client]]:
        """A started table with ``humans`` attached clients (seats 0..humans-1), the rest bots."""
        request = {"name": "Test table", "player": "Ann", "timers": {"bot_delay": 0, **(timers or {})}, **settings}
        owner = await self.lobby.create(request, seed=seed)
        actor = self.lobby.get(str(owner["table"]))
        tokens = [str(owner["token"])]
        for name in ["Bob", "Cy", "Di"][: humans - 1]:
            joined = await actor.ask(Join(name))
            assert isinstance(joined, dict)
            tokens.append(str(joined["token"]))
        if bots and humans < 4:
            await actor.ask(AddBots(tokens[0]))
        clients = [Client(actor, t) for t in tokens]
        for c in clients:
            await c.attach()
        if humans == 4 or bots:
            await actor.ask(Start(tokens[0]))
        await self.settle(actor)
        for c in clients:
            c.pump()
        return actor, clients

    async def settle(self, actor: TableActor, *, rounds: int = 10_000) -> None:
        """Run the table until nothing more happens at the current (fake) time."""
        for _ in range(rounds):
            try:  # (a table that stopped, its lease lost say, never handles what waits: fail, do not hang)
                async with asyncio.timeout(SETTLES_WITHIN):
                    await actor.inbox.join()
            except TimeoutError:
                raise AssertionError(
                    f"the table left messages unhandled for {SETTLES_WITHIN:g} s ({actor.status})"
                ) from None
            if self.clock.advance(0) == 0 and actor.inbox.empty():
                return
        raise AssertionError("the table never settled")

    async def advance(self, actor: TableActor, seconds: float) -> None:
        """Move the fake clock forward, firing due timers, and let the table handle them."""
        self.clock.advance(seconds)
        await self.settle(actor)
