"""HTTPS as the club's public address says it: when people reach the server at an ``https://``
address (``--public-url``), every answer tells the browser to come back over HTTPS only (HSTS),
and the club's cookies are ``Secure`` whatever scheme the proxy in front of the server reports.
"""

from __future__ import annotations

from starlette.requests import HTTPConnection
from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["HSTS", "Hsts", "served_over_https"]

# A year, the value browsers' preload lists ask for; subdomains are the host's own business.
HSTS = (b"strict-transport-security", b"max-age=31536000")


def served_over_https(connection: HTTPConnection) -> bool:
    """Whether people reach this server over HTTPS: its public address says so, or this request came
    that way."""
    club = getattr(connection.app.state, "club", None)
    public = "" if club is None else club.config.base_url
    return public.startswith("https://") or connection.url.scheme in ("https", "wss")


class Hsts:
    """Adds ``Strict-Transport-Security`` to every HTTP answer of a server whose public address is
    ``https://``."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        club = getattr(scope["app"].state, "club", None) if scope["type"] == "http" else None
        if club is None or not club.config.base_url.startswith("https://"):
            await self.app(scope, receive, send)
            return

        async def send_with_hsts(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), HSTS]
            await send(message)

        await self.app(scope, receive, send_with_hsts)
