"""Reading the JSON documents that ``sparrow score`` and ``sparrow settle`` take, with clear refusals."""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from pathlib import Path

from game.hand import counts_of
from game.melds import Meld, MeldKind
from game.notation import parse_tiles
from game.rules import Rules
from game.rulesets import ruleset
from game.scoring import WinningHand
from game.tiles import NUM_PLAYING_KINDS, Tile

__all__ = ["InputError", "read_document", "rules_of", "winning_hand", "loser_hand"]


class InputError(ValueError):
    """The input document is not what the command expects; the message says what is wrong."""


def read_document(source: str) -> dict[str, object]:
    """The JSON object in file ``source`` (``-`` for standard input)."""
    try:
        text = sys.stdin.read() if source == "-" else Path(source).read_text(encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot read {source}: {exc.strerror}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"{source} is not JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
    if not isinstance(data, dict):
        raise InputError(f"{source} must hold one JSON object")
    return data


def _field(data: Mapping[str, object], name: str, kind: type, default: object = None) -> object:
    value = data.get(name, default)
    if value is None and default is None:
        raise InputError(f"missing field {name!r}")
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise InputError(f"field {name!r} must be {kind.__name__}, not {value!r}")
    return value


def rules_of(data: Mapping[str, object], named: str | None = None) -> Rules:
    """The ruleset named in ``data`` (else ``named``, else classical) with its overrides.

    :raises InputError: if ``data`` and ``named`` name different rulesets.
    """
    name = _field(data, "ruleset", str, named or "classical")
    if named is not None and name != named:
        raise InputError(f"the document's ruleset {name!r} is not --ruleset {named!r}")
    overrides = _field(data, "overrides", dict, {})
    assert isinstance(name, str) and isinstance(overrides, dict)
    try:
        return ruleset(name, overrides).rules
    except ValueError as exc:
        raise InputError(str(exc)) from None


def _tiles(data: Mapping[str, object], name: str, default: str | None = None, *, flowers: bool = True) -> list[Tile]:
    text = _field(data, name, str, default)
    assert isinstance(text, str)
    try:
        return parse_tiles(text, flowers=flowers)
    except ValueError as exc:
        raise InputError(f"{name}: {exc}") from None


def _tile(data: Mapping[str, object], name: str) -> Tile:
    tiles = _tiles(data, name)
    if len(tiles) != 1:
        raise InputError(f"{name} must be one tile, not {data[name]!r}")
    return tiles[0]


def _meld(raw: object, index: int) -> Meld:
    if not isinstance(raw, dict):
        raise InputError(f"melds[{index}] must be an object like {{'kind': 'pung', 'tiles': 'RRR', 'exposed': true}}")
    try:
        kind = MeldKind(str(raw.get("kind")))
    except ValueError:
        raise InputError(f"melds[{index}].kind must be chow, pung or kong, not {raw.get('kind')!r}") from None
    tiles = tuple(sorted(_tiles(raw, "tiles")))
    exposed = _field(raw, "exposed", bool, True)
    size = 4 if kind is MeldKind.KONG else 3
    same = len(set(tiles)) == 1
    run = kind is MeldKind.CHOW and tiles[0].is_suit and [t - tiles[0] for t in tiles] == [0, 1, 2]
    if len(tiles) != size or (kind is MeldKind.CHOW and not run) or (kind is not MeldKind.CHOW and not same):
        raise InputError(f"melds[{index}]: {raw.get('tiles')!r} is not a {kind.value}")
    if tiles[0].is_bonus:
        raise InputError(f"melds[{index}]: bonus tiles are never part of a set")
    if not exposed and kind is not MeldKind.KONG:
        raise InputError(f"melds[{index}]: only a kong can be declared concealed")
    claimed = _field(raw, "claimed", bool, False)
    if claimed and (kind is not MeldKind.KONG or not exposed):
        raise InputError(f"melds[{index}]: only an exposed kong is claimed from a discard with three held (R6.1)")
    return Meld(kind, tiles, concealed=not exposed, claimed=tiles[0] if claimed else None)


def _common(
    data: Mapping[str, object], rules: Rules
) -> tuple[list[int], tuple[Meld, ...], tuple[Tile, ...], Tile, Tile]:
    try:
        concealed = counts_of(_tiles(data, "concealed"))
    except InputError:
        raise
    except ValueError as exc:
        raise InputError(f"concealed: {exc}") from None
    raw_melds = _field(data, "melds", list, [])
    assert isinstance(raw_melds, list)
    melds = tuple(_meld(m, i) for i, m in enumerate(raw_melds))
    bonus = tuple(_tiles(data, "bonus", "", flowers=rules.flowers))  # R1.3: refused when flowers are off
    return concealed, melds, bonus, _tile(data, "seat_wind"), _tile(data, "round_wind")


def winning_hand(data: Mapping[str, object], rules: Rules) -> WinningHand:
    """A :class:`WinningHand` from ``sparrow score``'s input document."""
    concealed, melds, bonus, seat_wind, round_wind = _common(data, rules)
    win_by = _field(data, "win_by", str)
    loose_kongs = _field(data, "loose_kongs", int, 0)
    assert isinstance(win_by, str) and isinstance(loose_kongs, int)
    return WinningHand(
        concealed=tuple(concealed),
        melds=melds,
        bonus=bonus,
        winning_tile=_tile(data, "winning_tile"),
        win_by=win_by,
        seat_wind=seat_wind,
        round_wind=round_wind,
        dealer=bool(_field(data, "dealer", bool, False)),
        last_tile=bool(_field(data, "last_tile", bool, False)),
        first_turn=bool(_field(data, "first_turn", bool, False)),
        loose_kongs=loose_kongs,
        original_call=bool(_field(data, "original_call", bool, False)),
    )


def loser_hand(
    data: Mapping[str, object], rules: Rules
) -> tuple[list[int], tuple[Meld, ...], tuple[Tile, ...], Tile, Tile]:
    """(concealed counts, melds, bonus, seat wind, round wind) of a loser's hand (R11.2).

    :raises InputError: if the hand holds more than the 13 tiles a loser keeps (a kong counting as
        three, R4.1), or a fifth tile of a kind (R1.1).
    """
    concealed, melds, bonus, seat_wind, round_wind = _common(data, rules)
    size = sum(concealed[:NUM_PLAYING_KINDS]) + 3 * len(melds)
    if size > 13 or len(melds) > 4:
        raise InputError(f"a loser holds at most 13 tiles, a kong counting as three (R4.1), not {size}")
    held = list(concealed[:NUM_PLAYING_KINDS])
    for m in melds:
        for t in m.tiles:
            held[t] += 1
    over = [k for k in range(NUM_PLAYING_KINDS) if held[k] > 4]
    if over:
        raise InputError(f"the hand holds {held[over[0]]} of {Tile(over[0])}; there are only four (R1.1)")
    return concealed, melds, bonus, seat_wind, round_wind
