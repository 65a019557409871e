"""Test kit for the live server: uvicorn serving the real app on a free port in the test's event
loop, HTTP through httpx, and WebSocket clients (the `websockets` package) that rebuild their
state from snapshot + diffs exactly as a browser does, checking that seq numbers have no gaps.

Nothing here sleeps to wait for an event: a test awaits the frames it expects, with a timeout.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass
from typing import Any

import httpx
import uvicorn
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from server.app import create_app
from server.club.club import ClubConfig
from server.lobby import Lobby
from server.rates.counter import Rates
from server.rates.policy import Limits
from server.statediff import patch
from server.tables.actor import TableActor
from server.tables.journal import Journal
from server.wire import UVICORN_OPTIONS
from server.ws import SocketConfig

TIMEOUT = 30.0  # seconds a test waits for what it expects before failing: a safety net, generous for a busy machine
# CI runs beside other work: a bound on how long the server takes, set on an idle machine, is asserted
# with this much room (a 2-core machine at load 16 took up to 1.3 times the idle bounds).
ROOM = 3.0
STARTS_WITHIN = 120.0  # seconds a server may take to start (it builds the engine's lookup tables first): a safety net

# Generous clocks so that no deadline fires while a test plays; bots (none here) would act at once.
QUIET_TIMERS: dict[str, Any] = {"bot_delay": 0, "claim": 60, "turn": 120, "ready": None}

Frame = dict[str, Any]


def within(seconds: float) -> float:
    """The bound a test asserts on something that takes at most ``seconds`` on an idle machine."""
    return seconds * ROOM


class SeededLobby(Lobby):
    """A lobby whose tables all deal from one seed, so a live test replays the same game."""

    def __init__(self, seed: int, journal: Journal | None = None) -> None:
        super().__init__(journal=journal)
        self.seed = seed

    async def create(
        self,
        request: Mapping[str, object],
        *,
        seed: int | None = None,
        member: int | None = None,
        person: str | None = None,
    ) -> dict[str, object]:
        return await super().create(request, seed=self.seed if seed is None else seed, member=member, person=person)


@dataclass(slots=True)
class Received:
    """One frame as it arrived, and the client's rebuilt state right after it."""

    raw: str
    frame: Frame
    state: Any


class LiveClient:
    """A WebSocket client of the live server. A reader task decodes every frame, rebuilds the state
    document from snapshot + diffs (asserting seq has no gaps) and files ack/refused by request id.
    """

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.state: Any = None
        self.seq = 0
        self.received: list[Received] = []
        self.answers: dict[int, Frame] = {}
        self.failure: str | None = None  # a broken invariant seen by the reader
        self.close_code: int | None = None
        self.table: str | None = None  # as said in hello
        self.token: str | None = None
        self._ids = itertools.count(1)
        self._changed = asyncio.Condition()
        self._reader = asyncio.get_running_loop().create_task(self._read())

    # -------------------------------------------------------------- reading
    async def _read(self) -> None:
        try:
            async for raw in self.ws:
                text = raw if isinstance(raw, str) else raw.decode()
                self._take(text)
                async with self._changed:
                    self._changed.notify_all()
        except ConnectionClosed:
            pass
        finally:
            rcvd = self.ws.protocol.close_rcvd
            self.close_code = rcvd.code if rcvd is not None else 1006
            async with self._changed:
                self._changed.notify_all()

    def _take(self, raw: str) -> None:
        frame: Frame = json.loads(raw)
        tag, data = frame.get("t"), frame.get("d")
        if tag == "snapshot":
            self.state, self.seq = data["state"], data["seq"]
        elif tag == "diff":
            if data["seq"] != self.seq + 1 and self.failure is None:
                self.failure = f"seq gap: {self.seq} then {data['seq']}"
            self.state, self.seq = patch(self.state, data["ops"]), data["seq"]
            if "ack" in data:  # an ack riding in the diff its intent caused
                self.answers[data["ack"]] = {"t": "ack", "d": {"id": data["ack"]}}
        elif tag in ("ack", "refused") and data.get("id") is not None:
            self.answers[data["id"]] = frame
        self.received.append(Received(raw, frame, self.state))

    async def wait_for(self, predicate: Callable[[], bool], what: str, timeout: float = TIMEOUT) -> None:
        """Wait until ``predicate()`` holds (checked after every frame).

        :raises AssertionError: on timeout, or if the socket closed first, or the reader saw a seq gap.
        """
        try:
            async with asyncio.timeout(timeout), self._changed:
                while True:
                    assert self.failure is None, self.failure
                    if predicate():
                        return
                    assert self.close_code is None, f"socket closed ({self.close_code}) while waiting for {what}"
                    await self._changed.wait()
        except TimeoutError:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}") from None

    async def frame(self, predicate: Callable[[Frame], bool], what: str, *, after: int = 0) -> Frame:
        """The first frame (from index ``after`` of :attr:`received`) matching ``predicate``."""
        found: list[Frame] = []

        def seen() -> bool:
            found[:] = [r.frame for r in self.received[after:] if predicate(r.frame)][:1]
            return bool(found)

        await self.wait_for(seen, what)
        return found[0]

    def mark(self) -> int:
        """Where the next frame will be filed in :attr:`received` (for :meth:`frame`'s ``after``)."""
        return len(self.received)

    async def closed(self) -> int:
        """Wait for the server to close the socket; its close code."""
        await self.wait_for(lambda: self.close_code is not None, "the socket to close")
        assert self.close_code is not None
        return self.close_code

    # -------------------------------------------------------------- sending
    async def send(self, tag: str, data: Mapping[str, Any] | None = None, request: int | None = None) -> None:
        """Send one frame in the ``{"t", "id", "d"}`` envelope."""
        frame: dict[str, Any] = {"t": tag}
        if request is not None:
            frame["id"] = request
        if data is not None:
            frame["d"] = dict(data)
        await self.ws.send(json.dumps(frame))

    async def request(self, tag: str, data: Mapping[str, Any], timeout: float = TIMEOUT) -> Frame:
        """Send a request with a fresh id and return its answer, ``ack`` or ``refused``, waited for
        ``timeout`` seconds."""
        request = next(self._ids)
        await self.send(tag, data, request)
        await self.wait_for(lambda: request in self.answers, f"the answer to {tag} #{request}", timeout)
        return self.answers[request]

    async def act(
        self, action: Mapping[str, Any], *, window: Any = None, timeout: float = TIMEOUT, **extra: Any
    ) -> Frame:
        """Send an action for the current decision window (or ``window``) and return its answer."""
        w = self.state["clock"]["window"] if window is None else window
        return await self.request("act", {"action": dict(action), "window": w, **extra}, timeout)

    async def hello(self, table: str, token: str | None) -> None:
        """Authenticate and wait for the first snapshot."""
        self.table, self.token = table, token
        await self.send("hello", {"table": table, "token": token})
        await self.wait_for(lambda: self.state is not None, "the first snapshot")

    async def close(self) -> None:
        """Close the socket and stop the reader."""
        await self.ws.close()
        await self._reader

    # ---------------------------------------------------------------- views
    @property
    def game(self) -> Any:
        """The engine view part of the rebuilt state."""
        return self.state["game"]

    @property
    def legal(self) -> list[dict[str, Any]]:
        """This seat's legal actions now."""
        game = self.game
        return [] if game is None else list(game["legal_actions"])

    @property
    def deciding(self) -> bool:
        """This seat has a decision to make: legal actions, and no answer yet to an open claim window
        (a seat that answered keeps its options, to change its mind, until the window resolves).
        """
        game = self.game
        return game is not None and bool(game["legal_actions"]) and "answer" not in (game["turn"] or {})


class LiveServer:
    """uvicorn serving the app on 127.0.0.1 in this event loop, plus an HTTP client for its API."""

    def __init__(self, server: uvicorn.Server, lobby: Lobby, port: int, http: httpx.AsyncClient) -> None:
        self.server = server
        self.lobby = lobby
        self.port = port
        self.http = http
        self.ws_url = f"ws://127.0.0.1:{port}/ws"
        self.clients: list[LiveClient] = []
        self.app: Any = None  # the application served

    @classmethod
    @contextlib.asynccontextmanager
    async def running(
        cls,
        *,
        seed: int = 7,
        socket_config: SocketConfig | None = None,
        journal: Journal | None = None,
        db: str | None = None,
        club: ClubConfig | None = None,
        redis: str | None = None,
        limits: Limits | None = None,
        rates: Rates | None = None,
    ) -> AsyncIterator[LiveServer]:
        """Serve until the block ends, then close every client and shut the server down. Given ``db``,
        the app keeps its tables and its club (``club``: secret and mode) in that database, as
        `sparrow serve --db` does (with ``redis``, as one of several processes: server/cluster); otherwise
        its lobby deals from ``seed`` and there are no accounts. ``limits`` and ``rates``: see `create_app`."""
        lobby = SeededLobby(seed, journal)
        app = (
            create_app(lobby, socket_config, limits=limits, rates=rates)
            if db is None
            else create_app(socket_config=socket_config, db=db, club=club, redis=redis, limits=limits, rates=rates)
        )
        config = uvicorn.Config(app, host="127.0.0.1", port=0, lifespan="on", log_level="warning", **UVICORN_OPTIONS)
        server = uvicorn.Server(config)
        task = asyncio.get_running_loop().create_task(server.serve())
        try:
            async with asyncio.timeout(STARTS_WITHIN):
                while not server.started:
                    assert not task.done(), "uvicorn stopped before it started"
                    await asyncio.sleep(0.005)  # uvicorn offers no event for "started"
            port = server.servers[0].sockets[0].getsockname()[1]
            lobby = app.state.lobby
            async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=TIMEOUT, trust_env=False) as http:
                live = cls(server, lobby, port, http)
                live.app = app
                try:
                    yield live
                finally:
                    await asyncio.gather(*(client.close() for client in live.clients))
        finally:
            server.should_exit = True
            await task

    def table(self, table_id: str) -> TableActor:
        """The live table's actor, to compare what clients rebuilt with the server's own state."""
        return self.lobby.get(table_id)

    # ----------------------------------------------------------------- HTTP
    async def post(self, path: str, body: Any = None, **kwargs: Any) -> httpx.Response:
        """POST a JSON body (or raw ``content=``) to the API."""
        if body is not None:
            kwargs["json"] = body
        return await self.http.post(path, **kwargs)

    async def create(self, player: str = "Ann", **settings: Any) -> dict[str, Any]:
        """Create a table with quiet timers; the creator's seat (``table``, ``seat``, ``token``)."""
        body = {"name": "Live table", "player": player, "timers": QUIET_TIMERS, **settings}
        response = await self.post("/api/tables", body)
        assert response.status_code == 200, response.text
        seat: dict[str, Any] = response.json()
        return seat

    async def join(self, table_id: str, name: str) -> dict[str, Any]:
        """Take the first free seat at ``table_id``."""
        response = await self.post(f"/api/tables/{table_id}/join", {"name": name})
        assert response.status_code == 200, response.text
        seat: dict[str, Any] = response.json()
        return seat

    async def seat_four(self, **settings: Any) -> tuple[str, list[str]]:
        """A table with four people seated (not started): its id and the tokens of seats 0–3."""
        owner = await self.create(**settings)
        table_id = owner["table"]
        tokens = [owner["token"]]
        for name in ("Bob", "Cy", "Di"):
            joined = await self.join(table_id, name)
            assert joined["seat"] == len(tokens)
            tokens.append(joined["token"])
        return table_id, tokens

    async def start(self, table_id: str, token: str) -> None:
        """Start the table as its owner."""
        response = await self.post(f"/api/tables/{table_id}/start", {"token": token})
        assert response.status_code == 200, response.text

    # ------------------------------------------------------------ WebSocket
    async def connect(self, **kwargs: Any) -> LiveClient:
        """Open a socket (closed at teardown); ``kwargs`` go to `websockets`' ``connect``."""
        ws = await connect(self.ws_url, proxy=None, open_timeout=TIMEOUT, close_timeout=TIMEOUT, **kwargs)
        client = LiveClient(ws)
        self.clients.append(client)
        return client

    async def attach(self, table_id: str, token: str | None, **kwargs: Any) -> LiveClient:
        """A socket that said hello (as the seat of ``token``, or a spectator) and got its snapshot."""
        client = await self.connect(**kwargs)
        await client.hello(table_id, token)
        return client

    async def playing(self, **settings: Any) -> tuple[str, list[LiveClient]]:
        """A started table of four people, each with an attached socket that has seen the deal begin."""
        table_id, tokens = await self.seat_four(**settings)
        clients = [await self.attach(table_id, token) for token in tokens]
        await self.start(table_id, tokens[0])
        for client in clients:
            await client.wait_for(lambda c=client: c.game is not None, "the deal to begin")
        return table_id, clients


def turn_seat(client: LiveClient) -> int:
    """The seat whose turn it is (the game must be in a turn, not a claim window)."""
    turn = client.game["turn"]
    assert turn["phase"] == "turn", turn
    seat: int = turn["seat"]
    return seat


def hurried_move(client: LiveClient) -> dict[str, Any] | None:
    """A hurried human's move: win when offered, pass claims, discard the drawn tile, get ready; None
    when the seat has nothing to decide or has answered already."""
    legal = client.legal
    if not legal or "answer" in (client.game["turn"] or {}) or "answer" in client.state:  # answered already
        return None
    types = {a["type"]: a for a in legal}
    if "win" in types or "pass" in types or "ready" in types:
        return types.get("win") or types.get("pass") or types["ready"]
    drawn = (client.game["turn"] or {}).get("drawn")
    discards = [a for a in legal if a["type"] == "discard"]
    return next((a for a in discards if a["tile"] == drawn), discards[-1]) if discards else legal[0]
