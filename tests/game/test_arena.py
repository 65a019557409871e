"""The arena (:mod:`game.arena`): hands in duplicate, tallied per bot."""

from __future__ import annotations

import itertools

import pytest

from game.arena import ROTATIONS, Tally, check_bots, play_hand, play_wall, seating, walls_for


def test_duplicate_rotation_seats_every_bot_at_every_seat_of_every_wall() -> None:
    bots = ("normal", "greedy", "random", "normal")
    wall = play_wall(bots, "seats", 0)
    assert [hand.rotation for hand in wall.hands] == list(range(ROTATIONS))
    for name in set(bots):
        seats = {s for hand in wall.hands for s, seat in enumerate(hand.seats) if seat.bot == name}
        assert seats == {0, 1, 2, 3}, name
    for hand in wall.hands:
        assert [seat.bot for seat in hand.seats] == list(seating(bots, hand.rotation))


def test_each_rotation_deals_the_same_wall() -> None:
    """With the same deterministic bot in every seat, the four rotations are one hand played four times."""
    wall = play_wall(("greedy",) * 4, "same", 3)
    first = wall.hands[0].seats
    for hand in wall.hands[1:]:
        assert [(s.change, s.won, s.dealt_in, s.win_value) for s in hand.seats] == [
            (s.change, s.won, s.dealt_in, s.win_value) for s in first
        ]


def test_every_hand_settles_to_zero_and_its_winner_is_recorded() -> None:
    """The settlement's changes sum to zero (R11); a winner has a value, a discarder is dealt in."""
    for w in range(3):
        for hand in play_wall(("normal", "greedy", "normal", "greedy"), "settle", w).hands:
            assert sum(s.change for s in hand.seats) == 0
            winners = [s for s in hand.seats if s.won]
            assert len(winners) <= 1
            for s in winners:
                assert s.win_value > 0 and s.change > 0 and not s.dealt_in
            dealt_in = [s for s in hand.seats if s.dealt_in]
            assert len(dealt_in) <= 1
            if dealt_in or any(s.self_drawn for s in winners):
                assert len(winners) == 1 and bool(dealt_in) != winners[0].self_drawn


def test_the_tally_pools_a_bot_over_its_seats() -> None:
    tally = Tally()
    for w in range(6):
        tally.add(play_wall(("normal", "random", "normal", "random"), "pool", w))
    figures = {f.bot: f for f in tally.figures()}
    assert list(figures) == ["normal", "random"]
    assert tally.hands == 24 and tally.walls == 6
    assert figures["normal"].hands == figures["random"].hands == 48
    assert figures["normal"].mean_score == pytest.approx(-figures["random"].mean_score)
    for f in figures.values():
        assert f.ci95 is not None and f.ci95[0] <= f.mean_score <= f.ci95[1]
        assert f.decisions > 0 and f.ms_per_move is None  # no clock was given
    assert figures["normal"].wins > figures["random"].wins


def test_normal_beats_random_clearly() -> None:
    tally = Tally()
    for w in range(5):
        tally.add(play_wall(("normal", "random", "normal", "random"), "versus", w))
    normal, random_ = tally.figures()
    assert normal.ci95 is not None and normal.ci95[0] > 0
    assert normal.win_rate > 0.3 > random_.win_rate


def test_a_clock_given_times_the_decisions() -> None:
    ticks = itertools.count()
    hand = play_hand(("normal",) * 4, "clock", 0, 0, clock=lambda: float(next(ticks)))
    for seat in hand.seats:
        assert seat.seconds == seat.decisions  # one tick per decision


def test_walls_round_the_hands_up_to_whole_rotations() -> None:
    assert [walls_for(n) for n in (1, 4, 5, 8, 20000)] == [1, 1, 2, 2, 5000]


@pytest.mark.parametrize(
    ("bots", "words"),
    [
        (("normal", "greedy", "normal"), "exactly four bots"),
        (("normal",) * 5, "exactly four bots"),
        (("normal", "greedy", "normal", "wizard"), "'wizard'"),
    ],
)
def test_the_bots_must_be_four_known_names(bots: tuple[str, ...], words: str) -> None:
    with pytest.raises(ValueError, match=words):
        check_bots(bots)
