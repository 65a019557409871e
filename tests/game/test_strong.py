"""The "strong" bot (:mod:`game.strong`) on stacked and constructed positions: what a player would notice.

Seat 0 deals (East) in the East round. The bot is handed a :class:`SeatView` and nothing else; some
positions change that view directly (another seat's sets and discards, the legal discards) to set up
a table the deal itself would take many moves to reach.
"""

from __future__ import annotations

import dataclasses

from gamekit import T, stacked_game

from game import Action, ActionType
from game.hand import shanten
from game.rulesets import ruleset
from game.seatview import SeatView, SeenDiscard, SeenMeld
from game.strong import StrongBot

OTHERS = ("147b 147c 147d ESWN", "258b 258c 258d SWNE", "369b 369c 369d SWNG")


def dealer_view(hand: str, draw: str) -> SeatView:
    """The dealer's view in its first turn, holding ``hand`` and then ``draw``."""
    return SeatView.of(stacked_game([hand, *OTHERS], draw), 0)


def after_discard(seen: SeatView, tile: int) -> tuple[int, int]:
    """(shanten, unseen tiles that would bring the hand closer) after throwing ``tile``."""
    hand = list(seen.hand)
    hand[tile] -= 1
    now = shanten(hand)
    better = 0
    for kind in range(34):
        if seen.unseen[kind] and hand[kind] < 4:
            hand[kind] += 1
            if shanten(hand) < now:
                better += seen.unseen[kind]
            hand[kind] -= 1
    return now, better


def test_declares_a_win_it_can_make() -> None:
    """R7.3: a complete hand is declared, whatever else the bot could do."""
    seen = dealer_view("123d 456b 789d 555c 2c", "2c")
    assert StrongBot().decide(seen) == Action(ActionType.WIN)


def test_throws_the_tile_that_keeps_more_tiles_coming_at_equal_shanten() -> None:
    """One step from ready, breaking 4d-6d (one kind completes it) or 8d-9d keeps the same shanten;
    the bot throws the 5d of its pair of 5s instead, which leaves more unseen tiles that help.
    """
    seen = dealer_view("123b 456b 78c 55d 46d 8d", "9d")
    choice = StrongBot().decide(seen)
    assert choice.type is ActionType.DISCARD and choice.tile is not None
    options = {a.tile: after_discard(seen, a.tile) for a in seen.legal if a.tile is not None}
    low = min(s for s, _ in options.values())
    most = max(n for s, n in options.values() if s == low)
    assert options[choice.tile] == (low, most)
    assert options[T("9d")][0] == low and options[T("9d")][1] < most  # the other candidate is worse


def test_keeps_a_dragon_pair_over_a_lone_terminal() -> None:
    """Throwing a red dragon or the 9d costs the same shanten and acceptance; a red pung is a double
    (R9), so the pair stays.
    """
    seen = dealer_view("2468b 135c 117d RR P", "9d")
    assert after_discard(seen, T("R")) == after_discard(seen, T("9d"))
    seen = dataclasses.replace(seen, legal=(Action(ActionType.DISCARD, T("R")), Action(ActionType.DISCARD, T("9d"))))
    assert StrongBot().decide(seen) == Action(ActionType.DISCARD, T("9d"))


def test_waits_on_a_wind_the_others_throw_rather_than_a_middle_tile_with_more_copies_to_come() -> None:
    """Ready either way: throwing the North leaves a wait on the 5c (three copies unseen), throwing the
    5c a wait on the North (two unseen: West threw one). The others throw a wind, and one they have
    thrown before, sooner than a middle tile they may need, so the bot keeps the North.
    """
    seen = dealer_view("123b 456b 789c 999d 5c", "N")
    north = T("N")
    visible = list(seen.visible)
    visible[north] += 1
    seen = dataclasses.replace(seen, discards=(SeenDiscard(1, north),), visible=tuple(visible))
    assert after_discard(seen, T("5c")) == (0, 2) and after_discard(seen, north) == (0, 3)
    assert StrongBot().decide(seen) == Action(ActionType.DISCARD, T("5c"))


def test_throws_a_safe_tile_against_three_sets_of_one_suit_when_its_hand_is_far() -> None:
    """South has three bamboo sets on the table and four tiles left, and threw 7c last; the dealer's
    hand is far from ready, so it throws that 7c rather than any bamboo.
    """
    seen = dealer_view("147b 147c 147d ESWN", "5b")
    assert shanten(list(seen.hand)) >= 2
    seen = facing_three_bamboo_sets(seen, "7c")
    choice = StrongBot().decide(seen)
    assert choice.tile is not None and choice.tile >= 9, choice  # not bamboo
    assert choice == Action(ActionType.DISCARD, T("7c"))


def facing_three_bamboo_sets(seen: SeatView, last_throw: str) -> SeatView:
    """``seen`` with South showing three bamboo sets and four concealed tiles, its latest discard ``last_throw``."""
    return facing_three_sets(seen, "b", last_throw)


def test_keeps_its_hand_one_step_from_ready_against_the_same_opponent() -> None:
    """One step from ready, the dealer does not fold to South's latest discard (3c), which would break a
    set: it folds only when its hand is far. Among the discards that keep it one step away it throws a
    dot (4d), though the bamboo it does not need (1b or 8b) would leave more tiles to come: bamboo feeds
    South's flush (R9).
    """
    seen = facing_three_bamboo_sets(dealer_view("123c 456c 78d 55d 46d 8b", "1b"), "3c")
    assert min(after_discard(seen, t)[0] for t in range(34) if seen.hand[t]) == 1
    choice = StrongBot().decide(seen)
    assert choice == Action(ActionType.DISCARD, T("4d"))
    assert after_discard(seen, T("4d"))[0] == 1 and after_discard(seen, T("3c"))[0] == 2
    assert after_discard(seen, T("4d"))[1] < after_discard(seen, T("1b"))[1]


def test_throws_the_sacred_discard_when_it_keeps_the_same_shanten() -> None:
    """One step from ready against South's three character sets, the dealer throws South's latest
    discard, the 9c (safe: R6.7), though the 5c would leave more tiles to come: defence picks among the
    discards that keep the shanten, and the hand is not far enough from ready to fold.
    """
    seen = facing_three_sets(dealer_view("123b 456b 78d 55c 46c 8c", "9c"), "c", "9c")
    options = {t: after_discard(seen, t) for t in range(34) if seen.hand[t]}
    low = min(s for s, _ in options.values())
    assert low == 1 and options[T("9c")][0] == low
    assert options[T("5c")] == (low, max(n for s, n in options.values() if s == low)) != options[T("9c")]
    assert StrongBot().decide(seen) == Action(ActionType.DISCARD, T("9c"))


def facing_three_sets(seen: SeatView, suit: str, last_throw: str) -> SeatView:
    """``seen`` with South showing three sets of ``suit`` and four concealed tiles, its latest discard
    ``last_throw``.
    """
    south = (
        SeenMeld("pung", (T("2" + suit),) * 3, True, T("2" + suit), 2),
        SeenMeld("chow", (T("5" + suit), T("6" + suit), T("7" + suit)), True, T("6" + suit), 0),
        SeenMeld("pung", (T("9" + suit),) * 3, True, T("9" + suit), 3),
    )
    throws = tuple(SeenDiscard(s % 4, T(t)) for s, t in enumerate(("N", "W", "E", "S", "1d", last_throw)))
    return dataclasses.replace(
        seen, melds=((), south, (), ()), tile_counts=(14, 4, 13, 13), discards=throws, wall_live=seen.wall_live - 20
    )


def test_claims_a_dragon_pung_for_its_double() -> None:
    """A pung of red dragons is a double (R9) and costs nothing here: the bot claims it."""
    game = stacked_game(
        ["258b 258c 258d R GPE", "123b 456b 78c 14d RR W", "369b 369c 369d SWNE", "147b 147c 369d SWNG"], "S"
    )
    game.apply(0, "discard R")
    assert StrongBot().decide(SeatView.of(game, 1)) == Action(ActionType.PUNG)


def test_weighs_danger_by_what_a_deal_in_costs_under_the_tables_payment_rules() -> None:
    """South shows two bamboo sets and looks likely to be ready. One step from ready, the dealer's best
    hand throws the 1b (more tiles to come); the 4d keeps the same shanten and is far safer. Under the
    classical rules (R11.1) throwing South's winning tile costs the dealer its one share, as South's
    self-draw would, so it plays for its hand and throws the 1b; under `chinese-american`, where the
    discarder pays for all (R14), it throws the 4d.
    """
    south = (
        SeenMeld("pung", (T("2b"),) * 3, True, T("2b"), 2),
        SeenMeld("chow", (T("5b"), T("6b"), T("7b")), True, T("6b"), 0),
    )
    throws = tuple(SeenDiscard(s % 4, T(t)) for s, t in enumerate(("N", "W", "E", "S", "1d", "3c")))
    seen = dataclasses.replace(
        dealer_view("123c 456c 78d 55d 46d 8b", "1b"),
        melds=((), south, (), ()),
        tile_counts=(14, 7, 13, 13),
        discards=throws,
    )
    assert after_discard(seen, T("1b"))[0] == after_discard(seen, T("4d"))[0] == 1
    assert after_discard(seen, T("1b"))[1] > after_discard(seen, T("4d"))[1]
    classical = StrongBot().deliberate(seen)
    assert classical.choice == Action(ActionType.DISCARD, T("1b"))
    discarder_pays = StrongBot().deliberate(dataclasses.replace(seen, rules=ruleset("chinese-american").rules))
    assert discarder_pays.choice == Action(ActionType.DISCARD, T("4d"))
    risk = {c.action.tile: c.risk for c in discarder_pays.candidates}
    assert risk[T("4d")] < risk[T("1b")] / 3  # the reading itself is the same under both rules
    assert risk == {c.action.tile: c.risk for c in classical.candidates}


def test_in_the_dangerous_game_keeps_back_a_tile_the_table_would_judge_dangerous() -> None:
    """The position above, near the end of the wall, West having thrown a 4d. In the Dangerous Game
    (R11.6, `dmjl`), with five tiles left in the live wall, a tile no copy of which has been seen is
    dangerous: the 1b is (the dealer's own copies do not count), the 4d is not. Throwing the 1b would
    make the dealer pay for all if South won on it, so it throws the 4d; with six tiles left nothing is
    dangerous yet and it throws the 1b, as it does under the classical rules.
    """
    south = (
        SeenMeld("pung", (T("2b"),) * 3, True, T("2b"), 2),
        SeenMeld("chow", (T("5b"), T("6b"), T("7b")), True, T("6b"), 0),
    )
    throws = tuple(SeenDiscard(s % 4, T(t)) for s, t in enumerate(("N", "W", "E", "4d", "1d", "3c")))
    seen = dataclasses.replace(
        dealer_view("123c 456c 78d 55d 46d 8b", "1b"),
        melds=((), south, (), ()),
        tile_counts=(14, 7, 13, 13),
        discards=throws,
        wall_live=5,
    )
    dangerous_game = ruleset("dmjl").rules
    assert StrongBot().decide(seen) == Action(ActionType.DISCARD, T("1b"))
    assert StrongBot().decide(dataclasses.replace(seen, rules=dangerous_game)) == Action(ActionType.DISCARD, T("4d"))
    earlier = dataclasses.replace(seen, rules=dangerous_game, wall_live=6)
    assert StrongBot().decide(earlier) == Action(ActionType.DISCARD, T("1b"))


def test_playing_for_a_flush_weighs_an_honour_like_any_other_discard() -> None:
    """Nine bamboos, a pair of 5c and three lone honours: the dealer plays for a bamboo flush (R9). The
    5c would go first as off-suit, a step further from ready; an honour breaks no flush, keeps the hand
    two steps from ready and is worth more by the bot's own figures, so an honour goes."""
    deliberation = StrongBot().deliberate(dealer_view("123357789b 55c S P", "E"))
    assert deliberation.mode == "flush"
    assert deliberation.choice.type is ActionType.DISCARD and deliberation.choice.tile in (T("E"), T("S"), T("P"))
    by_tile = {c.action.tile: c for c in deliberation.candidates}
    assert by_tile[T("5c")].considered and by_tile[T("5c")].shanten == by_tile[deliberation.choice.tile].shanten + 1
    assert by_tile[T("5c")].worth < by_tile[deliberation.choice.tile].worth
