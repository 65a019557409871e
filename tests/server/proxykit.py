"""A TCP proxy of the test's own, in its event loop, in front of PostgreSQL or Redis: it forwards, or
is cut (closes every connection and refuses new ones), or black-holes (accepts, forwards nothing,
closes nothing: a network partition; what is sent meanwhile is held, or dropped as by a proxy that
loses it; either way, or one way only), until the test says otherwise. It mends as a network does
(the connections held carry on), or as one that forgot them (a NAT or a firewall that lost its
state): those stay silent for good, never closed, or closed on the server's side only, as the
server's keepalives close a peer that went quiet. It can add a latency to every round trip (half
each way, as a distant database would), and counts round trips: a client's bytes that follow the
server's answer on their connection start one (so a pipelined batch of statements is one round
trip).
"""

from __future__ import annotations

import asyncio
import contextlib
from types import TracebackType


class TcpProxy:
    """Forwards 127.0.0.1:``port`` (a free one unless given) to ``host``:``target``; use as ``async with``."""

    def __init__(self, host: str, target: int, *, port: int = 0) -> None:
        self.host, self.target = host, target
        self.port = port
        self.mode = "forward"  # or "cut", "black hole"
        self.drop = False  # in a black hole: what is sent is dropped rather than held
        self.way = "both"  # in a black hole, what is held: "both", "to server" or "to client"
        self.refused = 0  # connections closed at once because the proxy was cut
        self.latency = 0.0  # seconds added to every round trip: half on the way there, half back
        self.round_trips = 0  # times a client spoke after hearing from the server (or first), on any connection
        self._server: asyncio.Server | None = None
        self._writers: set[asyncio.StreamWriter] = set()
        self._tasks: set[asyncio.Task[None]] = set()
        self._accepted_count = 0  # connections accepted so far: the next one's number
        self._forgotten = 0  # connections numbered below this are silent for good (`mend(forget=True)`)
        self._upstream: dict[int, asyncio.StreamWriter] = {}  # by connection number: its server side

    @property
    def url_part(self) -> str:
        """``127.0.0.1:port``, to put in a URL."""
        return f"127.0.0.1:{self.port}"

    async def __aenter__(self) -> TcpProxy:
        self._server = await asyncio.start_server(self._accepted, "127.0.0.1", self.port)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(self, *exc: type[BaseException] | BaseException | TracebackType | None) -> None:
        assert self._server is not None
        self._server.close()
        self._close_all()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    def cut(self) -> None:
        """Close every connection through the proxy, and close new ones at once."""
        self.mode = "cut"
        self._close_all()

    def black_hole(self, *, drop: bool = False, way: str = "both") -> None:
        """From now on nothing crosses (``way``: either way, or only "to server" or "to client"), and
        nothing is closed; what is sent meanwhile is held until the proxy mends, or with ``drop`` lost."""
        assert way in ("both", "to server", "to client")
        self.mode, self.drop, self.way = "black hole", drop, way

    def mend(self, *, forget: bool = False, server_closes: bool = False) -> None:
        """Forward again: connections held in a black hole carry on (cut ones stay closed). With
        ``forget``, every connection made so far stays silent for good instead (nothing crosses,
        nothing is closed: a NAT that lost their state), and new ones forward; with ``server_closes``
        too, the server's end of each is closed (as its keepalives close a peer gone quiet)."""
        self.mode = "forward"
        if forget:
            self._forgotten = self._accepted_count
        if forget and server_closes:
            for number in [n for n in self._upstream if n < self._forgotten]:
                self._upstream.pop(number).transport.abort()

    def _held(self, number: int, side: str) -> bool:
        """Whether what ``side`` ("client" or "server") sends on connection ``number`` is held now."""
        if number < self._forgotten:
            return True
        toward = "to server" if side == "client" else "to client"
        return self.mode == "black hole" and self.way in ("both", toward)

    def _close_all(self) -> None:
        for writer in list(self._writers):
            writer.transport.abort()
        self._writers.clear()

    async def _accepted(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if self.mode == "cut":
            self.refused += 1
            writer.transport.abort()
            return
        try:
            up_reader, up_writer = await asyncio.open_connection(self.host, self.target)
        except OSError:
            writer.transport.abort()
            return
        self._writers |= {writer, up_writer}
        number, self._accepted_count = self._accepted_count, self._accepted_count + 1
        self._upstream[number] = up_writer
        turn = ["server"]  # who spoke last on this connection
        for source, sink, side in ((reader, up_writer, "client"), (up_reader, writer, "server")):
            task = asyncio.get_running_loop().create_task(self._pipe(number, source, sink, side, turn))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _pipe(
        self, number: int, source: asyncio.StreamReader, sink: asyncio.StreamWriter, side: str, turn: list[str]
    ) -> None:
        loop = asyncio.get_running_loop()
        late: asyncio.Queue[tuple[float, bytes] | None] = asyncio.Queue()  # (when it is due, bytes)
        delivery = loop.create_task(self._deliver(late, sink))
        self._tasks.add(delivery)
        delivery.add_done_callback(self._tasks.discard)
        try:
            while data := await source.read(65536):
                if self._held(number, side) and (self.drop or number < self._forgotten):
                    continue
                while self._held(number, side):
                    await asyncio.sleep(0.05)  # held: it crosses when the proxy mends
                if self.mode == "cut":
                    break
                if side == "client" and turn[0] == "server":
                    self.round_trips += 1
                turn[0] = side
                late.put_nowait((loop.time() + self.latency / 2, data))
        except (OSError, asyncio.IncompleteReadError):
            pass
        finally:
            late.put_nowait(None)
            with contextlib.suppress(Exception):
                await delivery
            if number >= self._forgotten:  # (a forgotten connection's client hears nothing, not even a close)
                with contextlib.suppress(Exception):
                    sink.transport.abort()
                self._writers.discard(sink)
                self._upstream.pop(number, None)

    async def _deliver(self, late: asyncio.Queue[tuple[float, bytes] | None], sink: asyncio.StreamWriter) -> None:
        """Write what arrives on ``late``, each at its time (in order: the latency is a delay, not a
        narrower pipe)."""
        loop = asyncio.get_running_loop()
        try:
            while (item := await late.get()) is not None:
                due, data = item
                if due > loop.time():
                    await asyncio.sleep(due - loop.time())
                if self.mode == "cut":
                    return
                sink.write(data)
                await sink.drain()
        except OSError:
            pass
