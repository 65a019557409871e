"""Request heads against a real `sparrow serve` (server/heads.py): a connection that sends nothing, or
half a request line, is closed after ``head-timeout`` and gives its file descriptor back; an address
may hold only ``heads`` connections that have not sent a request; kept-alive connections, bodies and
sockets keep their own rules.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import httpx
import psutil
import pytest
from livekit import TIMEOUT, LiveClient
from processkit import ServerProcess, free_port
from websockets.asyncio.client import connect

pytestmark = pytest.mark.asyncio

WITHIN = 120.0  # seconds a test waits for what it expects (a bound for a failing test on a busy machine)
VISITOR = "127.0.0.2"  # not the trusted proxy (127.0.0.1): its connections are counted


@contextlib.asynccontextmanager
async def _serving(tmp_path: Path, *limits: str) -> AsyncIterator[ServerProcess]:
    server = ServerProcess("memory", free_port(), tmp_path)
    try:
        await server.start(*(arg for limit in limits for arg in ("--limit", limit)))
        yield server
    finally:
        server.stop()


async def _eventually(check: Callable[[], Awaitable[bool]], awaited: str) -> None:
    """Wait until ``check()`` holds (a child process offers no event to await but its answers)."""
    try:
        async with asyncio.timeout(WITHIN):
            while not await check():
                await asyncio.sleep(0.1)
    except TimeoutError:
        raise AssertionError(f"awaited for {WITHIN:g} s: {awaited}") from None


async def _open(port: int, source: str = VISITOR) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    return await asyncio.open_connection("127.0.0.1", port, local_addr=(source, 0))


async def _until_closed(reader: asyncio.StreamReader) -> bytes:
    """Everything the server sends until it closes the connection."""
    try:
        return await reader.read()
    except ConnectionResetError:
        return b""


def _descriptors(server: ServerProcess) -> int:
    assert server.proc is not None
    return psutil.Process(server.proc.pid).num_fds()


def _connections(server: ServerProcess, peer: str) -> int:
    """The connections from ``peer`` the server has accepted and not closed."""
    assert server.proc is not None
    return sum(1 for c in psutil.Process(server.proc.pid).net_connections("tcp") if c.raddr and c.raddr.ip == peer)


async def test_2000_connections_that_send_nothing_or_half_a_request_line_are_closed_and_their_descriptors_freed(
    tmp_path: Path,
) -> None:
    timeout = 3.0
    async with _serving(tmp_path, f"head-timeout={timeout:g}", "heads=none") as server:
        before = _descriptors(server)

        def stall() -> list[tuple[socket.socket, float]]:
            """2,000 connections opened at once (in a thread: the test's loop would open them one by one,
            each late), every other one sending half a request line."""
            opened = []
            for n in range(2000):
                sock = socket.socket()
                sock.bind((VISITOR, 0))
                sock.connect(("127.0.0.1", server.port))
                opened.append((sock, time.monotonic()))
                if n % 2 == 0:
                    sock.sendall(b"GET /healthz HT")
            return opened

        async def closed(sock: socket.socket, opened: float) -> tuple[bytes, float]:
            sock.setblocking(False)
            reader, writer = await asyncio.open_connection(sock=sock)
            try:
                return await _until_closed(reader), time.monotonic() - opened
            finally:
                writer.close()

        served: list[int] = []
        done = asyncio.Event()

        async def meanwhile() -> None:  # another visitor is served while the 2,000 wait
            # (a connection of its own for each request: this loop may be late to reuse one kept alive)
            fresh = httpx.Limits(max_keepalive_connections=0)
            async with httpx.AsyncClient(
                base_url=f"http://127.0.0.1:{server.port}", trust_env=False, limits=fresh, timeout=TIMEOUT
            ) as http:
                while not done.is_set():
                    served.append((await http.get("/healthz")).status_code)
                    await asyncio.sleep(0.05)

        visitor = asyncio.create_task(meanwhile())
        try:
            async with asyncio.timeout(WITHIN):
                answers = await asyncio.gather(*(closed(*each) for each in await asyncio.to_thread(stall)))
        except TimeoutError:
            raise AssertionError(f"the server did not close 2,000 stalled connections within {WITHIN:g} s") from None
        finally:
            done.set()
            await visitor

        half, silent = answers[0::2], answers[1::2]
        assert all(said.startswith(b"HTTP/1.1 408 ") and b'"reason":"input/too_slow"' in said for said, _ in half)
        assert all(said == b"" for said, _ in silent)  # nothing was asked, nothing is answered
        # Each was closed by its deadline (never sooner), not by anything else.
        assert min(took for _, took in answers) >= timeout - 0.1
        assert served and set(served) == {200}, served

        async def freed() -> bool:
            return _descriptors(server) <= before + 2 and _connections(server, VISITOR) == 0

        await _eventually(freed, f"the server's descriptors back to {before} (+2), none from {VISITOR}")


async def test_an_address_may_hold_only_so_many_connections_that_have_not_sent_a_request(tmp_path: Path) -> None:
    async with _serving(tmp_path, "heads=20", "head-timeout=600") as server:
        held = [await _open(server.port) for _ in range(20)]

        async def holds() -> bool:
            return _connections(server, VISITOR) == 20

        await _eventually(holds, "the server holding the 20 connections")
        for _ in range(30):  # one more from that address, whatever it would have said, is refused at once
            reader, writer = await _open(server.port)
            said = await asyncio.wait_for(_until_closed(reader), WITHIN)
            writer.close()
            assert said.startswith(b"HTTP/1.1 429 ") and b'"reason":"rate/too_many_connections"' in said, said
            assert b"\r\nretry-after: 600\r\n" in said, said
        assert _connections(server, VISITOR) <= 21  # (the 20, and a refused one on its way out)

        get = b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
        for other in ("127.0.0.1", "127.0.0.3"):  # the proxy the server trusts, another visitor
            reader, writer = await _open(server.port, other)
            writer.write(get)
            assert (await asyncio.wait_for(_until_closed(reader), WITHIN)).startswith(b"HTTP/1.1 200 "), other
            writer.close()
        for reader, writer in held:  # each held connection is served when it asks
            writer.write(get)
            assert (await asyncio.wait_for(_until_closed(reader), WITHIN)).startswith(b"HTTP/1.1 200 ")
            writer.close()
        reader, writer = await _open(server.port)  # and the address may open new ones again
        writer.write(get)
        assert (await asyncio.wait_for(_until_closed(reader), WITHIN)).startswith(b"HTTP/1.1 200 ")
        writer.close()


async def test_kept_alive_connections_bodies_and_sockets_keep_their_own_deadlines(tmp_path: Path) -> None:
    async with _serving(tmp_path, "head-timeout=2", "body-timeout=4") as server:
        async with httpx.AsyncClient(
            base_url=f"http://127.0.0.1:{server.port}", trust_env=False, timeout=TIMEOUT
        ) as http:
            owner = (await http.post("/api/tables", json={"player": "Ann"})).json()
        ws = await connect(f"ws://127.0.0.1:{server.port}/ws", proxy=None, open_timeout=WITHIN)
        client = LiveClient(ws)
        try:
            await client.hello(owner["table"], owner["token"])
            get = b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"

            async def first_answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
                writer.write(get)
                head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), WITHIN)
                assert head.startswith(b"HTTP/1.1 200 "), head
                length = int(head.lower().split(b"content-length: ")[1].split(b"\r\n")[0])
                await asyncio.wait_for(reader.readexactly(length), WITHIN)

            # Kept alive, a connection that starts its next head and stalls is closed with 408 ...
            reader, writer = await _open(server.port)
            await first_answer(reader, writer)
            writer.write(b"GET /heal")
            said = await asyncio.wait_for(_until_closed(reader), WITHIN)
            assert said.startswith(b"HTTP/1.1 408 ") and b'"reason":"input/too_slow"' in said, said
            writer.close()
            # ... and one that says nothing more is closed without a word.
            reader, writer = await _open(server.port)
            await first_answer(reader, writer)
            assert await asyncio.wait_for(_until_closed(reader), WITHIN) == b""
            writer.close()
            # A whole head whose body stalls has the body's deadline (4 s), not the head's.
            reader, writer = await _open(server.port)
            started = time.monotonic()
            writer.write(b"POST /api/tables HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100\r\n\r\n{")
            said = await asyncio.wait_for(_until_closed(reader), WITHIN)
            assert said.startswith(b"HTTP/1.1 408 ") and b"body did not arrive within 4 s" in said, said
            assert time.monotonic() - started >= 4 - 0.1
            writer.close()
            # A body nobody reads (the path does not exist), sent a byte at a time after its answer, does
            # not keep the connection either: it has the head's deadline from that answer.
            reader, writer = await _open(server.port)
            writer.write(b"POST /nowhere HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100000\r\n\r\n")
            answer = asyncio.ensure_future(_until_closed(reader))
            async with asyncio.timeout(WITHIN):
                while not answer.done():  # (the trickle is what is tested, not a wait)
                    writer.write(b"x")
                    await asyncio.wait([answer], timeout=0.2)
            assert answer.result().startswith(b"HTTP/1.1 404 "), answer.result()
            writer.close()
            # The socket opened before all that, far past the head's deadline, is still open.
            pong = await ws.ping()
            await asyncio.wait_for(pong, WITHIN)
            assert client.close_code is None
        finally:
            await client.close()
