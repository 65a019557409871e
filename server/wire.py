"""How uvicorn serves the app: its own HTTP and WebSocket implementations, with Sparrow's limits.

Both are the libraries' own. The HTTP protocol is h11's rather than httptools': httptools' protocol
object and its parser refer to each other, and on a WebSocket upgrade uvicorn hands the connection to
the WebSocket protocol without breaking that cycle, so every handshake, accepted or refused, left
its HTTP side to the garbage collector. With h11 a connection that is gone is freed at once by
reference counting (tests/server/test_memory.py; docs/deploy.md, "Memory"). `sparrow serve` runs a
subclass of h11's that holds request heads to a deadline and a count per address (server/heads.py).
"""

from __future__ import annotations

from typing import Any

__all__ = ["UVICORN_OPTIONS"]

# How `sparrow serve` (and the tests' live servers) run uvicorn.
UVICORN_OPTIONS: dict[str, Any] = {
    "http": "h11",
    "ws": "wsproto",
    "ws_max_size": 64 * 1024,
    # No WebSocket-level keepalive pings from uvicorn: the protocol has its own heartbeat (clients
    # ping every 25 s, a socket silent for 75 s is closed; docs/protocol.md), and at 4,000 sockets
    # uvicorn's would add 200 frames a second each way.
    "ws_ping_interval": None,
    # On a stop, uvicorn waits this long at most for the connections' tasks to end, then cancels them:
    # one socket stuck on its way out must not hold a restart (or a test's server) for good.
    "timeout_graceful_shutdown": 15,
}
