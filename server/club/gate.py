"""`Gate`: the ASGI middleware that finds who is asking (a member's session cookie, a guest's pass to
one table) and turns away whoever the club mode does not let in: a page sends them to the login
page, the JSON API answers 401, a socket is refused before it opens.
"""

from __future__ import annotations

import re
from urllib.parse import quote

from starlette.requests import HTTPConnection
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.types import ASGIApp, Receive, Scope, Send

from server.club.club import Club
from server.club.sessions import GUEST_COOKIE, SESSION_COOKIE

__all__ = ["Gate", "PUBLIC"]

# Paths anyone may open in every club mode: logging in, joining, the rule book, static files, health.
PUBLIC = re.compile(
    r"^/(static/.*|login|signup|welcome/[^/]+|rules|healthz|api/me|api/club/(login|welcome|signup|invitation/[^/]+))$"
)
_TABLE_PATH = re.compile(r"^/(?:t|api/tables)/([^/]+)(?:/[a-z]+)?$")


class Gate:
    """Sets ``scope["sparrow.member"]`` (a `Member` or None), ``scope["sparrow.session"]`` (its
    `Session`) and ``scope["sparrow.guest"]`` (the table a guest pass admits to, or None), and refuses
    what the club mode keeps out."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        club: Club = scope["app"].state.club
        connection = HTTPConnection(scope)
        address = connection.client.host if connection.client else "?"
        found = await club.session_of(connection.cookies.get(SESSION_COOKIE), address)
        member = None if found is None else found[0]
        guest = club.guest_table(connection.query_params.get("guest") or connection.cookies.get(GUEST_COOKIE))
        scope["sparrow.member"] = member
        scope["sparrow.session"] = None if found is None else found[1]
        scope["sparrow.guest"] = guest
        path = scope["path"]
        if club.mode == "open" or member is not None or PUBLIC.match(path) or _guest_may(path, guest):
            await self.app(scope, receive, send)
            return
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1008, "reason": "log in first"})
            return
        response: Response
        if path.startswith("/api/"):
            error = {"reason": "auth/login_required", "message": "log in first: this club is for its members"}
            response = JSONResponse({"error": error}, status_code=401)
        else:
            target = path + (f"?{scope['query_string'].decode('latin-1')}" if scope.get("query_string") else "")
            response = RedirectResponse(f"/login?next={quote(target, safe='')}", status_code=303)
        await response(scope, receive, send)


def _guest_may(path: str, table: str | None) -> bool:
    """A guest with a pass to ``table`` may open that table's page, its API, and the socket (which
    checks the table named in ``hello``)."""
    if table is None:
        return False
    if path == "/ws":
        return True
    match = _TABLE_PATH.match(path)
    return match is not None and match.group(1) == table
