"""The engine's lookup tables come from a cache file when it holds them, and are the very tables the
build makes whatever state that file is in: stale, damaged, or impossible to write."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path

import pytest

import game.suit_tables
from game.hand_tables import Tables, tables


@pytest.fixture(scope="module")
def built() -> Tables:
    return game.suit_tables.build()


@pytest.fixture
def fresh(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """An empty cache directory, and no tables kept in this process."""
    folder = tmp_path / "cache"
    monkeypatch.setenv("SPARROW_CACHE", str(folder))
    tables.cache_clear()
    yield folder
    tables.cache_clear()


def _loaded_without_building(monkeypatch: pytest.MonkeyPatch) -> Tables:
    """The tables as a new process gets them, failing if that needs a build."""

    def no_build() -> Tables:
        raise AssertionError("the tables were built, not loaded from the cache file")

    tables.cache_clear()
    with monkeypatch.context() as m:
        m.setattr(game.suit_tables, "build", no_build)
        return tables()


def _seeded(folder: Path, written: Tables, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The cache file of ``written``, as a first process would write it (here without building)."""
    with monkeypatch.context() as m:
        m.setattr(game.suit_tables, "build", lambda: written)
        tables()
    tables.cache_clear()
    return _file(folder)


def _file(folder: Path) -> Path:
    files = list(folder.glob("hand-tables-*.pickle"))
    assert len(files) == 1, files
    return files[0]


def test_the_first_process_builds_the_tables_and_the_next_ones_load_them(
    fresh: Path, built: Tables, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert tables() == built
    assert _file(fresh).stat().st_size > 1_000_000
    assert _loaded_without_building(monkeypatch) == built


def test_a_stale_file_is_rebuilt_into_the_same_tables(
    fresh: Path, built: Tables, monkeypatch: pytest.MonkeyPatch
) -> None:
    other = dataclasses.replace(built, shanten=[[0] * len(row) for row in built.shanten])  # other code's tables
    path = _seeded(fresh, other, monkeypatch)
    head, key, rest = path.read_bytes().split(b"\n", 2)
    path.write_bytes(b"\n".join([head, key[:16] + b"0" * 48, rest]))  # by other code, under this code's name
    assert tables() == built
    assert _loaded_without_building(monkeypatch) == built  # and written again for this code


def test_a_damaged_file_is_rebuilt_into_the_same_tables(
    fresh: Path, built: Tables, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _seeded(fresh, built, monkeypatch)
    data = path.read_bytes()
    at = len(data) // 2  # one bit, in the middle of the suits' table
    path.write_bytes(data[:at] + bytes([data[at] ^ 0x40]) + data[at + 1 :])
    assert tables() == built
    assert _loaded_without_building(monkeypatch) == built


def test_tables_come_without_a_writable_cache(tmp_path: Path, built: Tables, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setenv("SPARROW_CACHE", str(blocker / "cache"))
    tables.cache_clear()
    try:
        assert tables() == built
    finally:
        tables.cache_clear()
