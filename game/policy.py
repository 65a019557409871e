"""A simple built-in playing policy, better than random: it always wins when it can, discards the
tile that leaves its hand closest to ready (shanten), and claims a set only when that brings the
hand closer to ready. Deterministic: the same state always gets the same choice.
"""

from __future__ import annotations

from game.actions import Action, ActionType
from game.game import Game, GamePhase
from game.hand import shanten
from game.tiles import Tile

__all__ = ["choose"]


def choose(game: Game, seat: int) -> Action:
    """The policy's action for ``seat`` now.

    :raises ValueError: if ``seat`` has nothing to do.
    """
    actions = game.legal_actions(seat)
    if not actions:
        raise ValueError(f"seat {seat} has nothing to do now")
    by_type: dict[ActionType, list[Action]] = {}
    for a in actions:
        by_type.setdefault(a.type, []).append(a)
    if ActionType.WIN in by_type:
        return by_type[ActionType.WIN][0]
    if game.phase is not GamePhase.DEAL:
        return actions[0]
    hand = game.deal.hands[seat]
    if ActionType.PASS in by_type:
        tile = game.deal.window.tile if game.deal.window is not None else None
        assert tile is not None
        return _best_claim(hand, tile, by_type)
    kongs = by_type.get(ActionType.KONG, [])
    if kongs:
        before = shanten(hand)
        for kong in kongs:
            assert kong.tile is not None
            if hand[kong.tile] != 4:
                return kong  # an added kong costs nothing
            after = list(hand)
            after[kong.tile] = 0
            if shanten(after) <= before:
                return kong
    return _best_discard(hand, by_type[ActionType.DISCARD])


def _best_discard(hand: list[int], discards: list[Action]) -> Action:
    best: tuple[int, int, int] | None = None
    choice = discards[0]
    for action in discards:
        tile = action.tile
        assert tile is not None
        hand[tile] -= 1
        value = shanten(hand)
        hand[tile] += 1
        key = (value, _usefulness(hand, tile), -int(tile))
        if best is None or key < best:
            best, choice = key, action
    return choice


def _usefulness(hand: list[int], tile: Tile) -> int:
    """How much a tile connects with the rest of the hand (lower = better to throw)."""
    own = hand[tile] - 1
    if tile >= 27:
        return 3 * own
    rank = tile % 9
    near = 0
    for d in (-2, -1, 1, 2):
        r = rank + d
        if 0 <= r <= 8 and hand[tile + d]:
            near += 3 - abs(d)
    edge = 1 if rank in (0, 8) else 0
    return 3 * own + near * 2 - edge


def _best_claim(hand: list[int], tile: Tile, by_type: dict[ActionType, list[Action]]) -> Action:
    """Claim a set only when the hand gets closer to ready than by passing."""
    current = shanten(hand)
    best_gain, choice = 0, by_type[ActionType.PASS][0]
    for kind in (ActionType.KONG, ActionType.PUNG, ActionType.CHOW):
        for action in by_type.get(kind, []):
            after = list(hand)
            if kind is ActionType.CHOW:
                assert action.tiles is not None
                for t in action.tiles:
                    after[t] -= 1
            else:
                after[tile] -= 3 if kind is ActionType.KONG else 2
            if kind is ActionType.KONG:
                value = shanten(after)  # a loose tile follows; the hand keeps its size class
            else:
                value = min(_after_discard(after, k) for k in range(34) if after[k])
            gain = current - value
            if gain > best_gain:
                best_gain, choice = gain, action
    return choice


def _after_discard(hand: list[int], tile: int) -> int:
    hand[tile] -= 1
    value = shanten(hand)
    hand[tile] += 1
    return value
