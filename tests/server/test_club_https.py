"""A club reached over HTTPS (``--public-url https://…``) behind a proxy that speaks plain HTTP to the
server: its cookies are still Secure and every answer asks the browser to stay on HTTPS (HSTS)."""

from __future__ import annotations

from pathlib import Path

import pytest
from clubkit import browser, club_server, first_admin_code

pytestmark = pytest.mark.asyncio


@pytest.mark.parametrize("public_url", ["https://club.example", "http://club.example"])
async def test_a_club_with_an_https_address_sends_secure_cookies_and_hsts_over_a_plain_proxy(
    public_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    https = public_url.startswith("https://")
    async with club_server(f"sqlite+aiosqlite:///{tmp_path / 'club.db'}", public_url=public_url) as live:
        code = first_admin_code(capsys.readouterr().out)
        async with browser(live) as ann:  # the proxy talks plain HTTP to the server and sends no X-Forwarded-Proto
            welcome = await ann.post("/api/club/welcome", json={"code": code, "name": "Ann", "password": "x" * 12})
            assert welcome.status_code == 200, welcome.text
            cookie = welcome.headers["set-cookie"].lower()
            assert "httponly" in cookie and ("; secure" in cookie) is https
            for answer in (
                welcome,
                await ann.get("/login"),
                await ann.get("/api/me"),
                await ann.get("/static/css/sparrow.css"),
            ):
                assert (answer.headers.get("strict-transport-security") == "max-age=31536000") is https
            session = welcome.headers["set-cookie"].split(";", 1)[0]  # the browser sends it over HTTPS only
            logout = await ann.post("/api/club/logout", headers={"cookie": session})
            assert logout.status_code == 200, logout.text
            gone = logout.headers["set-cookie"].lower()  # the cookie's deletion carries the same flags
            assert "sparrow_session=" in gone and "max-age=0" in gone and ("; secure" in gone) is https
