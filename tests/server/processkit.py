"""`sparrow serve` as a real child process, for tests of what only a process shows: signals, crashes,
ports and the database lock."""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
from dbkit import fresh_database
from livekit import STARTS_WITHIN, TIMEOUT

from server.rates.policy import LOAD_FLAGS

SPARROW = [sys.executable, "-m", "server.cli"]
# A test's client shares a busy machine with the server: seconds may pass between its connecting and
# its sending a request head, past the default head-timeout (5 s). test_heads holds the deadline to
# figures of its own, given after these.
SLOW_CLIENT = ["--limit", "head-timeout=60"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class ServerProcess:
    """`sparrow serve` in a child process."""

    def __init__(
        self,
        url: str,
        port: int,
        tmp: Path,
        *,
        log: str = "server.log",
        program: list[str] = SPARROW,
        env: dict[str, str] | None = None,
    ) -> None:
        self.url, self.port, self.tmp = url, port, tmp
        self.log = tmp / log
        self.program, self.env = program, env or {}
        self.proc: subprocess.Popen[bytes] | None = None

    def spawn(self, *extra: str) -> subprocess.Popen[bytes]:
        """Start the process (with ``extra`` arguments), without waiting for it to serve."""
        env = {**os.environ, "PYTHONUNBUFFERED": "1", "SPARROW_DATA": str(self.tmp), **self.env}  # (its secret key)
        command = [*self.program, "serve", "--port", str(self.port), "--db", self.url, "--club-mode", "open"]
        command += [*LOAD_FLAGS, *SLOW_CLIENT, *extra]  # (LOAD_FLAGS: a test plays a club from one address)
        with open(self.log, "ab") as log:  # the child keeps its own copy of the descriptor
            self.proc = subprocess.Popen(command, stdout=log, stderr=log, env=env)
        return self.proc

    async def start(self, *extra: str) -> None:
        """Start the process (with ``extra`` arguments) and wait until it serves."""
        await asyncio.to_thread(self.spawn, *extra)  # (forking a big process holds the caller: not its loop)
        assert self.proc is not None
        deadline = time.monotonic() + STARTS_WITHIN
        async with httpx.AsyncClient(trust_env=False, timeout=TIMEOUT) as http:
            while time.monotonic() < deadline:
                assert self.proc.poll() is None, self.log.read_text()
                with contextlib.suppress(httpx.TransportError):
                    if (await http.get(f"http://127.0.0.1:{self.port}/healthz")).status_code == 200:
                        return
                await asyncio.sleep(0.05)  # a child process offers nothing to await but its port
        raise AssertionError(f"the server did not serve /healthz within {STARTS_WITHIN:g} s:\n" + self.log.read_text())

    def signal(self, sig: int) -> int:
        assert self.proc is not None
        self.proc.send_signal(sig)
        return self.proc.wait(timeout=20)

    def stop(self) -> None:
        """Kill the process if it still runs."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


@contextlib.asynccontextmanager
async def served(backend: str, tmp_path: Path) -> AsyncIterator[ServerProcess]:
    async with fresh_database(backend, tmp_path) as url:
        server = ServerProcess(url, free_port(), tmp_path)
        try:
            await server.start()
            yield server
        finally:
            server.stop()
