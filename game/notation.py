"""R0 notation: parse and format hands in the spaced form (``1b 2b W``) and the compact form
(``12b W``); both are accepted everywhere, mixed freely.
"""

from __future__ import annotations

from collections.abc import Iterable

from game.tiles import TILES, Tile

__all__ = ["parse_tiles", "format_tiles", "NotationError"]

_SUIT_BASE = {"b": 0, "c": 9, "d": 18}
_BONUS_BASE = {"f": 34, "s": 38}
_HONOURS = {
    "E": Tile.EAST,
    "S": Tile.SOUTH,
    "W": Tile.WEST,
    "N": Tile.NORTH,
    "R": Tile.RED,
    "G": Tile.GREEN,
    "P": Tile.WHITE,
}


class NotationError(ValueError):
    """Text that is not a hand in R0 notation; the message names the bad character."""


def parse_tiles(text: str, *, flowers: bool = True) -> list[Tile]:
    """The tiles written in ``text``, in the order written.

    Digits run before their suit letter, honours repeat, spaces are ignored (R0). With
    ``flowers=False`` any bonus tile is refused (R1.3).

    >>> [str(t) for t in parse_tiles("123b 5d WW 1f")]
    ['1b', '2b', '3b', '5d', 'W', 'W', '1f']
    >>> parse_tiles("12x")
    Traceback (most recent call last):
    ...
    game.notation.NotationError: bad character 'x' at position 3 in '12x'

    :raises NotationError: on any character that is not part of a tile.
    """
    if not isinstance(text, str):
        raise NotationError(f"expected text in R0 notation, got {type(text).__name__}")
    tiles: list[Tile] = []
    digits: list[tuple[int, int]] = []  # (digit, position)
    for pos, ch in enumerate(text, start=1):
        if ch.isspace():
            continue
        if ch in "0123456789":
            digits.append((int(ch), pos))
        elif ch in _SUIT_BASE or ch in _BONUS_BASE:
            if not digits:
                raise NotationError(f"suit letter {ch!r} at position {pos} has no digits before it in {text!r}")
            top = 9 if ch in _SUIT_BASE else 4
            for digit, dpos in digits:
                if not 1 <= digit <= top:
                    raise NotationError(f"bad character {str(digit)!r} at position {dpos} in {text!r} (no {digit}{ch})")
            if ch in _BONUS_BASE and not flowers:
                raise NotationError(
                    f"bonus tile '{digits[0][0]}{ch}' at position {pos} in {text!r}: flowers are off (R1.3)"
                )
            base = _SUIT_BASE.get(ch, _BONUS_BASE.get(ch, 0))
            tiles.extend(TILES[base + digit - 1] for digit, _ in digits)
            digits.clear()
        elif ch in _HONOURS:
            if digits:
                raise NotationError(f"digits before honour {ch!r} at position {pos} in {text!r} need a suit letter")
            tiles.append(_HONOURS[ch])
        else:
            raise NotationError(f"bad character {ch!r} at position {pos} in {text!r}")
    if digits:
        raise NotationError(f"digits at the end of {text!r} need a suit letter (b, c, d, f or s)")
    return tiles


def format_tiles(tiles: Iterable[Tile], *, compact: bool = True, sort: bool = True) -> str:
    """Write ``tiles`` in R0 notation, compact (``234b 55d WWW``) or spaced (``2b 3b 4b``).

    >>> format_tiles(parse_tiles("W 5d 2b 4b 3b 5d W W"))
    '234b 55d WWW'
    >>> format_tiles(parse_tiles("21b"), compact=False, sort=False)
    '2b 1b'
    """
    seq = sorted(tiles) if sort else list(tiles)
    if not compact:
        return " ".join(t.code for t in seq)
    groups: list[str] = []
    run = ""
    run_letter = ""
    for t in seq:
        code = t.code
        if t.is_honour:
            letter, digit = code, code
        else:
            letter, digit = code[1], code[0]
        if letter == run_letter:
            run += digit
            continue
        if run:
            groups.append(run if run_letter.isupper() else run + run_letter)
        run, run_letter = digit, letter
    if run:
        groups.append(run if run_letter.isupper() else run + run_letter)
    return " ".join(groups)
