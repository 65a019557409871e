"""A newcomer's first `sparrow serve`: on a new database it migrates quietly, says where it serves,
and ends with the first-admin link, set apart by blank lines, with nothing printed after it."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest
from processkit import ServerProcess, free_port

pytestmark = pytest.mark.asyncio


async def test_the_first_admin_link_is_the_last_thing_a_first_start_prints(tmp_path: Path) -> None:
    server = ServerProcess(f"sqlite+aiosqlite:///{tmp_path / 'new.db'}", free_port(), tmp_path)
    try:
        await server.start()
        await asyncio.sleep(1.0)  # anything printed once the server answers would come now
        lines = server.log.read_text().splitlines()
    finally:
        server.stop()
    assert not [line for line in lines if "alembic" in line], "\n".join(lines)  # the migrations ran silently
    assert any("Sparrow is serving on" in line for line in lines)
    while lines and not lines[-1].strip():
        lines.pop()
    assert re.fullmatch(r"\s+http://127\.0\.0\.1:\d+/welcome/[\w-]+", lines[-1]), lines[-4:]
    assert lines[-2].strip() == ""  # set apart from the words above it
    assert "no admin yet" in lines[-4] and lines[-5].strip() == ""  # and from the log lines before those
