"""Request heads: how long a connection may take to say what it wants, and how many may be saying it.

A connection must send a whole request head (the request line and the headers) within
``head-timeout`` seconds of opening, and again within that long of its last answer when it is kept
alive for another request (the rest of the answered request, a body the app did not read, included);
past that it is closed (answered 408 ``input/too_slow`` first if it had sent part of a head). An
address may have at most ``heads`` connections that have not yet sent their first whole head: past
that, a new one is answered 429 ``rate/too_many_connections`` and closed at once. So a visitor who
opens connections and says nothing holds no file descriptor for long, nor many at once. A kept-alive
connection that says nothing is closed by uvicorn after ``timeout_keep_alive`` (5 s) in any case.
Each process counts its own connections.

Connections from a proxy the server trusts for ``X-Forwarded-For`` (uvicorn's
``forwarded_allow_ips``: 127.0.0.1 and ::1 unless ``FORWARDED_ALLOW_IPS`` says otherwise) are not
counted: a proxy reads each whole head before it connects, and many visitors share its address. The
deadline holds for them too.

`head_protocol` gives uvicorn's own h11 protocol with this watch added (server/wire.py says why h11).
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
import logging
import math
from collections.abc import Callable
from typing import Any, ClassVar

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from server import metrics
from server.rates.addresses import address_key
from server.rates.policy import Limits

__all__ = ["Heads", "head_protocol"]

log = logging.getLogger("sparrow.heads")

_Network = ipaddress.IPv4Network | ipaddress.IPv6Network


class _Trust:
    """The peers uvicorn takes ``X-Forwarded-For`` from (its ``forwarded_allow_ips``: "*", or
    addresses, networks and other literals separated by commas)."""

    def __init__(self, allowed: list[str] | str | None) -> None:
        items = allowed.split(",") if isinstance(allowed, str) else list(allowed or [])
        names = {item.strip() for item in items if item.strip()}
        self.everyone = "*" in names
        self.literals = names
        self.networks: list[_Network] = []
        for name in names:
            try:
                self.networks.append(ipaddress.ip_network(name, strict=False))
            except ValueError:
                pass  # (a literal such as a unix socket's name)

    def __contains__(self, host: str) -> bool:
        if self.everyone or host in self.literals:
            return True
        try:
            address = ipaddress.ip_address(host)
        except ValueError:
            return False
        return any(address in network for network in self.networks)


class Heads:
    """One server's count of connections, per address, that have not yet sent their first whole
    head; ``limits`` gives the limits in force now (an admin may change them while it runs)."""

    def __init__(self, limits: Callable[[], Limits]) -> None:
        self.limits = limits
        self.waiting: dict[str, int] = {}
        self._refusing: set[str] = set()  # addresses told of in the log, until they have none waiting
        self._trust: _Trust | None = None

    def trusts(self, host: str, allowed: list[str] | str | None) -> bool:
        """Whether ``host`` is a proxy the server trusts (``allowed``: uvicorn's forwarded_allow_ips)."""
        if self._trust is None:
            self._trust = _Trust(allowed)
        return host in self._trust

    def admit(self, who: str) -> bool:
        """Count one more connection of ``who`` waiting for its head; False (nothing counted) when
        ``who`` has as many as it may."""
        bound = self.limits().heads
        count = self.waiting.get(who, 0)
        if bound is not None and count >= bound:
            if who not in self._refusing:
                self._refusing.add(who)
                log.warning(
                    "%s has %d connections that have not sent a whole request: more are refused until they "
                    "do or are closed (--limit heads=%d)",
                    who,
                    count,
                    bound,
                )
            return False
        self.waiting[who] = count + 1
        return True

    def arrived(self, who: str) -> None:
        """One connection of ``who`` has sent its head, or is gone."""
        count = self.waiting.pop(who, 0) - 1
        if count > 0:
            self.waiting[who] = count
        else:
            self._refusing.discard(who)


def _answer(status: int, phrase: str, reason: str, message: str, *headers: str) -> bytes:
    """A whole HTTP answer with the project's refusal body, after which the connection closes."""
    body = json.dumps({"error": {"reason": reason, "message": message}}, separators=(",", ":")).encode()
    lines = [f"HTTP/1.1 {status} {phrase}", "content-type: application/json", f"content-length: {len(body)}"]
    lines += [*headers, "connection: close"]
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


class _HeadProtocol(H11Protocol):
    """uvicorn's h11 protocol, holding each request head to the deadline and each address's first
    heads to their count (`head_protocol` binds ``heads``)."""

    heads: ClassVar[Heads]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._counted: str | None = None  # the address this connection counts against, until its head
        self._deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        host = self.client[0] if self.client else None
        if host is not None and not self.heads.trusts(host, self.config.forwarded_allow_ips):
            who = address_key(host, self.heads.limits().ipv6_prefix)  # an IPv6 address by its network
            if not self.heads.admit(who):
                self._refuse()
                return
            self._counted = who
        self._arm()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        self._look()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._look()  # kept alive: the next head has its deadline from now

    def connection_lost(self, exc: Exception | None) -> None:
        self._head_arrived()
        super().connection_lost(exc)

    def _waiting(self) -> bool:
        """Whether this connection is ours and waits for (the rest of) a request head, or for the rest
        of a request it has answered already (a body the app did not read, sent on and on)."""
        transport, conn = self.transport, self.conn
        if transport.get_protocol() is not self or transport.is_closing():
            return False
        return conn.their_state is h11.IDLE or conn.our_state in (h11.DONE, h11.MUST_CLOSE)

    def _look(self) -> None:
        if self._waiting():
            if self._deadline is None:
                self._arm()
        else:
            self._head_arrived()

    def _arm(self) -> None:
        self._deadline = self.loop.call_later(self.heads.limits().head_timeout, self._late)

    def _head_arrived(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None
        if self._counted is not None:
            self.heads.arrived(self._counted)
            self._counted = None

    def _late(self) -> None:
        self._deadline = None
        if not self._waiting():
            self._head_arrived()
            return
        if self.conn.their_state is h11.IDLE and self.conn.trailing_data[0]:  # part of a head: say why it is closed
            said = "the request's head did not arrive in time: send it whole, then the body"
            self.transport.write(_answer(408, "Request Timeout", "input/too_slow", said))
        metrics.HEADS_CLOSED.labels("input/too_slow").inc()
        self._head_arrived()
        self.transport.close()

    def _refuse(self) -> None:
        wait = math.ceil(self.heads.limits().head_timeout)
        said = "too many connections from your address have not sent a request yet: send one on each first"
        self.transport.write(
            _answer(429, "Too Many Requests", "rate/too_many_connections", said, f"retry-after: {wait}")
        )
        metrics.HEADS_CLOSED.labels("rate/too_many_connections").inc()
        self.transport.close()


def head_protocol(heads: Heads) -> type[asyncio.Protocol]:
    """The HTTP protocol class for uvicorn (its ``http`` option), watching heads with ``heads``."""
    return type("HeadProtocol", (_HeadProtocol,), {"heads": heads})
