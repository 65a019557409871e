"""What a client causes is one warning line, never a traceback: a WebSocket text frame that is not
UTF-8, a request body cut off mid-way. A database that stops answering requests is logged when the
outage starts and when it ends, not once per refused request."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import logging
import os
import struct
from collections.abc import Iterator
from pathlib import Path

import asyncpg
import pytest
from clubkit import SECRET, browser, club_server
from dbkit import PG_ADMIN, fresh_database
from livekit import TIMEOUT, LiveServer

from server.club.sessions import SESSION_COOKIE, Signer

pytestmark = pytest.mark.asyncio


class Kept(logging.Handler):
    """Keeps the records of one logger (uvicorn's loggers do not reach pytest's root handler)."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@contextlib.contextmanager
def uvicorn_log() -> Iterator[Kept]:
    """Uvicorn's error log, from a started server on (its start sets that logger's handlers anew)."""
    kept, logger = Kept(), logging.getLogger("uvicorn.error")
    logger.addHandler(kept)
    try:
        yield kept
    finally:
        logger.removeHandler(kept)


def _masked(opcode: int, payload: bytes, *, fin: bool = True) -> bytes:
    mask = os.urandom(4)
    first = (0x80 if fin else 0) | opcode
    size = len(payload)  # (in as few bytes as it takes, as RFC 6455 5.2 requires)
    head = bytes([first, 0x80 | size]) if size < 126 else bytes([first, 0x80 | 126]) + struct.pack("!H", size)
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


async def _raw_socket(live: LiveServer) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    reader, writer = await asyncio.open_connection("127.0.0.1", live.port)
    key = base64.b64encode(os.urandom(16)).decode()
    writer.write(
        (
            f"GET /ws HTTP/1.1\r\nHost: 127.0.0.1:{live.port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\nOrigin: http://127.0.0.1:{live.port}\r\n\r\n"
        ).encode()
    )
    assert (await reader.readuntil(b"\r\n\r\n")).startswith(b"HTTP/1.1 101")
    return reader, writer


async def test_a_text_frame_that_is_not_utf8_is_one_warning_line_and_ends_the_socket(
    caplog: pytest.LogCaptureFixture,
) -> None:
    async with LiveServer.running() as live:
        with caplog.at_level(logging.DEBUG), uvicorn_log() as kept:
            for frames in (
                _masked(1, b'{"t": "hello", "d": {"table": "\xff"}}'),
                _masked(1, b'{"t": "hel', fin=False) + _masked(0, b"lo\xc3"),  # bad in its last fragment
            ):
                reader, writer = await _raw_socket(live)
                writer.write(frames)
                async with asyncio.timeout(TIMEOUT):
                    await reader.read()  # the server ends the connection
                writer.close()
            async with asyncio.timeout(TIMEOUT):
                while sum("UTF-8" in r.getMessage() for r in caplog.records) < 2:
                    await asyncio.sleep(0.01)  # (the app hears of it after the connection has ended)
        assert (await live.http.get("/api/tables")).status_code == 200
    said = [r for r in [*caplog.records, *kept.records] if r.levelno >= logging.WARNING]
    assert [r.getMessage() for r in said] == 2 * [
        "a client (127.0.0.1) sent a text frame that is not UTF-8; its socket is closed"
    ]
    assert not [r for r in [*caplog.records, *kept.records] if r.exc_info or r.exc_text]


async def test_a_request_body_cut_off_mid_way_is_one_warning_line(caplog: pytest.LogCaptureFixture) -> None:
    async with LiveServer.running() as live:
        with caplog.at_level(logging.DEBUG):
            reader, writer = await asyncio.open_connection("127.0.0.1", live.port)
            writer.write(
                (
                    f"POST /api/tables HTTP/1.1\r\nHost: 127.0.0.1:{live.port}\r\nContent-Type: application/json\r\n"
                    f"Origin: http://127.0.0.1:{live.port}\r\nContent-Length: 100\r\n\r\n" + '{"name": "x'
                ).encode()
            )
            await writer.drain()
            writer.close()
            async with asyncio.timeout(TIMEOUT):
                while not any("went away" in r.getMessage() for r in caplog.records):
                    await asyncio.sleep(0.01)  # uvicorn offers nothing to await for a client gone
        assert (await live.http.get("/api/tables")).status_code == 200
    said = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert [r.getMessage() for r in said] == [
        "POST /api/tables from 127.0.0.1: the client went away after 11 byte(s) of its body"
    ]
    assert not [r for r in caplog.records if r.exc_info]


async def test_a_database_outage_is_logged_when_it_starts_and_when_it_ends(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    async with fresh_database("postgresql", tmp_path) as url, club_server(url, mode="open") as live:
        name = url.rsplit("/", 1)[1]
        admin = await asyncpg.connect(PG_ADMIN)
        try:
            async with browser(live) as visitor:
                with caplog.at_level(logging.INFO, logger="sparrow"):
                    await admin.execute(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS false')
                    await admin.execute(
                        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1", name
                    )
                    for _ in range(4):
                        refused = await visitor.get("/login")  # reads the sign-up setting
                        assert refused.status_code == 503
                    # a session cookie this process has not seen: the club's gate reads it before any route
                    cookie = f"{SESSION_COOKIE}={Signer(SECRET).session('a session nobody has seen')}"
                    unseen = await visitor.get("/api/tables", headers={"cookie": cookie})
                    assert unseen.status_code == 503 and unseen.json()["error"]["reason"] == "server/storage"
                    await admin.execute(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS true')
                    async with asyncio.timeout(TIMEOUT):
                        while not any("answers again" in r.getMessage() for r in caplog.records):
                            await asyncio.sleep(0.05)  # the probe asks once a second
                    assert (await visitor.get("/login")).status_code == 200
        finally:
            await admin.execute(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS true')
            await admin.close()
    said = [r.getMessage() for r in caplog.records if r.name.startswith("sparrow") and r.levelno >= logging.WARNING]
    assert len(said) == 2, said
    assert said[0].startswith("the database cannot answer (") and "GET /login" in said[0]
    assert said[1].startswith("the database answers again after") and "5 request(s) were refused" in said[1]
    assert not [r for r in caplog.records if r.exc_info]
