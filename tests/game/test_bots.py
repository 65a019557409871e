"""The bots (:mod:`game.bots`): each decides from its seat's view alone, and each plays as described."""

from __future__ import annotations

import copy
import random
from collections.abc import Iterator

import pytest

from game import Action, ActionType, Game, GamePhase, Wall, view
from game.bots import BOTS, LEVELS, make_bot
from game.hand import shanten
from game.seatview import SeatView, SeatViewCache
from game.tiles import NUM_PLAYING_KINDS


def positions(seed: str, deals: int, bot: str = "normal") -> Iterator[tuple[Game, int]]:
    """(game, seat) before every decision of ``deals`` first deals played by ``bot`` at every seat."""
    for n in range(deals):
        game = Game(seed=f"{seed}/{n}")
        player = make_bot(bot, n)
        while game.phase is GamePhase.DEAL:
            seat = game.to_act()[0]
            yield game, seat
            game.apply(seat, player.decide(SeatView.of(game, seat)))


def scrambled(game: Game, seat: int, rng: random.Random) -> Game:
    """A copy of ``game`` whose hidden tiles (the other seats' concealed tiles and both walls) are
    permuted among themselves: every seat's view stays the same, what it cannot see changes.
    Bonus tiles left in the walls stay where they are, so no hand is given one.
    """
    twin = copy.deepcopy(game)
    deal = twin.deal
    others = [s for s in range(4) if s != seat]
    live, dead = deal.wall.remaining()
    hidden = [k for s in others for k in range(NUM_PLAYING_KINDS) for _ in range(deal.hands[s][k])]
    hidden += [int(t) for t in (*live, *dead) if t < NUM_PLAYING_KINDS]
    rng.shuffle(hidden)
    pool = iter(hidden)
    for s in others:
        size = sum(deal.hands[s][:NUM_PLAYING_KINDS])
        counts = [0] * len(deal.hands[s])
        counts[NUM_PLAYING_KINDS:] = deal.hands[s][NUM_PLAYING_KINDS:]
        for _ in range(size):
            counts[next(pool)] += 1
        deal.hands[s] = counts
    refill = [[t if t >= NUM_PLAYING_KINDS else type(t)(next(pool)) for t in part] for part in (live, dead)]
    deal.wall = Wall(refill[0], refill[1])
    return twin


@pytest.mark.parametrize("name", sorted(BOTS))
def test_a_bot_decides_the_same_whatever_the_hidden_tiles(name: str) -> None:
    """The arena's guarantee that nobody cheats (R12): the same view gives the same decision, however
    the other seats' concealed tiles and the wall are laid out behind it.
    """
    rng = random.Random(name)
    checked = changed = 0
    for number, (game, seat) in enumerate(positions(f"hidden-{name}", 3)):
        if number % 5:
            continue  # every fifth decision is plenty, and keeps the slower bots quick
        twin = scrambled(game, seat, rng)
        assert view(twin, seat) == view(game, seat)
        changed += twin.deal.full_state() != game.deal.full_state()
        first = make_bot(name, number).decide(SeatView.of(game, seat))
        again = make_bot(name, number).decide(SeatView.of(twin, seat))
        assert again == first, (name, number, seat)
        checked += 1
    assert checked >= 20 and changed >= checked - 2


@pytest.mark.parametrize("name", sorted(BOTS))
def test_every_bot_plays_whole_deals_with_legal_actions(name: str) -> None:
    """A bot's every answer is one of the actions on offer, until the deal ends."""
    for game, seat in positions(f"legal-{name}", 2, bot=name):
        seen = SeatView.of(game, seat)
        assert make_bot(name, 1).decide(seen) in seen.legal


def test_an_unknown_bot_is_refused_with_the_names_there_are() -> None:
    with pytest.raises(ValueError) as refused:
        make_bot("grandmaster", 0)
    message = str(refused.value)
    assert "'grandmaster'" in message
    for name in ("random", "greedy", "normal"):
        assert name in message


def test_the_levels_offered_are_registered_bots_and_include_normal() -> None:
    assert "normal" in LEVELS and set(LEVELS) <= set(BOTS)
    assert "random" not in LEVELS and "greedy" not in LEVELS


def test_the_random_bot_repeats_itself_for_a_seed_and_not_across_seeds() -> None:
    """Its choices come from its own seeded generator: the same seed replays them."""
    game = Game(seed="random-bot")
    seen = SeatView.of(game, 0)
    picks = {seed: make_bot("random", seed).decide(seen) for seed in range(40)}
    assert picks[3] == make_bot("random", 3).decide(seen)
    assert len(set(picks.values())) > 5  # uniform over some 14 discards


# ==================================================================== greedy
def greedy_positions() -> Iterator[tuple[Game, int, SeatView, Action]]:
    greedy = make_bot("greedy")
    for game, seat in positions("greedy", 12, bot="greedy"):
        seen = SeatView.of(game, seat)
        yield game, seat, seen, greedy.decide(seen)


def test_greedy_declares_every_win_it_is_offered() -> None:
    offered = 0
    for _, _, seen, action in greedy_positions():
        if Action(ActionType.WIN) in seen.legal:
            offered += 1
            assert action.type is ActionType.WIN
    assert offered >= 8


def test_greedy_throws_a_tile_that_leaves_its_hand_fewest_tiles_from_ready() -> None:
    """Among the discards on offer, its own leaves the lowest shanten (ties go to the highest tile)."""
    seen_discards = 0
    for _, _, seen, action in greedy_positions():
        if action.type is not ActionType.DISCARD:
            continue
        assert action.tile is not None
        after = {}
        for option in seen.legal:
            if option.type is ActionType.DISCARD and option.tile is not None:
                hand = list(seen.hand)
                hand[option.tile] -= 1
                after[option.tile] = shanten(hand)
        best = min(after.values())
        assert after[action.tile] == best
        assert action.tile == max(t for t, value in after.items() if value == best)
        seen_discards += 1
    assert seen_discards > 100


def test_greedy_claims_only_what_brings_its_hand_closer_to_ready() -> None:
    claims = passes = 0
    for _, _, seen, action in greedy_positions():
        if ActionType.PASS not in [a.type for a in seen.legal]:
            continue
        before = shanten(list(seen.hand))
        if action.type in (ActionType.CHOW, ActionType.PUNG):
            hand = list(seen.hand)
            assert seen.offered is not None
            used = action.tiles if action.tiles is not None else (seen.offered, seen.offered)
            for t in used:
                hand[t] -= 1
            best = min(shanten([c - (k == t) for k, c in enumerate(hand)]) for t in range(34) if hand[t])
            assert best < before
            claims += 1
        elif action.type is ActionType.PASS:
            passes += 1
    assert claims >= 5 and passes >= 5


# ============================================================== view reading
def test_a_cached_reading_of_the_views_is_the_fresh_reading() -> None:
    """Reading views through a :class:`SeatViewCache` (as the arena does) gives exactly the view read
    afresh, at every decision of whole deals, for every seat.
    """
    count = 0
    cache = SeatViewCache()
    current: Game | None = None
    for game, seat in positions("cache", 4):
        if game is not current:
            cache, current = SeatViewCache(), game
        for s in {seat, (seat + 1) % 4}:
            cached, fresh = SeatView.of(game, s, cache), SeatView.of(game, s)
            assert cached == fresh and cached.visible == fresh.visible
            count += 1
    assert count > 300
