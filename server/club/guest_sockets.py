"""`GuestSockets`: the sockets guests opened in this process with a guest link, by link, so that
revoking the link closes them at once. The process that revokes a link closes its own and tells the
others over the bus (`server.cluster.node`); every process also asks the database, with the club's
reload each second, whether a link it holds sockets for was revoked meanwhile (a message on the bus
may be lost).
"""

from __future__ import annotations

from collections.abc import Iterable

from server.club.logins import Socket

__all__ = ["REVOKED", "GuestSockets"]

REVOKED = "the guest link you came by was revoked"
_KEPT = 1_000  # revoked links remembered here (a socket opened with one as it was revoked closes at once)


class GuestSockets:
    """The sockets opened here with each guest link, and the links this process knows were revoked."""

    def __init__(self) -> None:
        self._sockets: dict[int, set[Socket]] = {}
        self._revoked: dict[int, None] = {}  # (a dict: oldest first, to forget past `_KEPT`)

    @property
    def links(self) -> list[int]:
        """The links some socket here was opened with."""
        return list(self._sockets)

    def hold(self, link: int, socket: Socket) -> None:
        """``socket`` was opened by a guest with ``link``: close it when the link is revoked (at once if
        it was revoked meanwhile)."""
        if link in self._revoked:
            socket.close(1008, REVOKED)
            return
        self._sockets.setdefault(link, set()).add(socket)

    def release(self, link: int, socket: Socket) -> None:
        """``socket`` has closed."""
        held = self._sockets.get(link)
        if held is not None:
            held.discard(socket)
            if not held:
                del self._sockets[link]

    def revoked(self, links: Iterable[int]) -> int:
        """``links`` were revoked: close the sockets opened with them here; how many closed."""
        closed = 0
        for link in links:
            self._revoked[link] = None
            for socket in self._sockets.pop(link, set()):
                socket.close(1008, REVOKED)
                closed += 1
        while len(self._revoked) > _KEPT:
            del self._revoked[next(iter(self._revoked))]
        return closed
