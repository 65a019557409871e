"""Writing frames to a socket (server/ws.py `Outbox`, ARCHITECTURE lesson 10): a frame goes out at
once when the socket takes it, queues behind a send that has to wait, always arrives in order, and a
client too slow to take its frames is dropped (1013) without the table ever waiting for it.
"""

from __future__ import annotations

import asyncio

import pytest

from server.tables.connection import Connection
from server.ws import Outbox


class _Socket:
    """A socket whose sends complete at once while ``open`` is set and wait for it otherwise (as
    uvicorn's do while the transport's buffer is over its high-water mark).
    """

    def __init__(self) -> None:
        self.open = asyncio.Event()
        self.open.set()
        self.received: list[str] = []
        self.closed_with: tuple[int, str] | None = None
        self.gone = False

    async def send_text(self, frame: str) -> None:
        await self.open.wait()
        if self.gone:
            raise RuntimeError("the client has gone")
        self.received.append(frame)

    async def close(self, code: int, reason: str) -> None:
        await self.open.wait()
        self.closed_with = (code, reason)


def _attach(socket: _Socket, limit: int = 256) -> tuple[Connection, Outbox, asyncio.Task[None]]:
    conn = Connection(0, limit=limit)
    outbox = Outbox(socket.send_text, conn)
    conn.write_now = outbox.write_now
    return conn, outbox, asyncio.create_task(outbox.run(socket))  # type: ignore[arg-type]


@pytest.mark.asyncio
async def test_a_frame_goes_out_at_once_when_the_socket_takes_it() -> None:
    socket = _Socket()
    conn, _, writer = _attach(socket)
    assert conn.send("a") and conn.send("b")
    assert socket.received == ["a", "b"]  # written before the table's step even ends
    assert conn.queue.empty()
    conn.close(1000, "")
    await writer
    assert socket.closed_with == (1000, "")


@pytest.mark.asyncio
async def test_frames_behind_a_waiting_send_queue_and_arrive_in_order() -> None:
    socket = _Socket()
    conn, _, writer = _attach(socket)
    socket.open.clear()  # the client stops reading
    for frame in ("1", "2", "3", "4"):
        assert conn.send(frame)
    assert socket.received == []
    assert conn.queue.qsize() == 3  # "1" is under way; the rest wait behind it
    socket.open.set()
    for _ in range(20):
        await asyncio.sleep(0)
    assert socket.received == ["1", "2", "3", "4"]
    assert conn.send("5")  # caught up: straight out again
    assert socket.received[-1] == "5"
    conn.close(1000, "")
    await writer


@pytest.mark.asyncio
async def test_a_client_too_slow_for_its_queue_is_dropped_and_the_table_never_waits() -> None:
    socket = _Socket()
    conn, _, writer = _attach(socket, limit=3)
    socket.open.clear()
    sent = [conn.send(str(n)) for n in range(6)]
    assert sent == [True, True, True, True, False, False]  # one under way, three queued, then dropped
    assert conn.closed and conn.close_code == 1013
    socket.open.set()
    await writer
    assert socket.received == ["0"]  # nothing queued is worth sending to a dropped client
    assert socket.closed_with == (1013, "too slow: reconnect to get a snapshot")


@pytest.mark.asyncio
async def test_a_client_that_has_gone_costs_the_table_nothing() -> None:
    socket = _Socket()
    conn, _, writer = _attach(socket)
    socket.gone = True
    assert conn.send("lost")  # no exception reaches the table
    assert socket.received == []
    conn.close(1001, "")
    await writer
