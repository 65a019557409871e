"""The `/ws` endpoint: accept, check the Origin, authenticate with `hello`, attach to the table, then
a reader loop (this coroutine) and a writer task draining the connection's queue. No rules here:
intents go to the table's actor, which answers each one with `ack` or `refused`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from dataclasses import dataclass
from typing import Protocol

from sqlalchemy.exc import DataError, DBAPIError, IntegrityError, ProgrammingError
from starlette.requests import HTTPConnection
from starlette.types import Message
from starlette.websockets import WebSocket, WebSocketDisconnect

from server import metrics, origins
from server.lobby import Lobby
from server.outage import STORAGE_DOWN, Outage
from server.protocol import (
    ClientAct,
    ClientChat,
    ClientHello,
    ClientPing,
    ClientResync,
    ProtocolError,
    parse_client_msg,
)
from server.tables.actor import TableActor
from server.tables.connection import Connection, encode
from server.tables.errors import TableError
from server.tables.messages import Act, Attach, Chat, Detach, Resync

__all__ = ["Reader", "SocketConfig", "RateLimiter", "Seat", "table_socket"]

POLICY_VIOLATION = 1008  # bad Origin, bad token, flooding
GOING_AWAY = 1001
SERVICE_RESTART = 1012  # reconnect with the same token
INTERNAL_ERROR = 1011
INVALID_PAYLOAD = 1007  # a text frame that is not UTF-8 (uvicorn's protocol closes the socket itself)
BACKLOG = 64  # frames waiting to be written past which a socket's next message waits (`_reader`)

log = logging.getLogger("sparrow.ws")


@dataclass(frozen=True, slots=True)
class SocketConfig:
    """Limits for every socket, and the origins whose pages may use this server (`server.origins`)."""

    allowed_origins: tuple[str, ...] = ()  # besides the server's own (``--allow-origin``)
    public_origins: tuple[str, ...] = ()  # the server's own (``--public-url``); empty: the address served on
    hello_timeout: float = 10.0  # seconds to send `hello` after connecting
    idle_timeout: float = 75.0  # close a socket silent this long (clients ping every 25 s)
    rate: float = 10.0  # messages per second allowed on average …
    burst: int = 30  # … with bursts up to this many
    max_refusals: int = 200  # a client refused this many times in a row for flooding is cut off

    def origin_allowed(self, connection: HTTPConnection, extra: frozenset[str] = frozenset()) -> bool:
        """Whether the page that opened ``connection`` (if a browser's) may use this server; ``extra``:
        origins the club's admin allowed."""
        return origins.allowed(
            connection, origins.configured(self.public_origins), origins.configured(self.allowed_origins) | extra
        )


class RateLimiter:
    """A token bucket: ``rate`` messages per second, bursts up to ``burst``."""

    def __init__(self, rate: float, burst: int, now: float) -> None:
        self.rate, self.burst = rate, burst
        self.tokens = float(burst)
        self.stamp = now

    def allow(self, now: float) -> bool:
        """Take a token if one is left."""
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        return False


def _storage_down(websocket: WebSocket, exc: BaseException) -> None:
    """Count a socket refused because the database did not answer (``Outage`` logs an outage once)."""
    outage: Outage | None = getattr(websocket.app.state, "outage", None)
    if outage is not None:
        outage.failed("a socket's hello", exc)
    else:  # a lobby of its own (tests): no engine to probe
        log.warning("a socket's hello: the database could not answer (%s)", type(exc).__name__)


def _refusal(exc: ProtocolError | TableError, request: int | None) -> str:
    return encode("refused", {"id": request, "reason": exc.reason, "message": exc.message})


async def table_socket(websocket: WebSocket) -> None:
    """Serve one client socket for its whole life."""
    lobby: Lobby = websocket.app.state.lobby
    config: SocketConfig = websocket.app.state.socket_config
    if not config.origin_allowed(websocket, websocket.app.state.club.allowed_origins):
        await websocket.close(POLICY_VIOLATION, "origin not allowed")  # before accept: answered with HTTP 403
        return
    await websocket.accept()
    try:
        conn, seat = await _authenticate(websocket, lobby, config)
    except WebSocketDisconnect:
        return
    except TimeoutError:  # returning without a close frame would drop the TCP connection (1006)
        with contextlib.suppress(Exception):
            await websocket.close(POLICY_VIOLATION, "no hello in time")
        return
    except (ProtocolError, TableError) as exc:
        moving = exc.reason == "table/moving"  # between processes (server/cluster): the browser tries again
        with contextlib.suppress(Exception):
            await websocket.send_text(_refusal(exc, None))
            await websocket.close(SERVICE_RESTART if moving else POLICY_VIOLATION, exc.reason)
        return
    except (OSError, DBAPIError) as exc:  # the database did not answer (opening an adjourned table, say)
        if isinstance(exc, IntegrityError | ProgrammingError | DataError):  # a wrong query: a bug
            raise
        _storage_down(websocket, exc)  # counted by the app's `Outage`, which says when it starts and ends
        down = TableError("server/storage", STORAGE_DOWN, status=503)
        with contextlib.suppress(Exception):
            await websocket.send_text(_refusal(down, None))
            await websocket.close(SERVICE_RESTART, down.reason)  # the page tries again
        return
    session = websocket.scope.get("sparrow.session")  # set by server.club.gate.Gate
    access = websocket.scope.get("sparrow.guest_access")  # (a guest's, by link: set by the Gate too)
    logins, guests = websocket.app.state.club.logins, websocket.app.state.club.passes.sockets
    logins.hold(session and session.id, conn)  # closed when the session ends (server/club/logins.py)
    if access is not None:
        guests.hold(access.link.id, conn)  # closed when the link is revoked (server/club/guest_sockets.py)
    writer = asyncio.get_running_loop().create_task(_writer(websocket, conn))
    try:
        await _reader(websocket, seat.reader(conn, config))
    except (WebSocketDisconnect, TimeoutError, RuntimeError):
        pass
    finally:
        logins.release(session and session.id, conn)
        if access is not None:
            guests.release(access.link.id, conn)
        seat.leave(conn)
        conn.close(GOING_AWAY, "")
        await writer


class Seat(Protocol):
    """Where an attached socket's messages go: its table here, or the process running it."""

    def reader(self, conn: Connection, config: SocketConfig) -> Reader:
        """What reads the socket's messages."""
        ...

    def leave(self, conn: Connection) -> None:
        """The socket has closed."""
        ...


@dataclass(frozen=True, slots=True)
class _Here:
    """A socket at a table this process runs."""

    actor: TableActor

    def reader(self, conn: Connection, config: SocketConfig) -> Reader:
        return Reader(conn, self.actor, config)

    def leave(self, conn: Connection) -> None:
        if conn.relay is not None:  # the table moved to another server process
            conn.relay.leave(conn)
        else:
            self.actor.post(Detach(conn))


async def _authenticate(websocket: WebSocket, lobby: Lobby, config: SocketConfig) -> tuple[Connection, Seat]:
    # (asyncio.timeout, not wait_for: wait_for's inner future and the exception it holds would form a
    # reference cycle with its frame, which only the collector frees; docs/deploy.md, "Memory")
    async with asyncio.timeout(config.hello_timeout):
        frame = _frame(websocket, await websocket.receive())
    msg = parse_client_msg(frame)
    if not isinstance(msg, ClientHello):
        raise ProtocolError("auth/hello_first", "send hello {table, token} before anything else")
    member = websocket.scope.get("sparrow.member")  # set by server.club.gate.Gate
    if member is None and websocket.app.state.club.mode != "open" and websocket.scope.get("sparrow.guest") != msg.table:
        raise TableError("auth/login_required", "log in first: this club is for its members", status=401)
    conn = Connection(None)
    member_id = None if member is None else member.id
    actor = await lobby.find(msg.table)  # an adjourned table comes back to be opened
    forwarding: Forwarding | None = getattr(websocket.app.state, "forwarding", None)
    if actor is None and forwarding is not None:  # another process runs it: messages go through the bus
        return conn, await forwarding.attach(msg.table, msg.token, member_id, conn)
    actor = lobby.get(msg.table)
    await actor.ask(Attach(conn, msg.token, member_id))
    return conn, _Here(actor)


class Forwarding(Protocol):
    """Sockets at tables another process runs (`server.cluster.node.Node`)."""

    async def attach(self, table: str, token: str | None, member: int | None, conn: Connection) -> Seat:
        """Attach ``conn`` to ``table`` in the process running it.

        :raises TableError: that table's refusal; 404 when no process runs it; 503 while it moves.
        """
        ...


def _frame(websocket: WebSocket, message: Message) -> str | bytes:
    """The frame a message received holds. (Not a coroutine awaiting the message itself: the reader
    awaits one message per frame, and each layer of coroutines waiting for it is an object that lives
    until the client speaks again.)

    :raises WebSocketDisconnect: for the message that says the socket closed.
    """
    if message["type"] == "websocket.disconnect":
        code = message.get("code", 1000)
        if code == INVALID_PAYLOAD:  # what a client did: one line, no traceback
            address = websocket.client.host if websocket.client else "?"
            log.warning("a client (%s) sent a text frame that is not UTF-8; its socket is closed", address)
        raise WebSocketDisconnect(code)
    text: str | None = message.get("text")
    return text if text is not None else message.get("bytes") or b""


class Reader:
    """What the server does with each message a client sends once it is attached: rate-limit it,
    parse it, and hand it to the table (or answer it). It never waits, so that the process forwarding
    a socket (server/cluster) can call it (through `take_safely`) as each message arrives. Without
    ``limit``, messages are not counted (the process that holds the socket counted them).
    """

    def __init__(self, conn: Connection, actor: TableActor | None, config: SocketConfig, *, limit: bool = True) -> None:
        self.loop = asyncio.get_running_loop()
        self.conn, self.actor, self.config = conn, actor, config
        self.limiter = RateLimiter(config.rate, config.burst, self.loop.time()) if limit else None
        self.refusals = 0
        self.heard = self.loop.time()  # when the client last sent anything

    @property
    def table(self) -> str | None:
        """The table's id, for log lines."""
        return None if self.actor is None else self.actor.id

    def take(self, frame: str | bytes) -> None:
        """Handle one message from the client."""
        conn = self.conn
        if conn.closed:
            return
        now = self.heard = self.loop.time()
        if self.limiter is not None and not self.limiter.allow(now):
            self.refusals += 1
            conn.send(_refusal(ProtocolError("rate/limited", "slow down: too many messages"), _request_id(frame)))
            if self.refusals >= self.config.max_refusals:
                conn.close(POLICY_VIOLATION, "flooding")
            return
        self.refusals = 0
        relay = conn.relay
        if relay is not None:  # its table moved to another server process: the message goes there
            relay.forward(frame)
        else:
            self.handle(frame)

    def handle(self, frame: str | bytes) -> None:
        """Handle a message that was let through."""
        conn, actor = self.conn, self.actor
        assert actor is not None
        try:
            msg = parse_client_msg(frame)
        except ProtocolError as exc:
            conn.send(_refusal(exc, exc.request))
            return
        match msg:
            case ClientPing():
                conn.send(encode("pong", {"now": int(actor.clock.now() * 1000)}))
            case ClientResync():
                actor.post(Resync(conn))
            case ClientAct(request, action, window, seat):
                metrics.INTENTS.inc()
                if seat is not None and seat != conn.seat:
                    error = TableError("seat/not_yours", f"this socket plays seat {conn.seat}, not {seat!r}")
                    conn.send(_refusal_table(error, request))
                else:
                    actor.post(Act(conn, request, action, window))
            case ClientChat(request, text):
                actor.post(Chat(conn, request, text))
            case ClientHello():
                conn.send(encode("refused", {"id": None, "reason": "auth/already", "message": "already authenticated"}))

    def take_safely(self, frame: str) -> None:
        """`take`, for the wire: a bug here must not reach uvicorn's protocol; the client is dropped."""
        try:
            self.take(frame)
        except Exception:
            log.exception(
                "socket %s failed on a message", self.conn.id, extra={"table": self.table, "seat": self.conn.seat}
            )
            self.conn.close(INTERNAL_ERROR, "the server failed on that message")


async def _reader(websocket: WebSocket, reader: Reader) -> None:
    """Read the client's messages until it leaves, is dropped, or stays silent too long.

    :raises TimeoutError: the client was silent for ``idle_timeout`` seconds.
    """
    conn = reader.conn
    idle = _Idle(reader)
    try:
        while not conn.closed:
            if conn.queue.qsize() >= BACKLOG:
                # A client that sends faster than it reads its answers is read no further until the
                # writer has caught up; else its answers alone would fill its queue and drop it.
                await conn.caught_up.wait()
            frame = _frame(websocket, await websocket.receive())
            reader.take(frame)
    except asyncio.CancelledError:
        if idle.expired and idle.task.uncancel() == 0:
            raise TimeoutError from None
        raise
    finally:
        idle.stop()


class _Idle:
    """The idle limit of one socket's reader: one timer, armed for when the socket has been silent
    ``idle_timeout`` seconds since it last spoke, re-armed from there when it finds that it did since;
    when it finds the socket silent, it cancels the reader (which `_reader` turns into TimeoutError).

    (Not `asyncio.timeout_at` around each message: its timer, the timer's context and the timeout
    object would be made for every message and live until the next one, a second or more, which is
    what the collector's younger generations then walk; docs/benchmarks.md, "The collector".)
    """

    __slots__ = ("reader", "task", "handle", "expired")

    def __init__(self, reader: Reader) -> None:
        self.reader = reader
        task = asyncio.current_task()
        assert task is not None
        self.task = task
        self.expired = False
        self.handle: asyncio.TimerHandle | None = None
        self._arm()

    def _arm(self) -> None:
        reader = self.reader
        self.handle = reader.loop.call_at(reader.heard + reader.config.idle_timeout, self._check)

    def _check(self) -> None:
        reader = self.reader
        if reader.loop.time() < reader.heard + reader.config.idle_timeout:
            self._arm()
        else:
            self.handle = None
            self.expired = True
            self.task.cancel()

    def stop(self) -> None:
        """The reader has ended: no more checks (and no reference cycle left through the timer)."""
        if self.handle is not None:
            self.handle.cancel()
            self.handle = None


def _request_id(frame: str | bytes) -> int | None:
    """The request id of a frame refused unread, so that the client can match the refusal to it."""
    try:
        msg = parse_client_msg(frame)  # at most MAX_FRAME bytes: cheap next to what a table does with it
    except ProtocolError as exc:
        return exc.request
    return msg.request if isinstance(msg, ClientAct | ClientChat) else None


def _refusal_table(exc: TableError, request: int) -> str:
    return encode("refused", {"id": request, **exc.to_json()})


async def _writer(websocket: WebSocket, conn: Connection) -> None:
    try:
        while (frame := await conn.queue.get()) is not None:
            await websocket.send_text(frame)
            conn.wrote()
        await websocket.close(conn.close_code or GOING_AWAY, conn.close_reason)
    except Exception:  # the client has gone: nothing left to tell it
        return
