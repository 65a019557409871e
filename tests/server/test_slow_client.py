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
