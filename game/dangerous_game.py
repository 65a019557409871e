"""The Dangerous Game (R11.6): which discards the table judges dangerous, from what every seat sees.

A tile is *dangerous* to discard when the sets another seat has declared (all public, R12.1) make
an obvious big hand that the tile could help finish, or when the live wall is nearly empty and the
tile has not been seen at all. Only public facts go in: every seat's declared sets, every discard
and the live wall's count, so every seat can check the judgement for itself.

>>> from game.melds import Meld, MeldKind
>>> from game.notation import parse_tiles
>>> sets = [Meld(MeldKind.PUNG, tuple(parse_tiles(t))) for t in ("222b", "456b", "999b")]
>>> dangers([sets, [], [], []], [], 40)[1][0]  # seat 0 shows three bamboo sets: a flush in the making
('1b', 'seat 0 shows a bamboo flush (three or more sets, all bamboo)')
>>> dangers([sets, [], [], []], [], 40)[0]  # a seat's own sets never endanger it
[]
"""

from __future__ import annotations

from collections.abc import Sequence

from game.melds import Meld, MeldKind
from game.tiles import GREENS, NUM_PLAYING_KINDS, TILES, Tile

__all__ = ["LATE_WALL", "dangers", "danger_of"]

LATE_WALL = 5
"""With this many live-wall tiles or fewer, every tile nobody has seen yet is dangerous."""


def _suit_name(tile: Tile) -> str:
    return {"b": "bamboo", "c": "characters", "d": "dots"}[tile.code[1]]


def _seat_dangers(melds: Sequence[Meld]) -> dict[Tile, str]:
    """What one seat's declared sets make dangerous, tile by tile, with the reason."""
    found: dict[Tile, str] = {}
    tiles = [t for m in melds for t in m.tiles]
    pungs = {m.tiles[0] for m in melds if m.kind is not MeldKind.CHOW}
    if len(melds) >= 3:
        suits = {t.code[1] for t in tiles if not t.is_honour}
        if len(suits) == 1 and not any(t.is_honour for t in tiles):
            name = _suit_name(tiles[0])
            for t in TILES[:27]:
                if t.code[1] == tiles[0].code[1]:
                    found.setdefault(t, f"a {name} flush (three or more sets, all {name})")
        if all(t in GREENS for t in tiles):
            for t in sorted(GREENS):
                found.setdefault(t, "All Green (three or more sets, all green)")
        if all(t.is_terminal for t in tiles):
            for t in TILES[:27]:
                if t.is_terminal:
                    found.setdefault(t, "All Terminals (three or more sets, all terminals)")
    winds = sum(1 for t in pungs if t.is_wind)
    dragons = sum(1 for t in pungs if t.is_dragon)
    if winds >= 3:
        for t in TILES[27:31]:
            if t not in pungs:
                found.setdefault(t, f"{winds} wind sets")
    if dragons >= 2:
        for t in TILES[31:34]:
            if t not in pungs:
                found.setdefault(t, f"{dragons} dragon sets")
    if len(melds) >= 3 and all(t.is_honour for t in tiles):
        for t in TILES[27:34]:
            if t not in pungs:
                found.setdefault(t, "All Honours (three or more sets, all honours)")
    return found


def dangers(melds: Sequence[Sequence[Meld]], seen: Sequence[Tile], live: int) -> list[list[tuple[str, str]]]:
    """For each seat as the discarder, the tiles dangerous for it to discard, as sorted ``(code, reason)``.

    ``melds`` are every seat's declared sets, ``seen`` every tile shown outside them (the discards
    left on the table) and ``live`` the live wall's count. A seat's own sets never endanger it.
    """
    per_seat = [_seat_dangers(m) for m in melds]
    late: dict[Tile, str] = {}
    if live <= LATE_WALL:
        shown = [0] * NUM_PLAYING_KINDS
        for t in seen:
            shown[t] += 1
        for seat_melds in melds:
            for m in seat_melds:
                for t in m.tiles:
                    shown[t] += 1
        late = {TILES[k]: f"not yet seen, {live} tiles left in the live wall" for k in range(34) if not shown[k]}
    out = []
    for discarder in range(len(melds)):
        found: dict[Tile, str] = {}
        for other, by_tile in enumerate(per_seat):
            if other != discarder:
                for t, why in by_tile.items():
                    found.setdefault(t, f"seat {other} shows {why}")
        for t, why in late.items():
            found.setdefault(t, why)
        out.append(sorted((t.code, why) for t, why in found.items()))
    return out


def danger_of(
    tile: Tile, discarder: int, melds: Sequence[Sequence[Meld]], seen: Sequence[Tile], live: int
) -> str | None:
    """Why discarding ``tile`` is dangerous for ``discarder`` (R11.6), or None when it is not."""
    return dict(dangers(melds, seen, live)[discarder]).get(tile.code)
