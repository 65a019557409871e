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
    "lone_surrogates",
    "parse_client_msg",
]

MAX_FRAME = 4096  # bytes; a larger frame is refused (docs/protocol.md)
MAX_DEPTH = 16  # nesting of arrays and objects; deeper frames are refused before they are parsed
MAX_ID = 2**53 - 1  # request ids and decision tokens: whole numbers JavaScript holds exactly
PROTOCOL_VERSION = 1
_OPENERS = ("[", "{")


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
    if not isinstance(frame, str):
        raise ProtocolError("message/binary", "every message is a JSON text frame; binary frames are not read")
    size = len(frame.encode())
    if size > MAX_FRAME:
        raise ProtocolError("message/too_large", f"a message may be at most {MAX_FRAME} bytes; this one was {size}")
    if _too_deep(frame):
        raise ProtocolError("message/malformed", f"a message may nest arrays and objects at most {MAX_DEPTH} deep")
    try:
        data = json.loads(frame)
    except ValueError:
        raise ProtocolError("message/malformed", 'a message must be a JSON object such as {"t": "ping"}') from None
    if not isinstance(data, dict):
        raise ProtocolError("message/malformed", 'a message must be a JSON object such as {"t": "ping"}')
    request = data.get("id")
    if request is not None and not _whole(request):
        raise ProtocolError("message/bad_id", f"a request id must be a whole number from 0 to {MAX_ID}")
    if "\\u" in frame and lone_surrogates(data):  # a token with one failed the table where it was hashed
        raise ProtocolError("message/malformed", "text may not hold a lone surrogate such as \\ud800", request)
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
        if not _whole(body["window"]):
            raise ProtocolError(
                "message/bad_field", f'"window" is the decision token, a whole number from 0 to {MAX_ID}', request
            )
        seat = body.get("seat")
        if seat is not None and (isinstance(seat, bool) or seat not in (0, 1, 2, 3)):
            raise ProtocolError("message/bad_field", '"seat", if given, is 0, 1, 2 or 3', request)
        return ClientAct(request, body["action"], body["window"], seat)
    raise ProtocolError(
        "message/unknown", f"unknown message type {tag!r}; expected hello, act, chat, resync or ping", request
    )


def lone_surrogates(data: object) -> bool:
    """Whether a string in parsed JSON ``data`` (a key or a value) holds a lone surrogate, which only a
    ``\\ud800``-style escape can make: such text cannot be encoded (hashed, stored, sent) as UTF-8.
    """
    pending = [data]
    while pending:  # not recursive: a body may nest as deep as the JSON parser went
        value = pending.pop()
        if isinstance(value, dict):
            pending.extend(value)
            pending.extend(value.values())
        elif isinstance(value, list):
            pending.extend(value)
        elif isinstance(value, str) and not value.isascii():
            try:
                value.encode()
            except UnicodeEncodeError:
                return True
    return False


def _whole(value: object) -> bool:
    """Whether ``value`` is a whole number in the protocol's range (0 to `MAX_ID`)."""
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_ID


def _too_deep(frame: str) -> bool:
    """Whether ``frame`` nests arrays and objects more than `MAX_DEPTH` deep (brackets inside strings
    do not count). Most frames hold too few brackets to need the scan.
    """
    if frame.count("[") + frame.count("{") <= MAX_DEPTH:
        return False
    depth = 0
    in_string = escaped = False
    for char in frame:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in _OPENERS:
            depth += 1
            if depth > MAX_DEPTH:
                return True
        elif char in "]}":
            depth -= 1
    return False
