"""The server's secret key, which signs session cookies and guest passes: ``$SPARROW_SECRET``, or a
key generated on first start and kept in ``secret.key`` in the data directory (readable by the
server's user only, outside the web root). Replacing it logs everyone out and changes nothing else.

A key that cannot be made or read (a read-only or full disk, a file the server's user may not read,
an empty one) stops the start with one line that says so (`server.startup.StartFault`): never a
server that signs with an empty key, or with one it forgets at its next start.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
from pathlib import Path

from server.startup import ELSEWHERE, StartFault, cannot

__all__ = ["SECRET_FILE", "load_secret"]

SECRET_FILE = "secret.key"
_NO_FILE = "set SPARROW_SECRET to the key instead"


def load_secret(data_dir: Path | None = None) -> str:
    """The secret key, generated and stored in ``data_dir`` (default ``$SPARROW_DATA`` or ./data) if
    there is none yet.

    :raises StartFault: when the folder or the key cannot be made, or the key cannot be read.
    """
    given = os.environ.get("SPARROW_SECRET")
    if given:
        return given
    folder = data_dir or Path(os.environ.get("SPARROW_DATA", "data"))
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StartFault(cannot("make the data folder", folder, exc)) from None
    path = folder / SECRET_FILE
    key = _read(path)
    if key is not None:
        return key
    key = secrets.token_urlsafe(48)
    # Written whole to a file of its own, then linked into place (which fails if another process
    # made the key meanwhile): nobody ever reads a key half written, or an empty one a full disk left.
    draft = folder / f".{SECRET_FILE}.{secrets.token_hex(4)}"
    data = (key + "\n").encode()
    try:
        fd = os.open(draft, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            _write(fd, data)
        finally:
            os.close(fd)
        _place(draft, path, data)
    except FileExistsError:  # another process made it first
        mine = None
    except OSError as exc:
        raise StartFault(cannot("write the secret key", path, exc, f"{ELSEWHERE}, or {_NO_FILE}")) from None
    else:
        mine = key
    finally:
        with contextlib.suppress(OSError):
            draft.unlink()
    return mine if mine is not None else _kept(path)


def _write(fd: int, data: bytes) -> None:
    while data:
        data = data[os.write(fd, data) :]
    os.fsync(fd)


def _place(draft: Path, path: Path, data: bytes) -> None:
    """Put the key written to ``draft`` at ``path``, unless there is a key there already.

    :raises FileExistsError: when there is.
    """
    try:
        os.link(draft, path)
        return
    except OSError as exc:
        if exc.errno not in (errno.EPERM, errno.EOPNOTSUPP, errno.ENOSYS):
            raise
    # A file system without hard links: the key is written in place, and taken back if that fails.
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        _write(fd, data)
    except OSError:
        os.close(fd)
        with contextlib.suppress(OSError):
            path.unlink()
        raise
    os.close(fd)


def _kept(path: Path) -> str:
    key = _read(path)
    if key is None:
        raise StartFault(f"the secret key {path} vanished as it was made: start the server again")
    return key


def _read(path: Path) -> str | None:
    """The key kept in ``path``, None if there is none.

    :raises StartFault: when it cannot be read, or holds no key.
    """
    try:
        text = path.read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise StartFault(cannot("read the secret key", path, exc, _NO_FILE, reading=True)) from None
    except UnicodeDecodeError:
        text = ""
    if not text:
        raise StartFault(
            f"the secret key {path} is empty or not text: delete it to have a new one made (everyone is logged "
            f"out), or put back a copy of it"
        )
    return text
