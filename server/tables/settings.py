"""A table's settings as chosen at creation: name, ruleset, timers, visibility; validated from JSON."""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field

from game.rules import OptionError
from game.rulesets import Ruleset, ruleset
from server.tables.errors import TableError

__all__ = ["TableSettings", "Timers", "clean_text"]

NAME_MAX = 24
TABLE_NAME_MAX = 40


@dataclass(frozen=True, slots=True)
class Timers:
    """Server-side timers in seconds. ``turn=None`` is a relaxed table: no turn clock."""

    turn: float | None = 30.0  # a seat's own turn: then its drawn tile is discarded for it
    claim: float = 6.0  # a claim window: then unanswered seats pass (R6.3)
    ready: float | None = 20.0  # between deals: then every seat is made ready
    grace: float = 60.0  # how long a disconnected seat keeps its place before a bot plays it
    bot_delay: float = 0.8  # how long a bot "thinks" before it acts, so people can follow
    pause: float = 1.5  # R6.9: after a discard, how long a seat with nothing but pass is waited for

    _LIMITS = {
        "turn": (3.0, 600.0),
        "claim": (1.0, 120.0),
        "ready": (3.0, 600.0),
        "grace": (0.0, 3600.0),
        "bot_delay": (0.0, 10.0),
        "pause": (0.5, 10.0),
    }

    @classmethod
    def from_json(cls, data: object) -> Timers:
        """Timers from a JSON object; missing keys keep their defaults.

        :raises TableError: naming the field and its allowed range when a value is out of bounds.
        """
        if data is None:
            return cls()
        if not isinstance(data, Mapping):
            raise TableError("table/bad_timers", 'timers must be an object such as {"turn": 30, "claim": 6}')
        values: dict[str, float | None] = {}
        for key, value in data.items():
            if key not in cls._LIMITS:
                raise TableError("table/bad_timers", f"unknown timer {key!r}; timers are {', '.join(cls._LIMITS)}")
            if value is None and key in ("turn", "ready"):
                values[key] = None
                continue
            low, high = cls._LIMITS[key]
            if isinstance(value, bool) or not isinstance(value, int | float) or not low <= value <= high:
                bounds = f"from {low:g} to {high:g}"
                raise TableError("table/bad_timers", f"timer {key!r} must be a number of seconds {bounds}")
            values[key] = float(value)
        return cls(**values)  # type: ignore[arg-type]

    def to_json(self) -> dict[str, object]:
        """The timers as sent to clients."""
        return asdict(self)


def clean_text(value: object, what: str, limit: int) -> str:
    """``value`` as a trimmed one-line string of 1..``limit`` characters without control characters.

    :raises TableError: saying what was wrong with ``what``.
    """
    if not isinstance(value, str):
        raise TableError("input/bad_text", f"{what} must be a string")
    text = " ".join(value.split())
    if any(unicodedata.category(c) in ("Cc", "Cf", "Cs", "Co") for c in text):
        raise TableError("input/bad_text", f"{what} may not contain control characters")
    if not 1 <= len(text) <= limit:
        raise TableError("input/bad_text", f"{what} must be 1 to {limit} characters long")
    return text


@dataclass(frozen=True, slots=True)
class TableSettings:
    """Everything chosen when a table is created."""

    name: str
    ruleset: Ruleset
    timers: Timers = field(default_factory=Timers)
    public: bool = True
    hints: bool = False  # the ready hint: a ready hand sees its waits and their unseen copies (game.hints)

    @classmethod
    def from_json(cls, data: Mapping[str, object]) -> TableSettings:
        """Settings from a create-table request.

        :raises TableError: for an unknown ruleset or option, a bad timer, or a bad name.
        """
        name = clean_text(data.get("name", "Mahjong table"), "the table name", TABLE_NAME_MAX)
        overrides = data.get("overrides")
        if overrides is None:
            overrides = {}
        if not isinstance(overrides, Mapping):
            raise TableError("table/bad_rules", "overrides must be an object of rule options")
        ruleset_name = data.get("ruleset", "classical")
        if not isinstance(ruleset_name, str):
            raise TableError("table/bad_rules", 'ruleset must be a name such as "classical"')
        # R6.9: a table people play at pauses after every discard unless its creator says otherwise.
        overrides = {"claim_pause": True, **overrides}
        try:
            chosen = ruleset(ruleset_name, dict(overrides))
        except OptionError as exc:
            raise TableError("table/bad_rules", str(exc)) from None
        public = data.get("public", True)
        if not isinstance(public, bool):
            raise TableError("table/bad_visibility", "public must be true or false")
        hints = data.get("hints", False)
        if not isinstance(hints, bool):
            raise TableError("table/bad_hints", "hints must be true or false")
        return cls(name, chosen, Timers.from_json(data.get("timers")), public, hints)
