"""`sparrow db`: a database written by a newer Sparrow is named as such, with a non-zero status."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path


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
