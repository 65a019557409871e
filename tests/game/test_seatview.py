"""A bot's view of its seat (:class:`game.seatview.SeatView`), built from the deal's own state, says
exactly what that seat's browser view (:func:`game.view.view`, the hidden-information authority, R12)
says: no more, no less, at every step of random games in every ruleset."""

from __future__ import annotations

import random

import pytest
from gamekit import stacked_game

from game import Game, GamePhase
from game.policy import choose
from game.rulesets import RULESETS
from game.seatread import ViewReader
from game.seatview import SeatView, SeatViewCache
from game.tiles import Tile
from game.view import view


@pytest.mark.parametrize("ruleset", sorted(RULESETS))
def test_the_view_a_bot_gets_is_its_seats_browser_view_at_every_step(ruleset: str) -> None:
    """Every seat, every step (turns, claim and robbing windows, between deals, the end of the game):
    the view built from the game equals the view document read back, field for field."""
    rules = RULESETS[ruleset].with_overrides({"game_length": "east"})
    steps = windows = between = 0
    for number in range(2):
        rng = random.Random(f"{ruleset}/{number}")
        game = Game(rules, seed=f"seatview/{ruleset}/{number}")
        cache = SeatViewCache()  # as a table's bots and the arena read it, one per game
        while True:
            for seat in range(4):
                expected = SeatView.read(view(game, seat), rules)
                assert SeatView.of(game, seat, cache) == expected, (number, steps, seat)
                assert SeatView.of(game, seat) == expected
            steps += 1
            windows += game.deal.window is not None
            between += game.phase is GamePhase.BETWEEN
            if game.phase is GamePhase.OVER:
                break
            seat = rng.choice(game.to_act())
            # mostly the policy (what play reaches), sometimes at random (claims and kongs it would not make)
            action = choose(game, seat) if rng.random() < 0.7 else rng.choice(game.legal_actions(seat))
            game.apply(seat, action)
    assert steps > 800 and windows > 100 and between >= 30


def _agree(game: Game) -> None:
    for seat in range(4):
        assert SeatView.of(game, seat) == SeatView.read(view(game, seat), game.rules), seat


def test_while_an_added_kong_may_be_robbed_every_seat_sees_the_tile_and_only_the_robber_may_act() -> None:
    """R6.5: seat 1 pungs 5d, then adds the fourth; seat 3, ready on 5d, may rob it. The tile being
    added is on the table for everyone, and counted among the tiles each seat can see."""
    hands = ["147b 147c 147d ESWN", "55d 258b 258c 8d RGPW", "369b 369c 369d SWNR", "123b 456b 789b 4d EE N"]
    game = stacked_game(hands, "5d 2c 6d 9c 5d", loose="1c")
    for seat, action in [(0, "discard 5d"), (1, "pung"), (1, "discard W"), (2, "discard 2c")]:
        _agree(game)
        game.apply(seat, action)
    for seat, action in [(3, "discard N"), (0, "discard 9c"), (1, "kong 5d")]:
        _agree(game)
        game.apply(seat, action)
    assert game.deal.window is not None and game.deal.window.kind == "rob"
    _agree(game)
    seen = [SeatView.of(game, seat) for seat in range(4)]
    assert [v.turn for v in seen] == ["rob"] * 4 and {v.offered for v in seen} == {Tile.D5}
    assert [v.visible[Tile.D5] for v in seen] == [4, 4, 4, 4]  # three in the pung, one being added
    assert [bool(v.legal) for v in seen] == [False, False, False, True]
    game.apply(3, "win")
    _agree(game)


def test_the_document_reader_reads_every_view_as_read_afresh() -> None:
    """The cached reading of view documents (how bots saw the table before) agrees with a fresh one."""
    game = Game(RULESETS["classical"].with_overrides({"game_length": "east"}), seed="reader")
    reader = ViewReader()
    checked = 0
    while game.phase is GamePhase.DEAL:
        for seat in range(4):
            assert reader.of(game, seat) == SeatView.read(view(game, seat), game.rules) == SeatView.of(game, seat)
            checked += 1
        seat = game.to_act()[0]
        game.apply(seat, choose(game, seat))
    assert checked > 100


@pytest.mark.parametrize("seat", [None, -1, 4, True, "0"])
def test_a_view_is_built_only_for_a_seat(seat: object) -> None:
    with pytest.raises(ValueError, match="seat"):
        SeatView.of(Game(seed=1), seat)  # type: ignore[arg-type]


def test_a_spectators_document_is_refused() -> None:
    game = Game(seed=1)
    with pytest.raises(ValueError, match="spectator"):
        SeatView.read(view(game, None), game.rules)
