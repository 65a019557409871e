"""`sparrow db`: a database written by a newer Sparrow is named as such, with a non-zero status; processes
upgrading one SQLite file at once take turns."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from server.store.migrate import head_revision


def _sparrow(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "server.cli", *args], capture_output=True, text=True, timeout=120)


def test_db_current_says_when_the_database_is_newer_than_the_code(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'club.db'}"
    assert _sparrow("db", "upgrade", "--db", url).returncode == 0
    current = _sparrow("db", "current", "--db", url)
    assert current.returncode == 0 and "revision" in current.stdout
    with sqlite3.connect(tmp_path / "club.db") as db:
        db.execute("UPDATE alembic_version SET version_num = '9999_from_the_future'")
    newer = _sparrow("db", "current", "--db", url)
    assert newer.returncode == 2
    assert "9999_from_the_future is newer than this Sparrow" in newer.stderr
    served = _sparrow("serve", "--port", "0", "--db", url)
    assert served.returncode == 2 and "newer than this Sparrow" in served.stderr


_UPGRADE_AT_ONCE = """
import asyncio, os, sys, time
from server.store.migrate import upgrade
from server.store.session import make_engine

while not os.path.exists(sys.argv[2]):  # every process imports first, then all upgrade at once
    time.sleep(0.002)

async def main() -> None:
    engine = make_engine(sys.argv[1])
    try:
        print(await upgrade(engine))
    finally:
        await engine.dispose()

asyncio.run(main())
"""


def test_processes_upgrading_one_fresh_sqlite_file_at_once_all_succeed(tmp_path: Path) -> None:
    url, go = f"sqlite+aiosqlite:///{tmp_path / 'club.db'}", tmp_path / "go"
    command = [sys.executable, "-c", _UPGRADE_AT_ONCE, url, str(go)]
    procs = [subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(4)]
    try:
        time.sleep(1.5)  # (a child process offers nothing to await but its output)
        go.touch()
        done = [p.communicate(timeout=120) for p in procs]
    finally:
        for p in procs:
            p.kill()
    assert [p.returncode for p in procs] == [0] * 4, [err[-500:] for _, err in done]
    upgraded = [out for out, _ in done if "(None, " in out]
    assert len(upgraded) == 1  # one migrated the empty file; the others found it current
    assert _sparrow("db", "current", "--db", url).stdout.split("revision ")[1].split(";")[0] == head_revision()
