"""`RateGate`: the ASGI middleware that holds every visitor to `Limits` (docs/protocol.md, "Limits"):
HTTP requests per visitor (fewer for costly ones), socket handshakes per address and live sockets
per visitor (refused with HTTP 429 before the socket opens), and a deadline for a request's body.

It runs inside `server.club.gate.Gate`, which has found the logged-in member: a visitor is that
member, else the address the request came from (behind a trusted proxy, the one it forwarded for),
as `server.rates.addresses.address_key` counts it (an IPv6 address by its /64). Handshakes are
counted before `Gate`, per address, so that the sockets it refuses count too. A POST from another
site's page is refused (`server.api.cross_site`) before anything is counted: it spends nothing of
the visitor's limits.
"""

from __future__ import annotations

import asyncio
import json
import math
import re

from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from server.api import cross_site, refusal
from server.rates.counter import Rates

__all__ = ["RateGate", "visitor"]

# Paths no visitor is counted for: static files (a page asks for a dozen) and the health check.
_FREE = re.compile(r"^/(static/.*|healthz)$")
# Costly requests, each counted against its own rate as well: (rate, method, path, counted per address).
_COSTLY = (
    ("replays", "GET", re.compile(r"^/(api/)?games/[^/]+/(hands/[^/]+(/review)?|log\.json|review)$"), False),
    ("replays", "GET", re.compile(r"^/api/reviews/players/.+$"), False),
    ("tables", "POST", re.compile(r"^/api/tables(/[^/]+/rematch)?$"), False),
    ("logins", "POST", re.compile(r"^/api/club/login$"), True),
)
SOCKETS_RETRY = 10  # seconds a visitor with too many sockets is told to wait


def address(scope: Scope) -> str:
    """Whom per-address limits count a request against: the address it came from (as uvicorn's proxy
    headers set it), an IPv6 one as its network (`Rates.address`)."""
    client = scope.get("client")
    rates: Rates = scope["app"].state.rates
    return rates.address(client[0] if client else None)


def visitor(scope: Scope) -> str:
    """Whom a request counts against: the logged-in member, else its address."""
    member = scope.get("sparrow.member")
    return f"member:{member.id}" if member is not None else address(scope)


class _BodyLate(Exception):
    """The request's body did not arrive in time."""


class RateGate:
    """Refuses what is over the visitor's limits (``app.state.rates``, a `Rates`) with 429. With
    ``handshakes`` it counts only sockets opened per address, and goes before `Gate` so that the
    sockets `Gate` refuses count too; otherwise it counts the rest, after `Gate`, which has found
    the member."""

    def __init__(self, app: ASGIApp, *, handshakes: bool = False) -> None:
        self.app = app
        self.handshakes = handshakes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if self.handshakes:
            if kind == "websocket":
                await self._handshake(scope, receive, send)
            else:
                await self.app(scope, receive, send)
        elif kind == "websocket":
            await self._socket(scope, receive, send)
        elif kind != "http" or _FREE.match(scope["path"]):
            await self.app(scope, receive, send)
        else:
            await self._request(scope, receive, send)

    async def _request(self, scope: Scope, receive: Receive, send: Send) -> None:
        rates: Rates = scope["app"].state.rates
        path, method = scope["path"], scope["method"]
        if method == "POST" and (error := cross_site(Request(scope))) is not None:
            await refusal(error)(scope, receive, send)  # (another site's page spends none of the visitor's limits)
            return
        wait = await rates.hit("requests", visitor(scope))
        for rate, costly_method, pattern, by_address in _COSTLY:
            if not wait and method == costly_method and pattern.match(path):
                wait = await rates.hit(rate, address(scope) if by_address else visitor(scope))
        if wait:
            reason = "rate/too_many_requests"
            message = f"too many requests: try again in {_seconds(wait)}"
            await _refuse(scope, send, 429, reason, message, [(b"retry-after", b"%d" % math.ceil(wait))])
            return
        await self._in_time(scope, receive, send, rates.limits.body_timeout)

    async def _in_time(self, scope: Scope, receive: Receive, send: Send, timeout: float) -> None:
        """Serve the request; a body that has not arrived ``timeout`` seconds after the app first
        asked for it is answered 408, and the connection closed."""
        loop = asyncio.get_running_loop()
        deadline: float | None = None
        arrived = started = False

        async def receive_in_time() -> Message:
            nonlocal deadline, arrived
            if arrived:
                return await receive()
            if deadline is None:
                deadline = loop.time() + timeout
            try:
                async with asyncio.timeout_at(deadline):
                    message = await receive()
            except TimeoutError:
                raise _BodyLate from None  # (not a TimeoutError: that is an OSError, the app's storage trouble)
            arrived = message["type"] != "http.request" or not message.get("more_body", False)
            return message

        async def send_started(message: Message) -> None:
            nonlocal started
            started = True
            await send(message)

        try:
            await self.app(scope, receive_in_time, send_started)
        except _BodyLate:
            if not started:
                message = f"the request's body did not arrive within {timeout:g} s"
                await _refuse(scope, send, 408, "input/too_slow", message, [(b"connection", b"close")])

    async def _handshake(self, scope: Scope, receive: Receive, send: Send) -> None:
        rates: Rates = scope["app"].state.rates
        wait = await rates.hit("handshakes", address(scope))
        if wait:
            message = f"too many sockets opened from your address: try again in {_seconds(wait)}"
            retry = [(b"retry-after", b"%d" % math.ceil(wait))]
            await _refuse(scope, send, 429, "rate/too_many_handshakes", message, retry)
            return
        await self.app(scope, receive, send)

    async def _socket(self, scope: Scope, receive: Receive, send: Send) -> None:
        rates: Rates = scope["app"].state.rates
        who = visitor(scope)
        if not await rates.open_socket(who):
            message = f"you have {rates.limits.sockets} sockets open already: close one first"
            retry = [(b"retry-after", b"%d" % SOCKETS_RETRY)]
            await _refuse(scope, send, 429, "rate/too_many_sockets", message, retry)
            return
        try:
            await self.app(scope, receive, send)
        finally:
            await rates.close_socket(who)


async def _refuse(
    scope: Scope, send: Send, status: int, reason: str, message: str, headers: list[tuple[bytes, bytes]]
) -> None:
    """Answer with the project's refusal (a socket: before it opens, as an HTTP response when the
    server can send one, else a close, which the server answers with 403)."""
    if scope["type"] == "websocket" and "websocket.http.response" not in scope.get("extensions", {}):
        await send({"type": "websocket.close", "code": 1008, "reason": reason})
        return
    body = json.dumps({"error": {"reason": reason, "message": message}}, separators=(",", ":")).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", b"%d" % len(body)), *headers]
    prefix = "websocket.http" if scope["type"] == "websocket" else "http"
    await send({"type": f"{prefix}.response.start", "status": status, "headers": headers})
    await send({"type": f"{prefix}.response.body", "body": body})


def _seconds(wait: float) -> str:
    seconds = math.ceil(wait)
    return f"{seconds} second(s)" if seconds < 120 else f"{math.ceil(seconds / 60)} minute(s)"
