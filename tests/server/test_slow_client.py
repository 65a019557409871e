"""A connection's outbound queue and its writer task (server/ws.py, ARCHITECTURE lesson 10): frames
reach the socket in order, the table never waits for a socket, and a client too slow to take its
frames is dropped with 1013 (it gets a snapshot when it reconnects).
"""

from __future__ import annotations

import asyncio

import pytest

from server.tables.connection import Connection
from server.ws import _writer


class _Socket:
    """A socket whose sends complete while ``open`` is set and wait for it otherwise (as uvicorn's
    do while the transport's buffer is over its high-water mark).
    """

    def __init__(self) -> None:
        self.open = asyncio.Event()
        self.open.set()
        self.received: list[str] = []
        self.closed_with: tuple[int, str] | None = None

    async def send_text(self, frame: str) -> None:
        await self.open.wait()
        self.received.append(frame)

    async def close(self, code: int, reason: str) -> None:
        await self.open.wait()
        self.closed_with = (code, reason)


async def _settle() -> None:
    for _ in range(20):
        await asyncio.sleep(0)


@pytest.mark.asyncio
async def test_frames_reach_the_socket_in_order_and_a_close_comes_last() -> None:
    socket = _Socket()
    conn = Connection(0)
    writer = asyncio.create_task(_writer(socket, conn))  # type: ignore[arg-type]
    for frame in ("1", "2", "3"):
        assert conn.send(frame)
    await _settle()
    assert socket.received == ["1", "2", "3"]
    conn.close(1000, "")
    await writer
    assert socket.closed_with == (1000, "")


@pytest.mark.asyncio
async def test_a_client_too_slow_for_its_queue_is_dropped_and_the_table_never_waits() -> None:
    socket = _Socket()
    conn = Connection(0, limit=3)
    writer = asyncio.create_task(_writer(socket, conn))  # type: ignore[arg-type]
    socket.open.clear()  # the client stops reading
    assert conn.send("0")
    await _settle()  # the writer has taken "0" and waits on the socket
    sent = [conn.send(str(n)) for n in range(1, 6)]  # send() never waits: it queues or drops
    assert sent == [True, True, True, False, False]
    assert conn.closed and conn.close_code == 1013
    socket.open.set()
    await writer
    assert socket.received == ["0"]  # nothing queued is worth sending to a dropped client
    assert socket.closed_with == (1013, "too slow: reconnect to get a snapshot")
    assert not conn.send("late")


class _Sink:
    """The wire's direct way out (`server.wire.WireProtocol.write_now`): takes frames while ``open``."""

    def __init__(self) -> None:
        self.open = True
        self.written: list[str] = []

    def write_now(self, text: str) -> bool:
        if self.open:
            self.written.append(text)
        return self.open


@pytest.mark.asyncio
async def test_frames_go_straight_to_a_sink_that_keeps_up_and_never_overtake_queued_ones() -> None:
    socket, sink = _Socket(), _Sink()
    conn = Connection(0, sink=sink)
    writer = asyncio.create_task(_writer(socket, conn))  # type: ignore[arg-type]
    assert conn.send("1")
    assert sink.written == ["1"] and conn.queue.empty()  # written at once: no queue, no writer
    sink.open = False  # the transport's buffer is full
    socket.open.clear()
    assert conn.send("2")
    sink.open = True  # the transport takes data again, but "2" is still queued: "3" must wait behind it
    assert conn.send("3")
    assert sink.written == ["1"]
    socket.open.set()
    await _settle()
    assert socket.received == ["2", "3"]
    assert conn.send("4")  # the queue is empty again: straight to the sink
    assert sink.written == ["1", "4"] and socket.received == ["2", "3"]
    conn.close(1000, "")
    await writer
    assert socket.closed_with == (1000, "")


@pytest.mark.asyncio
async def test_a_client_whose_sink_stays_full_still_fills_its_queue_and_is_dropped() -> None:
    socket, sink = _Socket(), _Sink()
    conn = Connection(0, limit=2, sink=sink)
    writer = asyncio.create_task(_writer(socket, conn))  # type: ignore[arg-type]
    sink.open = False
    socket.open.clear()
    sent = [conn.send(str(n)) for n in range(5)]
    await _settle()
    assert sent[:2] == [True, True] and not all(sent)
    assert conn.closed and conn.close_code == 1013
    socket.open.set()
    await writer
    assert sink.written == []
