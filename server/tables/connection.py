"""One client connection as the table sees it: its seat, what it last received, and a bounded
outbound queue that a writer task drains to the socket (ARCHITECTURE lesson 10).

The table never awaits a connection: it only puts frames on the queue. A connection whose queue
is full is too slow to follow the table; it is dropped and will get a snapshot when it returns.
"""

from __future__ import annotations

import asyncio
import itertools
from typing import Protocol

import orjson

from server import metrics

__all__ = ["Connection", "Relay", "compact", "encode"]

QUEUE_LIMIT = 256
_ids = itertools.count(1)


def compact(data: object) -> str:
    """``data`` as compact JSON text: no spaces, keys in order, characters as they are (not \\u escapes).
    Every frame is encoded with it, so it is orjson's (about 20 times json.dumps here).
    """
    return orjson.dumps(data).decode()


def encode(tag: str, data: object) -> str:
    """One outbound frame in the ``{"t": tag, "d": data}`` envelope, compact JSON. Every refusal a
    client is sent is made here, and counted (`server.metrics`)."""
    if tag == "refused":
        metrics.refused(data)
    return compact({"t": tag, "d": data})


class Relay(Protocol):
    """Where a socket's messages go once its table has moved to another server process (server/cluster)."""

    def forward(self, frame: str | bytes) -> None:
        """Pass on one message the client sent (it was let through the socket's rate limit)."""

    def leave(self, conn: Connection) -> None:
        """The socket has closed."""


class Connection:
    """A socket attached to a table, as a seat (0–3) or a spectator (``seat=None``)."""

    def __init__(self, seat: int | None, *, limit: int = QUEUE_LIMIT) -> None:
        self.id = next(_ids)
        self.seat = seat
        self.token: str | None = None  # the hash of the seat's token
        self.member: int | None = None  # the logged-in member whose socket it is
        self.seq = 0  # the number of the last snapshot or diff queued
        self.last: object = None  # the state document it was last sent (shared between connections when equal)
        self.queue: asyncio.Queue[str | None] = asyncio.Queue(limit)
        self.caught_up = asyncio.Event()  # set while the writer has written everything queued (or it closed)
        self.caught_up.set()
        self.closed = False
        self.close_code: int | None = None
        self.close_reason = ""
        # Set once the table has moved to another server process while the socket stays here: its
        # messages no longer reach the table it attached to (server/cluster/handover.py).
        self.relay: Relay | None = None

    def send(self, frame: str) -> bool:
        """Queue a frame; on overflow drop the connection (code 1013) and return False."""
        if self.closed:
            return False
        try:
            self.queue.put_nowait(frame)
        except asyncio.QueueFull:
            self.close(1013, "too slow: reconnect to get a snapshot")
            return False
        self.caught_up.clear()
        return True

    def wrote(self) -> None:
        """The writer has written a frame it took from the queue."""
        if self.queue.empty():
            self.caught_up.set()

    def mark_closed(self, code: int, reason: str) -> bool:
        """Mark the connection closed with ``code``; False if it was already."""
        if self.closed:
            return False
        self.closed = True
        self.close_code, self.close_reason = code, reason
        return True

    def close(self, code: int, reason: str) -> None:
        """Ask the writer to close the socket with ``code`` after nothing else."""
        if not self.mark_closed(code, reason):
            return
        while not self.queue.empty():  # nothing queued is worth sending to a dropped client
            self.queue.get_nowait()
        self.queue.put_nowait(None)
        self.caught_up.set()

    def __repr__(self) -> str:
        return f"<Connection {self.id} seat={self.seat} seq={self.seq}>"
