"""The seating draw (R2.6): the wind tiles give the places, the dice of the player who drew East give
the first dealer; the same seed always seats the same way, and every seating can happen."""

from __future__ import annotations

from collections import Counter

from game.seating import draw_seats
from game.tiles import WINDS


def test_r2_6_the_same_seed_draws_the_same_seats() -> None:
    assert [draw_seats(s) for s in range(50)] == [draw_seats(s) for s in range(50)]
    assert len({draw_seats(s) for s in range(50)}) > 1  # and different seeds draw differently


def test_r2_6_each_player_draws_one_wind_and_the_dice_count_from_east() -> None:
    for seed in range(200):
        draw = draw_seats(seed)
        assert sorted(draw.tiles) == sorted(WINDS)
        assert all(1 <= d <= 6 for d in draw.dice)
        east = draw.tiles.index(WINDS[0])
        # Counting the players in turn order from the East drawer (who counts as one), the count stops
        # on the first dealer; the places that follow in turn order are the drawn South, West, North.
        stop = (sum(draw.dice) - 1) % 4
        assert draw.first_dealer == draw.tiles.index(WINDS[stop])
        for seat, player in enumerate(draw.order):
            assert draw.tiles[player] == WINDS[(stop + seat) % 4]
        if stop == 0:
            assert draw.first_dealer == east


def test_r2_6_every_seating_happens_and_none_is_favoured() -> None:
    seatings = Counter(draw_seats(seed).order for seed in range(4800))
    assert len(seatings) == 24  # every order of four players
    assert min(seatings.values()) > 4800 / 24 / 2  # about 200 each: none is rare
    dealers = Counter(draw_seats(seed).first_dealer for seed in range(4800))
    assert min(dealers.values()) > 4800 / 4 * 0.85
