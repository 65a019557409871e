"""Claim windows (R6): who may claim a discard (or rob an added kong), and how answers resolve.

A window is an explicit state. Each eligible seat answers once (and may change its answer until
the window resolves); the highest claim is acted on as soon as no unanswered seat could still
outrank it (R6.2, R6.3). Timing never decides: only ranks and seat distance do.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from game.actions import Action, ActionType
from game.tiles import Tile

__all__ = ["ClaimWindow", "WindowKind", "claim_rank"]

_RANK = {ActionType.WIN: 4, ActionType.KONG: 3, ActionType.PUNG: 2, ActionType.CHOW: 1, ActionType.PASS: 0}


class WindowKind(StrEnum):
    """A discard's window, or a window to rob an added kong (R6.5)."""

    DISCARD = "discard"
    ROB = "rob"


def claim_rank(action: Action) -> int:
    """Priority of a claim (R6.2): win > kong > pung > chow > pass."""
    return _RANK[action.type]


@dataclass(slots=True)
class ClaimWindow:
    """An open window on ``tile`` from seat ``source``: the options offered and the answers so far."""

    kind: WindowKind
    tile: Tile
    source: int
    options: dict[int, list[Action]]
    answers: dict[int, Action] = field(default_factory=dict)

    def _key(self, seat: int, action: Action) -> tuple[int, int]:
        # Nearest seat after the source wins a tie (R6.2): distance 1 beats 2 beats 3.
        return (claim_rank(action), -((seat - self.source) % 4))

    def _best_possible(self, seat: int) -> tuple[int, int]:
        return max(self._key(seat, a) for a in self.options[seat])

    def waiting_on(self) -> list[int]:
        """Seats offered a claim that have not answered yet."""
        return [s for s in self.options if s not in self.answers]

    def decision(self) -> tuple[int, Action] | None | bool:
        """The winning claim ``(seat, action)`` once it is certain; ``None`` when every seat passed;
        ``False`` while an unanswered seat could still outrank the best claim so far (R6.3).
        """
        best: tuple[tuple[int, int], int, Action] | None = None
        for seat, action in self.answers.items():
            if action.type is ActionType.PASS:
                continue
            key = self._key(seat, action)
            if best is None or key > best[0]:
                best = (key, seat, action)
        for seat in self.waiting_on():
            if best is None or self._best_possible(seat) > best[0]:
                return False
        if best is None:
            return None
        return best[1], best[2]

    def to_json(self) -> dict[str, object]:
        """Full record, secret while the window is open (R12.2): for digests and logs only."""
        return {
            "kind": self.kind.value,
            "tile": self.tile.code,
            "from": self.source,
            "options": {str(s): [a.to_json() for a in acts] for s, acts in sorted(self.options.items())},
            "answers": {str(s): a.to_json() for s, a in sorted(self.answers.items())},
        }
