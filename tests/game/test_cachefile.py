"""``game.cachefile``: a value built once is read back by the next process; anything wrong with the file
only means building again, and a file no one should trust runs no code."""

from __future__ import annotations

import hashlib
import importlib
import os
import pickle
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from game import cachefile

KEY = "a" * 64
OTHER_KEY = "b" * 64


@dataclass(frozen=True, slots=True)
class Box:
    """What the tests keep: plain data in one class."""

    counts: dict[bytes, int]
    rows: tuple[tuple[int, ...], ...]


class Builder:
    """Builds a :class:`Box` and counts how often it had to."""

    def __init__(self, seed: int = 1) -> None:
        self.seed, self.calls = seed, 0

    def __call__(self) -> Box:
        self.calls += 1
        return Box({bytes([i, self.seed]): i * self.seed for i in range(200)}, ((self.seed, 2), (3,)))


class Planted:
    """A pickle that would touch a file when loaded, if the loader allowed functions."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (os.mkdir, (str(self.marker),))


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    where = tmp_path / "cache"
    monkeypatch.setenv("SPARROW_CACHE", str(where))
    return where


def _only_file(folder: Path) -> Path:
    files = list(folder.glob("box-*.pickle"))
    assert len(files) == 1, files
    return files[0]


def test_a_value_built_once_is_read_back_without_building(folder: Path) -> None:
    build = Builder()
    first = cachefile.cached("box", KEY, build, Box)
    assert build.calls == 1 and _only_file(folder).name == f"box-{KEY[:16]}.pickle"
    again = cachefile.cached("box", KEY, build, Box)
    assert again == first == Builder()() and build.calls == 1


def test_data_of_other_code_is_never_read(folder: Path) -> None:
    cachefile.cached("box", KEY, Builder(1), Box)
    changed = Builder(2)
    assert cachefile.cached("box", OTHER_KEY, changed, Box) == Builder(2)() and changed.calls == 1
    assert cachefile.cached("box", OTHER_KEY, changed, Box) == Builder(2)() and changed.calls == 1


def test_a_file_whose_key_is_not_its_name_is_rebuilt(folder: Path) -> None:
    cachefile.cached("box", KEY, Builder(1), Box)
    path = _only_file(folder)
    stale = path.read_bytes().replace(KEY.encode(), ("a" * 16 + "c" * 48).encode(), 1)  # same name, other code
    path.write_bytes(stale)
    build = Builder(1)
    assert cachefile.cached("box", KEY, build, Box) == Builder(1)() and build.calls == 1
    assert KEY.encode() in path.read_bytes()  # rewritten for this code
    assert cachefile.cached("box", KEY, build, Box) == Builder(1)() and build.calls == 1


@pytest.mark.parametrize(
    "damage",
    [
        lambda data: data[: len(data) // 2],  # truncated
        lambda data: data[:-40] + bytes(40),  # zeroed at the end
        lambda data: data[:-30] + bytes([data[-30] ^ 1]) + data[-29:],  # one bit flipped
        lambda data: b"",  # empty
        lambda data: os.urandom(len(data)),  # noise
        lambda data: data.split(b"\n", 3)[3],  # no header
    ],
    ids=["truncated", "zeroed", "bit-flip", "empty", "noise", "headless"],
)
def test_a_damaged_file_is_rebuilt_and_rewritten(folder: Path, damage: Callable[[bytes], bytes]) -> None:
    cachefile.cached("box", KEY, Builder(), Box)
    path = _only_file(folder)
    path.write_bytes(damage(path.read_bytes()))
    build = Builder()
    assert cachefile.cached("box", KEY, build, Box) == Builder()() and build.calls == 1
    assert cachefile.cached("box", KEY, build, Box) == Builder()() and build.calls == 1  # intact again


def test_a_file_holding_anything_but_the_value_runs_no_code_and_is_rebuilt(folder: Path, tmp_path: Path) -> None:
    marker = tmp_path / "loaded"
    for payload in (pickle.dumps(Planted(marker)), pickle.dumps({"not": "a box"}), pickle.dumps(Builder())):
        folder.mkdir(exist_ok=True)
        (folder / f"box-{KEY[:16]}.pickle").write_bytes(
            b"sparrow-cache 1\n" + KEY.encode() + b"\n" + hashlib.sha256(payload).hexdigest().encode() + b"\n" + payload
        )
        build = Builder()
        assert cachefile.cached("box", KEY, build, Box) == Builder()() and build.calls == 1
        assert not marker.exists()


def test_a_place_that_cannot_be_written_still_gives_the_value(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    monkeypatch.setenv("SPARROW_CACHE", str(blocker / "cache"))
    build = Builder()
    assert cachefile.cached("box", KEY, build, Box) == Builder()()
    assert cachefile.cached("box", KEY, build, Box) == Builder()() and build.calls == 2  # built each time
    assert blocker.read_text() == "not a directory"


def test_no_cache_directory_or_no_key_means_building_every_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SPARROW_CACHE", "")
    build = Builder()
    cachefile.cached("box", KEY, build, Box)
    cachefile.cached("box", KEY, build, Box)
    assert build.calls == 2
    monkeypatch.setenv("SPARROW_CACHE", str(tmp_path))
    cachefile.cached("box", None, build, Box)
    assert build.calls == 3 and not list(tmp_path.iterdir())


def test_the_directory_follows_the_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("SPARROW_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert cachefile.cache_dir() == tmp_path / "sparrow"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert cachefile.cache_dir() == tmp_path / "home" / ".cache" / "sparrow"


def test_only_the_most_recently_used_files_of_a_name_are_kept(folder: Path) -> None:
    keys = [str(i) * 64 for i in range(7)]
    for i, key in enumerate(keys):
        cachefile.cached("box", key, Builder(i), Box)
        os.utime(folder / f"box-{key[:16]}.pickle", (1000 + i, 1000 + i))  # written in this order
    assert len(list(folder.glob("box-*.pickle"))) == 4
    assert (folder / f"box-{keys[-1][:16]}.pickle").exists() and not (folder / f"box-{keys[0][:16]}.pickle").exists()


def test_the_key_of_source_changes_with_the_source(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    source = tmp_path / "builder_for_key_test.py"
    source.write_text("N = 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    importlib.invalidate_caches()
    first = cachefile.source_key(["builder_for_key_test"])
    assert first is not None and first == cachefile.source_key(["builder_for_key_test"])
    source.write_text("N = 2\n")
    assert cachefile.source_key(["builder_for_key_test"]) not in (None, first)
    assert cachefile.source_key(["no_such_module_anywhere"]) is None
    assert "builder_for_key_test" not in sys.modules  # found, not imported
