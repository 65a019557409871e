"""Actions a seat may take, as values that read back from text and JSON (R0 tile codes)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum

from game.errors import InvalidActionError, Reason
from game.tiles import Tile

__all__ = ["Action", "ActionType"]


class ActionType(StrEnum):
    """The kinds of action; the value is the JSON ``type``."""

    DISCARD = "discard"
    WIN = "win"
    KONG = "kong"
    PUNG = "pung"
    CHOW = "chow"
    PASS = "pass"
    READY = "ready"
    ORIGINAL_CALL = "original_call"  # discard the tile and declare Original Call (R5.4)


_NEEDS_TILE = {ActionType.DISCARD, ActionType.ORIGINAL_CALL}
_MAY_TILE = {ActionType.KONG}


@dataclass(frozen=True, slots=True)
class Action:
    """One action. ``tile`` names the tile of a discard or of a kong declared in one's own turn;
    ``tiles`` the two tiles from the hand that make a chow with the discard.

    >>> Action.parse("chow 4b 6b")
    Action.parse('chow 4b 6b')
    >>> Action.parse("discard 5d").to_json()
    {'type': 'discard', 'tile': '5d'}
    """

    type: ActionType
    tile: Tile | None = None
    tiles: tuple[Tile, Tile] | None = None

    @classmethod
    def parse(cls, text: str) -> Action:
        """An action from text: ``discard 5b``, ``kong 5b``, ``kong``, ``pung``, ``chow 4b 6b``, ``win``,
        ``pass``, ``ready`` or ``original_call 5b`` (discard 5b declaring Original Call, R5.4).

        :raises InvalidActionError: if ``text`` is not an action.
        """
        if not isinstance(text, str):
            raise InvalidActionError(Reason.MALFORMED, f"expected an action as text, got {text!r}")
        words = text.split()
        if not words:
            raise InvalidActionError(Reason.MALFORMED, "empty action")
        data: dict[str, object] = {"type": words[0]}
        if words[0] == "chow":
            data["tiles"] = words[1:]
        elif len(words) == 2:
            data["tile"] = words[1]
        elif len(words) > 2:
            raise InvalidActionError(Reason.MALFORMED, f"too many words in action {text!r}")
        return cls.from_json(data)

    @classmethod
    def from_json(cls, data: object) -> Action:
        """An action from its JSON form, e.g. ``{"type": "chow", "tiles": ["4b", "6b"]}``.

        :raises InvalidActionError: naming what is wrong with ``data``.
        """
        if isinstance(data, Action):
            return data
        if not isinstance(data, Mapping):
            raise InvalidActionError(Reason.MALFORMED, f"an action is an object with a 'type', not {data!r}")
        extra = set(data) - {"type", "tile", "tiles"}
        if extra:
            raise InvalidActionError(Reason.MALFORMED, f"unknown field {sorted(extra)[0]!r} in action {dict(data)!r}")
        if "type" not in data:
            raise InvalidActionError(
                Reason.MALFORMED, f"an action needs a 'type', e.g. {{'type': 'pass'}}; got {dict(data)!r}"
            )
        raw_type = data["type"]
        try:
            kind = ActionType(str(raw_type)) if isinstance(raw_type, str) else None
        except ValueError:
            kind = None
        if kind is None:
            names = ", ".join(t.value for t in ActionType)
            raise InvalidActionError(Reason.UNKNOWN_TYPE, f"unknown action type {raw_type!r}; one of {names}") from None
        tile = _tile_field(data, kind)
        tiles = _tiles_field(data, kind)
        return cls(kind, tile, tiles)

    def to_json(self) -> dict[str, object]:
        """Plain JSON data with R0 tile codes."""
        out: dict[str, object] = {"type": self.type.value}
        if self.tile is not None:
            out["tile"] = self.tile.code
        if self.tiles is not None:
            out["tiles"] = [t.code for t in self.tiles]
        return out

    def __str__(self) -> str:
        parts = [self.type.value]
        if self.tile is not None:
            parts.append(self.tile.code)
        if self.tiles is not None:
            parts.extend(t.code for t in self.tiles)
        return " ".join(parts)

    def __repr__(self) -> str:
        return f"Action.parse({str(self)!r})"


def _parse_code(value: object, field: str) -> Tile:
    if not isinstance(value, str):
        raise InvalidActionError(Reason.BAD_TILE, f"{field} must be a tile code like '5b', not {value!r}")
    try:
        return Tile.parse(value)
    except ValueError as exc:
        raise InvalidActionError(Reason.BAD_TILE, f"{field}: {exc}") from None


def _tile_field(data: Mapping[str, object], kind: ActionType) -> Tile | None:
    if "tile" not in data or data["tile"] is None:
        if kind in _NEEDS_TILE:
            raise InvalidActionError(Reason.MALFORMED, f"a {kind.value} names its tile, e.g. {{'tile': '5b'}}")
        return None
    if kind not in _NEEDS_TILE and kind not in _MAY_TILE:
        raise InvalidActionError(Reason.MALFORMED, f"a {kind.value} takes no 'tile'")
    return _parse_code(data["tile"], "tile")


def _tiles_field(data: Mapping[str, object], kind: ActionType) -> tuple[Tile, Tile] | None:
    raw = data.get("tiles")
    if kind is not ActionType.CHOW:
        if raw is not None:
            raise InvalidActionError(Reason.MALFORMED, f"a {kind.value} takes no 'tiles'")
        return None
    if not isinstance(raw, (list, tuple)) or len(raw) != 2:
        raise InvalidActionError(
            Reason.MALFORMED, f"a chow names the two tiles from your hand, e.g. ['4b', '6b'], not {raw!r}"
        )
    a, b = sorted((_parse_code(raw[0], "tiles[0]"), _parse_code(raw[1], "tiles[1]")))
    return (a, b)
