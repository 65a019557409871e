"""Reading the JSON documents that ``sparrow score`` and ``sparrow settle`` take, with clear refusals.

A document names only fields the command knows (a near-miss name is answered with the right one),
and describes only a hand some deal can produce: each refusal names the rule it breaks.
"""

from __future__ import annotations

import difflib
import json
import sys
from collections.abc import Collection, Mapping
from pathlib import Path

from game.hand import counts_of
from game.melds import Meld, MeldKind
from game.notation import parse_tiles
from game.rules import Rules
from game.rulesets import ruleset
from game.scoring import WinningHand
from game.tiles import NUM_PLAYING_KINDS, Tile

__all__ = [
    "InputError",
    "SETTLE_FIELDS",
    "check_fields",
    "is_loser",
    "read_document",
    "rules_of",
    "winning_hand",
    "loser_hand",
]

_COMMON_FIELDS = ("concealed", "melds", "bonus", "seat_wind", "round_wind", "dealer", "ruleset", "overrides", "loser")
WIN_FIELDS = (
    *_COMMON_FIELDS,
    "winning_tile",
    "win_by",
    "last_tile",
    "first_turn",
    "loose_kongs",
    "original_call",
)
LOSER_FIELDS = _COMMON_FIELDS
MELD_FIELDS = ("kind", "tiles", "exposed", "claimed")
SETTLE_FIELDS = ("ruleset", "overrides", "winner", "dealer", "discarder", "values", "pao", "dangerous")
_KNITTED = "knitted"  # R17.4: a knitted triple or couple, exposed by the winning discard


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


def check_fields(data: Mapping[str, object], known: Collection[str], where: str = "") -> None:
    """Refuse a field name outside ``known``, suggesting the nearest known name when there is one.

    :raises InputError: ``unknown field 'orginal_call' — did you mean 'original_call'?``
    """
    for name in data:
        if name in known:
            continue
        close = difflib.get_close_matches(name, sorted(known), n=1)
        hint = f" — did you mean {close[0]!r}?" if close else f"; the fields are {', '.join(known)}"
        raise InputError(f"{where}unknown field {name!r}{hint}")


def _field(data: Mapping[str, object], name: str, kind: type, default: object = None) -> object:
    value = data.get(name, default)
    if value is None and default is None:
        raise InputError(f"missing field {name!r}")
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise InputError(f"field {name!r} must be {kind.__name__}, not {value!r}")
    return value


def is_loser(data: Mapping[str, object]) -> bool:
    """Whether the document asks for a loser's hand (``"loser": true``)."""
    return bool(_field(data, "loser", bool, False))


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


def _knitted(tiles: tuple[Tile, ...], where: str, rules: Rules) -> None:
    """R17.4: a knitted triple (one rank in all three suits) or couple (one rank in two suits)."""
    if rules.special_hands != "bmja":
        raise InputError(f"{where}: a knitted set belongs only to bmja's Knitting and Triple Knitting (R17.4)")
    suits = {t.suit for t in tiles}
    if len(tiles) not in (2, 3) or None in suits or len(suits) != len(tiles) or len({t.rank for t in tiles}) != 1:
        raise InputError(f"{where} is not a knitted set: one rank in two or three suits (R17.4)")


def _meld(raw: object, index: int, rules: Rules) -> Meld | tuple[Tile, ...]:
    """A declared set, or the tiles of a knitted set the winning discard exposed (R17.4)."""
    where = f"melds[{index}]"
    if not isinstance(raw, dict):
        raise InputError(f"{where} must be an object like {{'kind': 'pung', 'tiles': 'RRR', 'exposed': true}}")
    check_fields(raw, MELD_FIELDS, f"{where}: ")
    if raw.get("kind") == _KNITTED:
        tiles = tuple(sorted(_tiles(raw, "tiles")))
        _knitted(tiles, f"{where}: {raw.get('tiles')!r}", rules)
        if not _field(raw, "exposed", bool, True) or _field(raw, "claimed", bool, False):
            raise InputError(
                f"{where}: a knitted set is never declared nor claimed (R5.2, R6.1); concealed, its tiles are"
                " written in 'concealed'"
            )
        return tiles
    try:
        kind = MeldKind(str(raw.get("kind")))
    except ValueError:
        raise InputError(f"{where}.kind must be chow, pung, kong or knitted, not {raw.get('kind')!r}") from None
    tiles = tuple(sorted(_tiles(raw, "tiles")))
    exposed = _field(raw, "exposed", bool, True)
    if any(t.is_bonus for t in tiles):
        raise InputError(f"{where}: bonus tiles are laid aside, never part of a set (R4.2, R4.3)")
    size = 4 if kind is MeldKind.KONG else 3
    same = len(set(tiles)) == 1
    run = kind is MeldKind.CHOW and len(tiles) == 3 and [t - tiles[0] for t in tiles] == [0, 1, 2]
    if run and tiles[0].suit != tiles[2].suit:
        raise InputError(f"{where}: {raw.get('tiles')!r} is not a chow: a chow is three in a row in one suit (R7.1)")
    if len(tiles) != size or (kind is MeldKind.CHOW and not run) or (kind is not MeldKind.CHOW and not same):
        raise InputError(f"{where}: {raw.get('tiles')!r} is not a {kind.value} (R7.1)")
    if not exposed and kind is not MeldKind.KONG:
        raise InputError(f"{where}: only a kong can be declared concealed (R5.2)")
    claimed = _field(raw, "claimed", bool, False)
    if claimed and (kind is not MeldKind.KONG or not exposed):
        raise InputError(f"{where}: only an exposed kong is claimed from a discard with three held (R6.1)")
    return Meld(kind, tiles, concealed=not exposed, claimed=tiles[0] if claimed else None)


def _wind(data: Mapping[str, object], name: str, rule: str) -> Tile:
    tile = _tile(data, name)
    if not tile.is_wind:
        raise InputError(f"{name} must be a wind, E, S, W or N ({rule}), not {tile}")
    return tile


def _common(
    data: Mapping[str, object], rules: Rules
) -> tuple[list[int], tuple[Meld, ...], list[Tile], tuple[Tile, ...], Tile, Tile]:
    """(concealed counts, declared melds, exposed knitted tiles, bonus, seat wind, round wind)."""
    try:
        concealed = counts_of(_tiles(data, "concealed"))
    except InputError:
        raise
    except ValueError as exc:
        raise InputError(f"concealed: {exc}") from None
    raw_melds = _field(data, "melds", list, [])
    assert isinstance(raw_melds, list)
    melds: list[Meld] = []
    knitted: list[tuple[Tile, ...]] = []
    for i, raw in enumerate(raw_melds):
        meld = _meld(raw, i, rules)
        if isinstance(meld, Meld):
            melds.append(meld)
        else:
            knitted.append(meld)
    if len(knitted) > 1:
        raise InputError(
            "a discard is claimed only to win, kong, pung or chow (R6.1), so a knitted set is exposed only by"
            f" the winning discard, and only one: not {len(knitted)}"
        )
    chows = sum(1 for m in melds if m.kind is MeldKind.CHOW)
    if chows > rules.max_chows:
        raise InputError(
            f"a player who has declared a chow is offered no other (R17.2, max_chows {rules.max_chows}),"
            f" so the hand cannot show {chows}"
        )
    bonus = tuple(_tiles(data, "bonus", "", flowers=rules.flowers))  # R1.3: refused when flowers are off
    suited = [t for t in bonus if not t.is_bonus]
    if suited:
        raise InputError(f"bonus: only flowers and seasons are laid aside as bonus tiles (R1.1, R4.2), not {suited[0]}")
    if len(set(bonus)) != len(bonus):
        raise InputError("bonus: each flower and season is in the set once (R1.1), so no bonus tile twice")
    seat_wind = _wind(data, "seat_wind", "R2.5")
    round_wind = _wind(data, "round_wind", "R2.2")
    if rules.game_length == "east" and round_wind != Tile.EAST:
        raise InputError(f"a game of the East round only (game_length east, R2.2) has no {round_wind} round")
    return concealed, tuple(melds), [t for k in knitted for t in k], bonus, seat_wind, round_wind


def _dealer(data: Mapping[str, object], seat_wind: Tile) -> bool:
    """R2.1: the dealer sits East, so ``dealer`` follows the seat wind (and may be left out)."""
    east = seat_wind == Tile.EAST
    dealer = _field(data, "dealer", bool, east)
    if dealer and not east:
        raise InputError(f"the dealer sits East (R2.1), so a dealer's seat_wind is E, not {seat_wind}")
    if east and not dealer:
        raise InputError("the dealer sits East (R2.1), so seat_wind E is the dealer's: dealer cannot be false")
    return east


def winning_hand(data: Mapping[str, object], rules: Rules) -> WinningHand:
    """A :class:`WinningHand` from ``sparrow score``'s input document.

    :raises InputError: on an unknown field, a malformed value, or facts no deal can produce.
    """
    check_fields(data, WIN_FIELDS)
    concealed, melds, knitted, bonus, seat_wind, round_wind = _common(data, rules)
    win_by = _field(data, "win_by", str)
    loose_kongs = _field(data, "loose_kongs", int, 0)
    assert isinstance(win_by, str) and isinstance(loose_kongs, int)
    winning_tile = _tile(data, "winning_tile")
    if knitted:
        why = (
            "a discard is claimed only to win, kong, pung or chow (R6.1), so a knitted set is exposed only when"
            " the winning discard (or robbed tile, R6.5) completes it"
        )
        if win_by not in ("discard", "robbed_kong"):
            raise InputError(f"{why}: win_by must be discard or robbed_kong, not {win_by!r}")
        if winning_tile not in knitted:
            raise InputError(f"{why}: it must hold the winning tile, {winning_tile}")
        for t in knitted:  # scored as the concealed tiles plus the winning discard, as every special hand (R17.4)
            concealed[t] += 1
    return WinningHand(
        concealed=tuple(concealed),
        melds=melds,
        bonus=bonus,
        winning_tile=winning_tile,
        win_by=win_by,
        seat_wind=seat_wind,
        round_wind=round_wind,
        dealer=_dealer(data, seat_wind),
        last_tile=bool(_field(data, "last_tile", bool, False)),
        first_turn=bool(_field(data, "first_turn", bool, False)),
        loose_kongs=loose_kongs,
        original_call=bool(_field(data, "original_call", bool, False)),
    )


def loser_hand(
    data: Mapping[str, object], rules: Rules
) -> tuple[list[int], tuple[Meld, ...], tuple[Tile, ...], Tile, Tile]:
    """(concealed counts, melds, bonus, seat wind, round wind) of a loser's hand (R11.2).

    :raises InputError: on an unknown field (a winner's too), if the hand holds more than the 13
        tiles a loser keeps (a kong counting as three, R4.1), or a fifth tile of a kind (R1.1).
    """
    for name in data:
        if name in WIN_FIELDS and name not in LOSER_FIELDS:
            raise InputError(f"field {name!r} describes a win; a loser's hand (R11.2) has none")
    check_fields(data, LOSER_FIELDS)
    concealed, melds, knitted, bonus, seat_wind, round_wind = _common(data, rules)
    if knitted:
        raise InputError("a knitted set is exposed only by the winning discard (R6.1, R17.4), never in a loser's hand")
    _dealer(data, seat_wind)
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
