"""Test kit for the club: the app on a database with its club, served by uvicorn as `sparrow serve`
runs it, and browsers (httpx clients with their own cookies and the page's Origin) that become
members, log in and open sockets.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from livekit import TIMEOUT, LiveClient, LiveServer

from server.club.club import ClubConfig
from server.club.sessions import SESSION_COOKIE
from server.rates.policy import Limits

SECRET = "the club's secret key, for tests"
PASSWORD = "correct horse battery"


@contextlib.asynccontextmanager
async def club_server(
    url: str,
    *,
    secret: str = SECRET,
    mode: str | None = None,
    redis: str | None = None,
    public_url: str = "",
    limits: Limits | None = None,
) -> AsyncIterator[LiveServer]:
    """The app on database ``url`` with its club, as `sparrow serve` runs it (``redis``: as one of
    several processes; ``public_url``: as ``--public-url`` gives it; ``limits``: `sparrow serve --limit`)."""
    config = ClubConfig(secret, mode=mode, base_url=public_url)
    async with LiveServer.running(db=url, club=config, redis=redis, limits=limits) as live:
        yield live


@contextlib.asynccontextmanager
async def browser(live: LiveServer) -> AsyncIterator[httpx.AsyncClient]:
    """One browser: its own cookies, and the Origin header a page of the server sends."""
    origin = f"http://127.0.0.1:{live.port}"
    async with httpx.AsyncClient(base_url=origin, headers={"origin": origin}, timeout=TIMEOUT, trust_env=False) as http:
        yield http


@contextlib.asynccontextmanager
async def ann_and_bob(
    live: LiveServer, capsys: pytest.CaptureFixture[str]
) -> AsyncIterator[tuple[httpx.AsyncClient, httpx.AsyncClient]]:
    """Two browsers on ``live``: Ann, the club's first admin (by the code it printed as it started),
    and Bob, a member she invited."""
    async with browser(live) as ann, browser(live) as bob:
        await become(ann, first_admin_code(capsys.readouterr().out))
        await become(bob, await invite(ann, "Bob"), "Bob")
        yield ann, bob


def first_admin_code(printed: str) -> str:
    found = re.findall(r"/welcome/([\w-]+)", printed)
    assert found, f"no first-admin link was printed: {printed!r}"
    return found[-1]


async def become(http: httpx.AsyncClient, code: str, name: str = "Ann", password: str = PASSWORD) -> dict[str, Any]:
    response = await http.post("/api/club/welcome", json={"code": code, "name": name, "password": password})
    assert response.status_code == 200, response.text
    member: dict[str, Any] = response.json()["member"]
    return member


async def invite(admin: httpx.AsyncClient, name: str | None = None) -> str:
    response = await admin.post("/api/club/invitations", json={"name": name, "days": 1})
    assert response.status_code == 200, response.text
    link: str = response.json()["link"]
    return link.rsplit("/", 1)[1]


async def login(http: httpx.AsyncClient, name: str, password: str = PASSWORD) -> httpx.Response:
    return await http.post("/api/club/login", json={"name": name, "password": password})


async def socket(live: LiveServer, http: httpx.AsyncClient) -> LiveClient:
    """A socket opened by ``http``'s browser (with its session cookie, if any)."""
    cookie = http.cookies.get(SESSION_COOKIE)
    headers = {"Origin": f"http://127.0.0.1:{live.port}"}
    if cookie:
        headers["Cookie"] = f"{SESSION_COOKIE}={cookie}"
    return await live.connect(additional_headers=headers)
