"""The server's secret key: made on first start in the data folder, readable by its owner only, the
same on every later start; ``SPARROW_SECRET`` replaces it. One that cannot be written whole (a full
disk) leaves nothing behind, and an empty one is refused, never signed with. And ``sparrow admin
create NAME``: a link that makes NAME an admin, made from the shell."""

from __future__ import annotations

import asyncio
import errno
import os
import re
import stat
from pathlib import Path

import httpx
import pytest

from server.app import create_app
from server.cli import main
from server.club.club import ClubConfig
from server.club.secret import SECRET_FILE, load_secret
from server.startup import StartFault


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


def test_a_key_the_disk_has_no_room_for_leaves_nothing_behind_and_is_refused_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("SPARROW_SECRET", raising=False)
    written = os.write

    def full(fd: int, data: bytes) -> int:
        written(fd, data[:10])  # a few bytes land, then the disk is full
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "write", full)
    with pytest.raises(StartFault) as refused:
        load_secret(tmp_path)
    said = str(refused.value)
    assert said.startswith(f"cannot write the secret key {tmp_path / SECRET_FILE} (No space left on device): free")
    assert "\n" not in said
    assert list(tmp_path.iterdir()) == []  # no key, empty or half written, for the next start to sign with
    monkeypatch.setattr(os, "write", written)
    assert len(load_secret(tmp_path)) >= 60  # the disk has room again: the key is made


@pytest.mark.parametrize("kept", [b"", b"\n  \n", b"\xff\xfe not text"])
def test_a_key_file_that_holds_no_key_is_refused_not_signed_with(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kept: bytes
) -> None:
    monkeypatch.delenv("SPARROW_SECRET", raising=False)
    (tmp_path / SECRET_FILE).write_bytes(kept)
    with pytest.raises(StartFault, match="is empty or not text: delete it to have a new one made"):
        load_secret(tmp_path)
    assert (tmp_path / SECRET_FILE).read_bytes() == kept  # left for its owner to look at


def test_a_key_made_by_another_process_meanwhile_is_the_one_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("SPARROW_SECRET", raising=False)
    linked = os.link

    def other_first(source: str, target: str) -> None:  # another process links its key first
        (tmp_path / SECRET_FILE).write_text("the other process's key\n")
        linked(source, target)

    monkeypatch.setattr(os, "link", other_first)
    assert load_secret(tmp_path) == "the other process's key"
    assert [p.name for p in tmp_path.iterdir()] == [SECRET_FILE]  # (its own draft is gone)


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
