"""R0 notation and the R1 tile set."""

from __future__ import annotations

import pytest

from game import NotationError, Tile, format_tiles, parse_tiles
from game.tiles import MAJORS, full_set


def test_compact_and_spaced_forms_read_the_same() -> None:
    assert parse_tiles("234b 55d WWW RRR") == parse_tiles("2b 3b 4b 5d 5d W W W R R R")
    assert parse_tiles("1112345678999d") == [Tile.parse(f"{r}d") for r in "1112345678999"]
    assert parse_tiles("123f") == [Tile.FLOWER1, Tile.FLOWER2, Tile.FLOWER3]


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("12x", "bad character 'x' at position 3"),
        ("0b", "bad character '0'"),
        ("5f", "no 5f"),
        ("12", "need a suit letter"),
        ("b", "no digits before it"),
        ("1W", "digits before honour 'W'"),
        ("e", "bad character 'e'"),
    ],
)
def test_bad_notation_is_refused_naming_the_character(text: str, fragment: str) -> None:
    with pytest.raises(NotationError, match=fragment):
        parse_tiles(text)


def test_flowers_off_refuses_bonus_tiles() -> None:
    with pytest.raises(NotationError, match="flowers are off"):
        parse_tiles("123b 2s", flowers=False)


def test_format_round_trips_both_forms() -> None:
    tiles = parse_tiles("W 9c 1b 1b P 2s 7d 1f")
    compact = format_tiles(tiles)
    assert compact == "11b 9c 7d W P 1f 2s"
    assert sorted(parse_tiles(compact)) == sorted(tiles)
    assert parse_tiles(format_tiles(tiles, compact=False)) == sorted(tiles)


def test_the_set_has_144_tiles_or_136_without_flowers() -> None:
    tiles = full_set()
    assert len(tiles) == 144 and len(full_set(flowers=False)) == 136
    assert all(tiles.count(t) == 4 for t in Tile if not t.is_bonus)
    assert all(tiles.count(t) == 1 for t in Tile if t.is_bonus)
    assert len(MAJORS) == 13


def test_tile_groups_follow_r1_2() -> None:
    assert Tile.parse("1b").is_terminal and Tile.parse("9d").is_major and Tile.WEST.is_major
    assert Tile.parse("5c").is_simple and not Tile.parse("5c").is_major
    assert Tile.parse("3s").is_bonus and Tile.parse("3s").rank == 3
    assert repr(Tile.parse("P")) == "Tile.WHITE" and str(Tile.WHITE) == "P"
