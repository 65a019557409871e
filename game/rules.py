"""House-rule options (R13 defaults): a frozen value a table chooses once and stores with every game."""

from __future__ import annotations

import dataclasses
import difflib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

__all__ = ["Rules", "OptionError"]


class OptionError(ValueError):
    """An unknown option name or a value the option does not take."""


@dataclass(frozen=True, slots=True)
class Rules:
    """Every house-rule option of the rule book (docs/rules.md); the defaults are the ``classical`` ruleset (R13)."""

    flowers: bool = True  # R1.3
    game_length: Literal["full", "east"] = "full"  # R2.2
    dealer_keeps_on_washout: bool = True  # R2.3
    starting_score: int = 2000  # R2.4
    dead_wall: Literal[14, 16] = 14  # R3.2
    sacred_discard: bool = True  # R6.7
    round_points: bool = False  # R8
    win_points: Literal[20, 10] = 20  # R8.1
    double_wind_pair: Literal[4, 2] = 4  # R8.3
    limit: Literal[500, 1000, 2000] = 500  # R8.6
    bouquet_doubles: Literal[1, 2] = 1  # R9
    concealed_doubles: Literal[1, 2] = 1  # R9
    earthly_half_limit: bool = False  # R10.2
    auto_limit: bool = False  # R10.6
    losers_settle: bool = True  # R11.2
    pao: bool = True  # R11.3
    bonus_points: Literal[4, 0] = 4  # R8.4 (R14: 0)
    no_points_double: bool = False  # R14: a hand whose sets and pair score no points earns 1 double
    concealed_discard_points: Literal[0, 10] = 0  # R14: a concealed hand won on a discard
    payment: Literal["all", "discarder"] = "all"  # R11.1, or R14's payment by the discarder
    earthly_self_drawn: bool = False  # R14: Earthly Hand also self-drawn in a non-dealer's first turn
    claim_pause: bool = False  # R6.9: every discard (and added kong) opens a window for every other seat
    pair_wait_points: bool = False  # R16: +2 (simples) / +4 (majors) when the winning tile completes the pair
    own_bonus: Literal["each", "both"] = "each"  # R9 (each 1 double), R16 (1 double only for both together)
    three_concealed_pungs: bool = False  # R16: 1 double for three concealed pungs or kongs, on every hand
    majors_double: bool = False  # R16: 1 double for a winning hand of terminals and honours only
    loose_tile_double: bool = False  # R16: 1 double for a win on a loose tile
    robbing_double: bool = False  # R16: robbing the kong is 1 double instead of 2 points
    dragon_wind_doubles: bool = False  # R16: little/big three dragons, little/big four joys on every hand
    loser_pairs: Literal["best", "all"] = "best"  # R11.2 (the best pair) or R16 (every pair)
    claimed_kong_concealed: bool = False  # R16: a kong claimed with three concealed counts as concealed
    special_hands: Literal["none", "dmjl", "bmja"] = "none"  # R16, R17: the book's own special hands
    nine_wins_limit: bool = False  # R16: the dealer's ninth win in a row is a limit hand; the deal passes
    only_tile_points: bool = True  # R8.5 (R17: off)
    flush_doubles: Literal["classical", "purity"] = "classical"  # R9, or R17's Purity alone
    max_chows: Literal[4, 1] = 4  # R17: at most one chow in a winning hand
    calling_limits: bool = False  # R17: a loser one tile short of a limit hand earns a share of the limit
    seat_draw: bool = False  # R2.6: the seats are drawn when a table's game starts (off: order of arrival)
    original_call: bool = False  # R5.4: a ready hand may be declared with the first discard; 1 double at the win
    dangerous_game: bool = False  # R11.6: a dangerous discard that helps the winner makes its discarder pay for all

    def __post_init__(self) -> None:
        for name, allowed in _ALLOWED.items():
            value = getattr(self, name)
            if allowed is bool:
                if not isinstance(value, bool):
                    raise OptionError(f"option {name!r} takes true or false, not {value!r}")
            elif isinstance(allowed, range):
                if isinstance(value, bool) or not isinstance(value, int) or value not in allowed:
                    low, high = allowed.start, allowed.stop - 1
                    raise OptionError(f"option {name!r} takes a whole number from {low:,} to {high:,}, not {value!r}")
            elif isinstance(allowed, tuple) and (value not in allowed or isinstance(value, bool)):
                choices = ", ".join(repr(v) for v in allowed)
                raise OptionError(f"option {name!r} takes one of {choices}, not {value!r}")

    def with_overrides(self, overrides: Mapping[str, object]) -> Rules:
        """A copy with the named options changed.

        :raises OptionError: on an unknown option or a value it does not take.
        """
        unknown = sorted(set(overrides) - set(_ALLOWED))
        if unknown:
            close = difflib.get_close_matches(unknown[0], sorted(_ALLOWED), n=1)
            if close:
                raise OptionError(f"unknown option {unknown[0]!r} — did you mean {close[0]!r}?")
            raise OptionError(f"unknown option {unknown[0]!r}; options are {', '.join(_ALLOWED)}")
        return dataclasses.replace(self, **overrides)  # type: ignore[arg-type]

    def to_json(self) -> dict[str, object]:
        """Every option by name, for storage and display."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}  # every option is a plain value

    @classmethod
    def from_json(cls, data: Mapping[str, object]) -> Rules:
        """Rules from stored options (missing ones take their defaults).

        :raises OptionError: on an unknown option or a bad value.
        """
        return cls().with_overrides(data)

    def canonical(self) -> str:
        """Stable text of every option, for digests. An option added later is left out while it has
        its default, so the versions and digests of rules without it stay what they were.
        """
        options = self.to_json()
        for name, default in _LATER.items():
            if options[name] == default and type(options[name]) is type(default):
                del options[name]
        return json.dumps(options, sort_keys=True, separators=(",", ":"))


# R2.4: a score is stored in a 32-bit column; a starting score of at most a million leaves room for
# thousands of limit hands either way (docs/protocol.md, "Limits").
STARTING_SCORE = range(0, 1_000_001)

# Options added after games were stored, with their defaults: see `Rules.canonical`.
_LATER: dict[str, object] = {
    "claim_pause": False,
    "pair_wait_points": False,
    "own_bonus": "each",
    "three_concealed_pungs": False,
    "majors_double": False,
    "loose_tile_double": False,
    "robbing_double": False,
    "dragon_wind_doubles": False,
    "loser_pairs": "best",
    "claimed_kong_concealed": False,
    "special_hands": "none",
    "nine_wins_limit": False,
    "only_tile_points": True,
    "flush_doubles": "classical",
    "max_chows": 4,
    "calling_limits": False,
    "seat_draw": False,
    "original_call": False,
    "dangerous_game": False,
}

_ALLOWED: dict[str, type | range | tuple[object, ...]] = {
    "flowers": bool,
    "game_length": ("full", "east"),
    "dealer_keeps_on_washout": bool,
    "starting_score": STARTING_SCORE,
    "dead_wall": (14, 16),
    "sacred_discard": bool,
    "round_points": bool,
    "win_points": (20, 10),
    "double_wind_pair": (4, 2),
    "limit": (500, 1000, 2000),
    "bouquet_doubles": (1, 2),
    "concealed_doubles": (1, 2),
    "earthly_half_limit": bool,
    "auto_limit": bool,
    "losers_settle": bool,
    "pao": bool,
    "bonus_points": (4, 0),
    "no_points_double": bool,
    "concealed_discard_points": (0, 10),
    "payment": ("all", "discarder"),
    "earthly_self_drawn": bool,
    "claim_pause": bool,
    "pair_wait_points": bool,
    "own_bonus": ("each", "both"),
    "three_concealed_pungs": bool,
    "majors_double": bool,
    "loose_tile_double": bool,
    "robbing_double": bool,
    "dragon_wind_doubles": bool,
    "loser_pairs": ("best", "all"),
    "claimed_kong_concealed": bool,
    "special_hands": ("none", "dmjl", "bmja"),
    "nine_wins_limit": bool,
    "only_tile_points": bool,
    "flush_doubles": ("classical", "purity"),
    "max_chows": (4, 1),
    "calling_limits": bool,
    "seat_draw": bool,
    "original_call": bool,
    "dangerous_game": bool,
}
