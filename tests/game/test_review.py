"""The review (:mod:`game.review`): honest by construction, its counts right, its marks where they belong.

Seat 0 deals (East) in the East round in the built positions; see tests/game/test_strong.py for the
way a view is changed directly to set up a table the deal would take many moves to reach.
"""

from __future__ import annotations

import dataclasses

import pytest
from gamekit import T, stacked_game

from game import Action, ActionType
from game.arena import ARENA_RULES, play_game
from game.deal import DealPhase
from game.game import Game, GamePhase
from game.hand import shanten, waits
from game.review import Decision, MarkKind, decision_cost, key_moments, review, review_decision
from game.rulesets import RULESETS, ruleset
from game.seatview import SeatView, SeatViewCache, SeenDiscard, SeenMeld
from game.strong import StrongBot

OTHERS = ("147b 147c 147d ESWN", "258b 258c 258d SWNE", "369b 369c 369d SWNG")


def dealer_view(hand: str, draw: str) -> SeatView:
    """The dealer's view in its first turn, holding ``hand`` and then ``draw``."""
    return SeatView.of(stacked_game([hand, *OTHERS], draw), 0)


def marks(decision: Decision) -> set[MarkKind]:
    return {m.kind for m in decision.marks}


@pytest.mark.parametrize("ruleset_name", sorted(RULESETS))
def test_review_agrees_with_strong_on_every_decision_of_its_own_games(ruleset_name: str) -> None:
    """Four strong bots play eight games (their first four deals: a whole game costs the suite four
    times as much and shows nothing more); reviewing a seat of each (every seat twice) finds that it did
    what the review says strong would do, at every decision it had a choice in, under the game's own
    rules (strong weighs defence by what they make a deal-in cost), and marks none of them."""
    rules = ARENA_RULES if ruleset_name == "classical" else ruleset(ruleset_name).rules
    for number in range(8):
        seed, seat = f"review-agreement/{number}", number % 4
        game = play_game(["strong"] * 4, seed, rules, deals=4)
        seen = review(Game(rules, seed), game.log, seat)
        decisions = seen.decisions
        assert len(seen.hands) == len(game.results) == 4 and all(h.finished for h in seen.hands)
        assert len(decisions) > 25
        assert [d for d in decisions if not d.agreed] == []
        assert [d for d in decisions if d.marks] == []  # its own play is no mistake: no mark either
        doc = seen.to_json()
        assert doc["agreement"] == 1.0 and set(doc["marks"].values()) == {0}  # type: ignore[union-attr]
        assert {decision_cost(d) for d in decisions} == {0.0} and doc["key_moments"] == []  # nothing to work on


def test_other_bots_disagree_and_their_figures_add_up() -> None:
    """A greedy seat does not play like strong: its agreement is below 100 %, and the game's figures are
    the sums of the hands' figures."""
    game = play_game(["greedy", "strong", "normal", "strong"], "review-greedy", deals=4)
    seen = review(Game(ARENA_RULES, "review-greedy"), game.log, 0)
    doc = seen.to_json()
    assert 0 < doc["agreed"] < doc["decision_count"]  # type: ignore[operator]
    hands = doc["hands"]
    assert isinstance(hands, list)
    assert sum(h["decision_count"] for h in hands) == doc["decision_count"]
    assert sum(h["deal_ins"] for h in hands) == doc["deal_ins"]
    dealt_in = sum(1 for r in game.results if r.winner is not None and r.discarder == 0)
    assert doc["deal_ins"] == dealt_in


def test_acceptance_counts_match_a_brute_force_count_on_sampled_positions() -> None:
    """For every candidate at sampled decisions, the shanten and the unseen improving tiles the review
    reports equal a count made by adding each unseen kind to the hand it leaves and asking
    :func:`game.hand.shanten`."""
    game = play_game(["strong", "normal", "greedy", "random"], "review-brute", deals=3)
    replay = Game(ARENA_RULES, "review-brute")
    checked = 0
    for number, (actor, action) in enumerate(game.log):
        if replay.phase is GamePhase.DEAL and len(replay.legal_actions(actor)) > 1 and number % 3 == 0:
            seen = SeatView.of(replay, actor)
            for option in review_decision(seen, Action.from_json(action)).options:
                hand = list(option.leaves)
                if sum(hand) % 3 != 1:
                    continue
                now = shanten(hand)
                better = []
                for kind in range(34):
                    if seen.unseen[kind] and hand[kind] < 4:
                        hand[kind] += 1
                        if shanten(hand) < now:
                            better.append((kind, seen.unseen[kind]))
                        hand[kind] -= 1
                assert option.shanten == now, (seen.hand, option.action)
                assert [(int(t), n) for t, n in option.improving] == better, (seen.hand, option.action)
                checked += 1
        replay.apply(actor, action)
    assert checked > 300


def test_a_tile_called_safe_against_an_opponent_could_not_have_won_it() -> None:
    """Where the review says a discard is safe against a threatening opponent (it let that tile go since
    its last discard, or threw it last), that opponent's hidden hand really could not win on it then."""
    game = play_game(["strong", "strong", "normal", "greedy"], "review-safe", deals=4)
    replay = Game(ARENA_RULES, "review-safe")
    checked = 0
    for actor, action in game.log:
        if replay.phase is GamePhase.DEAL and replay.deal.phase is DealPhase.TURN and actor == replay.deal.current:
            seen = SeatView.of(replay, actor)
            for option in review_decision(seen, Action.from_json(action)).options:
                tile = option.action.tile
                if option.action.type is not ActionType.DISCARD or tile is None:
                    continue
                for threat in option.danger:
                    if threat.risk == 0.0:
                        deal = replay.deal
                        hand = deal.hands[threat.seat][:34]
                        blocked = tile in deal.sacred[threat.seat] or deal.missed_win[threat.seat]
                        assert tile not in waits(hand) or blocked, (threat, tile)
                        checked += 1
        replay.apply(actor, action)
    assert checked > 20


def test_win_passed_is_marked_and_a_declared_win_is_not() -> None:
    seen = dealer_view("123d 456b 789d 555c 2c", "2c")
    passed = review_decision(seen, Action(ActionType.DISCARD, T("2c")))
    assert passed.strong == Action(ActionType.WIN) and MarkKind.WIN_PASSED in marks(passed)
    assert marks(review_decision(seen, Action(ActionType.WIN))) == set()


def test_ready_broken_is_marked_only_when_the_discard_leaves_the_hand_not_ready() -> None:
    """Ready on 5d before drawing 9d: throwing 9d (or 5d, now waiting on 9d) keeps it ready, 1b breaks it."""
    seen = dealer_view("123b 456b 789b 123c 5d", "9d")
    broken = review_decision(seen, Action(ActionType.DISCARD, T("1b")))
    assert MarkKind.READY_BROKEN in marks(broken)
    for kept in ("9d", "5d"):
        assert MarkKind.READY_BROKEN not in marks(review_decision(seen, Action(ActionType.DISCARD, T(kept))))
    far = dealer_view("147b 147c 147d ESWN", "5b")  # not ready before the draw: nothing to break
    assert all(MarkKind.READY_BROKEN not in marks(review_decision(far, a)) for a in far.legal)


THREE_OTHERS = ["258b 258c 258d RGP W", "369b 369c 369d SNEN", "147c 147d 3c 6c 7b S E 8c 2d"]


def pung_offer(seat1: str) -> SeatView:
    """Seat 1's view when the dealer throws a West that seat 1 holds two of."""
    game = stacked_game(
        ["258b 258c 258d RGP W", seat1, "369b 369c 369d SNEN", "147c 147d 3c 6c 7b S E 8c 2d"],
        "S",
    )
    game.apply(0, "discard W")
    return SeatView.of(game, 1)


def test_a_missed_claim_that_would_make_the_hand_ready_is_marked() -> None:
    """A pung of West, then throwing 9c, leaves seat 1 waiting on 6b or 9b: passing misses it."""
    seen = pung_offer("123b 456b 78b WW 55d 9c")
    assert Action(ActionType.PUNG) in seen.legal
    passed = review_decision(seen, Action(ActionType.PASS))
    assert passed.strong == Action(ActionType.PUNG) and not passed.agreed
    assert MarkKind.CLAIM_MISSED in marks(passed)
    (missed,) = [m for m in passed.marks if m.kind is MarkKind.CLAIM_MISSED]
    assert missed.instead == Action(ActionType.PUNG) and missed.to_json()["instead"] == {"type": "pung"}
    assert MarkKind.CLAIM_MISSED not in marks(review_decision(seen, Action(ActionType.PUNG)))


def test_passing_a_claim_the_bot_would_pass_too_is_no_mistake() -> None:
    """The pung would leave a lone wait on 5d; the bot keeps the hand concealed: passing agrees with it
    and carries no mark, though the pung would have made the hand ready."""
    seen = pung_offer("123b 456b 789b WW 5d 9c")
    passed = review_decision(seen, Action(ActionType.PASS))
    assert passed.strong == Action(ActionType.PASS) and passed.agreed
    assert passed.marks == ()


def test_passing_a_claim_that_would_not_make_the_hand_ready_is_not_marked() -> None:
    seen = pung_offer("123b 456b 78b WW 5d 9c 1d")
    assert Action(ActionType.PUNG) in seen.legal
    assert MarkKind.CLAIM_MISSED not in marks(review_decision(seen, Action(ActionType.PASS)))


def facing_a_bamboo_flush(seen: SeatView) -> SeatView:
    """``seen`` with South showing three bamboo sets, four concealed tiles and six turns played."""
    south = (
        SeenMeld("pung", (T("2b"),) * 3, True, T("2b"), 2),
        SeenMeld("chow", (T("5b"), T("6b"), T("7b")), True, T("6b"), 0),
        SeenMeld("pung", (T("9b"),) * 3, True, T("9b"), 3),
    )
    throws = tuple(SeenDiscard(s % 4, T(t)) for s, t in enumerate(("N", "W", "E", "S", "1d", "7c")))
    return dataclasses.replace(
        seen, melds=((), south, (), ()), tile_counts=(14, 4, 13, 13), discards=throws, wall_live=seen.wall_live - 20
    )


def test_a_discard_far_more_dangerous_than_a_near_equal_safe_one_is_marked() -> None:
    """Against South's bamboo flush, 5b and 5d leave hands of the same shape: 5b is marked, 5d is not, and
    5b is not marked when no opponent looks ready."""
    quiet = dealer_view("123c 456c 789c 11d 5b 5d", "E")
    seen = facing_a_bamboo_flush(quiet)
    risky = review_decision(seen, Action(ActionType.DISCARD, T("5b")))
    options = {o.action.tile: o for o in risky.options}
    assert options[T("5b")].shanten == options[T("5d")].shanten
    assert options[T("5b")].risk > 3 * options[T("5d")].risk
    assert options[T("5b")].danger[0].seat == 1
    assert MarkKind.DANGER in marks(risky)
    (danger,) = [m for m in risky.marks if m.kind is MarkKind.DANGER]
    assert danger.instead is not None and danger.instead.tile is not None
    assert options[danger.instead.tile].risk * 3 <= options[T("5b")].risk
    # the flush's own suit: South ready about 86 %, the tile fitting a ready hand's waits fully
    assert options[T("5b")].risk > 1 and 0.8 < options[T("5b")].danger_read < 0.9
    assert options[T("5d")].danger_read < 0.2
    assert options[T("5d")].deal_in < options[T("5b")].deal_in < 0.2  # read high; the measured chance is lower
    assert MarkKind.DANGER not in marks(review_decision(seen, Action(ActionType.DISCARD, T("5d"))))
    assert MarkKind.DANGER not in marks(review_decision(quiet, Action(ActionType.DISCARD, T("5b"))))


def test_a_discard_that_ties_with_the_bots_on_every_figure_shown_counts_as_agreement() -> None:
    """1d and 9d are alike here (each leaves the hand ready on the other, 3 of which are unseen, for the
    same points, with no danger): the bot throws one, and throwing the other agrees with it."""
    seen = SeatView.of(stacked_game(["123b 456b 789b 55c 1d 9d", *THREE_OTHERS], "5c"), 0)
    one, nine = (review_decision(seen, Action(ActionType.DISCARD, T(t))) for t in ("1d", "9d"))
    assert one.strong == nine.strong == Action(ActionType.DISCARD, T("1d"))
    assert nine.agreed and nine.marks == () and nine.to_json()["agreed"] is True
    worse = review_decision(seen, Action(ActionType.DISCARD, T("5c")))  # not ready: a step further
    assert not worse.agreed


def test_a_deal_in_is_marked_on_the_discard_won_on_and_nowhere_else() -> None:
    """The dealer throws the West that seat 1 is waiting on."""
    hands = ["258b 258c 258d RGP W", "123b 456b 789b 123c W", "369b 369c 369d SNEN", "147c 147d 3c 6c 7b S E 8c 2d"]
    game = stacked_game(hands, "S")
    game.apply(0, "discard W")
    while game.phase is GamePhase.DEAL:
        seat = game.to_act()[0]
        game.apply(seat, "win" if seat == 1 else "pass")
    assert game.results[0].winner == 1 and game.results[0].discarder == 0
    dealer = review(stacked_game(hands, "S"), game.log, 0)
    (thrown,) = dealer.decisions
    assert marks(thrown) == {MarkKind.DEAL_IN} and dealer.to_json()["deal_ins"] == 1
    for seat in (1, 2, 3):
        assert review(stacked_game(hands, "S"), game.log, seat).to_json()["deal_ins"] == 0


def test_review_refuses_a_bad_seat_and_a_game_already_played_on() -> None:
    game = play_game(["greedy"] * 4, "review-refuse", deals=1)
    for seat in (4, -1, True):
        try:
            review(Game(ARENA_RULES, "review-refuse"), game.log, seat)  # type: ignore[arg-type]
        except ValueError as exc:
            assert "seat" in str(exc)
        else:
            raise AssertionError(f"seat {seat!r} accepted")
    try:
        review(game, game.log, 0)
    except ValueError as exc:
        assert "from its start" in str(exc)
    else:
        raise AssertionError("a played game accepted")


def test_an_unfinished_hand_is_left_out_when_asked() -> None:
    game = play_game(["greedy"] * 4, "review-partial", deals=1)
    while game.phase is not GamePhase.DEAL:
        seat = game.to_act()[0]
        game.apply(seat, "ready")
    for _ in range(12):
        seat = game.to_act()[0]
        game.apply(seat, game.legal_actions(seat)[-1])
    actions = game.log
    whole = review(Game(ARENA_RULES, "review-partial"), actions, 1)
    assert [h.finished for h in whole.hands] == [True, False]
    assert [h.finished for h in review(Game(ARENA_RULES, "review-partial"), actions, 1, finished_only=True).hands] == [
        True
    ]


def test_decisions_made_for_the_seat_are_reviewed_but_not_counted_as_its_own() -> None:
    game = play_game(["greedy"] * 4, "review-made-for", deals=2)
    made_by = ["timer" if i % 2 else None for i in range(len(game.log))]
    seen = review(Game(ARENA_RULES, "review-made-for"), game.log, 2, made_by=made_by)
    doc = seen.to_json()
    own = [d for d in seen.decisions if d.made_by is None]
    assert 0 < len(own) < len(seen.decisions)
    assert all(d.made_by == "timer" for d in seen.decisions if d.seq % 2 == 0)  # seq = index + 1
    assert doc["decision_count"] == len(own) and doc["made_for"] == len(seen.decisions) - len(own)
    assert doc["agreed"] == sum(d.agreed for d in own)


def test_a_decisions_review_depends_only_on_what_its_seat_can_see() -> None:
    """The dealer's first decision is reviewed alike whichever of the other hands each opponent holds
    (and so whatever the wall holds after them): the review reads the dealer's view, nothing else."""
    hand = "123b 456b 78c 55d 46d 8d"
    reviews = []
    for others in (OTHERS, (OTHERS[1], OTHERS[2], OTHERS[0]), (OTHERS[2], OTHERS[0], OTHERS[1])):
        seen = SeatView.of(stacked_game([hand, *others], "9d"), 0)
        reviews.append(review_decision(seen, Action(ActionType.DISCARD, T("9d"))))
    assert reviews[0] == reviews[1] == reviews[2]
    assert reviews[0].options and reviews[0].strong.type is ActionType.DISCARD


def test_the_danger_read_is_a_share_no_greater_than_the_risk_and_the_chance_of_dealing_in_follows_it() -> None:
    """Over a game's decisions every candidate's ``danger_read`` lies in [0, 1], is at most its summed
    ``risk`` (which weighs each threat by what it costs), and is 0 exactly when the risk is; each
    opponent's chance is its readiness times a fit of at most 1. The chance of dealing in is a measured
    rate: above 0 even for a tile read safe, and never lower for a tile read more dangerous."""
    game = play_game(["greedy", "strong", "normal", "strong"], "review-greedy", deals=4)
    options = [o for d in review(Game(ARENA_RULES, "review-greedy"), game.log, 0).decisions for o in d.options]
    risky = [o for o in options if o.risk > 0]
    assert len(risky) > 20
    for o in options:
        assert 0.0 <= o.danger_read <= min(1.0, o.risk) + 1e-9
        assert (o.danger_read > 0) == (o.risk > 0)
        assert 0.0 < o.deal_in < 1.0
        for t in o.danger:
            assert 0.0 <= t.chance <= t.ready and t.chance <= t.risk + 1e-9
        doc = o.to_json()
        assert doc["deal_in"] == round(o.deal_in, 4) and doc["danger_read"] == round(o.danger_read, 3)
    ranked = sorted(options, key=lambda o: o.danger_read)
    assert all(a.deal_in <= b.deal_in for a, b in zip(ranked, ranked[1:], strict=False))
    assert ranked[0].deal_in < ranked[-1].deal_in


def strong_but(seed: str, plant: dict[int, int], deals: int = 2) -> Game:
    """A game four strong bots play, except that at seat 0's decisions numbered in ``plant`` (0-based,
    counting the decisions it had a choice in) it takes the candidate that strong ranks at that place."""
    game, bot, cache = Game(ARENA_RULES, seed), StrongBot(), SeatViewCache()
    mine = 0
    while game.phase is not GamePhase.OVER and len(game.results) < deals:
        seat = game.to_act()[0]
        seen = SeatView.of(game, seat, cache)
        action = bot.decide(seen)
        if seat == 0 and game.phase is GamePhase.DEAL and len(seen.legal) > 1:
            if mine in plant:
                weighed = [c.action for c in bot.deliberate(seen).candidates if c.action in seen.legal]
                action = weighed[min(plant[mine], len(weighed) - 1)]
            mine += 1
        game.apply(seat, action)
    return game


def test_a_planted_bad_decision_is_the_first_key_moment_and_agreement_costs_nothing() -> None:
    """Seat 0 plays strong's play but twice: a middling candidate early and strong's worst one later.
    The worst is the costliest and comes first; every agreeing decision costs 0 and is no key moment."""
    game = strong_but("moments", {2: 1, 6: 99})
    seen = review(Game(ARENA_RULES, "moments"), game.log, 0)
    own = [d for d in seen.decisions if d.made_by is None]
    planted = [d for d in own if not d.agreed]
    assert len(planted) == 2 and planted[0].seq < planted[1].seq
    assert all(decision_cost(d) == 0 for d in own if d.agreed)
    worst = planted[1]
    assert decision_cost(worst) > decision_cost(planted[0]) >= 0
    moments = key_moments(seen)
    assert moments[0].decision == worst and all(m.decision in planted for m in moments)
    doc = seen.to_json()["key_moments"]
    assert isinstance(doc, list)
    assert doc[0] == {
        "hand": worst.hand + 1,
        "step": worst.step,
        "seq": worst.seq,
        "cost": round(decision_cost(worst), 1),
        "done": worst.done.to_json(),
        "strong": worst.strong.to_json(),
        "offered": None if worst.offered is None else worst.offered.code,
        "marks": [m.kind.value for m in worst.marks],
    }
    assert review(Game(ARENA_RULES, "moments"), game.log, 0).to_json()["key_moments"] == doc  # the same each time


def test_key_moments_are_the_costliest_first_at_most_five_and_ties_keep_the_order_played() -> None:
    game = play_game(["greedy", "strong", "strong", "strong"], "moments-greedy", deals=3)
    seen = review(Game(ARENA_RULES, "moments-greedy"), game.log, 0)
    moments = key_moments(seen)
    costs = sorted(
        ((round(decision_cost(d), 1), d.seq) for d in seen.decisions if round(decision_cost(d), 1) > 0),
        key=lambda c: (-c[0], c[1]),
    )
    assert len(costs) > 5 and len(moments) == 5
    assert [(round(m.cost, 1), m.decision.seq) for m in moments] == costs[:5]
    assert [m.decision.seq for m in key_moments(seen, limit=99)] == [seq for _, seq in costs]


def test_a_passed_win_costs_the_value_it_would_have_scored() -> None:
    hands = ["123d 456b 789d 555c 2c", *OTHERS]
    declared = stacked_game(hands, "2c")
    declared.apply(0, "win")
    assert declared.reckoning is not None and declared.reckoning.scores[0] is not None
    value = declared.reckoning.scores[0].value
    passed = stacked_game(hands, "2c")
    passed.apply(0, "discard 2c")
    (decision,) = review(stacked_game(hands, "2c"), passed.log, 0).decisions
    assert MarkKind.WIN_PASSED in marks(decision) and decision.win_value == value > 0
    assert decision_cost(decision) == value
    assert decision_cost(review_decision(SeatView.of(stacked_game(hands, "2c"), 0), Action(ActionType.WIN))) == 0
