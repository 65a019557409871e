"""What stops `sparrow serve` from starting, said in one line that names the path and what to do: a
data folder it cannot make or write to (read-only, not a folder, the server's user not allowed), a full
disk, a secret key it cannot read, a file that is not a database. `sparrow serve` prints the line and
exits with status 2 (server/cli/serve.py); a bug, anything else, still ends with its traceback.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

from sqlalchemy.exc import DataError, DBAPIError, IntegrityError, ProgrammingError

__all__ = ["ELSEWHERE", "ELSEWHERE_DB", "StartFault", "cannot", "database_fault", "described", "unusable"]

# What to do about a file the server could not make, write or read (besides doing without it), by
# what went wrong: the system's reason is said before it.
_WRITE_ADVICE = {
    errno.EROFS: "mount it read-write, or",
    errno.EACCES: "give the server's user that folder (chown), or",
    errno.EPERM: "give the server's user that folder (chown), or",
    errno.ENOSPC: "free some space, or",
    errno.EDQUOT: "free some space, or",
    errno.ENOTDIR: "a file stands where a folder should be: move it away, or",
    errno.EEXIST: "a file stands where a folder should be: move it away, or",
    errno.EISDIR: "a folder stands where the file should be: move it away, or",
}
_READ_ADVICE = {
    errno.EACCES: "make the server's user its owner (chown), or",
    errno.EPERM: "make the server's user its owner (chown), or",
    errno.EISDIR: "a folder stands where the file should be: move it away, or",
}
ELSEWHERE = "set SPARROW_DATA to a folder the server may write to"
ELSEWHERE_DB = "set SPARROW_DATA, or --db, to a place the server may write to"


class StartFault(RuntimeError):
    """The server cannot start; the message says why and what to do, in one line."""


def cannot(doing: str, path: Path | str, exc: OSError, elsewhere: str = ELSEWHERE, *, reading: bool = False) -> str:
    """One line for ``exc``, met while doing ``doing`` (a verb and its object: "make the data folder")
    on ``path``: what failed, the system's reason, and what to do (``elsewhere``, the way around it)."""
    reason = exc.strerror or type(exc).__name__
    advice = (_READ_ADVICE if reading else _WRITE_ADVICE).get(exc.errno or 0)
    return f"cannot {doing} {path} ({reason}): {advice or 'fix that, or'} {elsewhere}"


def database_fault(exc: BaseException, where: str) -> str | None:
    """One line for a fault of the SQLite file ``where`` (or of its disk) that ``exc`` reports, with
    what to do; None when ``exc`` is not one."""
    if not isinstance(exc, DBAPIError):
        return None
    said = str(exc.orig).strip().splitlines()[0] if str(exc.orig).strip() else type(exc.orig).__name__
    if "disk is full" in said:
        return f"cannot write the database {where} ({said}): free some space, or {ELSEWHERE_DB}"
    if "not a database" in said:
        return (
            f"{where} is not a SQLite database ({said}): move it away to start a new database there, or point "
            "--db (or SPARROW_DATA) at Sparrow's own"
        )
    if "malformed" in said:
        return f"the database {where} is damaged ({said}): put back a backup (sparrow db restore FILE)"
    if "disk I/O error" in said:
        return f"cannot use the database {where} ({said}): check its disk, and the free space on it"
    return None


def unusable(exc: BaseException) -> str:
    """Why the database cannot be used, in one line: the error's own words, or what kind of error it
    was when it has none (a connection that timed out says nothing)."""
    said = str(exc).strip()
    if said:
        return f"cannot use the database: {said.splitlines()[0]}"
    if isinstance(exc, TimeoutError):
        return "cannot use the database: it did not answer in time"
    return f"cannot use the database: {type(exc).__name__}"


def described(exc: BaseException, where: str | None = None) -> str | None:
    """The one line for ``exc`` if it is a fault of the disk, the data folder or the database (``where``:
    the SQLite file, if that is the database), None if it is a bug (a wrong query, anything else)."""
    from server.store.migrate import DatabaseTooNew

    if isinstance(exc, StartFault | DatabaseTooNew):
        return str(exc)
    if isinstance(exc, IntegrityError | ProgrammingError | DataError):
        return None
    if isinstance(exc, OSError) and exc.filename is not None:
        return cannot("use", os.fsdecode(exc.filename), exc)
    said = database_fault(exc, where) if where is not None else None
    if said is not None:
        return said
    if isinstance(exc, OSError | DBAPIError):
        return unusable(exc)
    return None
