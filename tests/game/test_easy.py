"""The "easy" bot (:mod:`game.easy`): the normal policy with a beginner's slips, on stacked positions."""

from __future__ import annotations

from gamekit import stacked_game

from game import Action, ActionType
from game.easy import EasyBot
from game.hand import shanten
from game.policy import decide
from game.seatview import SeatView

OTHERS = ("147b 147c 147d ESWN", "258b 258c 258d SWNE", "369b 369c 369d SWNG")
SEEDS = range(60)


def test_always_declares_a_win() -> None:
    """R7.3: a slip never costs a win."""
    seen = SeatView.of(stacked_game(["123d 456b 789d 555c 2c", *OTHERS], "2c"), 0)
    assert {EasyBot(seed).decide(seen) for seed in SEEDS} == {Action(ActionType.WIN)}


def test_passes_some_claims_the_normal_policy_makes() -> None:
    """The normal policy claims the red dragon pung (a double, R9); easy bots miss it now and then."""
    game = stacked_game(
        ["258b 258c 258d R GPE", "123b 456b 78c 14d RR W", "369b 369c 369d SWNE", "147b 147c 369d SWNG"], "S"
    )
    game.apply(0, "discard R")
    seen = SeatView.of(game, 1)
    assert decide(seen) == Action(ActionType.PUNG)
    choices = [EasyBot(seed).decide(seen) for seed in SEEDS]
    passes = choices.count(Action(ActionType.PASS))
    assert 5 <= passes <= 40 and passes + choices.count(Action(ActionType.PUNG)) == len(choices)


def test_sometimes_throws_a_worse_tile_but_never_more_than_a_step_worse() -> None:
    """Most easy bots throw what the normal policy throws; some throw another tile, at most one step
    of shanten further from ready.
    """
    seen = SeatView.of(stacked_game(["123b 456b 78c 55d 46d 8d", *OTHERS], "9d"), 0)
    best = decide(seen)
    assert best.tile is not None
    hand = list(seen.hand)

    def left(tile: int) -> int:
        hand[tile] -= 1
        value = shanten(hand)
        hand[tile] += 1
        return value

    choices = [EasyBot(seed).decide(seen) for seed in SEEDS]
    slips = [c for c in choices if c != best]
    assert 1 <= len(slips) <= 25
    assert all(c.tile is not None and left(c.tile) <= left(best.tile) + 1 for c in slips)


def test_the_same_seed_makes_the_same_choices() -> None:
    """A replayed table gets the same moves from the same easy bot."""
    seen = SeatView.of(stacked_game(["123b 456b 78c 55d 46d 8d", *OTHERS], "9d"), 0)
    first, again = EasyBot(7), EasyBot(7)
    assert [first.decide(seen) for _ in range(30)] == [again.decide(seen) for _ in range(30)]
