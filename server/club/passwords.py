"""Password hashing with argon2id (argon2-cffi's defaults), run off the event loop: one hash costs
tens of milliseconds of CPU and 64 MiB, which live tables must not wait for.
"""

from __future__ import annotations

import asyncio
import functools
import secrets
import unicodedata

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from server.tables.errors import TableError

__all__ = ["PASSWORD_MAX", "PASSWORD_MIN", "check_new_password", "hash_password", "verify_password"]

PASSWORD_MIN = 8
PASSWORD_MAX = 200
# Control and format characters (NUL, tabs, newlines, DEL, bidirectional marks), line and paragraph
# separators and lone surrogates: none can be typed into a password field, and some cannot be hashed.
_UNTYPABLE = {"Cc", "Cf", "Cs", "Zl", "Zp"}

_HASHER = PasswordHasher()


@functools.cache
def _dummy() -> str:
    """A hash verified against for unknown names (same work, same time); made on first need, not at
    import: every command and server process would otherwise pay a hash (half a second of CPU) to start."""
    return _HASHER.hash(secrets.token_urlsafe(16))


def check_new_password(password: object) -> str:
    """``password`` if it may become someone's password.

    :raises TableError: (400) saying what is wrong with it.
    """
    if not isinstance(password, str) or not PASSWORD_MIN <= len(password) <= PASSWORD_MAX:
        raise TableError("auth/weak_password", f"a password must be {PASSWORD_MIN} to {PASSWORD_MAX} characters long")
    if any(unicodedata.category(c) in _UNTYPABLE for c in password):
        raise TableError("auth/bad_password", "a password cannot hold control characters (such as tabs or new lines)")
    if not password.strip():
        raise TableError("auth/bad_password", "a password cannot be only spaces")
    return password


async def hash_password(password: str) -> str:
    """The argon2id hash of ``password`` (salted; the parameters are stored in the hash)."""
    return await asyncio.to_thread(_HASHER.hash, password)


async def verify_password(stored: str | None, password: object) -> bool:
    """Whether ``password`` matches the ``stored`` hash. With ``stored`` None (no such member) a
    dummy hash is checked instead, so that an unknown name costs the same time as a wrong password.
    """
    candidate = password if isinstance(password, str) and len(password) <= PASSWORD_MAX else ""

    def check() -> bool:
        try:
            return _HASHER.verify(stored or _dummy(), candidate) and stored is not None
        except (VerificationError, InvalidHashError):
            return False

    return await asyncio.to_thread(check)
