"""`sparrow serve` on a database it cannot write to (a read-only SQLite file, or its folder too; a
PostgreSQL database with ``default_transaction_read_only`` on) exits with status 2 and one line that
says so, before anything is served or written: no traceback. So does every other fault that stops a
start: a data folder on a read-only mount or a full disk (at the first start and later ones), one that
cannot be made, a secret key that cannot be read, a database file that is not one, a cluster's
database without its id. Each line names the path and what to do.
"""

from __future__ import annotations

import os
import shutil
import socket
import sqlite3
import stat
import subprocess
from pathlib import Path

import asyncpg
import pytest
from dbkit import REDIS, fresh_database, redis_or_skip
from livekit import within
from processkit import SPARROW, ServerProcess, free_port
from sqlalchemy.exc import OperationalError

from server.app import create_app
from server.club.club import Club, ClubConfig
from server.club.secret import load_secret
from server.startup import StartFault
from server.store.migrate import upgrade
from server.store.session import make_engine

pytestmark = pytest.mark.asyncio

# Root writes whatever the file modes say (CAP_DAC_OVERRIDE): as root, the server runs without it.
_AS_ROOT = ["setpriv", "--bounding-set=-dac_override,-dac_read_search,-fowner", "--"]


def _without_root() -> list[str]:
    """A command prefix: what follows runs without root's power over file modes."""
    if os.geteuid() != 0:
        return []
    if shutil.which("setpriv") is None:
        pytest.skip("running as root, whom file modes do not stop, and without setpriv to drop that power")
    return _AS_ROOT


def _serve(url: str, data: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    command = [*_without_root(), *SPARROW, "serve", "--port", str(free_port()), "--db", url, *extra]
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


# ------------------------------------------------------------------ the data folder and the disk
def _namespace(script: str) -> list[str]:
    """A command prefix: what follows runs in a mount namespace of its own, once ``script`` (shell
    commands: mounts) has run in it; the mounts are seen by nothing else and vanish with it. Root is
    not stopped by file modes, but is by a read-only mount and a full disk."""
    if shutil.which("unshare") is None or subprocess.run(["unshare", "--mount", "true"], check=False).returncode:
        pytest.skip("needs a mount namespace of its own (unshare --mount: root, with CAP_SYS_ADMIN)")
    return ["unshare", "--mount", "--propagation", "private", "sh", "-euc", script + '\nexec "$@"', "sh"]


def _read_only(folder: Path) -> list[str]:
    return _namespace(f"mount --bind {folder} {folder}; mount -o remount,bind,ro {folder} {folder}")


def _full(folder: Path) -> list[str]:
    """``folder`` on a small file system of its own, holding what it held, filled to the last block."""
    kept = folder.with_name(folder.name + ".kept")
    shutil.copytree(folder, kept)
    return _namespace(
        f"mount -t tmpfs -o size=512k tmpfs {folder}; cp -a {kept}/. {folder}; "
        f"dd if=/dev/zero of={folder}/filler bs=4k 2>/dev/null || true"
    )


def _start(data: Path, *extra: str, prefix: list[str] | None = None) -> subprocess.CompletedProcess[str]:
    """`sparrow serve` on the default database, in the data folder ``data``, to its end."""
    command = [*(prefix or []), *SPARROW, "serve", "--port", str(free_port()), *extra]
    env = {**os.environ, "SPARROW_DATA": str(data)}
    env.pop("SPARROW_DB", None)
    env.pop("SPARROW_SECRET", None)
    return subprocess.run(command, capture_output=True, text=True, env=env, timeout=within(60), check=False)


def _one_line(done: subprocess.CompletedProcess[str]) -> str:
    """The one line a refused start printed (on standard error: nothing else, anywhere)."""
    assert done.returncode == 2, done.stdout + done.stderr
    assert not done.stdout, done.stdout
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith("sparrow serve: "), lines
    return lines[0]


async def _kept(data: Path) -> None:
    """``data`` as a server leaves it: its secret key, and its database at the code's schema."""
    load_secret(data)
    await _migrated(f"sqlite+aiosqlite:///{data / 'sparrow.db'}")


@pytest.mark.parametrize("later", [False, True], ids=["first start", "later start"])
async def test_a_data_folder_on_a_read_only_mount_is_refused_at_start_with_one_line(
    tmp_path: Path, later: bool
) -> None:
    data = tmp_path / "data"
    data.mkdir()
    if later:
        await _kept(data)
    before = sorted(p.name for p in data.iterdir())
    line = _one_line(_start(data, prefix=_read_only(data)))
    if later:  # the key is read; the database cannot be written
        assert line.startswith(f"sparrow serve: the database sqlite+aiosqlite:///{data}/sparrow.db cannot be written")
        assert "a read-write mount" in line, line
    else:
        assert line.startswith(f"sparrow serve: cannot write the secret key {data}/secret.key (Read-only file system)")
        assert "mount it read-write, or set SPARROW_DATA to a folder" in line, line
    assert sorted(p.name for p in data.iterdir()) == before


@pytest.mark.parametrize("kept", ["nothing", "the key", "the key and the database"])
async def test_a_full_disk_is_refused_at_start_with_one_line(tmp_path: Path, kept: str) -> None:
    data = tmp_path / "data"
    data.mkdir()
    if kept != "nothing":
        load_secret(data)
    if kept == "the key and the database":
        await _kept(data)
    line = _one_line(_start(data, prefix=_full(data)))
    if kept == "nothing":
        said = f"cannot write the secret key {data}/secret.key (No space left on device): free some space"
    elif kept == "the key":
        said = f"cannot write the database {data}/sparrow.db (database or disk is full): free some space"
    else:  # (SQLite cannot grow its shared-memory file: an I/O error, it says, or a full disk)
        said = f"cannot use the database {data}/sparrow.db (disk I/O error): check its disk, and the free space"
        if "disk is full" in line:
            said = f"cannot write the database {data}/sparrow.db (database or disk is full): free some space"
    assert line.startswith(f"sparrow serve: {said}"), line


@pytest.mark.parametrize("where", ["default", "--db"])
async def test_a_data_folder_that_cannot_be_made_is_refused_at_start_with_one_line(tmp_path: Path, where: str) -> None:
    (tmp_path / "file").write_text("a file where a folder should be")
    data = tmp_path / "file" / "data"
    line = _one_line(_start(data, *(["--db", f"sqlite:///{data}/club.db"] if where == "--db" else [])))
    # (with --db the key is made first, in the same folder)
    said = f"cannot make the data folder {data} (Not a directory): a file stands where a folder should be: move it"
    assert line.startswith(f"sparrow serve: {said}"), line


async def test_without_a_database_no_data_folder_is_needed(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("a file where a folder should be")
    server = ServerProcess("memory", free_port(), tmp_path, env={"SPARROW_DATA": str(tmp_path / "file" / "data")})
    try:
        await server.start()  # (nothing signed outlives the process: no key is kept)
    finally:
        server.stop()


@pytest.mark.parametrize("fault", ["unreadable", "a folder", "empty"])
async def test_a_secret_key_that_cannot_be_used_is_refused_at_start_with_one_line(tmp_path: Path, fault: str) -> None:
    data = tmp_path / "data"
    data.mkdir()
    await _kept(data)
    key = data / "secret.key"
    key.unlink()
    prefix: list[str] = []
    if fault == "unreadable":
        key.write_text("a key nobody may read\n")
        key.chmod(0)
        prefix = _without_root()
    elif fault == "a folder":
        key.mkdir()
    else:
        key.write_text("\n")
    line = _one_line(_start(data, prefix=prefix))
    said = {
        "unreadable": f"cannot read the secret key {key} (Permission denied): make the server's user its owner",
        "a folder": f"cannot read the secret key {key} (Is a directory): a folder stands where the file should be",
        "empty": f"the secret key {key} is empty or not text: delete it to have a new one made",
    }[fault]
    assert line.startswith(f"sparrow serve: {said}"), line


@pytest.mark.parametrize("fault", ["not a database", "a folder"])
async def test_a_database_file_that_is_not_one_is_refused_at_start_with_one_line(tmp_path: Path, fault: str) -> None:
    data = tmp_path / "data"
    data.mkdir()
    load_secret(data)
    database = data / "sparrow.db"
    if fault == "a folder":
        database.mkdir()
    else:
        database.write_bytes(b"not SQLite at all\n" * 300)
    line = _one_line(_start(data))
    if fault == "a folder":
        assert line.startswith(f"sparrow serve: cannot open the database {database} (Is a directory)"), line
    else:
        assert line.startswith(f"sparrow serve: {database} is not a SQLite database (file is not a database)"), line
        assert database.read_bytes() == b"not SQLite at all\n" * 300  # left as it was


@pytest.mark.parametrize("workers", [None, "2"], ids=["one", "workers"])
async def test_a_cluster_whose_database_holds_no_cluster_id_is_refused_at_start_with_one_line(
    tmp_path: Path, workers: str | None
) -> None:
    # Met while the app starts (server/cluster/identity.py), after the database was found writable.
    await redis_or_skip()
    async with fresh_database("postgresql", tmp_path) as url:
        await _migrated(url)
        connection = await asyncpg.connect(url.replace("+asyncpg", ""))
        try:
            await connection.execute("""INSERT INTO settings (key, value) VALUES ('cluster', '{"id": 5}')""")
        finally:
            await connection.close()
        extra = ["--db", url, "--redis", REDIS, *(["--workers", workers] if workers else [])]
        line = _one_line(_start(tmp_path, *extra))
    assert line == (
        "sparrow serve: the setting 'cluster' in the database holds no cluster id ({'id': 5}): stop every process, "
        "delete it (DELETE FROM settings WHERE key = 'cluster') and start them again"
    )


@pytest.mark.parametrize("fault", ["full disk", "bug"])
async def test_a_fault_met_as_the_app_starts_is_one_line_and_a_bug_is_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fault: str
) -> None:
    # What `sparrow serve` prints when the app's own start (server/app.py) meets the disk filling up
    # after the database was found writable; a bug keeps its traceback.
    database = tmp_path / "club.db"

    async def failing(_club: Club) -> None:
        if fault == "bug":
            raise KeyError("a bug")
        raise OperationalError("UPDATE settings", {}, sqlite3.OperationalError("database or disk is full"))

    monkeypatch.setattr(Club, "open", failing)
    app = create_app(db=f"sqlite+aiosqlite:///{database}", club=ClubConfig("secret"))
    with pytest.raises(StartFault if fault == "full disk" else KeyError) as failed:
        async with app.router.lifespan_context(app):
            pytest.fail("the app started")
    if fault == "bug":
        assert app.state.start_fault is None
        return
    said = f"cannot write the database {database} (database or disk is full): free some space, or set SPARROW_DATA"
    assert app.state.start_fault == str(failed.value) and str(failed.value).startswith(said)
