"""The WebSocket wire under `/ws`: uvicorn's sans-I/O WebSocket protocol, plus a direct way in and out
for the table's frames.

Through ASGI, every frame a table sends is a message on the connection's queue, a writer task woken
to take it, and four coroutine layers (Starlette's, its exception wrapper's, uvicorn's) before it is
framed and written; every frame a client sends is queued by uvicorn, which stops reading the socket
until a reader task has taken it. At a thousand tables that machinery cost more of the server's one
core than the games did (docs/benchmarks.md). This protocol offers the ASGI app, as the scope
extension ``sparrow.wire``, two shortcuts:

- `write_now` frames a text message and hands it to the transport at once, without awaiting, when
  the transport is taking data (not paused for a full buffer); otherwise it declines and the caller
  queues the frame for its writer task, which waits for the transport as before. It frames the text
  itself (compressed with the connection's permessage-deflate context when one was negotiated), the
  same bytes websockets would write, at a fraction of the cost (`_text_frame`);
- `listen` hands every later text message to a callback as it arrives, in order, instead of
  queueing it for ``receive()``. Everything else (binary messages, close, disconnect) still reaches
  the app through ``receive()``.

Everything else is uvicorn's. An app served some other way finds no extension and uses ASGI only.
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Callable
from typing import Any

from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.exceptions import InvalidState
from websockets.extensions import Extension
from websockets.extensions.permessage_deflate import PerMessageDeflate
from websockets.frames import Frame
from websockets.protocol import State

__all__ = ["EXTENSION", "UVICORN_OPTIONS", "WireProtocol"]

EXTENSION = "sparrow.wire"


class WireProtocol(WebSocketsSansIOProtocol):
    """uvicorn's ``websockets-sansio`` protocol with `write_now` and `listen` (see the module)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._listener: Callable[[str], None] | None = None

    def handle_connect(self, event: Any) -> None:
        super().handle_connect(event)
        scope = getattr(self, "scope", None)  # absent when the handshake was refused
        if scope is not None:
            scope["extensions"][EXTENSION] = self

    # ------------------------------------------------------------------ out
    def write_now(self, text: str) -> bool:
        """Frame ``text`` and write it now; False (nothing written) when the socket is not open for the
        app's messages or its transport's buffer is over the high-water mark.
        """
        if (
            not self.handshake_complete
            or self.close_sent
            or self.disconnected
            or self.initial_response is not None
            or not self.writable.is_set()
            or self.transport.is_closing()
        ):
            return False
        conn = self.conn
        if conn.state is not State.OPEN:  # the client's close frame has arrived
            return False
        payload = text.encode()
        data = _text_frame(payload, conn.extensions)
        if data is None:  # an extension this does not frame for itself: websockets frames it
            try:
                conn.send_text(payload)
            except InvalidState:
                return False
            data = b""
        pending = conn.data_to_send()  # websockets' frame, or a frame the protocol queued of its own
        self.transport.write(b"".join([*pending, data]) if pending else data)
        return True

    # ------------------------------------------------------------------- in
    def listen(self, callback: Callable[[str], None] | None) -> None:
        """Hand each text message that arrives from now on to ``callback`` instead of ``receive()``
        (``None``: back to ``receive()``). Text messages already queued go to ``callback`` first, up to
        the first message of another kind, so that none overtakes another. Call it only while the
        app is not awaiting ``receive()``.
        """
        self._listener = callback
        if callback is None or self.queue.empty():
            return
        queued: list[dict[str, Any]] = [dict(self.queue.get_nowait()) for _ in range(self.queue.qsize())]
        while queued and queued[0]["type"] == "websocket.receive" and queued[0].get("text") is not None:
            callback(queued.pop(0)["text"])
        for message in queued:
            self.queue.put_nowait(message)  # type: ignore[arg-type]  # as uvicorn queued it
        if self.read_paused and self.queue.empty():  # as `receive()` does once the app has caught up
            self.read_paused = False
            self.transport.resume_reading()

    def handle_text(self, event: Frame) -> None:
        listener = self._listener
        if listener is None or not event.fin or self.close_sent:
            super().handle_text(event)
            return
        try:
            text = str(event.data, "utf-8")
        except UnicodeDecodeError:
            super().handle_text(event)  # uvicorn closes with 1007
            return
        listener(text)


def _text_frame(payload: bytes, extensions: list[Extension]) -> bytes | None:
    """One final, unmasked text frame of ``payload``, as websockets' ``send_text`` would write it,
    compressed when permessage-deflate was negotiated with context takeover; None for any other
    extension. It costs a fraction of websockets' way (a `Frame` object, its check, a new `Frame` from
    the extension, a `BytesIO`), which a server pays on every frame it sends: four per action.
    """
    head = 0x81  # FIN, text
    if extensions:
        deflate = extensions[0]
        if len(extensions) != 1 or type(deflate) is not PerMessageDeflate or deflate.local_no_context_takeover:
            return None
        encoder = deflate.encoder
        payload = encoder.compress(payload) + encoder.flush(zlib.Z_SYNC_FLUSH)
        payload = payload[:-4]  # the flush's empty block, 00 00 ff ff, is left off (RFC 7692 7.2.1)
        head |= 0x40  # RSV1: compressed
    size = len(payload)
    if size < 126:
        return bytes((head, size)) + payload
    if size < 65536:
        return _SIZE16.pack(head, 126, size) + payload
    return _SIZE64.pack(head, 127, size) + payload


_SIZE16 = struct.Struct("!BBH")
_SIZE64 = struct.Struct("!BBQ")


# How `sparrow serve` (and the tests' live servers) run uvicorn.
UVICORN_OPTIONS: dict[str, Any] = {
    "ws": WireProtocol,
    "ws_max_size": 64 * 1024,
    # No WebSocket-level keepalive pings from uvicorn: the protocol has its own heartbeat (clients
    # ping every 25 s, a socket silent for 75 s is closed; docs/protocol.md), and at 4,000 sockets
    # uvicorn's would add 200 frames a second each way.
    "ws_ping_interval": None,
}
