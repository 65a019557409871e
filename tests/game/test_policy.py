"""The built-in policy (:mod:`game.policy`) on stacked hands: what a player at the table would notice.

Seat 0 deals (East) in the East round unless said otherwise. Seats a scenario does not need hold
"inert" hands (singletons three ranks apart), and each scripted move asserts which claim window, if
any, opens, so a mis-stacked wall fails loudly instead of testing the wrong thing.
"""

from __future__ import annotations

import dataclasses
import json
import random
from collections.abc import Iterator, Sequence

import pytest
from gamekit import stacked_wall

from game import Action, ActionType, Event, Game, GamePhase, Rules, Tile, Wall, view
from game.hand import shanten
from game.policy import choose, decide, flush_plan, flush_suit
from game.seatview import SeatView
from game.tiles import full_set

INERT_A = "147b 147c 147d ESWN"
INERT_B = "258b 258c 258d RGPE"
INERT_C = "369b 369c 369d SWNR"

BAMBOO = 0


def stacked(hands: Sequence[str], draws: str = "", *, seed: str = "policy", rules: Rules | None = None) -> Game:
    """A game whose first deal is laid out by ``stacked_wall`` (seat 0 deals), with its own seed."""
    rules = rules or Rules()
    first = stacked_wall(hands, draws, rules=rules)
    return Game(rules, seed=seed, walls=lambda n: first if n == 0 else Wall.shuffled(f"{seed}/{n}", rules))


def act(game: Game, seat: int, action: str, *, window: Sequence[int] = ()) -> list[Event]:
    """``seat`` plays ``action``; asserts that exactly the seats in ``window`` are then asked to claim."""
    events = game.apply(seat, action)
    if window:
        assert sorted(game.to_act()) == sorted(window), (events, game.to_act())
    else:
        assert game.deal.window is None, events
    return events


def discard_drawn(game: Game, seat: int) -> None:
    """``seat`` throws the tile it has just drawn (an inert hand stays as it was); no window opens."""
    drawn = game.deal.drawn
    assert game.to_act() == [seat] and drawn is not None
    act(game, seat, f"discard {drawn}")


def discarded(action: Action) -> Tile:
    """The tile a discard throws."""
    assert action.type is ActionType.DISCARD and action.tile is not None, action
    return action.tile


def shanten_after(game: Game, seat: int, tile: Tile) -> int:
    """The seat's shanten after throwing ``tile``."""
    hand = list(game.deal.hands[seat][:34])
    hand[tile] -= 1
    return shanten(hand)


# ====================================================================== wins
def test_declares_a_self_drawn_win_even_when_playing_for_a_flush() -> None:
    """R7.3: a complete hand is always declared, however much more a full flush would be worth."""
    game = stacked(["123b 456b 789b 333b 2c", INERT_A, INERT_B, "369c 369d 258c ESWN"], "2c")
    assert flush_suit(game, 0) == BAMBOO
    assert choose(game, 0) == Action(ActionType.WIN)


def test_declares_a_win_on_a_discard_rather_than_the_dragon_pung() -> None:
    """Seat 1 waits on R or 1d; the dealer's R is offered as a win and as a pung: it wins."""
    game = stacked(["258b 258c 258d R GPE", "123b 456b 789c 11d RR", INERT_C, "147b 147c 369d SWNG"], "S")
    act(game, 0, "discard R", window=[1])
    assert [a.type for a in game.legal_actions(1)] == [ActionType.WIN, ActionType.PUNG, ActionType.PASS]
    assert choose(game, 1) == Action(ActionType.WIN)


def self_play(seed: str, deals: int, rules: Rules | None = None) -> Iterator[tuple[Game, int]]:
    """Every decision of ``deals`` deals of policy self-play: yields (game, seat) before the policy moves."""
    game = Game(rules or Rules(), seed=seed)
    done = 0
    while done < deals:
        if game.phase is GamePhase.BETWEEN:
            for seat in range(4):
                game.apply(seat, "ready")
            continue
        for seat in sorted(game.to_act()):
            if game.phase is not GamePhase.DEAL or seat not in game.to_act():
                break
            yield game, seat
            if any(e["type"] == "deal_end" for e in game.apply(seat, choose(game, seat))):
                done += 1
        if game.phase is GamePhase.OVER:
            game = Game(rules or Rules(), seed=f"{seed}/{done}")


def test_declares_every_win_it_is_offered_in_self_play() -> None:
    """Over whole deals, a win on offer (on its own draw, a discard or a robbed kong) is always taken."""
    offered = 0
    for game, seat in self_play("wins", 40):
        if Action(ActionType.WIN) in game.legal_actions(seat):
            offered += 1
            assert choose(game, seat) == Action(ActionType.WIN)
    assert offered >= 30


# ==================================================================== claims
@pytest.mark.parametrize(
    ("honour", "claims"),
    [("R", True), ("S", True), ("E", True), ("W", False), ("N", False)],
    ids=["dragon", "own-wind", "prevailing-wind", "guest-wind-W", "guest-wind-N"],
)
def test_claims_a_valuable_honour_pung_at_equal_shanten(honour: str, claims: bool) -> None:
    """A pung of a dragon, of one's seat wind (South for seat 1) or of the prevailing wind (East) is a
    double (R9): claimed even though it leaves the hand as far from ready. A guest wind's is not.
    """
    others = [h for h in "RSEWN" if h != honour]
    dealer = f"258b 258c 258d 6d {honour} {' '.join(others[:2])}"
    game = stacked([dealer, f"123b 456b 789c 12d {honour}{honour}", INERT_C, "147b 147c 147d 9b 9d G P"], "9c")
    act(game, 0, f"discard {honour}", window=[1])
    assert [a.type for a in game.legal_actions(1)] == [ActionType.PUNG, ActionType.PASS]
    expected = ActionType.PUNG if claims else ActionType.PASS
    assert choose(game, 1).type is expected


def test_declines_a_pung_that_trades_a_two_sided_wait_for_a_single_wait() -> None:
    """Seat 1 holds 34d + 44d (waits on 2d/5d); punging 4d leaves it no closer to ready."""
    game = stacked(["258b 258c 4d 58d RGP 9b", "123b 456b 789c 34d 44d", INERT_C, "147b 147c 9c 17d ESWN"], "E")
    act(game, 0, "discard 4d", window=[1])
    assert ActionType.PUNG in [a.type for a in game.legal_actions(1)]
    assert choose(game, 1).type is ActionType.PASS


def test_declines_a_chow_that_does_not_bring_the_hand_closer() -> None:
    """Seat 1 is ready on 4d/7d (44d 56d); chowing the dealer's 5d with 4d 6d gains nothing."""
    game = stacked(["258b 258c 25d 8d RGP 9b", "123b 456b 789c 44d 56d", INERT_C, "147b 147c 9c 17d ESWN"], "E")
    act(game, 0, "discard 5d", window=[1])
    assert Action.parse("chow 4d 6d") in game.legal_actions(1)
    assert choose(game, 1).type is ActionType.PASS


def test_claims_a_kong_on_a_discard_once_its_hand_is_open() -> None:
    """Seat 1 has punged the dealer's R, so its hand is open (R7.6); with 555d concealed it kongs seat 2's
    5d: no closer to ready, but more points and a loose tile (R6.1), and no concealed hand to lose.
    """
    game = stacked(["147b 258c 147d R 9b 9c 3d", "RR 555d 123b 456c 9d N", INERT_B, "369b 369c 369d SWNG"], "E 9b")
    act(game, 0, "discard R", window=[1])
    act(game, 1, "pung")
    act(game, 1, "discard N")
    act(game, 2, "discard 5d", window=[1])
    assert [a.type for a in game.legal_actions(1)] == [ActionType.KONG, ActionType.PUNG, ActionType.PASS]
    assert choose(game, 1).type is ActionType.KONG


#: Seat 1: bamboo and honours but for 4c 6c; a chow of 5c would bring it one step closer to ready.
FLUSH_CHOW = ["258b 258c 5c 3d 6d 9d RGP", "1234567b 9b RR E 4c 6c", INERT_C, "147b 1c 7c 147d SWNGP"]


def deals_by_plan(seen: SeatView) -> dict[bool, SeatView]:
    """The same view with a deal number for which the seat plays for a flush, and one for which it does not
    (the flush draw hashes public facts fixed through a deal, the deal number among them).
    """
    found: dict[bool, SeatView] = {}
    for n in range(200):
        other = dataclasses.replace(seen, deal=n)
        found.setdefault(flush_plan(other) is not None, other)
        if len(found) == 2:
            return found
    raise AssertionError(f"the plan never varied: {found}")


def test_declines_an_off_suit_chow_while_playing_for_a_flush() -> None:
    """The same hand, two deals: committed to a bamboo flush, seat 1 passes a chow of characters that
    would help its speed (R9: the flush is worth more); not committed, it takes it.
    """
    game = stacked(FLUSH_CHOW, "E")
    act(game, 0, "discard 5c", window=[1])
    hand = list(game.deal.hands[1][:34])
    chowed = list(hand)
    chowed[Tile.C4] -= 1
    chowed[Tile.C6] -= 1
    chowed[Tile.EAST] -= 1
    assert shanten(chowed) < shanten(hand)  # the chow would help
    for plays_flush, seen in deals_by_plan(SeatView.of(game, 1)).items():
        assert flush_plan(seen) == (BAMBOO if plays_flush else None)
        expected = ActionType.PASS if plays_flush else ActionType.CHOW
        assert decide(seen).type is expected, seen.deal


# ==================================================================== doubles
#: The dealer's 14 tiles: bamboo, honours, and 3c 4c. Seats 1-3 draw and throw 9d, 1c, 9c; the dealer draws G.
ONE_SUIT = (["12345b 789b RR W 34c", INERT_A, INERT_B, INERT_C], "9b 9d 1c 9c G")


def test_keeps_discarding_toward_a_one_suit_hand() -> None:
    """With one suit plus honours dominating the hand, it throws the characters, turn after turn,
    even while greedier choices (the lone wind, the lone dragon) are on offer; it keeps the dragon pair.
    """
    game = stacked(*ONE_SUIT)
    thrown = []
    for turn in range(2):
        assert flush_suit(game, 0) == BAMBOO
        tile = discarded(choose(game, 0))
        thrown.append(tile)
        if turn == 0:
            # the greedy order would throw the lone West first: it is no further from ready
            assert shanten_after(game, 0, Tile.WEST) <= shanten_after(game, 0, tile)
        act(game, 0, f"discard {tile}")
        if turn == 0:
            for seat in (1, 2, 3):
                discard_drawn(game, seat)
    assert sorted(thrown) == [Tile.C3, Tile.C4]
    assert game.deal.hands[0][Tile.RED] == 2


def test_whether_it_plays_for_a_flush_is_a_draw_fixed_for_the_deal() -> None:
    """'Sometimes': the same hand with two stray tiles commits in some deals and not others; within a
    deal the answer never changes, however often it is asked, and it does not depend on the game's seed.
    """
    layout = ["12345b 789b RR 3c 5d 7d", INERT_A, INERT_B, INERT_C]
    for plays_flush, seen in deals_by_plan(SeatView.of(stacked(layout, "9b"), 0)).items():
        for seed in ("one", "two"):
            again = dataclasses.replace(SeatView.of(stacked(layout, "9b", seed=seed), 0), deal=seen.deal)
            assert (flush_plan(again) is not None) is plays_flush


def test_the_flush_draw_stays_fixed_after_a_flower_is_drawn() -> None:
    """The draw reads nothing that changes within a deal once the first tile is thrown: a seat's bonus
    tiles growing (a flower drawn later) leaves the plan as it was.
    """
    game = stacked(FLUSH_CHOW, "E")
    act(game, 0, "discard 5c", window=[1])
    seen = SeatView.of(game, 1)
    for plays_flush, fixed in deals_by_plan(seen).items():
        bonus = list(fixed.bonus)
        bonus[1] = (*bonus[1], Tile.parse("2f"))
        flowered = dataclasses.replace(fixed, bonus=tuple(bonus))
        assert (flush_plan(flowered) is not None) is plays_flush


# ==================================================================== defence
#: Seat 1 pungs the dealer's R and seat 2's G (two dragon sets shown); then seats 2 and 3 throw their draws
#: and the dealer draws 6d: throwing its lone White would leave it ready, anything else one step away.
THIRD_DRAGON = (
    ["123b 456b 789c 11d P R", "RR GG 147b 258c 369d", "G 258b 147c 258d ESW", "369b 369c 147d ESWN"],
    "5d 9b N S 6d",
)


def two_dragon_pungs_shown() -> Game:
    game = stacked(*THIRD_DRAGON)
    act(game, 0, "discard R", window=[1])
    act(game, 1, "pung")
    act(game, 1, "discard 1b")
    act(game, 2, "discard G", window=[1])
    act(game, 1, "pung")
    act(game, 1, "discard 2c")
    discard_drawn(game, 2)
    discard_drawn(game, 3)
    assert game.to_act() == [0] and game.deal.drawn == Tile.D6
    assert [m.to_json()["tiles"] for m in game.deal.melds[1]] == ["RRR", "GGG"]
    return game


def test_never_throws_the_third_dragon_to_a_player_showing_two_dragon_pungs() -> None:
    """R11.3 (pao): with RRR and GGG on the table, the dealer holds its White even though throwing it
    is the only discard that keeps it ready; it pays one step of shanten instead.
    """
    game = two_dragon_pungs_shown()
    tile = discarded(choose(game, 0))
    assert tile != Tile.WHITE
    assert shanten_after(game, 0, Tile.WHITE) == 0
    assert shanten_after(game, 0, tile) == 1


#: Seat 1 pungs the dealer's 2b, throws the tile written ``{}``, pungs seat 2's 8b (two bamboo sets shown)
#: and throws 4c; seats 2 and 3 throw their draws; the dealer draws 9b: throwing it would leave it
#: ready, anything else one step away.
BAMBOO_THREAT = ["123c 456c 789d 11d 5d 2b", "22b 88b {} 47c 369d ESW", "258b 369c 147d NRPG", "147b 258c 3d 6d SWNRP"]


def two_bamboo_pungs_shown(seat3_throws: str, seat1_throws: str = "1c") -> Game:
    """The table of :data:`BAMBOO_THREAT`; seat 1 throws ``seat1_throws`` after its first pung."""
    layout = [hand.format(seat1_throws) for hand in BAMBOO_THREAT]
    game = stacked(layout, f"6d 8b 9c {seat3_throws} 9b")
    act(game, 0, "discard 2b", window=[1])
    act(game, 1, "pung")
    act(game, 1, f"discard {seat1_throws}")
    act(game, 2, "discard 8b", window=[1])
    act(game, 1, "pung")
    act(game, 1, "discard 4c")
    discard_drawn(game, 2)
    discard_drawn(game, 3)
    assert game.to_act() == [0] and game.deal.drawn == Tile.B9
    return game


def test_prefers_a_safe_tile_to_one_that_could_feed_a_shown_one_suit_hand() -> None:
    """Seat 1 shows 222b and 888b: a flush in bamboo is on the table. The dealer would be ready by
    throwing its new 9b, but a bamboo tile nobody has thrown could complete that hand, so it throws a
    tile of another suit at the cost of one step of shanten.
    """
    game = two_bamboo_pungs_shown("E")
    tile = discarded(choose(game, 0))
    assert tile.suit != "b" and not tile.is_honour
    assert shanten_after(game, 0, Tile.B9) == 0 and shanten_after(game, 0, tile) == 1


def test_throws_a_tile_already_discarded_against_a_shown_one_suit_hand() -> None:
    """The same table, but seat 3 has just thrown a 9b: the dealer's 9b is now the safe tile, and it
    keeps the dealer ready.
    """
    game = two_bamboo_pungs_shown("9b")
    assert discarded(choose(game, 0)) == Tile.B9


def test_two_melds_of_one_suit_are_no_threat_once_that_player_throws_the_suit() -> None:
    """Seat 1 shows 222b and 888b but threw a 5b after its first pung: it is not collecting bamboo, so
    the dealer throws its 9b and stays ready.
    """
    game = two_bamboo_pungs_shown("E", seat1_throws="5b")
    assert discarded(choose(game, 0)) == Tile.B9


# ============================================================== information
def test_choice_depends_only_on_what_the_seat_can_see() -> None:
    """Twin deals: the dealer's 14 tiles are the same, every other hand and the wall differ (one twin
    gives seat 1 a pair of the dealer's likeliest throw). The dealer's views are identical, and so are
    the choices.
    """
    rules = Rules(flowers=False)
    for n in range(40):
        rng = random.Random(n)
        tiles = full_set(flowers=False)
        rng.shuffle(tiles)
        own = tiles[:14]
        first = stacked([hand_text(own[:13]), *three_hands(tiles[14:])], own[13].code, seed="twin", rules=rules)
        pick = discarded(choose(first, 0))
        rest = tiles[14:]
        copies = [i for i, t in enumerate(rest) if t == pick][:2]
        if len(copies) < 2:
            copies = []
        others = [t for i, t in enumerate(rest) if i not in copies]
        rng.shuffle(others)
        pool = [pick] * len(copies) + others  # seat 1 gets the pair when two copies are left
        second = stacked([hand_text(own[:13]), *three_hands(pool)], own[13].code, seed="twin", rules=rules)
        assert view(first, 0) == view(second, 0)
        assert first.deal.full_state() != second.deal.full_state()
        assert choose(second, 0) == choose(first, 0)


def hand_text(tiles: Sequence[Tile]) -> str:
    return " ".join(t.code for t in tiles)


def three_hands(pool: Sequence[Tile]) -> list[str]:
    return [hand_text(pool[13 * i : 13 * i + 13]) for i in range(3)]


def test_choice_is_the_same_when_made_from_the_view_a_browser_gets() -> None:
    """Over whole deals of self-play, every choice made again from the seat's view document sent as JSON
    (what a player's browser receives, R12.1) is the same: the policy needs nothing else.
    """
    checked = 0
    for game, seat in self_play("sealed", 12):
        doc = json.loads(json.dumps(view(game, seat)))
        assert decide(SeatView.read(doc, game.rules)) == choose(game, seat)
        checked += 1
    assert checked > 500


# ============================================================== determinism
def test_same_state_same_choice_and_choosing_changes_nothing() -> None:
    """The policy is a function of the state: asking twice gives the same action, and asking leaves the
    game exactly as it was.
    """
    for game, seat in self_play("same", 6):
        before = game.digest()
        assert choose(game, seat) == choose(game, seat)
        assert game.digest() == before


def test_self_play_replays_identically() -> None:
    """Two self-play runs from the same seed make the same moves, deal after deal."""

    def run() -> list[str]:
        digests: list[str] = []
        for game, _ in self_play("replay", 4):
            digests.append(game.digest())
        return digests

    assert run() == run()
