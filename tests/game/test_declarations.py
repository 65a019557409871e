"""The declarations the association books need, played at a table: Original Call (R5.4) and the
Dangerous Game (R11.6), both ruleset options that `classical` leaves off."""

from __future__ import annotations

import pytest
from gamekit import stacked_game

from game import Action, Event, Game, Rules, view
from game.bots import make_bot
from game.dangerous_game import dangers
from game.errors import IllegalActionError
from game.game import replay
from game.melds import Meld, MeldKind
from game.notation import parse_tiles
from game.rulesets import ruleset
from game.seatview import SeatView

DECLARING = Rules(original_call=True, dangerous_game=True)

# The dealer waits on 5d or W once it throws its 14th tile, N; the others never claim.
CALLER = "123b 456c 789d 55d WW"
INERT = ("147b 147c 147d ESNG", "369b 369c 369d SWNR", "147b 258c 369d GPEN")


def _events(events: list[Event], kind: str) -> list[Event]:
    return [e for e in events if e["type"] == kind]


def _caller_game(draws: str, rules: Rules = DECLARING) -> Game:
    return stacked_game([CALLER, *INERT], draws=draws, rules=rules)


def _item_rules(end: Event, seat: int) -> list[tuple[str, str]]:
    scores = end["scores"]
    assert isinstance(scores, list)
    return [(i["rule"], i["text"]) for i in scores[seat]["items"]]


# ------------------------------------------------------------------------------ R5.4 Original Call
def test_r5_4_original_call_is_offered_with_the_first_discard_that_leaves_a_calling_hand() -> None:
    game = _caller_game("N")
    calls = [a for a in game.legal_actions(0) if a.type.value == "original_call"]
    assert calls == [Action.parse("original_call N")]  # only throwing N leaves 123b 456c 789d 55d WW ready


def test_r5_4_classical_has_no_original_call() -> None:
    game = _caller_game("N", rules=ruleset("classical").rules)
    assert all(a.type.value != "original_call" for a in game.legal_actions(0))
    with pytest.raises(IllegalActionError, match="no Original Call"):
        game.apply(0, "original_call N")
    assert ruleset("classical").version == "5e91c349f39a6125"  # the option changes no stored version


def test_r5_4_a_calling_hand_declared_is_public_and_doubles_the_win() -> None:
    game = _caller_game("N 9c 9b 1c W")
    events = game.apply(0, "original_call N")
    assert _events(events, "original_call") == [{"type": "original_call", "seat": 0, "tile": "N"}]
    assert _events(events, "discard")[0]["tile"] == "N"
    for seat in (None, 0, 1, 2, 3):
        assert view(game, seat)["seats"][0]["original_call"] == "declared"  # type: ignore[index]
    assert "original_call" not in view(game, 1)["seats"][1]  # type: ignore[index,operator]
    game.apply(1, "discard 9c")
    game.apply(2, "discard 9b")
    game.apply(3, "discard 1c")
    assert all(a.type.value != "original_call" for a in game.legal_actions(0))  # once only, first discard
    [end] = _events(game.apply(0, "win"), "deal_end")
    assert ("R5.4", "Original Call") in _item_rules(end, 0)
    scores = end["scores"]
    assert isinstance(scores, list) and scores[0]["doubles"] == 2  # the call and the fully concealed hand


def test_r5_4_later_discards_are_not_declarations() -> None:
    game = _caller_game("N 9c 9b 1c 4b")
    game.apply(0, "discard N")  # a plain first discard: the chance to declare is gone
    game.apply(1, "discard 9c")
    game.apply(2, "discard 9b")
    game.apply(3, "discard 1c")
    assert all(a.type.value != "original_call" for a in game.legal_actions(0))
    with pytest.raises(IllegalActionError, match="first discard"):
        game.apply(0, "original_call 4b")


def test_r5_4_changing_the_hand_breaks_the_call_and_the_right_to_win() -> None:
    game = _caller_game("N 9c 9b 1c 4b 2c W")
    game.apply(0, "original_call N")
    game.apply(1, "discard 9c")
    game.apply(2, "discard 9b")
    game.apply(3, "discard 1c")
    events = game.apply(0, "discard 1b")  # drew 4b and kept it: 234b 456c 789d 55d WW, still ready
    assert _events(events, "original_call_broken") == [
        {"type": "original_call_broken", "seat": 0, "reason": "discarded 1b, not the tile drawn"}
    ]
    assert view(game, 2)["seats"][0]["original_call"] == "broken"  # type: ignore[index]
    game.apply(1, "discard 2c")
    game.apply(2, "discard W")  # completes the dealer's hand, but the dealer may no longer win
    assert Action.parse("win") not in game.legal_actions(0)
    with pytest.raises(IllegalActionError, match="broke its Original Call"):
        game.apply(0, "win")


def test_r5_4_throwing_each_drawn_tile_keeps_the_call() -> None:
    game = _caller_game("N 9c 9b 1c 4b 2c 9d S 5d")
    game.apply(0, "original_call N")
    for seat, tile in ((1, "9c"), (2, "9b"), (3, "1c"), (0, "4b"), (1, "2c"), (2, "9d"), (3, "S")):
        assert not _events(game.apply(seat, f"discard {tile}"), "original_call_broken")
    [end] = _events(game.apply(0, "win"), "deal_end")  # drew 5d
    assert ("R5.4", "Original Call") in _item_rules(end, 0)


def test_r5_4_the_declaration_replays_from_the_action_log() -> None:
    game = _caller_game("N 9c 9b 1c W")
    log: list[tuple[int, Action]] = []
    for seat, text in ((0, "original_call N"), (1, "discard 9c"), (2, "discard 9b"), (3, "discard 1c"), (0, "win")):
        game.apply(seat, text)
        log.append((seat, Action.parse(text)))
    again = stacked_game([CALLER, *INERT], draws="N 9c 9b 1c W", rules=DECLARING)
    for seat, action in log:
        again.apply(seat, action)
    assert again.digest() == game.digest() and again.scores == game.scores
    assert replay is not None  # the seeded replay path takes the same (seat, action) pairs


def test_r5_4_bots_declare_a_calling_first_discard_and_keep_the_hand() -> None:
    game = _caller_game("N 9c 9b 1c 4b")
    bot = make_bot("greedy", 0)
    assert bot.decide(SeatView.of(game, 0)) == Action.parse("original_call N")
    game.apply(0, "original_call N")
    for seat, tile in ((1, "9c"), (2, "9b"), (3, "1c")):
        game.apply(seat, f"discard {tile}")
    assert bot.decide(SeatView.of(game, 0)) == Action.parse("discard 4b")  # the tile it drew


def test_r5_4_bots_never_break_a_call_in_whole_games() -> None:
    for seed in range(3):
        game = Game(DECLARING, seed=seed)
        bots = [make_bot(name, seed) for name in ("normal", "strong", "greedy", "easy")]
        for _ in range(4000):
            if not game.to_act():
                break
            seat = game.to_act()[0]
            events = game.apply(seat, bots[seat].decide(SeatView.of(game, seat)))
            assert not _events(events, "original_call_broken")


# ---------------------------------------------------------------------------- R11.6 Dangerous Game
def _sets(*texts: str) -> list[Meld]:
    kinds = {3: MeldKind.PUNG, 4: MeldKind.KONG}
    out = []
    for text in texts:
        tiles = tuple(parse_tiles(text))
        kind = MeldKind.CHOW if len(set(tiles)) == 3 else kinds[len(tiles)]
        out.append(Meld(kind, tiles))
    return out


@pytest.mark.parametrize(
    ("shown", "dangerous", "safe"),
    [
        (("111b", "456b", "789b"), ["1b", "5b", "9b"], ["1c", "E"]),  # a flush
        (("222b", "333b", "GGG"), ["4b", "6b", "8b", "G"], ["5b", "7b"]),  # All Green (G in a set too)
        (("111b", "999c", "111d"), ["1c", "9b", "9d"], ["5b", "E"]),  # All Terminals
        (("EEE", "SSS", "WWW", "234b"), ["N"], ["R", "5b"]),  # three wind sets: the fourth wind
        (("RRR", "GGG"), ["P"], ["E", "5b"]),  # two dragon sets: the third dragon
        (("EEE", "RRR", "SSS"), ["N", "W", "G", "P"], ["E", "R", "1b"]),  # All Honours
        (("123b", "456c", "EEE"), [], ["1b", "N", "R"]),  # nothing obvious
    ],
)
def test_r11_6_what_declared_sets_make_dangerous(shown: tuple[str, ...], dangerous: list[str], safe: list[str]) -> None:
    table = [_sets(*shown), [], [], []]
    for discarder in (1, 2, 3):
        codes = dict(dangers(table, [], 40)[discarder])
        assert all(code in codes for code in dangerous), codes
        assert not any(code in codes for code in safe), codes
    assert dangers(table, [], 40)[0] == []  # one's own sets never endanger oneself


def test_r11_6_late_in_the_hand_every_unseen_tile_is_dangerous() -> None:
    seen = parse_tiles("1b 2b 3b")
    table: list[list[Meld]] = [_sets("EEE"), [], [], []]
    assert dangers(table, seen, 6)[1] == []
    late = dict(dangers(table, seen, 5)[1])
    assert "4b" in late and "1b" not in late and "E" not in late
    assert late["4b"] == "not yet seen, 5 tiles left in the live wall"


# The dealer shows three bamboo kongs, then waits on 9b or E with 99b EE.
FLUSHER = "1111b 2222b 3333b 9b"
OTHERS = ("147c 258d 369c SWNR", "258c 147d 369d SNGP", "258c 369d 147d WNRG")


def _flush_game(seat1: str) -> Game:
    game = stacked_game([FLUSHER, seat1, *OTHERS[1:]], draws="E 9b", loose="9b 7b E", rules=DECLARING)
    for tile in ("1b", "2b", "3b"):
        game.apply(0, f"kong {tile}")
    game.apply(0, "discard 7b")
    if Action.parse("pass") in game.legal_actions(1):
        game.apply(1, "pass")
    return game


def test_r11_6_a_dangerous_discard_that_wins_makes_its_discarder_pay_for_all() -> None:
    game = _flush_game(OTHERS[0])
    events = game.apply(1, "discard 9b")
    reason = "seat 0 shows a bamboo flush (three or more sets, all bamboo)"
    assert _events(events, "dangerous") == [{"type": "dangerous", "seat": 1, "tile": "9b", "reason": reason}]
    assert view(game, 3)["discards"][-1] == {"seat": 1, "tile": "9b", "danger": reason}  # type: ignore[index]
    [end] = _events(game.apply(0, "win"), "deal_end")
    scores = end["scores"]
    assert isinstance(scores, list)
    value = scores[0]["value"]
    to_winner = [p for p in end["payments"] if p["to"] == 0]  # type: ignore[union-attr]
    assert to_winner == [
        {
            "from": 1,
            "to": 0,
            "amount": 6 * value,
            "rule": "R11.6",
            "text": f"Dangerous Game: pays alone for all three losers ({6 * value})",
        }
    ]  # a dealer's win: what the three losers would have paid, 2 + 2 + 2 times the value
    assert end["dangerous"] == 1


def test_r11_6_a_discarder_with_no_choice_pays_as_usual() -> None:
    # Seat 1 holds only bamboo, all dangerous once the dealer shows three bamboo kongs.
    game = _flush_game("444b 555b 666b 888b 7b")
    events = game.apply(1, "discard 9b")
    assert _events(events, "dangerous")  # the danger is public; whether it had a choice is not (R12.2)
    [end] = _events(game.apply(0, "win"), "deal_end")
    assert "dangerous" not in end
    assert {p["from"] for p in end["payments"] if p["to"] == 0} == {1, 2, 3}  # type: ignore[union-attr]


def test_r11_6_without_the_option_nothing_is_judged() -> None:
    game = stacked_game([FLUSHER, *OTHERS], draws="E 9b", loose="9b 7b E", rules=Rules(original_call=True))
    for tile in ("1b", "2b", "3b"):
        game.apply(0, f"kong {tile}")
    game.apply(0, "discard 7b")
    events = game.apply(1, "discard 9b")
    assert not _events(events, "dangerous") and "danger" not in view(game, 2)["discards"][-1]  # type: ignore[index,operator]
    [end] = _events(game.apply(0, "win"), "deal_end")
    assert {p["from"] for p in end["payments"] if p["to"] == 0} == {1, 2, 3}  # type: ignore[union-attr]
