"""How a server process stops (SIGTERM, Ctrl+C): it stops taking connections; one of several processes
(server/cluster) then hands its tables to the others while they play and moves its sockets there
(server/cluster/handover.py), and only then does uvicorn close what is left and the app shut down.
A process alone (no other to hand its tables to) closes every socket with 1012, as it says in its log.
"""

from __future__ import annotations

import logging
import socket
from typing import Any

import uvicorn

__all__ = ["ALONE", "Server", "hand_over"]

ALONE = (
    "stopping with no other server process to hand the tables to: every socket is closed with 1012 "
    "(the pages reconnect by themselves) and each table goes on, to the action, once a server runs it again"
)
log = logging.getLogger("sparrow.serve")


async def hand_over(app: Any) -> None:
    """Hand this process's tables and sockets to the other processes of its cluster, if it has any."""
    node = getattr(app.state, "forwarding", None)
    if node is not None:
        try:
            if await node.hand_over():
                return
        except Exception:
            log.exception("stopping: the tables could not be handed over")
    log.warning(ALONE)


class Server(uvicorn.Server):
    """uvicorn's server, which hands the tables of ``app`` over (`hand_over`) before it shuts down."""

    def __init__(self, config: uvicorn.Config, app: Any) -> None:
        super().__init__(config)
        self.app = app

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        for server in self.servers:  # no new connection from now on: the others take them
            server.close()
        for sock in sockets or []:
            sock.close()
        await hand_over(self.app)
        await super().shutdown(sockets=sockets)
