"""`SocketKey`: a WebSocket handshake whose ``Sec-WebSocket-Key`` is not one is refused with 400.

RFC 6455 §4.2.1 asks the client for exactly one ``Sec-WebSocket-Key``, the base64 of 16 bytes (24
characters), and the server to refuse a handshake without it. The protocol implementation under the
server refuses a missing key and accepts any other value; this middleware refuses the rest before the
socket opens, with the project's refusal (``input/bad_handshake``).
"""

from __future__ import annotations

import base64
import binascii
import json

from starlette.types import ASGIApp, Receive, Scope, Send

__all__ = ["SocketKey", "valid_key"]


def valid_key(key: bytes) -> bool:
    """Whether ``key`` is the base64 of 16 bytes, as RFC 6455 §4.2.1 asks.

    >>> valid_key(b"dGhlIHNhbXBsZSBub25jZQ==")
    True
    >>> valid_key(b"abc"), valid_key(b""), valid_key(b"AAAAAAAAAAAAAAAAAAAAAAAAAAAA")
    (False, False, False)
    """
    if len(key) != 24:
        return False
    try:
        return len(base64.b64decode(key, validate=True)) == 16
    except binascii.Error:
        return False


class SocketKey:
    """Refuses a socket handshake without exactly one valid ``Sec-WebSocket-Key`` (400, before it
    opens); passes everything else through."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket":
            keys = [value for name, value in scope.get("headers", []) if name.lower() == b"sec-websocket-key"]
            if len(keys) != 1 or not valid_key(keys[0]):
                await _refuse(scope, send)
                return
        await self.app(scope, receive, send)


async def _refuse(scope: Scope, send: Send) -> None:
    reason = "input/bad_handshake"
    if "websocket.http.response" not in scope.get("extensions", {}):
        await send({"type": "websocket.close", "code": 1008, "reason": reason})  # (the server answers 403)
        return
    message = "a socket's handshake needs one Sec-WebSocket-Key: the base64 of 16 random bytes (RFC 6455)"
    body = json.dumps({"error": {"reason": reason, "message": message}}, separators=(",", ":")).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", b"%d" % len(body))]
    await send({"type": "websocket.http.response.start", "status": 400, "headers": headers})
    await send({"type": "websocket.http.response.body", "body": body})
