"""The arena (:mod:`game.arena`): games in duplicate, one per distinct seating of a wall, tallied per bot."""

from __future__ import annotations

import itertools

import pytest

from game.arena import Tally, check_bots, play_seating, play_wall, seating, seatings, walls_for


def test_duplicate_seats_every_bot_at_every_seat_of_every_wall() -> None:
    bots = ("normal", "greedy", "random", "normal")
    wall = play_wall(bots, "seats", 0)
    assert [game.rotation for game in wall.games] == [0, 1, 2, 3]
    for name in set(bots):
        seats = {s for game in wall.games for s, seat in enumerate(game.seats) if seat.bot == name}
        assert seats == {0, 1, 2, 3}, name
    for game in wall.games:
        assert [seat.bot for seat in game.seats] == list(seating(bots, game.rotation))


@pytest.mark.parametrize(
    ("bots", "played"),
    [
        (("strong", "normal", "strong", "normal"), 2),
        (("normal", "greedy", "normal", "greedy"), 2),
        (("easy", "normal", "easy", "normal"), 2),
        (("normal", "greedy", "easy", "strong"), 4),
        (("normal", "normal", "greedy", "greedy"), 4),
        (("normal", "normal", "normal", "greedy"), 4),
    ],
)
def test_a_wall_is_played_once_by_each_distinct_seating_and_never_replayed(
    bots: tuple[str, str, str, str], played: int
) -> None:
    """Two bots alternating give two seatings, otherwise four (one bot alone gives one, below); no
    seating plays a wall twice, and no two games of a wall go move for move alike."""
    for w in range(3):
        wall = play_wall(bots, "distinct", w)
        placed = [tuple(seat.bot for seat in game.seats) for game in wall.games]
        assert len(placed) == played and len(set(placed)) == played
        assert {seating(bots, r) for r in range(4)} == set(placed)  # every rotation's seating is among them
        assert len({game.digest for game in wall.games}) == played
        assert all(game.moves > 0 for game in wall.games)


def test_the_rotations_left_out_would_replay_a_game_move_for_move() -> None:
    """Rotation 2 seats A, B, A, B as rotation 0 does: deterministic bots play it exactly as before."""
    bots = ("strong", "normal", "strong", "normal")
    assert seatings(bots) == (0, 1)
    for r in (0, 1):
        played = play_seating(bots, "replay", 0, r)
        again = play_seating(bots, "replay", 0, r + 2)
        assert again.digest == played.digest and again.seats == played.seats


def test_one_bot_in_every_seat_plays_each_wall_once() -> None:
    wall = play_wall(("greedy",) * 4, "same", 3)
    assert len(wall.games) == 1
    tally = Tally()
    tally.add(wall)
    assert tally.games == 1 and tally.figures()[0].seats == 4 and tally.figures()[0].mean_score == 0


def test_every_game_settles_to_zero_and_its_winner_is_recorded() -> None:
    """The settlement's changes sum to zero (R11); a winner has a value, a discarder is dealt in."""
    for w in range(3):
        for game in play_wall(("normal", "greedy", "easy", "random"), "settle", w).games:
            assert sum(s.change for s in game.seats) == 0
            winners = [s for s in game.seats if s.won]
            assert len(winners) <= 1
            for s in winners:
                assert s.win_value > 0 and s.change > 0 and not s.dealt_in
            dealt_in = [s for s in game.seats if s.dealt_in]
            assert len(dealt_in) <= 1
            if dealt_in or any(s.self_drawn for s in winners):
                assert len(winners) == 1 and bool(dealt_in) != winners[0].self_drawn


def test_the_tally_pools_a_bot_over_its_seats() -> None:
    tally = Tally()
    for w in range(6):
        tally.add(play_wall(("normal", "random", "normal", "random"), "pool", w))
    figures = {f.bot: f for f in tally.figures()}
    assert list(figures) == ["normal", "random"]
    assert tally.games == 12 and tally.walls == 6
    assert figures["normal"].seats == figures["random"].seats == 24
    assert figures["normal"].mean_score == pytest.approx(-figures["random"].mean_score)
    for f in figures.values():
        assert f.ci95 is not None and f.ci95[0] <= f.mean_score <= f.ci95[1]
        assert f.decisions > 0 and f.ms_per_move is None  # no clock was given
    assert figures["normal"].wins > figures["random"].wins


def test_the_interval_takes_each_wall_as_one_sample() -> None:
    """The interval is mean ± 1.96·sd/√walls over the per-wall means of the bot's changes."""
    walls = [play_wall(("normal", "greedy", "normal", "greedy"), "sample", w) for w in range(5)]
    tally = Tally()
    for wall in walls:
        tally.add(wall)
    normal = tally.figures()[0]
    samples = []
    for wall in walls:
        changes = [s.change for game in wall.games for s in game.seats if s.bot == "normal"]
        assert len(changes) == 4  # two seats in each of the two games
        samples.append(sum(changes) / 4)
    mean = sum(samples) / 5
    sd = (sum((x - mean) ** 2 for x in samples) / 4) ** 0.5
    assert normal.mean_score == pytest.approx(mean)
    assert normal.ci95 == pytest.approx((mean - 1.96 * sd / 5**0.5, mean + 1.96 * sd / 5**0.5))


def test_normal_beats_random_clearly() -> None:
    tally = Tally()
    for w in range(5):
        tally.add(play_wall(("normal", "random", "normal", "random"), "versus", w))
    normal, random_ = tally.figures()
    assert normal.ci95 is not None and normal.ci95[0] > 0
    assert normal.win_rate > 0.3 > random_.win_rate


def test_a_clock_given_times_the_decisions() -> None:
    ticks = itertools.count()
    game = play_seating(("normal",) * 4, "clock", 0, 0, clock=lambda: float(next(ticks)))
    for seat in game.seats:
        assert seat.seconds == seat.decisions  # one tick per decision


def test_walls_round_the_games_up_to_whole_walls() -> None:
    alternating = ("normal", "greedy", "normal", "greedy")
    assert [walls_for(n, alternating) for n in (1, 2, 3, 10000)] == [1, 1, 2, 5000]
    assert [walls_for(n, ("normal", "greedy", "easy", "strong")) for n in (1, 4, 5, 10000)] == [1, 1, 2, 2500]
    assert walls_for(7, ("normal",) * 4) == 7


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
