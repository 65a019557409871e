"""The WebSocket protocol's inbound side: parsing client frames into typed messages.

Every frame is a JSON object ``{"t": tag, "d": data}``; requests that want an answer carry an
``"id"`` (an integer the client chooses) that the ``ack`` or ``refused`` answer repeats. The
outbound frames are built by the table (`server.tables.connection.encode`). docs/protocol.md
lists every message with an example; static/js/protocol.js mirrors the tags.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

__all__ = [
    "ClientAct",
    "ClientChat",
    "ClientHello",
    "ClientMsg",
    "ClientPing",
    "ClientResync",
    "MAX_FRAME",
    "ProtocolError",
    "parse_client_msg",
]

MAX_FRAME = 4096  # bytes; a larger frame is refused (docs/protocol.md)
PROTOCOL_VERSION = 1


class ProtocolError(ValueError):
    """A frame the server cannot accept; ``reason`` is a stable code such as ``"message/malformed"``."""

    def __init__(self, reason: str, message: str, request: int | None = None) -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message
        self.request = request


@dataclass(frozen=True, slots=True)
class ClientHello:
    """The first frame: which table, and the seat token (None to watch)."""

    table: str
    token: str | None


@dataclass(frozen=True, slots=True)
class ClientAct:
    """An engine action for decision ``window``."""

    request: int
    action: object
    window: object
    seat: object = None  # optional; if given it must be the socket's own seat


@dataclass(frozen=True, slots=True)
class ClientChat:
    """A chat line."""

    request: int
    text: object


@dataclass(frozen=True, slots=True)
class ClientResync:
    """The client missed an update and wants a snapshot."""


@dataclass(frozen=True, slots=True)
class ClientPing:
    """A heartbeat; answered with ``pong``."""


ClientMsg = ClientHello | ClientAct | ClientChat | ClientResync | ClientPing


def parse_client_msg(frame: str | bytes) -> ClientMsg:
    """Parse one client frame.

    >>> parse_client_msg('{"t": "act", "id": 3, "d": {"action": {"type": "pass"}, "window": 12}}')
    ClientAct(request=3, action={'type': 'pass'}, window=12, seat=None)
    >>> parse_client_msg('{"t": "dance"}')
    Traceback (most recent call last):
    ...
    server.protocol.ProtocolError: unknown message type 'dance'; expected hello, act, chat, resync or ping

    :raises ProtocolError: for an oversized, non-JSON, or unknown frame, or one missing a field.
    """
    size = len(frame.encode() if isinstance(frame, str) else frame)
    if size > MAX_FRAME:
        raise ProtocolError("message/too_large", f"a message may be at most {MAX_FRAME} bytes; this one was {size}")
    try:
        data = json.loads(frame)
    except (ValueError, UnicodeDecodeError):
        raise ProtocolError("message/malformed", 'a message must be a JSON object such as {"t": "ping"}') from None
    if not isinstance(data, dict):
        raise ProtocolError("message/malformed", 'a message must be a JSON object such as {"t": "ping"}')
    request = data.get("id")
    if request is not None and (isinstance(request, bool) or not isinstance(request, int)):
        raise ProtocolError("message/bad_id", "a request id must be an integer")
    body = data.get("d", {})
    if not isinstance(body, dict):
        raise ProtocolError("message/malformed", 'the message body "d" must be an object', request)
    tag = data.get("t")
    if tag == "ping":
        return ClientPing()
    if tag == "resync":
        return ClientResync()
    if tag == "hello":
        table, token = body.get("table"), body.get("token")
        if not isinstance(table, str) or not (token is None or isinstance(token, str)):
            raise ProtocolError("message/bad_field", 'hello needs {"table": id} and, to play, {"token": seat token}')
        return ClientHello(table, token)
    if tag in ("act", "chat"):
        if request is None:
            raise ProtocolError("message/bad_id", f'{tag} needs an integer "id" so its answer can be matched')
        if tag == "chat":
            return ClientChat(request, body.get("text"))
        if "action" not in body or "window" not in body:
            raise ProtocolError("message/bad_field", 'act needs {"action": …, "window": …}', request)
        return ClientAct(request, body["action"], body["window"], body.get("seat"))
    raise ProtocolError(
        "message/unknown", f"unknown message type {tag!r}; expected hello, act, chat, resync or ping", request
    )
