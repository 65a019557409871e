"""Which web pages may use this server: a browser names the page's origin (scheme, host, port) in an
``Origin`` header, and only the server's own public origin(s) and those the operator allowed pass.

The ``Host`` header is never consulted: a page on another site can send any ``Host`` it likes (through
DNS rebinding, say), so comparing the two proves nothing. With no public URL configured, the server's
own origin is the address the connection reached (``scope["server"]``, read from the socket), plus
``localhost`` for a loopback address; behind a proxy or under a DNS name, pass ``--public-url``.
"""

from __future__ import annotations

from collections.abc import Iterable
from urllib.parse import urlsplit

from starlette.requests import HTTPConnection

__all__ = ["OriginError", "allowed", "normalise"]

_DEFAULT_PORTS = {"http": 80, "https": 443}
_LOOPBACK = {"127.0.0.1", "localhost", "::1"}


class OriginError(ValueError):
    """A configured origin that is not ``scheme://host[:port]`` with scheme http or https."""


def normalise(origin: str) -> str:
    """``origin`` as ``scheme://host:port``, lower-case, with the scheme's default port written out.

    >>> normalise("HTTPS://Club.Example")
    'https://club.example:443'
    >>> normalise("http://127.0.0.1:8000/")
    'http://127.0.0.1:8000'

    :raises OriginError: for anything else (a path, no host, another scheme).
    """
    try:
        parts = urlsplit(origin.strip())
        port = parts.port
    except ValueError:
        raise OriginError(f"{origin!r} is not an origin such as https://club.example") from None
    scheme, host = parts.scheme.lower(), (parts.hostname or "").lower()
    if scheme not in _DEFAULT_PORTS or not host or parts.path not in ("", "/") or parts.query or parts.username:
        raise OriginError(f"{origin!r} is not an origin such as https://club.example (scheme, host, optional port)")
    if ":" in host:
        host = f"[{host}]"
    return f"{scheme}://{host}:{port or _DEFAULT_PORTS[scheme]}"


def configured(origins: Iterable[str]) -> frozenset[str]:
    """The normalised set of ``origins``.

    :raises OriginError: naming the first that is not an origin.
    """
    return frozenset(normalise(o) for o in origins)


def _own(connection: HTTPConnection) -> set[str]:
    """The origins a page served by this very server has, judged from the socket, not from headers."""
    server = connection.scope.get("server")
    if not server or server[1] is None:
        return set()
    host, port = str(server[0]), int(server[1])
    scheme = "https" if connection.url.scheme in ("https", "wss") else "http"
    hosts = _LOOPBACK if host in _LOOPBACK else {host}
    return {normalise(f"{scheme}://{f'[{h}]' if ':' in h else h}:{port}") for h in hosts}


def allowed(connection: HTTPConnection, public: frozenset[str], extra: frozenset[str]) -> bool:
    """Whether ``connection`` may proceed: it sent no Origin (not a browser, so not another site's
    page), or its Origin is a public origin of this server (``public``; when empty, the address the
    connection reached) or one the operator allowed (``extra``).
    """
    origin = connection.headers.get("origin")
    if origin is None:
        return True
    try:
        theirs = normalise(origin)
    except OriginError:
        return False  # "null" (a sandboxed page or a file) and anything malformed
    return theirs in extra or theirs in (public or _own(connection))
