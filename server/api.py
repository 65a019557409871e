"""What every JSON endpoint shares: the cross-site check on POSTs, refusals as JSON, and reading a
bounded JSON body."""

from __future__ import annotations

import json
import logging
import math
from collections.abc import Awaitable, Callable
from typing import Any

from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response

from server.club.sessions import SESSION_COOKIE
from server.club.store import Member
from server.protocol import lone_surrogates
from server.tables.errors import TableError

__all__ = ["MAX_BODY", "Handler", "api", "body", "member"]

log = logging.getLogger("sparrow.api")

MAX_BODY = 16 * 1024

Handler = Callable[[Request], Awaitable[Response]]


def cross_site(request: Request) -> TableError | None:
    """Why a POST must be refused as a cross-site request, or None.

    Another site's page may post to us (a text/plain "simple" request needs no preflight), so a POST
    must come from a page of this server, judged by its Origin header (`server.origins`). A browser
    sends Origin with every POST; a POST that carries a session cookie but no Origin is refused too,
    as only a browser holds the cookie.
    """
    config = request.app.state.socket_config
    if not config.origin_allowed(request, request.app.state.club.allowed_origins):
        return TableError("auth/bad_origin", "requests from another site's pages are not accepted", status=403)
    if SESSION_COOKIE in request.cookies and "origin" not in request.headers:
        return TableError(
            "auth/bad_origin", "a logged-in request must say which page it came from (Origin)", status=403
        )
    return None


def refusal(error: TableError) -> Response:
    """A refusal as a JSON response with its status (and Retry-After, when it says when to)."""
    headers = None if error.retry_after is None else {"retry-after": str(math.ceil(error.retry_after))}
    return JSONResponse({"error": error.to_json()}, status_code=error.status, headers=headers)


def api(handler: Callable[[Request], Awaitable[object]]) -> Handler:
    """Turn a handler's result into JSON (a `Response` passes as it is) and a `TableError` into a JSON
    refusal with its status; POSTs from other sites are refused first."""

    async def endpoint(request: Request) -> Response:
        if request.method == "POST" and (error := cross_site(request)) is not None:
            return refusal(error)
        try:
            result = await handler(request)
        except TableError as exc:
            return refusal(exc)
        return result if isinstance(result, Response) else JSONResponse(result)

    endpoint.__name__ = handler.__name__
    return endpoint


async def body(request: Request) -> dict[str, Any]:
    """The request's JSON object body.

    :raises TableError: (400/413) when it is too big, not JSON, not an object, or cut off.
    """
    chunks, size = [], 0
    try:
        async for chunk in request.stream():  # read no further than the limit: a body is not held whole first
            size += len(chunk)
            if size > MAX_BODY:
                raise TableError("input/too_large", f"a request body may be at most {MAX_BODY} bytes", status=413)
            chunks.append(chunk)
    except ClientDisconnect:  # the client's doing: one line, no traceback (nobody is left to read the answer)
        where = request.client.host if request.client else "?"
        log.warning(
            "%s %s from %s: the client went away after %d byte(s) of its body",
            request.method,
            request.url.path,
            where,
            size,
        )
        raise TableError("input/incomplete", "the request body ended before it was whole") from None
    raw = b"".join(chunks)
    try:
        data = json.loads(raw or b"{}")
    except (ValueError, RecursionError):  # RecursionError: arrays or objects nested too deep
        raise TableError("input/malformed", "the request body must be a JSON object") from None
    if not isinstance(data, dict):
        raise TableError("input/malformed", "the request body must be a JSON object")
    if b"\\u" in raw and lone_surrogates(data):  # a token or code with one failed where it was hashed
        raise TableError("input/malformed", "text in the request body may not hold a lone surrogate such as \\ud800")
    return data


def member(request: Request) -> Member | None:
    """The logged-in member making the request (set by `server.club.gate.Gate`), or None."""
    found: Member | None = request.scope.get("sparrow.member")
    return found
