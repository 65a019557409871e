"""A game (R2): a series of deals with dealer rotation, prevailing-wind rounds and an end.

A game is fully determined by its rules, its seed and the actions applied: :func:`replay` rebuilds
the identical state, and :meth:`Game.digest` makes that checkable.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum

from game.actions import Action, ActionType
from game.deal import Deal, DealResult, Event, Termination
from game.errors import IllegalActionError, InvalidActionError, Reason, RulesError
from game.reckoning import Reckoning, reckon
from game.rules import Rules
from game.tiles import WINDS, Tile
from game.wall import Wall, deal_seed

__all__ = ["Game", "GamePhase", "Outcome", "replay"]

WallSource = Callable[[int], Wall]
_READY = Action(ActionType.READY)
_READY_ONLY = (_READY,)
NINE_WINS = 9  # R16: the dealer's ninth win in a row is a limit hand


class GamePhase(StrEnum):
    """Where a game stands."""

    DEAL = "deal"  # a deal is being played
    BETWEEN = "between"  # the last deal is over and shown face up; waiting for every seat to be ready
    OVER = "over"  # the last round has ended (R2.4)


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a finished game stands: final scores and deals played."""

    scores: tuple[int, int, int, int]
    deals: int


class Game:
    """The authoritative state of one table's game. Change it only through :meth:`apply`."""

    def __init__(self, rules: Rules | None = None, seed: int | str = 0, *, walls: WallSource | None = None) -> None:
        """A new game; the first deal is dealt at once.

        ``walls`` replaces the seeded shuffle (tests lay out stacked walls with it); it maps a deal
        number to that deal's wall.
        """
        self.rules = rules or Rules()
        self.seed = seed
        self._walls = walls
        self.scores = [self.rules.starting_score] * 4
        self.round = 0  # index into WINDS: the prevailing wind (R2.2)
        self.dealer = 0
        self.passes = 0  # times the deal has passed on in this round (R2.4)
        self.deal_number = 0
        self.phase = GamePhase.DEAL
        self.ready: set[int] = set()
        self.results: list[DealResult] = []
        self.reckoning: Reckoning | None = None  # the last finished deal's scores and payments
        self.log: list[tuple[int, dict[str, object]]] = []
        self.deal, self.opening_events = self._new_deal()

    # ------------------------------------------------------------ queries
    @property
    def version(self) -> int:
        """How many actions have been applied: numbers every state of the game."""
        return len(self.log)

    @property
    def round_wind(self) -> Tile:
        """The prevailing wind (R2.2)."""
        return WINDS[self.round]

    @property
    def rounds(self) -> int:
        """How many rounds this game lasts (R2.2 ``game_length``)."""
        return 1 if self.rules.game_length == "east" else 4

    def seat_wind(self, seat: int) -> Tile:
        """The seat's wind in the current deal (R2.5)."""
        return WINDS[(seat - self.dealer) % 4]

    def legal_actions(self, seat: int) -> list[Action]:
        """Exactly what ``seat`` may do now."""
        return list(self.legal(seat))

    def legal(self, seat: int) -> tuple[Action, ...]:
        """:meth:`legal_actions` as a tuple, found once per step and shared while the game stands still."""
        if self.phase is GamePhase.DEAL:
            return self.deal.legal(seat)
        if self.phase is GamePhase.BETWEEN and seat not in self.ready:
            return _READY_ONLY
        return ()

    def to_act(self) -> list[int]:
        """Seats that have something to do now."""
        if self.phase is GamePhase.DEAL:
            return self.deal.to_act()
        if self.phase is GamePhase.BETWEEN:
            return [s for s in range(4) if s not in self.ready]
        return []

    @property
    def outcome(self) -> Outcome | None:
        """The final result once the game is over, else None."""
        if self.phase is not GamePhase.OVER:
            return None
        s = self.scores
        return Outcome((s[0], s[1], s[2], s[3]), len(self.results))

    def dealer_streak(self) -> int:
        """How many deals in a row the present dealer has won since the deal came to them (a
        wash-out that keeps the deal neither counts nor breaks the run), for R16's ninth win."""
        dealer, streak = 0, 0
        for result in self.results:
            if result.winner is None:
                if self.rules.dealer_keeps_on_washout:
                    continue
                dealer, streak = (dealer + 1) % 4, 0
            elif result.winner == dealer and not (self.rules.nine_wins_limit and streak + 1 >= NINE_WINS):
                streak += 1
            else:
                dealer, streak = (dealer + 1) % 4, 0
        return streak

    # ------------------------------------------------------------- apply
    def apply(self, seat: int, action: Action | Mapping[str, object] | str) -> list[Event]:
        """Apply one seat's action and return the events it caused.

        :raises InvalidActionError: if ``action`` is malformed or ``seat`` is not 0–3.
        :raises IllegalActionError: if it is not allowed now; the game is then unchanged.
        """
        try:
            if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat <= 3:
                raise InvalidActionError(Reason.BAD_SEAT, f"seat must be 0, 1, 2 or 3, not {seat!r}")
            parsed = Action.parse(action) if isinstance(action, str) else Action.from_json(action)
            events = self._apply(seat, parsed)
        except RulesError as exc:
            raise type(exc)(exc.reason, f"{exc} (action {action!r} by seat {seat!r}, version {self.version})") from None
        self.log.append((seat, parsed.to_json()))
        return events

    def _apply(self, seat: int, action: Action) -> list[Event]:
        if self.phase is GamePhase.OVER:
            raise IllegalActionError(Reason.GAME_OVER, "the game is over")
        if self.phase is GamePhase.BETWEEN:
            if action.type is not ActionType.READY:
                raise IllegalActionError(Reason.WINDOW_CLOSED, "the deal is over: send 'ready' for the next deal")
            if seat in self.ready:
                raise IllegalActionError(Reason.ALREADY_READY, f"seat {seat} is already ready")
            self.ready.add(seat)
            events: list[Event] = [{"type": "ready", "seat": seat}]
            if len(self.ready) == 4:
                self.ready.clear()
                self.phase = GamePhase.DEAL
                self.deal, opening = self._new_deal()
                events.extend(opening)
            return events
        if action.type is ActionType.READY:
            raise IllegalActionError(Reason.NOT_ALLOWED, "a deal is in progress; 'ready' is for between deals")
        events = self.deal.apply(seat, action)
        if self.deal.over:
            self._after_deal(events)
        return events

    def _new_deal(self) -> tuple[Deal, list[Event]]:
        wall = (
            self._walls(self.deal_number)
            if self._walls
            else Wall.shuffled(deal_seed(self.seed, self.deal_number), self.rules)
        )
        deal, events = Deal.begin(self.rules, wall, self.dealer, self.round_wind)
        start: Event = {
            "type": "deal_start",
            "deal": self.deal_number,
            "dealer": self.dealer,
            "round_wind": self.round_wind.code,
        }
        events.insert(0, start)
        if deal.over:  # a wash-out while dealing (R3.2)
            self._after_deal(events, deal)
        return deal, events

    def _after_deal(self, events: list[Event], deal: Deal | None = None) -> None:
        """Score and settle the deal that just ended (its ``deal_end`` event gains the scores and
        payments), then rotate the dealer and end the round or the game (R2.3, R2.4).
        """
        deal = deal or self.deal
        result = deal.result
        assert result is not None
        streak = self.dealer_streak()
        self.results.append(result)
        self.deal_number += 1
        self.reckoning = reckon(deal, streak)
        for seat, change in enumerate(self.reckoning.settlement.changes):
            self.scores[seat] += change
        end = next(e for e in reversed(events) if e["type"] == "deal_end")
        end.update(self.reckoning.to_json(), totals=list(self.scores))  # R12.3: shown to every seat
        if result.termination is Termination.WASH_OUT:
            passes = not self.rules.dealer_keeps_on_washout
        else:
            # R16: after the dealer's ninth win in a row the deal passes all the same
            ninth = self.rules.nine_wins_limit and streak + 1 >= NINE_WINS
            passes = result.winner != self.dealer or ninth
        if passes:
            self.dealer = (self.dealer + 1) % 4
            self.passes += 1
            events.append({"type": "deal_passes", "dealer": self.dealer})
            if self.passes == 4:
                self.passes = 0
                events.append({"type": "round_end", "round_wind": self.round_wind.code})
                if self.round + 1 >= self.rounds:
                    self.phase = GamePhase.OVER
                    events.append({"type": "game_end", "scores": list(self.scores)})
                    return
                self.round += 1
        self.phase = GamePhase.BETWEEN

    # ------------------------------------------------------------ records
    def full_state(self) -> dict[str, object]:
        """The complete state, secrets included: for digests and storage, never for players."""
        return {
            "rules": self.rules.to_json(),
            "seed": str(self.seed),
            "scores": list(self.scores),
            "round": self.round,
            "dealer": self.dealer,
            "passes": self.passes,
            "deal_number": self.deal_number,
            "phase": self.phase.value,
            "ready": sorted(self.ready),
            "results": [r.to_json() for r in self.results],
            "reckoning": None if self.reckoning is None else self.reckoning.to_json(),
            "deal": self.deal.full_state(),
        }

    def digest(self) -> str:
        """SHA-256 of the full state: equal digests mean identical games."""
        text = json.dumps(self.full_state(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()


def replay(rules: Rules, seed: int | str, actions: Iterable[tuple[int, Mapping[str, object] | Action]]) -> Game:
    """Rebuild a game from its rules, seed and ``(seat, action)`` log.

    :raises RulesError: if an action in the log is not legal where it stands.
    """
    game = Game(rules, seed)
    for seat, action in actions:
        game.apply(seat, action if isinstance(action, Action) else dict(action))
    return game
