"""The server's secret key: made on first start in the data folder, readable by its owner only, the
same on every later start; ``SPARROW_SECRET`` replaces it. And ``sparrow admin create NAME``: a link
that makes NAME an admin, made from the shell."""

from __future__ import annotations

import asyncio
import re
import stat
from pathlib import Path

import httpx
import pytest

from server.app import create_app
from server.cli import main
from server.club.club import ClubConfig
from server.club.secret import SECRET_FILE, load_secret


def test_the_secret_is_made_once_kept_private_and_can_come_from_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("SPARROW_SECRET", raising=False)
    first = load_secret(tmp_path)
    assert len(first) >= 60 and load_secret(tmp_path) == first
    mode = stat.S_IMODE((tmp_path / SECRET_FILE).stat().st_mode)
    assert mode == 0o600
    monkeypatch.setenv("SPARROW_SECRET", "from the environment")
    assert load_secret(tmp_path) == "from the environment"


def test_sparrow_admin_create_prints_a_link_that_makes_that_person_an_admin(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'club.db'}"
    assert main(["admin", "create", "Bea", "--db", url, "--public-url", "https://club.example/"]) == 0
    printed = capsys.readouterr().out
    code = re.findall(r"https://club\.example/welcome/([\w-]+)", printed)[0]

    async def use_link() -> httpx.Response:
        app = create_app(db=url, club=ClubConfig("secret"))
        async with app.router.lifespan_context(app):
            transport = httpx.ASGITransport(app=app)
            async with httpx.AsyncClient(transport=transport, base_url="http://sparrow") as http:
                return await http.post("/api/club/welcome", json={"code": code, "name": "Eve", "password": "pw" * 5})

    made = asyncio.run(use_link())
    assert made.status_code == 200, made.text
    assert made.json()["member"] == {"id": 1, "name": "Bea", "admin": True, "disabled": False}
    assert main(["admin", "create", "bea", "--db", url]) == 1  # a member's name already
    assert "already a member's name" in capsys.readouterr().err
