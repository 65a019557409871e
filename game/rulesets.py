"""Named rulesets (R13, R14): frozen option sets a table picks, overrides, and stores by version."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass

from game.rules import OptionError, Rules

__all__ = ["RULESETS", "Ruleset", "ruleset", "differences", "version"]

RULESETS: dict[str, Rules] = {
    "classical": Rules(),
    "chinese-american": Rules(
        round_points=True,
        auto_limit=True,
        losers_settle=False,
        pao=False,
        dealer_keeps_on_washout=False,
        bonus_points=0,
        no_points_double=True,
        concealed_discard_points=10,
        payment="discarder",
        earthly_self_drawn=True,
    ),
    # R16: the Deutsche Mah-Jongg Liga's book, as KDE Kajongg scores it (docs/scoring.md says where
    # the book and Kajongg part and which one Sparrow follows).
    "dmjl": Rules(
        dead_wall=16,
        pao=False,
        no_points_double=True,
        pair_wait_points=True,
        own_bonus="both",
        three_concealed_pungs=True,
        majors_double=True,
        loose_tile_double=True,
        robbing_double=True,
        dragon_wind_doubles=True,
        loser_pairs="all",
        claimed_kong_concealed=True,
        special_hands="dmjl",
        nine_wins_limit=True,
        original_call=True,
        dangerous_game=True,
    ),
    # R17: the British Mah-Jong Association's book, as KDE Kajongg scores it.
    "bmja": Rules(
        limit=1000,
        pao=False,
        bouquet_doubles=2,
        majors_double=True,
        robbing_double=True,
        claimed_kong_concealed=True,
        loser_pairs="all",
        special_hands="bmja",
        only_tile_points=False,
        flush_doubles="purity",
        max_chows=1,
        calling_limits=True,
        original_call=True,
        dangerous_game=True,
    ),
}


@dataclass(frozen=True, slots=True)
class Ruleset:
    """A named ruleset with a table's overrides applied; ``rules`` is what the engine plays by."""

    name: str
    rules: Rules
    overrides: tuple[tuple[str, object], ...] = ()

    @property
    def version(self) -> str:
        """Stable hash of every option's value: equal versions score every hand the same."""
        return version(self.rules)

    def to_json(self) -> dict[str, object]:
        """Name, overrides, version and every option: what a stored game keeps."""
        return {
            "name": self.name,
            "overrides": dict(self.overrides),
            "version": self.version,
            "options": self.rules.to_json(),
        }


def ruleset(name: str = "classical", overrides: Mapping[str, object] | None = None) -> Ruleset:
    """The ruleset ``name`` with ``overrides`` applied.

    >>> ruleset("classical", {"limit": 1000}).rules.limit
    1000

    :raises OptionError: on an unknown ruleset, option or value.
    """
    if name not in RULESETS:
        raise OptionError(f"unknown ruleset {name!r}; rulesets are {', '.join(RULESETS)}")
    overrides = dict(overrides or {})
    return Ruleset(name, RULESETS[name].with_overrides(overrides), tuple(sorted(overrides.items())))


def version(rules: Rules) -> str:
    """The first 16 hex digits of SHA-256 over the options' canonical text."""
    return hashlib.sha256(rules.canonical().encode()).hexdigest()[:16]


def differences(a: Rules, b: Rules) -> list[tuple[str, object, object]]:
    """Every option on which ``a`` and ``b`` differ, as ``(option, a's value, b's value)``, in option order.

    >>> differences(RULESETS["classical"], RULESETS["classical"].with_overrides({"limit": 1000}))
    [('limit', 500, 1000)]
    """
    left, right = a.to_json(), b.to_json()
    return [(name, left[name], right[name]) for name in left if left[name] != right[name]]
