"""The ready hint (game.hints): a ready hand's waits, each with the copies its seat has not seen —
counting only what that seat sees: its own tiles, the discards on the table and every set."""

from __future__ import annotations

from game.deal import Discard
from game.game import Game
from game.hand import counts_of
from game.hints import ready_hint
from game.melds import Meld, MeldKind
from game.notation import parse_tiles
from game.rules import Rules
from game.tiles import Tile


def tile(code: str) -> Tile:
    return parse_tiles(code)[0]


def test_a_ready_hand_sees_its_waits_and_the_copies_it_has_not_seen() -> None:
    deal = Game(Rules(), 3).deal
    deal.hands[1] = counts_of(parse_tiles("123b 456c 789d EEE 5d"))  # waiting on 5 dots alone
    deal.melds[1] = []
    deal.discards = []
    for other in (0, 2, 3):
        deal.melds[other] = []
    assert ready_hint(deal, 1) == [(tile("5d"), 3)]  # it holds one: three are unseen
    deal.discards.append(Discard(2, tile("5d")))
    assert ready_hint(deal, 1) == [(tile("5d"), 2)]  # one lies on the table
    deal.melds[3] = [Meld(MeldKind.CHOW, tuple(parse_tiles("456d")))]
    assert ready_hint(deal, 1) == [(tile("5d"), 1)]  # one more in a set
    # the other seats' concealed copies are not counted: the hint knows only what the seat sees
    deal.hands[1] = counts_of(parse_tiles("123b 456c 789d EEE 9c"))
    assert ready_hint(deal, 1)[0][0] == tile("9c")


def test_a_hand_that_is_not_ready_or_holds_a_tile_to_discard_has_no_hint() -> None:
    deal = Game(Rules(), 3).deal
    deal.hands[1] = counts_of(parse_tiles("147b 258c 369d ESWN"))
    assert ready_hint(deal, 1) == []
    deal.hands[1] = counts_of(parse_tiles("123b 456c 789d EEE 55d"))  # 14 tiles: a discard is due
    assert ready_hint(deal, 1) == []
