"""`sparrow serve` on a database it cannot write to (a read-only SQLite file, or its folder too; a
PostgreSQL database with ``default_transaction_read_only`` on) exits with status 2 and one line that
says so, before anything is served or written: no traceback.
"""

from __future__ import annotations

import os
import shutil
import socket
import stat
import subprocess
from pathlib import Path

import asyncpg
import pytest
from dbkit import fresh_database
from livekit import within
from processkit import SPARROW, free_port

from server.store.migrate import upgrade
from server.store.session import make_engine

pytestmark = pytest.mark.asyncio

# Root writes whatever the file modes say (CAP_DAC_OVERRIDE): as root, the server runs without it.
_AS_ROOT = ["setpriv", "--bounding-set=-dac_override,-dac_read_search,-fowner", "--"]


def _serve(url: str, data: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    prefix: list[str] = []
    if os.geteuid() == 0:
        if shutil.which("setpriv") is None:
            pytest.skip("running as root, whom file modes do not stop, and without setpriv to drop that power")
        prefix = _AS_ROOT
    command = [*prefix, *SPARROW, "serve", "--port", str(free_port()), "--db", url, *extra]
    env = {**os.environ, "SPARROW_DATA": str(data)}
    return subprocess.run(command, capture_output=True, text=True, env=env, timeout=within(60), check=False)


async def _migrated(url: str) -> None:
    engine = make_engine(url)
    try:
        await upgrade(engine)
    finally:
        await engine.dispose()


def _refused(done: subprocess.CompletedProcess[str], says: str) -> None:
    lines = (done.stdout + done.stderr).strip().splitlines()
    assert done.returncode == 2, done.stdout + done.stderr
    assert len(lines) == 1, lines
    assert lines[0].startswith("sparrow serve: the database ") and says in lines[0], lines[0]


@pytest.mark.parametrize("folder_too", [False, True], ids=["file", "file and folder"])
async def test_a_read_only_sqlite_file_is_refused_at_start_with_one_line(tmp_path: Path, folder_too: bool) -> None:
    folder = tmp_path / "db"
    folder.mkdir()
    database = folder / "ro.db"
    await _migrated(f"sqlite+aiosqlite:///{database}")
    for extra in folder.glob("ro.db-*"):  # (WAL files the migration left)
        extra.unlink()
    database.chmod(stat.S_IRUSR | stat.S_IRGRP | stat.S_IROTH)
    if folder_too:
        folder.chmod(stat.S_IRUSR | stat.S_IXUSR | stat.S_IRGRP | stat.S_IXGRP | stat.S_IROTH | stat.S_IXOTH)
    try:
        done = _serve(f"sqlite:///{database}", tmp_path)
    finally:
        folder.chmod(stat.S_IRWXU)
    _refused(done, "cannot be written to")


@pytest.mark.parametrize(
    "extra", [[], ["--workers", "2", "--redis", "redis://127.0.0.1:6379/0"]], ids=["one", "workers"]
)
async def test_a_read_only_postgresql_database_is_refused_at_start_with_one_line(
    tmp_path: Path, extra: list[str]
) -> None:
    async with fresh_database("postgresql", tmp_path) as url:
        await _migrated(url)
        name = url.rsplit("/", 1)[1]
        admin = await asyncpg.connect("postgresql://postgres@127.0.0.1:5432/postgres")
        try:
            await admin.execute(f'ALTER DATABASE "{name}" SET default_transaction_read_only = on')
        finally:
            await admin.close()
        _refused(_serve(url, tmp_path, *extra), "is read-only (default_transaction_read_only is on")


async def test_a_database_that_never_answers_is_named_in_words_at_start(tmp_path: Path) -> None:
    # A listener that accepts and never speaks: the connection times out, an error with no words of its
    # own; the server says what happened instead of "cannot use the database: " and nothing.
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen()
    try:
        port = silent.getsockname()[1]
        url = f"postgresql+asyncpg://postgres@127.0.0.1:{port}/test"
        env = {**os.environ, "SPARROW_DATA": str(tmp_path)}
        command = [*SPARROW, "serve", "--port", str(free_port()), "--db", url]
        done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=within(60), check=False)
    finally:
        silent.close()
    assert done.returncode == 2, done.stderr
    said = [line for line in done.stderr.splitlines() if "cannot use the database" in line]
    assert len(said) == 1 and said[0].endswith("cannot use the database: it did not answer in time"), done.stderr
    assert "Traceback" not in done.stderr
