"""Hypothesis properties over random seeds and random legal play (R3–R7): deals always end,
tiles are conserved after every action, and (rules, seed, actions) replay to the same digest.
"""

from __future__ import annotations

import random
from collections import Counter

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from game import ActionType, Game, GamePhase, Rules, Termination, replay
from game.rulesets import RULESETS as NAMED
from game.tiles import TILES, full_set

RULESETS = [
    Rules(),
    Rules(flowers=False),
    Rules(dead_wall=16, sacred_discard=False, dealer_keeps_on_washout=False),
    Rules(claim_pause=True),
    NAMED["dmjl"],  # R16: a 16-tile dead wall, Original Call, the Dangerous Game, the ninth win
    NAMED["bmja"],  # R17: one chow, special shapes that win at the table
]


def play_random_deal(game: Game, rng: random.Random, *, check_tiles: bool) -> None:
    """Play the current deal to its end with random legal actions (wins taken half the time)."""
    full = Counter(full_set(game.rules.flowers))
    while game.phase is GamePhase.DEAL:
        seat = rng.choice(game.to_act())
        actions = game.legal_actions(seat)
        assert actions, f"seat {seat} was asked to act but has no legal action"
        wins = [a for a in actions if a.type is ActionType.WIN]
        action = wins[0] if wins and rng.random() < 0.5 else rng.choice(actions)
        game.apply(seat, action)
        if check_tiles:
            assert game.deal.tile_census() == full, "tiles not conserved"


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32), rules=st.sampled_from(RULESETS), play=st.randoms(use_true_random=False))
def test_random_play_ends_every_deal_and_conserves_tiles(seed: int, rules: Rules, play: random.Random) -> None:
    game = Game(rules, seed=seed)
    for _ in range(3):
        play_random_deal(game, play, check_tiles=True)
        result = game.results[-1]
        if result.termination is Termination.WASH_OUT:
            assert result.winner is None
        else:
            assert result.winner in range(4) and result.tile is not None
        if game.phase is GamePhase.OVER:
            break
        for seat in range(4):
            game.apply(seat, {"type": "ready"})
        assert game.phase in (GamePhase.DEAL, GamePhase.BETWEEN)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32), rules=st.sampled_from(RULESETS), play=st.randoms(use_true_random=False))
def test_replaying_seed_and_actions_gives_the_same_digest(seed: int, rules: Rules, play: random.Random) -> None:
    game = Game(rules, seed=seed)
    play_random_deal(game, play, check_tiles=False)
    if game.phase is GamePhase.BETWEEN:
        for seat in range(4):
            game.apply(seat, {"type": "ready"})
        play_random_deal(game, play, check_tiles=False)
    again = replay(rules, seed, game.log)
    assert again.digest() == game.digest()
    assert again.log == game.log


def test_different_seeds_give_different_deals() -> None:
    assert Game(Rules(), seed=1).digest() != Game(Rules(), seed=2).digest()


def test_a_whole_east_round_game_ends_with_an_outcome() -> None:
    rng = random.Random(5)
    game = Game(Rules(game_length="east"), seed=5)
    deals = 0
    while game.phase is not GamePhase.OVER:
        if game.phase is GamePhase.BETWEEN:
            for seat in range(4):
                game.apply(seat, {"type": "ready"})
            continue
        play_random_deal(game, rng, check_tiles=False)
        deals += 1
        assert deals < 400, "the game never ended"
    outcome = game.outcome
    assert outcome is not None and outcome.deals == deals
    assert game.legal_actions(0) == []


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32), rules=st.sampled_from(RULESETS), play=st.randoms(use_true_random=False))
def test_legal_actions_asked_again_match_a_fresh_game(seed: int, rules: Rules, play: random.Random) -> None:
    """A deal remembers its last turn's actions (asked for by every view of a live table): after each
    action, what it answers, asked twice and with the first answer spoiled, is what a game replayed
    to the same point, which has remembered nothing, answers (R5–R6).
    """
    game = Game(rules, seed=seed)
    actions_so_far = []
    while game.phase is GamePhase.DEAL:
        seat = play.choice(game.to_act())
        first = game.legal_actions(seat)
        first.clear()  # a caller that changes its list must not change the next answer
        again = game.legal_actions(seat)
        if play.random() < 0.25:  # (a fresh replay at every step would cost the square of the deal's length)
            assert again == replay(rules, seed, actions_so_far).legal_actions(seat)
        action = play.choice(again)
        game.apply(seat, action)
        actions_so_far.append((seat, action))


def test_legal_actions_follow_the_hand_not_a_remembered_answer() -> None:
    """The discards offered are the tiles held now (R5.1), even when nothing else about the turn
    changed since the seat was last asked.
    """
    game = Game(Rules(), seed=7)
    deal = game.deal
    seat = deal.current
    before = {a.tile for a in game.legal_actions(seat) if a.type is ActionType.DISCARD}
    hand = deal.hands[seat]
    gone = next(k for k in range(34) if hand[k] == 1 and (deal.drawn is None or k != deal.drawn))
    new = next(k for k in range(34) if hand[k] == 0)
    hand[gone], hand[new] = 0, 1
    after = {a.tile for a in game.legal_actions(seat) if a.type is ActionType.DISCARD}
    assert after == (before - {TILES[gone]}) | {TILES[new]}


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32))
def test_the_fair_pause_changes_nothing_but_the_passes(seed: int) -> None:
    """R6.9: with every seat asked after every discard, the same choices make the same game."""
    from game.policy import choose

    results = []
    for pause in (False, True):
        game = Game(Rules(claim_pause=pause, game_length="east"), seed)
        played = []
        while game.phase is not GamePhase.OVER:
            seat = game.to_act()[0]
            action = choose(game, seat)
            if action.type is not ActionType.PASS:
                played.append((seat, action))
            game.apply(seat, action)
        results.append((game.scores, played))
    assert results[0] == results[1]
