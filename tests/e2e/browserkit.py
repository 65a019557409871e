"""The live server for the browser tests: uvicorn serving the real app on 127.0.0.1 and a free port,
in a background thread with its own event loop, and Debian's Chromium to drive it.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable, Coroutine, Mapping
from pathlib import Path
from typing import Any, TypeVar

import uvicorn

from server.app import create_app
from server.club.club import OPEN_CLUB, ClubConfig
from server.lobby import Lobby
from server.rates.policy import LOAD_FLAGS, Limits
from server.wire import UVICORN_OPTIONS

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
SEED = 11  # every table deals from this seed, so a test replays the same game
TIMEOUT_MS = 30_000  # what a page action or expectation waits for: a safety net, generous for a busy machine
T = TypeVar("T")


class SeededLobby(Lobby):
    """A lobby whose tables all deal from one seed."""

    async def create(
        self,
        request: Mapping[str, object],
        *,
        seed: int | None = None,
        member: int | None = None,
        person: str | None = None,
    ) -> dict[str, object]:
        return await super().create(request, seed=SEED if seed is None else seed, member=member, person=person)


class LiveServer:
    """uvicorn serving the whole app in a background thread, on 127.0.0.1 and a free port: with a
    seeded lobby that keeps nothing, or, given ``db``, on that database (its history, and its
    unfinished tables restored and playing on), as `sparrow serve --db` would.
    """

    def __init__(self, db: str | None = None, club: ClubConfig = OPEN_CLUB) -> None:
        self.lobby = SeededLobby()
        limits = Limits().with_flags(LOAD_FLAGS[1::2])  # every browser of a module's tests is one address
        self.app = create_app(self.lobby, limits=limits) if db is None else create_app(db=db, club=club, limits=limits)
        config = uvicorn.Config(
            self.app, host="127.0.0.1", port=0, log_level="warning", lifespan="on", **UVICORN_OPTIONS
        )
        self.server = uvicorn.Server(config)
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self._serve, name="uvicorn", daemon=True)

    def _serve(self) -> None:
        asyncio.set_event_loop(self.loop)
        try:
            self.loop.run_until_complete(self.server.serve())
        finally:
            self.loop.close()

    def wait(self, coroutine: Coroutine[Any, Any, T]) -> T:
        """Run ``coroutine`` on the server's event loop and return its result."""
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(timeout=TIMEOUT_MS / 1000)

    def call(self, fn: Callable[[], T]) -> T:
        """Run ``fn`` on the server's event loop (where the tables live) and return its result."""

        async def run() -> T:
            return fn()

        return asyncio.run_coroutine_threadsafe(run(), self.loop).result(timeout=TIMEOUT_MS / 1000)

    def __enter__(self) -> LiveServer:
        self.thread.start()
        deadline = time.monotonic() + 60
        while not self.server.started:  # uvicorn offers no event for "started"
            assert self.thread.is_alive(), "uvicorn stopped before it started"
            assert time.monotonic() < deadline, "uvicorn did not start in 60 s"
            time.sleep(0.01)
        if self.app.state.lobby is not self.lobby:  # the app made its own, on its database
            self.lobby = self.app.state.lobby
        port = self.server.servers[0].sockets[0].getsockname()[1]
        self.url = f"http://127.0.0.1:{port}"
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=TIMEOUT_MS / 1000)
