"""Signed values the browser keeps: the session cookie of a logged-in member (the id of a session),
signed with the server's secret by itsdangerous (timestamped, so it expires); and how the club's
cookies are set (a guest link's code is kept as a cookie too: `server.club.passes`).
"""

from __future__ import annotations

from typing import Any

from itsdangerous import BadSignature, URLSafeTimedSerializer
from starlette.requests import Request
from starlette.responses import Response

from server.https import served_over_https

__all__ = ["GUEST_COOKIE", "GUEST_MAX_AGE", "SESSION_COOKIE", "SESSION_MAX_AGE", "Signer", "keep_cookie"]

SESSION_COOKIE = "sparrow_session"
SESSION_MAX_AGE = 30 * 24 * 3600  # a member stays logged in on a browser for 30 days
GUEST_COOKIE = "sparrow_guest"
GUEST_MAX_AGE = 24 * 3600  # a guest link works for a day (server.club.passes)


def keep_cookie(response: Response, request: Request, name: str, value: str, max_age: int) -> None:
    """Have the browser keep a pass of the club's for ``max_age`` seconds: HttpOnly (no script reads
    it), SameSite=Lax (no other site's form sends it), Secure over HTTPS (the request's, or the public
    address's: a proxy may speak plain HTTP to the server), for the whole server."""
    response.set_cookie(
        name,
        value,
        max_age=max_age,
        httponly=True,
        samesite="lax",
        secure=served_over_https(request),
        path="/",
    )


class Signer:
    """Signs and checks session cookies."""

    def __init__(self, secret: str) -> None:
        self._session = URLSafeTimedSerializer(secret, salt="sparrow.session")

    def session(self, session_id: str) -> str:
        """A session cookie's value: the id of a session (`server.club.logins`)."""
        return self._session.dumps({"session": session_id})

    def read_session(self, value: str | None) -> str | None:
        """The session id in a session cookie, or None if it is missing, forged or expired (or of the
        older kind that named a member, which no longer works: its member logs in again)."""
        data = _load(self._session, value, SESSION_MAX_AGE)
        found = data.get("session") if isinstance(data, dict) else None
        return found if isinstance(found, str) and 0 < len(found) <= 64 else None


def _load(serializer: URLSafeTimedSerializer, value: str | None, max_age: int) -> Any:
    if not value or len(value) > 400:
        return None
    try:
        return serializer.loads(value, max_age=max_age)
    except (BadSignature, ValueError):  # SignatureExpired is a BadSignature
        return None
