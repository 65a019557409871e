"""`Outage`: the database not answering the requests that read it, logged once when it starts and
once when it ends (the journal's writes say the same of writes: `server.store.journal.SqlJournal`).

While the outage lasts each such request is answered 503 (`storage_down`: from a route, through
`server.app`'s exception handler; from the club's gate, which reads sessions and guest links before
any route) and counted, not logged; a probe asks the database ``SELECT 1`` every ``every`` seconds
until it answers.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.types import Scope

from server.tables.errors import TableError

__all__ = ["STORAGE_DOWN", "Outage", "storage_down"]

STORAGE_DOWN = "The server cannot reach its database just now; try again in a moment."

log = logging.getLogger("sparrow.storage")


class Outage:
    """Whether the database is failing the requests that read it, and since when."""

    def __init__(self, engine: AsyncEngine, *, every: float = 1.0, clock: Callable[[], float] = time.monotonic):
        self.engine = engine
        self.every = every
        self.clock = clock
        self.since: float | None = None
        self.refused = 0  # requests answered 503 during this outage
        self._probe: asyncio.Task[None] | None = None

    def failed(self, what: str, exc: BaseException) -> None:
        """A request (``what``: its method and path) could not be answered for ``exc``."""
        self.refused += 1
        if self.since is not None:
            return
        self.since, self.refused = self.clock(), 1
        log.warning(
            "the database cannot answer (%s: %s, for %s); requests that need it are refused until it can",
            type(exc).__name__,
            str(exc).split("\n")[0][:200],
            what,
        )
        self._probe = asyncio.get_running_loop().create_task(self._wait_for_answer(), name="storage outage probe")

    async def _wait_for_answer(self) -> None:
        while True:
            await asyncio.sleep(self.every)
            try:
                async with self.engine.connect() as connection:
                    await connection.execute(text("SELECT 1"))
            except Exception:  # still down: the start was logged, and the end will be
                continue
            break
        lasted = self.clock() - (self.since or self.clock())
        said = "the database answers again after %.0f s; %d request(s) were refused meanwhile"
        log.warning(said, lasted, self.refused)
        self.since, self.refused, self._probe = None, 0, None

    async def close(self) -> None:
        """Stop probing (the server is stopping)."""
        if self._probe is not None:
            self._probe.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._probe


def storage_down(scope: Scope, exc: BaseException) -> Response:
    """The answer to an HTTP request that needed the database while it could not answer: 503 with the
    project's refusal (a page gets the text); the app's `Outage` counts it."""
    what = f"{scope.get('method', 'GET')} {scope['path']}"
    outage: Outage | None = getattr(scope["app"].state, "outage", None)
    if outage is not None:
        outage.failed(what, exc)
    else:  # a lobby of its own (tests): no engine to probe
        log.warning("%s: the database could not answer (%s: %s)", what, type(exc).__name__, str(exc).split("\n")[0])
    if scope["path"].startswith("/api/"):
        error = TableError("server/storage", STORAGE_DOWN, status=503)
        return JSONResponse({"error": error.to_json()}, status_code=503)
    return PlainTextResponse(STORAGE_DOWN, status_code=503)
