"""Data that is slow to build and never changes for given code, kept in a file between runs.

The one module of ``game`` that touches files: :func:`cached` returns what ``build`` returns, read from
``<cache directory>/<name>-<key>.pickle`` when that file holds it, else built and written there for the
next process. ``key`` names what the data depends on (a hash of the code that builds it), so data of other
code is never read. Whatever goes wrong with the file (missing, stale, truncated, corrupt, written by
something else, a directory that cannot be made or written) only means building in memory, as without a
cache; it is never an error.

The file is a header (format line, key, SHA-256 of the payload) and a pickle of one instance of a given
class holding plain data. It is read with an unpickler that refuses every other class and every function,
so a file no one should trust runs no code.

The directory is ``$SPARROW_CACHE`` if set (an empty value: no file at all), else
``$XDG_CACHE_HOME/sparrow``, else ``~/.cache/sparrow``.
"""

from __future__ import annotations

import contextlib
import gc
import hashlib
import importlib.util
import io
import os
import pickle
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TypeVar

__all__ = ["cache_dir", "cached", "key_of", "source_key"]

_T = TypeVar("_T")

_FORMAT = b"sparrow-cache 1\n"
_KEPT = 4  # files kept per name (the most recently used), e.g. for checkouts of different versions


def key_of(parts: Iterable[bytes]) -> str:
    """A key (hex SHA-256) naming everything in ``parts``, e.g. the source of the code that builds the data."""
    digest = hashlib.sha256(_FORMAT)
    for part in parts:
        digest.update(len(part).to_bytes(8, "little"))
        digest.update(part)
    return digest.hexdigest()


def source_key(modules: Iterable[str]) -> str | None:
    """The :func:`key_of` the source files of ``modules`` (found, not imported), or None if one cannot be read."""
    sources = []
    for module in modules:
        try:
            spec = importlib.util.find_spec(module)
            if spec is None or spec.origin is None:
                return None
            sources.append(Path(spec.origin).read_bytes())
        except (ImportError, OSError, ValueError):
            return None
    return key_of(sources)


def cache_dir() -> Path | None:
    """The directory cache files go in (see the module docstring), or None for no files."""
    chosen = os.environ.get("SPARROW_CACHE")
    if chosen is not None:
        return Path(chosen) if chosen else None
    base = os.environ.get("XDG_CACHE_HOME")
    if base:
        return Path(base) / "sparrow"
    try:
        return Path.home() / ".cache" / "sparrow"
    except (RuntimeError, KeyError):  # no home directory to speak of (a service account)
        return None


def cached(name: str, key: str | None, build: Callable[[], _T], kind: type[_T]) -> _T:
    """What ``build()`` returns, an instance of ``kind``: from the cache file of ``name`` and ``key`` if it
    holds one, else built now and written there (when the directory can be written) for the next process.
    A ``key`` of None means no file (nothing names the code that builds the data).

    ``kind`` is the one class the file may hold; everything in it is plain data (dicts, lists, tuples,
    bytes, strings, numbers, booleans, None).
    """
    folder = cache_dir()
    if folder is None or key is None:
        return build()
    path = folder / f"{name}-{key[:16]}.pickle"
    value = _read(path, key, kind)
    if isinstance(value, kind):
        return value
    built = build()
    _write(path, key, built)
    return built


class _Unpickler(pickle.Unpickler):
    """Refuses every class and function but the one a cache file is for."""

    def __init__(self, payload: bytes, kind: type) -> None:
        super().__init__(io.BytesIO(payload))
        self._kind = kind

    def find_class(self, module: str, name: str) -> type:
        if (module, name) == (self._kind.__module__, self._kind.__qualname__):
            return self._kind
        raise pickle.UnpicklingError(f"a cache file of {self._kind.__qualname__} holds no {module}.{name}")


def _read(path: Path, key: str, kind: type) -> object:
    """The value in the file at ``path`` if it is intact and made for ``key``, else None."""
    try:
        with path.open("rb") as file:
            if file.readline() != _FORMAT or file.readline() != key.encode("ascii") + b"\n":
                return None  # another format, or a stale file: data of other code
            digest = file.readline(100)
            payload = file.read()
    except OSError:
        return None
    if digest != hashlib.sha256(payload).hexdigest().encode("ascii") + b"\n":
        return None  # truncated or damaged
    with contextlib.suppress(OSError):
        os.utime(path)  # recently used: the last file of this name to be pruned
    collecting = gc.isenabled()
    gc.disable()  # a few hundred thousand new objects, none garbage: collections would only cost time
    try:
        return _Unpickler(payload, kind).load()
    except Exception:  # whatever a damaged payload raises, it is a file to rebuild
        return None
    finally:
        if collecting:
            gc.enable()


def _write(path: Path, key: str, value: object) -> None:
    """Write ``value`` for ``key`` to ``path`` whole or not at all (a concurrent reader sees the old file or
    the new one); a directory that cannot be made or written leaves things as they were."""
    try:
        payload = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception:  # not plain data after all: nothing to keep
        return
    import tempfile  # (writing only: most processes just read)

    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    except OSError:
        return
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(_FORMAT + key.encode("ascii") + b"\n")
            out.write(hashlib.sha256(payload).hexdigest().encode("ascii") + b"\n")
            out.write(payload)
        os.replace(temporary, path)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        return
    _prune(path)


def _prune(path: Path) -> None:
    """Remove all but the :data:`_KEPT` most recently used files of ``path``'s name (other keys)."""
    name = path.name.rsplit("-", 1)[0]
    with contextlib.suppress(OSError):
        mine = (p for p in path.parent.glob(f"{name}-*.pickle") if len(p.name) == len(path.name))
        others = sorted(mine, key=lambda p: p.stat().st_mtime, reverse=True)
        for old in others[_KEPT:]:
            if old != path:
                old.unlink()
