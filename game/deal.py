"""One deal (R3–R7): from the shuffle to a win or a wash-out, as a state machine.

Everything that changes a deal goes through :meth:`Deal.apply`, which validates first and so
leaves the deal untouched when it refuses. Draws, loose tiles and bonus replacements happen inside
``apply`` (and :meth:`Deal.begin`) and are reported as events.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from enum import StrEnum

from game.actions import Action, ActionType
from game.claims import ClaimWindow, WindowKind
from game.dangerous_game import dangers
from game.errors import IllegalActionError, Reason
from game.hand import standard_shanten
from game.melds import Meld, MeldKind
from game.notation import format_tiles
from game.rules import Rules
from game.shapes import chows_allowed, complete, completing_tiles
from game.tiles import NUM_KINDS, TILES, WINDS, Tile
from game.wall import Wall

__all__ = ["Deal", "DealPhase", "DealResult", "Discard", "Event", "Termination"]

Event = dict[str, object]

_PASS = Action(ActionType.PASS)
_WIN = Action(ActionType.WIN)
_PUNG = Action(ActionType.PUNG)
_KONG = Action(ActionType.KONG)
_DISCARDS = tuple(Action(ActionType.DISCARD, t) for t in TILES[:34])
_KONGS = tuple(Action(ActionType.KONG, t) for t in TILES[:34])
_CALLS = tuple(Action(ActionType.ORIGINAL_CALL, t) for t in TILES[:34])
# Every chow claim, by the two tiles it takes from the hand: a, and a + 1 or a + 2 of the same suit.
_CHOWS = {
    (a, b): Action(ActionType.CHOW, tiles=(TILES[a], TILES[b]))
    for a in range(27)
    for b in (a + 1, a + 2)
    if b // 9 == a // 9
}


_MAJOR_KINDS = tuple(int(t) for t in TILES if t.is_major)


def _orphans_ready(hand: list[int]) -> bool:
    """Whether 13 concealed tiles are one tile from Thirteen Orphans (R10.3): every major but one, one
    of them paired, or all thirteen single."""
    distinct = paired = 0
    for k in _MAJOR_KINDS:
        n = hand[k]
        if n:
            distinct += 1
            paired |= n >= 2
    return distinct + paired >= 13


class DealPhase(StrEnum):
    """Where a deal stands."""

    TURN = "turn"  # one seat holds a full hand and must act (R5)
    CLAIM = "claim"  # a discard waits for claims (R6)
    ROB = "rob"  # an added kong waits for robbing claims (R6.5)
    OVER = "over"


class Termination(StrEnum):
    """How a deal ended."""

    SELF_DRAWN = "self_drawn"
    DISCARD = "discard"
    ROBBED_KONG = "robbed_kong"
    WASH_OUT = "wash_out"


@dataclass(slots=True)
class Discard:
    """A discarded tile, who discarded it and, if claimed, who took it."""

    seat: int
    tile: Tile
    claimed_by: int | None = None
    danger: str | None = None  # why the table judged it dangerous (R11.6): public
    had_choice: bool = True  # whether the discarder held a tile that was not dangerous: secret until the end

    def to_json(self) -> dict[str, object]:
        """Public record of the discard (R12.1)."""
        out: dict[str, object] = {"seat": self.seat, "tile": self.tile.code}
        if self.claimed_by is not None:  # sent after every discard to every seat: no null to carry
            out["claimed_by"] = self.claimed_by
        if self.danger is not None:
            out["danger"] = self.danger
        return out


@dataclass(frozen=True, slots=True)
class DealResult:
    """The end of a deal, with the facts scoring needs (R7.3, R7.5, R9, R10)."""

    termination: Termination
    winner: int | None = None
    tile: Tile | None = None
    win_by: str | None = None  # "wall" | "loose" | "discard" | "robbed_kong"
    discarder: int | None = None  # for discard and robbed-kong wins
    last_tile: bool = False  # last live-wall tile or the last discard (R9, R6.8)
    first_turn: bool = False  # R10.1 / R10.2 (and R14's self-drawn first turn)
    loose_kongs: int = 0  # kongs in a row whose loose tiles led to a loose-tile win (R10.5 Twofold Fortune)
    reason: str = ""

    def to_json(self) -> dict[str, object]:
        """Plain JSON data."""
        return {
            "termination": self.termination.value,
            "winner": self.winner,
            "tile": None if self.tile is None else self.tile.code,
            "win_by": self.win_by,
            "discarder": self.discarder,
            "last_tile": self.last_tile,
            "first_turn": self.first_turn,
            "loose_kongs": self.loose_kongs,
            "reason": self.reason,
        }


class Deal:
    """The authoritative state of one deal. Seats are 0–3; ``dealer`` is East for this deal."""

    def __init__(self, rules: Rules, wall: Wall, dealer: int, round_wind: Tile) -> None:
        self.rules = rules
        self.wall = wall
        self.dealer = dealer
        self.round_wind = round_wind
        self.hands: list[list[int]] = [[0] * NUM_KINDS for _ in range(4)]
        self.melds: list[list[Meld]] = [[] for _ in range(4)]
        self.bonus: list[list[Tile]] = [[] for _ in range(4)]
        self.discards: list[Discard] = []
        self.phase = DealPhase.TURN
        self.current = dealer
        self.drawn: Tile | None = None
        self.draw_source: str | None = None  # "deal" | "wall" | "loose" | None after a pung/chow claim
        self.must_discard = False
        self.kong_chain = 0
        self.kongs = 0
        self.claims = 0
        self.window: ClaimWindow | None = None
        self.sacred: list[set[Tile]] = [set() for _ in range(4)]  # discarded since the last live-wall draw (R6.7)
        self.missed_win: list[bool] = [False] * 4  # passed a win since the last live-wall draw (R6.7)
        self.result: DealResult | None = None
        self.pao: dict[int, tuple[int, str]] = {}  # seat → (seat whose discard makes it pay alone, "dragons" | "winds")
        self.calls: list[str | None] = [None] * 4  # R5.4 Original Call: None, "declared" or "broken" (public)
        self.liable: dict[int, int] = {}  # R11.6: seat → the seat whose dangerous discard it last claimed
        self.step = 0  # actions applied to this deal so far: numbers its states
        # Each seat's legal actions at this step, found once: a table, a bot's view of its seat, a timer
        # and the check in `apply` all ask for them, and finding a turn's actions asks `complete`.
        self._legal: dict[int, tuple[bytes, tuple[Action, ...]]] = {}  # seat → (its tiles, its actions)
        self._legal_step = 0
        self._readiness: list[tuple[bytes, bool]] = [(b"", True)] * 4  # each seat's hand, and whether it is ready

    # ----------------------------------------------------------------- deal
    @classmethod
    def begin(cls, rules: Rules, wall: Wall, dealer: int, round_wind: Tile) -> tuple[Deal, list[Event]]:
        """Deal 13 tiles to each seat and a 14th to the dealer (R4.1), then replace bonus tiles,
        dealer first and then in turn order, until nobody holds one (R4.2).
        """
        deal = cls(rules, wall, dealer, round_wind)
        events: list[Event] = []
        order = [(dealer + i) % 4 for i in range(4)]
        for seat in order:
            for _ in range(13):
                deal.hands[seat][wall.draw()] += 1
        fourteenth = wall.draw()
        deal.hands[dealer][fourteenth] += 1
        deal.drawn = None if fourteenth.is_bonus else fourteenth
        deal.draw_source = "deal"
        for seat in order:
            events.append({"type": "dealt", "seat": seat, "tiles": format_tiles(deal._tiles_of(seat), sort=False)})
        for seat in order:
            hand = deal.hands[seat]
            while any(hand[34:]):
                for kind in range(34, NUM_KINDS):
                    while hand[kind]:
                        hand[kind] -= 1
                        deal.bonus[seat].append(TILES[kind])
                        events.append({"type": "bonus", "seat": seat, "tile": TILES[kind].code})
                        if wall.dead_count == 0:
                            deal._wash_out("the dead wall ran out while replacing bonus tiles (R3.2)", events)
                            return deal, events
                        loose = wall.draw_loose()
                        hand[loose] += 1
                        if seat == dealer and deal.drawn is None and not loose.is_bonus:
                            deal.drawn = loose  # the dealer's 14th was a bonus tile: this replaces it
                        events.append({"type": "draw", "seat": seat, "tile": loose.code, "source": "loose"})
        events.append({"type": "turn", "seat": dealer})
        return deal, events

    # ------------------------------------------------------------ queries
    def _tiles_of(self, seat: int) -> list[Tile]:
        return [tile for tile, n in zip(TILES, self.hands[seat], strict=True) if n for _ in range(n)]

    def concealed(self, seat: int) -> list[Tile]:
        """The seat's concealed tiles, sorted. Secret to other seats while the deal runs (R12.2)."""
        return self._tiles_of(seat)

    def held(self, seat: int) -> list[int]:
        """Counts of every tile the seat holds, concealed and in melds (for the four-copies rule)."""
        counts = list(self.hands[seat])
        for meld in self.melds[seat]:
            for t in meld.tiles:
                counts[t] += 1
        return counts

    def seat_wind(self, seat: int) -> Tile:
        """The seat's wind in this deal (R2.5)."""
        return WINDS[(seat - self.dealer) % 4]

    @property
    def over(self) -> bool:
        """True once the deal has a result."""
        return self.phase is DealPhase.OVER

    def _can_win_with(self, seat: int, tile: Tile) -> bool:
        hand = self.hands[seat]
        if self.rules.special_hands != "bmja" and not self._ready_now(seat, hand):
            return False  # no tile completes a hand that is not ready (the BMJA's special shapes aside)
        hand[tile] += 1
        try:
            return complete(hand, self.melds[seat], self.rules)
        finally:
            hand[tile] -= 1

    def _ready_now(self, seat: int, hand: list[int]) -> bool:
        """Whether the seat's concealed tiles are one tile from a standard win or Thirteen Orphans: asked
        of every other seat at every discard, and kept while the seat's hand stays as it is."""
        key = bytes(hand)
        known, ready = self._readiness[seat]
        if known != key:
            try:
                ready = standard_shanten(hand) <= 0 or _orphans_ready(hand)
            except ValueError:  # not a hand waiting for a tile (3k + 1 of them): let the win check judge
                ready = True
            self._readiness[seat] = (key, ready)
        return ready

    def _sacred_blocks(self, seat: int, tile: Tile) -> bool:
        # R6.7: no win on a discard of a tile discarded since one's own last live-wall draw,
        # nor on any discard after passing up a win since that draw.
        return self.rules.sacred_discard and (tile in self.sacred[seat] or self.missed_win[seat])

    def _has_exposed_pung(self, seat: int, tile: Tile) -> bool:
        return any(m.kind is MeldKind.PUNG and m.tiles[0] == tile for m in self.melds[seat])

    def legal_actions(self, seat: int) -> list[Action]:
        """Exactly the actions ``seat`` may take now (empty when it has nothing to do)."""
        return list(self.legal(seat))

    def legal(self, seat: int) -> tuple[Action, ...]:
        """:meth:`legal_actions` as a tuple, found once per step of the deal and shared until it changes
        (or the seat's tiles do: the discards offered are the tiles held now)."""
        hand = bytes(self.hands[seat])
        if self._legal_step != self.step:
            self._legal.clear()
            self._legal_step = self.step
        found = self._legal.get(seat)
        if found is None or found[0] != hand:
            found = self._legal[seat] = (hand, tuple(self._find_legal(seat)))
        return found[1]

    def _find_legal(self, seat: int) -> list[Action]:
        if self.phase is DealPhase.TURN:
            return self._find_turn_actions(seat, self.hands[seat]) if seat == self.current else []
        if self.phase in (DealPhase.CLAIM, DealPhase.ROB):
            assert self.window is not None
            return list(self.window.options.get(seat, ()))
        return []

    def _may_call(self, seat: int) -> bool:
        """R5.4: Original Call is declared with the seat's first discard of the deal, once."""
        return self.rules.original_call and self.calls[seat] is None and not any(d.seat == seat for d in self.discards)

    def _call_actions(self, seat: int, hand: list[int]) -> list[Action]:
        """R5.4: ``original_call t`` for each discard ``t`` that leaves the hand ready (calling)."""
        if not self._may_call(seat):
            return []
        held = self.held(seat)
        found = []
        for k in range(34):
            if hand[k]:
                hand[k] -= 1
                held[k] -= 1
                if self._ready(seat, hand, held):
                    found.append(_CALLS[k])
                hand[k] += 1
                held[k] += 1
        return found

    def _ready(self, seat: int, hand: list[int], held: list[int]) -> bool:
        """Whether one more tile (of a kind not all four held) completes the hand under the rules."""
        return bool(completing_tiles(hand[:34], self.melds[seat], held[:34], self.rules))

    def _find_turn_actions(self, seat: int, hand: list[int]) -> list[Action]:
        held = [k for k in range(34) if hand[k]]
        discards = [_DISCARDS[k] for k in held] + self._call_actions(seat, hand)
        if self.must_discard:  # after a pung or chow claim: discard, nothing else (R6.1)
            return discards
        actions: list[Action] = []
        if self.calls[seat] != "broken" and complete(hand, self.melds[seat], self.rules):
            actions.append(_WIN)
        if self.wall.dead_count > 0:  # no kong while the dead wall is empty (R5.2)
            actions.extend(_KONGS[k] for k in held if hand[k] == 4)
            if self.drawn is not None and hand[self.drawn] and self._has_exposed_pung(seat, self.drawn):
                actions.append(_KONGS[self.drawn])  # R5.2c: the tile just drawn only
        return actions + discards

    def to_act(self) -> list[int]:
        """Seats that have something to do now (in a window: those yet to answer)."""
        if self.phase is DealPhase.TURN:
            return [self.current]
        if self.window is not None:
            return self.window.waiting_on()
        return []

    # ------------------------------------------------------------- apply
    def apply(self, seat: int, action: Action) -> list[Event]:
        """Apply ``seat``'s action and return the events it caused.

        :raises IllegalActionError: (with the reason) if the action is not legal now; the deal is unchanged.
        """
        action = self._normalise(action)
        if action not in self.legal(seat):
            reason, message = self._why_illegal(seat, action)
            raise IllegalActionError(reason, message)
        self.step += 1
        events: list[Event] = []
        if self.phase is DealPhase.TURN:
            self._apply_turn(seat, action, events)
        else:
            assert self.window is not None
            self.window.answers[seat] = action
            events.append({"type": "answer", "seat": seat, "action": action.to_json()})
            self._try_resolve(events)
        return events

    def _normalise(self, action: Action) -> Action:
        # A kong claim names no tile (it is the discard's); accept it spelled out too.
        if self.window is not None and action.type is ActionType.KONG and action.tile == self.window.tile:
            return _KONG
        return action

    def _apply_turn(self, seat: int, action: Action, events: list[Event]) -> None:
        hand = self.hands[seat]
        if action.type is ActionType.WIN:
            self._self_drawn_win(seat, events)
        elif action.type is ActionType.ORIGINAL_CALL:
            assert action.tile is not None
            self.calls[seat] = "declared"
            events.append({"type": "original_call", "seat": seat, "tile": action.tile.code})
            self._discard(seat, action.tile, events)
        elif action.type is ActionType.DISCARD:
            assert action.tile is not None
            if self.calls[seat] == "declared" and action.tile != self.drawn:
                self._break_call(seat, f"discarded {action.tile}, not the tile drawn", events)
            self._discard(seat, action.tile, events)
        else:
            assert action.type is ActionType.KONG and action.tile is not None
            tile = action.tile
            if self.calls[seat] == "declared":
                self._break_call(seat, f"declared a kong of {tile}", events)
            chained = self.draw_source == "loose" and self.drawn == tile and self.kong_chain > 0
            self.kong_chain = self.kong_chain + 1 if chained else 1
            if hand[tile] == 4:  # R5.2b concealed kong
                hand[tile] = 0
                self.melds[seat].append(Meld(MeldKind.KONG, (tile,) * 4, concealed=True))
                self.kongs += 1
                events.append({"type": "kong", "seat": seat, "tile": tile.code, "kind": "concealed"})
                self._draw(seat, "loose", events)
            else:  # R5.2c added kong: may be robbed first (R6.5)
                hand[tile] -= 1
                events.append({"type": "add_kong", "seat": seat, "tile": tile.code})
                robbers = {
                    s: [_WIN, _PASS]
                    for s in self._others(seat)
                    if self._can_win_with(s, tile) and not self._sacred_blocks(s, tile) and self.calls[s] != "broken"
                }
                if self.rules.claim_pause:  # R6.9: everyone is asked, so that being asked tells nothing
                    robbers = {s: robbers.get(s, [_PASS]) for s in self._others(seat)}
                if robbers:
                    self.phase = DealPhase.ROB
                    self.window = ClaimWindow(WindowKind.ROB, tile, seat, robbers)
                    events.append({"type": "window", "kind": "rob", "tile": tile.code, "from": seat})
                else:
                    self._complete_added_kong(seat, tile, events)

    def _break_call(self, seat: int, why: str, events: list[Event]) -> None:
        """R5.4: a seat that changes its hand after declaring Original Call may not win this deal."""
        self.calls[seat] = "broken"
        events.append({"type": "original_call_broken", "seat": seat, "reason": why})

    def _judge_danger(self, seat: int, tile: Tile) -> tuple[str | None, bool]:
        """R11.6: why discarding ``tile`` is dangerous (None if it is not), and whether the discarder
        had a choice: a tile it held that was not dangerous, or a claim it just made.
        """
        if not self.rules.dangerous_game:
            return None, True
        seen = [d.tile for d in self.discards if d.claimed_by is None]
        dangerous = dict(dangers(self.melds, seen, self.wall.live_count)[seat])
        why = dangerous.get(tile.code)
        if why is None:
            return None, True
        hand = self.hands[seat]
        return why, self.must_discard or any(hand[k] and TILES[k].code not in dangerous for k in range(34))

    def _others(self, seat: int) -> list[int]:
        return [(seat + i) % 4 for i in (1, 2, 3)]

    def _complete_added_kong(self, seat: int, tile: Tile, events: list[Event]) -> None:
        melds = self.melds[seat]
        for i, meld in enumerate(melds):
            if meld.kind is MeldKind.PUNG and meld.tiles[0] == tile:
                melds[i] = Meld(MeldKind.KONG, (tile,) * 4, claimed=meld.claimed, source=meld.source, added=True)
                break
        self.kongs += 1
        events.append({"type": "kong", "seat": seat, "tile": tile.code, "kind": "added"})
        self._draw(seat, "loose", events)

    def _draw(self, seat: int, source: str, events: list[Event]) -> None:
        """Give ``seat`` a tile from the live wall or a loose tile, laying out and replacing bonus
        tiles (R4.3); a wash-out if the wall needed is empty (R3.2, R3.3). Starts the seat's turn.
        """
        while True:
            if source == "wall":
                if self.wall.live_count == 0:
                    self._wash_out("the live wall is empty (R3.3)", events)
                    return
                tile = self.wall.draw()
                self.sacred[seat].clear()  # R6.7: a live-wall draw lifts the restriction
                self.missed_win[seat] = False
            else:
                if self.wall.dead_count == 0:
                    self._wash_out("the dead wall is empty (R3.2)", events)
                    return
                tile = self.wall.draw_loose()
            events.append({"type": "draw", "seat": seat, "tile": tile.code, "source": source})
            if not tile.is_bonus:
                break
            self.bonus[seat].append(tile)
            events.append({"type": "bonus", "seat": seat, "tile": tile.code})
            source = "loose"
        self.hands[seat][tile] += 1
        self._start_turn(seat, tile, source, events)

    def _start_turn(self, seat: int, drawn: Tile | None, source: str | None, events: list[Event]) -> None:
        """Give ``seat`` the turn; without a drawn tile (after a pung or chow) it may only discard (R6.1)."""
        self.phase = DealPhase.TURN
        self.window = None
        self.current = seat
        self.drawn = drawn
        self.draw_source = source
        self.must_discard = drawn is None
        events.append({"type": "turn", "seat": seat})

    def _discard(self, seat: int, tile: Tile, events: list[Event]) -> None:
        danger, had_choice = self._judge_danger(seat, tile)
        self.hands[seat][tile] -= 1
        self.discards.append(Discard(seat, tile, danger=danger, had_choice=had_choice))
        self.sacred[seat].add(tile)
        self.drawn = None
        self.draw_source = None
        self.must_discard = False
        self.kong_chain = 0
        events.append({"type": "discard", "seat": seat, "tile": tile.code})
        if danger is not None:
            events.append({"type": "dangerous", "seat": seat, "tile": tile.code, "reason": danger})
        if self.rules.claim_pause:  # R6.9: every other seat is asked, with pass as its only answer if need be
            options = {s: self._claim_options(s, seat, tile) or [_PASS] for s in self._others(seat)}
        else:
            options = {s: acts for s in self._others(seat) if (acts := self._claim_options(s, seat, tile))}
        if options:
            self.phase = DealPhase.CLAIM
            self.window = ClaimWindow(WindowKind.DISCARD, tile, seat, options)
            events.append({"type": "window", "kind": "discard", "tile": tile.code, "from": seat})
        else:
            self._draw((seat + 1) % 4, "wall", events)

    def _claim_options(self, seat: int, discarder: int, tile: Tile) -> list[Action]:
        hand = self.hands[seat]
        options: list[Action] = []
        if self._can_win_with(seat, tile) and not self._sacred_blocks(seat, tile) and self.calls[seat] != "broken":
            options.append(_WIN)
        if self.wall.live_count > 0:  # R6.8: the last discard may be claimed only to win
            n = hand[tile]
            if n == 3 and self.wall.dead_count > 0:
                options.append(_KONG)
            if n >= 2:
                options.append(_PUNG)
            # R6.1: chow for the next seat only; R17.2: while the hand may hold another chow
            if seat == (discarder + 1) % 4 and tile < 27 and chows_allowed(self.melds[seat], self.rules) > 0:
                options.extend(self._chow_options(hand, tile))
        if options:
            options.append(_PASS)
        return options

    @staticmethod
    def _chow_options(hand: list[int], tile: Tile) -> list[Action]:
        rank = tile % 9
        base = tile - rank
        found: list[Action] = []
        for start in (rank - 2, rank - 1, rank):
            if start < 0 or start + 2 > 8:
                continue
            a, b = (base + r for r in (start, start + 1, start + 2) if r != rank)
            if hand[a] and hand[b]:
                found.append(_CHOWS[a, b])
        return found

    # ------------------------------------------------------------ windows
    def _try_resolve(self, events: list[Event]) -> None:
        window = self.window
        assert window is not None
        decision = window.decision()
        if decision is False:
            return
        # R6.7: a seat offered a win that did not claim it waits for its next live-wall draw.
        for s, acts in window.options.items():
            if _WIN in acts and window.answers.get(s) != _WIN:
                self.missed_win[s] = True
        events.append({"type": "window_closed", "tile": window.tile.code, "from": window.source})
        if decision is None:
            if window.kind is WindowKind.ROB:
                self._complete_added_kong(window.source, window.tile, events)
            else:
                self._draw((window.source + 1) % 4, "wall", events)
            return
        assert isinstance(decision, tuple)
        seat, action = decision
        tile = window.tile
        if window.kind is WindowKind.ROB:
            self.hands[seat][tile] += 1
            self._end_with_win(seat, tile, "robbed_kong", window.source, events)
            return
        discard = self.discards[-1]
        discard.claimed_by = seat
        if discard.danger is not None and discard.had_choice and action.type is not ActionType.KONG:
            self.liable[seat] = discard.seat  # R11.6: it took a dangerous discard played with a choice
        if action.type is not ActionType.WIN and self.calls[seat] == "declared":
            self._break_call(seat, f"claimed {tile} for a {action.type.value}", events)
        if action.type is ActionType.WIN:
            self.hands[seat][tile] += 1
            self._end_with_win(seat, tile, "discard", window.source, events)
            return
        hand = self.hands[seat]
        self.claims += 1
        if action.type is ActionType.CHOW:
            assert action.tiles is not None
            for t in action.tiles:
                hand[t] -= 1
            tiles = tuple(sorted((*action.tiles, tile)))
            self.melds[seat].append(Meld(MeldKind.CHOW, tiles, claimed=tile, source=window.source))
        else:
            size = 4 if action.type is ActionType.KONG else 3
            hand[tile] -= size - 1
            kind = MeldKind.KONG if size == 4 else MeldKind.PUNG
            self.melds[seat].append(Meld(kind, (tile,) * size, claimed=tile, source=window.source))
        if action.type is not ActionType.CHOW:
            self._note_pao(seat, tile, window.source, claimed=True)
        events.append(
            {"type": "claim", "seat": seat, "action": action.to_json(), "tile": tile.code, "from": window.source}
        )
        if action.type is ActionType.KONG:  # R6.1: expose, draw a loose tile, then a full turn
            self.kongs += 1
            self.kong_chain = 1
            self._draw(seat, "loose", events)
            return
        self._start_turn(seat, None, None, events)

    def _note_pao(self, seat: int, tile: Tile, discarder: int, *, claimed: bool) -> None:
        """R11.3: a discard that completes the third dragon set (the other two already on the table)
        or the fourth wind set (the other three on the table) makes its discarder liable.
        """
        if not (tile.is_dragon or tile.is_wind):
            return
        if not claimed and self.hands[seat][tile] != 3:  # a winning discard completes a pung only this way
            return
        group = "dragons" if tile.is_dragon else "winds"
        others = {m.tiles[0] for m in self.melds[seat] if m.kind is not MeldKind.CHOW and m.tiles[0] != tile}
        on_table = sum(1 for t in others if (t.is_dragon if group == "dragons" else t.is_wind))
        if on_table == (2 if group == "dragons" else 3):
            self.pao[seat] = (discarder, group)

    # ------------------------------------------------------------ endings
    def _self_drawn_win(self, seat: int, events: list[Event]) -> None:
        source = self.draw_source or "wall"
        first = source == "deal" or (
            self.claims == 0
            and self.kongs == 0
            and len(self.discards) < 4
            and not any(d.seat == seat for d in self.discards)
        )
        last = source == "wall" and self.wall.live_count == 0
        self.result = DealResult(
            Termination.SELF_DRAWN,
            winner=seat,
            tile=self.drawn,
            win_by="loose" if source == "loose" else "wall",
            last_tile=last,
            first_turn=first,
            loose_kongs=self.kong_chain if source == "loose" else 0,
        )
        self._finish(events)

    def _end_with_win(self, seat: int, tile: Tile, win_by: str, discarder: int, events: list[Event]) -> None:
        self._note_pao(seat, tile, discarder, claimed=False)
        first = (
            win_by == "discard"
            and len(self.discards) == 1
            and self.discards[0].seat == self.dealer
            and self.claims == 0
            and self.kongs == 0
        )
        self.result = DealResult(
            Termination.ROBBED_KONG if win_by == "robbed_kong" else Termination.DISCARD,
            winner=seat,
            tile=tile,
            win_by=win_by,
            discarder=discarder,
            last_tile=win_by == "discard" and self.wall.live_count == 0,
            first_turn=first,
        )
        self._finish(events)

    def _wash_out(self, reason: str, events: list[Event]) -> None:
        self.result = DealResult(Termination.WASH_OUT, reason=reason)
        self._finish(events)

    def _finish(self, events: list[Event]) -> None:
        self.phase = DealPhase.OVER
        self.window = None
        assert self.result is not None
        events.append({"type": "deal_end", **self.result.to_json(), "hands": self.revealed()})

    def revealed(self) -> list[dict[str, object]]:
        """Every seat's hand, face up: what all seats see once the deal is over (R12.3)."""
        return [
            {
                "concealed": format_tiles(self._tiles_of(s)),
                "melds": [m.to_json() for m in self.melds[s]],
                "bonus": [t.code for t in self.bonus[s]],
            }
            for s in range(4)
        ]

    # ---------------------------------------------------------- refusals
    def _why_illegal(self, seat: int, action: Action) -> tuple[Reason, str]:
        kind = action.type
        if self.phase is DealPhase.OVER:
            return Reason.WINDOW_CLOSED, "the deal is over"
        if self.phase is DealPhase.TURN:
            claimish = kind in (ActionType.PASS, ActionType.PUNG, ActionType.CHOW) or (
                kind is ActionType.KONG and action.tile is None
            )
            if seat != self.current:
                if claimish:
                    return Reason.WINDOW_CLOSED, f"no claim window is open: it is seat {self.current}'s turn"
                return (
                    Reason.NOT_YOUR_TURN,
                    f"it is seat {self.current}'s turn, not seat {seat}'s, and no claim window is open",
                )
            return self._why_turn(seat, action, claimish)
        window = self.window
        assert window is not None
        tile = window.tile
        if kind in (ActionType.DISCARD, ActionType.READY, ActionType.ORIGINAL_CALL) or (
            kind is ActionType.KONG and action.tile is not None
        ):
            return Reason.NOT_YOUR_TURN, f"a claim window is open on {tile}: claim it or pass"
        if seat == window.source:
            return Reason.NOT_OFFERED, f"seat {seat} cannot claim its own tile {tile}"
        hand = self.hands[seat]
        if kind is ActionType.WIN and self.calls[seat] == "broken":
            return Reason.NOT_ALLOWED, f"seat {seat} broke its Original Call (R5.4) and may not win this hand"
        if kind is ActionType.WIN:
            if not self._can_win_with(seat, tile):
                return Reason.NOT_A_WIN, f"{tile} does not complete seat {seat}'s hand"
            if self._sacred_blocks(seat, tile):
                return Reason.SACRED_DISCARD, (
                    f"sacred discard (R6.7): seat {seat} may not win on {tile} before its next draw from the live wall"
                )
        if window.kind is WindowKind.ROB and kind is not ActionType.PASS:
            return Reason.NOT_ALLOWED, f"an added kong of {tile} may only be robbed to win (R6.5)"
        if kind in (ActionType.KONG, ActionType.PUNG, ActionType.CHOW) and self.wall.live_count == 0:
            return Reason.LAST_DISCARD_WIN_ONLY, f"the last discard ({tile}) may be claimed only to win (R6.8)"
        if kind is ActionType.KONG:
            if self._has_exposed_pung(seat, tile):
                return (
                    Reason.KONG_FROM_EXPOSED_PUNG,
                    f"a kong may not be made from an exposed pung of {tile} and a discard (R6.1)",
                )
            if hand[tile] < 3:
                return (
                    Reason.KONG_NEEDS_THREE,
                    f"a kong on a discard needs three {tile} in the hand; seat {seat} holds {hand[tile]}",
                )
            return Reason.DEAD_WALL_EMPTY, "no kong may be declared while the dead wall is empty (R5.2)"
        if kind is ActionType.PUNG:
            return (
                Reason.PUNG_NEEDS_TWO,
                f"a pung of {tile} needs two {tile} in the hand; seat {seat} holds {hand[tile]}",
            )
        if kind is ActionType.CHOW:
            if seat != (window.source + 1) % 4:
                return (
                    Reason.CHOW_NOT_NEXT,
                    f"only seat {(window.source + 1) % 4}, next after the discarder, may chow (R6.1)",
                )
            if chows_allowed(self.melds[seat], self.rules) <= 0:
                return Reason.NOT_ALLOWED, f"a hand may hold {self.rules.max_chows} chow at most (R17.2)"
            assert action.tiles is not None
            missing = [t for t in action.tiles if hand[t] == 0]
            if missing:
                return Reason.TILE_NOT_HELD, f"seat {seat} does not hold {missing[0]}"
            return Reason.BAD_CHOW, f"{format_tiles((*action.tiles, tile))} is not a run of three in one suit"
        if kind is ActionType.PASS:
            return Reason.NOT_OFFERED, f"seat {seat} has no claim on {tile} to pass"
        return Reason.NOT_ALLOWED, f"{action} is not allowed now"

    def _why_turn(self, seat: int, action: Action, claimish: bool) -> tuple[Reason, str]:
        kind = action.type
        hand = self.hands[seat]
        if self.must_discard and kind is not ActionType.DISCARD:
            return Reason.MUST_DISCARD, "after claiming a pung or chow you must discard (R6.1)"
        if claimish:
            return Reason.WINDOW_CLOSED, "no claim window is open: it is your turn to discard, win or declare a kong"
        tile = action.tile
        if kind in (ActionType.DISCARD, ActionType.ORIGINAL_CALL) and tile is not None and not hand[tile]:
            return Reason.TILE_NOT_HELD, f"seat {seat} does not hold {tile}"
        if kind is ActionType.ORIGINAL_CALL:
            return Reason.NOT_ALLOWED, self._why_no_call(seat, tile)
        if kind is ActionType.WIN and self.calls[seat] == "broken":
            return Reason.NOT_ALLOWED, f"seat {seat} broke its Original Call (R5.4) and may not win this hand"
        if kind is ActionType.WIN:
            return Reason.NOT_A_WIN, f"seat {seat}'s hand {format_tiles(self._tiles_of(seat))} is not a winning hand"
        if kind is ActionType.KONG and tile is not None:
            if self.wall.dead_count == 0:
                return Reason.DEAD_WALL_EMPTY, "no kong may be declared while the dead wall is empty (R5.2)"
            if self._has_exposed_pung(seat, tile) and hand[tile]:
                return (
                    Reason.NOT_JUST_DRAWN,
                    f"only the tile just drawn may be added to an exposed pung (R5.2c); {tile} was not",
                )
            if hand[tile] == 0:
                return Reason.TILE_NOT_HELD, f"seat {seat} does not hold {tile}"
            return Reason.KONG_NEEDS_THREE, f"a concealed kong needs four {tile}; seat {seat} holds {hand[tile]}"
        return Reason.NOT_ALLOWED, f"{action} is not allowed now"

    def _why_no_call(self, seat: int, tile: Tile | None) -> str:
        if not self.rules.original_call:
            return "this ruleset has no Original Call (option original_call, R5.4)"
        if self.calls[seat] is not None:
            return f"seat {seat} has already declared Original Call (R5.4)"
        if any(d.seat == seat for d in self.discards):
            return "Original Call is declared only with one's first discard of the hand (R5.4)"
        return f"discarding {tile} leaves seat {seat}'s hand not ready: Original Call needs a calling hand (R5.4)"

    # ---------------------------------------------------------- internals
    def tile_census(self) -> Counter[Tile]:
        """How many of each tile lie anywhere in the deal (walls, hands, melds, bonus, unclaimed
        discards, a tile waiting to be robbed). Always the full set: tests check conservation.
        """
        census: Counter[Tile] = Counter()
        live, dead = self.wall.remaining()
        census.update(live)
        census.update(dead)
        for s in range(4):
            census.update(self._tiles_of(s))
            for m in self.melds[s]:
                census.update(m.tiles)
            census.update(self.bonus[s])
        census.update(d.tile for d in self.discards if d.claimed_by is None)
        if self.window is not None and self.window.kind is WindowKind.ROB:
            census[self.window.tile] += 1
        return census

    def full_state(self) -> dict[str, object]:
        """The complete state, secrets included: for digests and the server's own store, never for players."""
        live, dead = self.wall.remaining()
        return {
            "dealer": self.dealer,
            "round_wind": self.round_wind.code,
            "live": format_tiles(live, compact=False, sort=False),
            "dead": format_tiles(dead, compact=False, sort=False),
            "hands": [format_tiles(self._tiles_of(s)) for s in range(4)],
            "melds": [[m.to_json() for m in self.melds[s]] for s in range(4)],
            "bonus": [[t.code for t in self.bonus[s]] for s in range(4)],
            # spelled out, claimed_by null included, so digests stay what they were when logs were written
            "discards": [{"seat": d.seat, "tile": d.tile.code, "claimed_by": d.claimed_by} for d in self.discards],
            "phase": self.phase.value,
            "current": self.current,
            "drawn": None if self.drawn is None else self.drawn.code,
            "draw_source": self.draw_source,
            "must_discard": self.must_discard,
            "kong_chain": self.kong_chain,
            "kongs": self.kongs,
            "claims": self.claims,
            "window": None if self.window is None else self.window.to_json(),
            "sacred": [sorted(t.code for t in s) for s in self.sacred],
            "missed_win": list(self.missed_win),
            "result": None if self.result is None else self.result.to_json(),
            "pao": {str(s): list(v) for s, v in sorted(self.pao.items())},
            **self._declarations_state(),
        }

    def _declarations_state(self) -> dict[str, object]:
        """R5.4 and R11.6 state, only under rules that have them (so older digests stay what they were)."""
        out: dict[str, object] = {}
        if self.rules.original_call:
            out["calls"] = list(self.calls)
        if self.rules.dangerous_game:
            out["dangers"] = [[d.danger, d.had_choice] for d in self.discards]
            out["liable"] = {str(s): v for s, v in sorted(self.liable.items())}
        return out
