"""The `bmja` ruleset (R17): each of the book's differences from classical, on hands of our own."""

from __future__ import annotations

import pytest
from gamekit import stacked_game
from test_dmjl import lines, meld

from game.errors import IllegalActionError
from game.hand import counts_of
from game.notation import parse_tiles
from game.rulesets import RULESETS, ruleset
from game.scoring import Score, ScoringError, WinningHand, score_loser, score_win
from game.shapes import complete, completing_tiles
from game.tiles import Tile

BMJA = ruleset("bmja").rules
CLASSICAL = RULESETS["classical"]


def win(concealed: str, melds: tuple[object, ...] = (), *, tile: str, by: str = "wall", seat: str = "S",
        bonus: str = "", rules: object = BMJA, **facts: object) -> Score:  # fmt: skip
    hand = WinningHand(
        concealed=tuple(counts_of(parse_tiles(concealed))),
        melds=melds,  # type: ignore[arg-type]
        bonus=tuple(parse_tiles(bonus)),
        winning_tile=Tile.parse(tile),
        win_by=by,
        seat_wind=Tile.parse(seat),
        round_wind=Tile.EAST,
        **facts,  # type: ignore[arg-type]
    )
    return score_win(hand, rules)  # type: ignore[arg-type]


def test_r17_1_the_limit_is_1000_and_the_bouquets_double_twice() -> None:
    assert BMJA.limit == 1000 and BMJA.dead_wall == 14 and BMJA.pao is False
    loser = score_loser([0] * 34, (), parse_tiles("1f 2f 3f 4f"), Tile.EAST, Tile.EAST, BMJA)
    assert (loser.points, loser.doubles) == (16, 3)  # all four flowers 2, own flower 1
    assert win("EEE SSS WWW NNN RR", tile="R").value == 1000


def test_r17_1_no_points_for_an_only_tile_wait_robbing_a_kong_is_a_double() -> None:
    edge = win("123b 444c 222d 999d 55c", tile="3b", by="discard")
    assert not any(i.text == "only-tile wait" for i in edge.items)
    classical = win("123b 444c 222d 999d 55c", tile="3b", by="discard", rules=CLASSICAL)
    assert any(i.text == "only-tile wait" for i in classical.items)
    robbed = win("123b 555c 777d 222d 55b", tile="3b", by="robbed_kong")
    assert ("R16.3", "robbing the kong", 1) in lines(robbed)


def test_r17_2_a_hand_of_two_chows_is_no_winning_hand() -> None:
    with pytest.raises(ScoringError, match="at most 1 chow"):
        win("123b 456c 222d 999d 55b", tile="2d")
    assert win("123b 444c 222d 999d 55b", tile="2d").points > 0
    assert not complete(counts_of(parse_tiles("123b 222d 999d 55b")), (meld("chow", "456c"),), BMJA)
    assert complete(counts_of(parse_tiles("123b 222d 999d 55b")), (meld("chow", "456c"),), CLASSICAL)


def test_r17_2_a_second_chow_is_never_offered_nor_taken() -> None:
    hands = ["147b 147c 147d ESNG", "23b 56c 9b 9c 8d SWRP 44c", "369b 369c 369d SWNR", "147b 258c 369d GPEN"]
    for rules, second in ((CLASSICAL, True), (BMJA, False)):
        game = stacked_game(hands, draws="9d 5d 5b 4c", rules=rules)
        game.apply(0, "discard 1b")
        assert "chow 2b 3b" in [str(a) for a in game.legal_actions(1)]
        game.apply(1, "chow 2b 3b")
        game.apply(1, "discard 9b")
        game.apply(2, "discard 5d")
        game.apply(3, "discard 5b")
        game.apply(0, "discard 4c")
        offered = [str(a) for a in game.legal_actions(1)]
        assert "pung" in offered and ("chow 5c 6c" in offered) is second
        if not second:
            with pytest.raises(IllegalActionError, match="R17.2"):
                game.apply(1, "chow 5c 6c")


def test_r17_3_purity_replaces_the_flushes_and_little_three_dragons_doubles_nothing() -> None:
    half = win("123b 555b 777b 999b RR", tile="R", by="discard")
    assert half.doubles == 0  # classical: a half flush
    chow = win("123c 555c 777c 999c 44c", tile="4c", by="discard")
    assert chow.doubles == 0  # classical: a full flush
    pure = win("222c 555c 777c 999c 44c", tile="4c", by="discard")
    assert ("R17.3", "purity: one suit, no honours, no chows", 3) in lines(pure)
    assert pure.doubles == 4  # and no chows
    dragons = win("RRR PPP GG 222c 345b", tile="G", by="discard")
    assert dragons.doubles == 2  # the two dragon pungs only


def test_r17_4_gates_of_heaven_needs_the_fourteenth_tile_between_2_and_8() -> None:
    counts = counts_of(parse_tiles("1112345678999c 5c"))
    assert complete(counts, (), BMJA)  # two chows, but a special shape (R17.2, R17.4)
    assert win("1112345678999c 5c".replace(" ", ""), tile="1c").limit_hand == "Gates of Heaven"
    assert not complete(counts_of(parse_tiles("1112345678999c 9c")), (), BMJA)  # a fourth 9: not a gate
    assert win("1112345678999c 9c".replace(" ", ""), tile="9c", rules=CLASSICAL).limit_hand == "Nine Gates"


@pytest.mark.parametrize(
    ("tiles", "name", "value"),
    [
        ("11 2345678 9d ESWN", "Wriggling Snake", 1000),
        ("2235779b 2235779c", "Knitting", 500),
        ("258b 258c 258d 7b7c7d 4b 4c", "Triple Knitting", 500),
        ("11b 99c 11d EE SS RR PP", "All Pair Honours", 500),
    ],
)
def test_r17_4_special_shapes_win_at_the_table_and_score_their_limit(tiles: str, name: str, value: int) -> None:
    counts = counts_of(parse_tiles(tiles))
    assert complete(counts, (), BMJA) and not complete(counts, (), CLASSICAL)
    last = parse_tiles(tiles)[-1].code
    score = win(tiles, tile=last, by="discard")
    assert (score.limit_hand, score.value) == (name, value)


def test_r17_4_the_wriggling_snakes_run_may_hold_declared_chows_but_its_pair_of_1s_is_concealed() -> None:
    snake = win("11 23 789d ESWN", (meld("chow", "456d"),), tile="N")
    assert (snake.limit_hand, snake.value) == ("Wriggling Snake", 1000)
    # won on a discard, with the declared chow at the end of the run
    assert win("11 23 456d ESWN", (meld("chow", "789d"),), tile="W", by="discard").limit_hand == "Wriggling Snake"
    # a declared chow that takes one of the 1s leaves no concealed pair of 1s: no snake, no winning hand
    with pytest.raises(ScoringError, match="not a winning hand"):
        win("1 456789d ESWN", (meld("chow", "123d"),), tile="N")
    # a loser ready for it is calling on the 1 of dots (R17.5)
    ready = counts_of(parse_tiles("1 23 789d ESWN"))
    held = list(ready)
    for t in parse_tiles("456d"):
        held[t] += 1
    assert [str(t) for t in completing_tiles(ready, (meld("chow", "456d"),), held, BMJA)] == ["1d"]


def test_r17_2_r17_4_a_wriggling_snake_shows_one_declared_chow_never_two() -> None:
    # the book's snake may hold a declared chow (R17.4), but a player who declared one is offered no
    # other (R17.2): Kajongg's WrigglingSnake takes no declared set at all
    one = win("11 56789d ESWN", (meld("chow", "234d"),), tile="N")
    assert (one.limit_hand, one.value) == ("Wriggling Snake", 1000)
    two = (meld("chow", "234d"), meld("chow", "567d"))
    with pytest.raises(ScoringError, match=r"offered no other \(R17.2"):
        win("11 89d ESWN", two, tile="N")
    assert not complete(counts_of(parse_tiles("11 89d ESWN")), two, BMJA)
    ready = counts_of(parse_tiles("11 89d ESW"))
    held = list(ready)
    for m in two:
        for t in m.tiles:
            held[t] += 1
    assert completing_tiles(ready, two, held, BMJA) == []  # nor is a loser calling for it (R17.5)


def test_r17_4_buried_treasure_counts_a_concealed_kong_as_the_book_says() -> None:
    # "four pungs or kongs, every one concealed": Kajongg's BuriedTreasure counts only pungs of three
    kong = win("222c 555c EEE NN", (meld("kong", "9999c", concealed=True),), tile="N", by="discard")
    assert (kong.limit_hand, kong.value) == ("Buried Treasure", 1000)
    added = win("222c 555c EEE NN", (meld("kong", "9999c", added=True),), tile="N", by="discard")
    assert added.limit_hand is None  # an added kong is exposed (R5.2c)


def test_r17_4_buried_treasure_is_concealed_pungs_of_one_suit_with_honours() -> None:
    assert win("222c 555c EEE 999c NN", tile="N", by="discard").limit_hand == "Buried Treasure"
    assert win("222c 555b EEE 999c NN", tile="N", by="discard").limit_hand is None  # two suits
    # a pung the discard completes is exposed, and a claimed kong is exposed for Buried Treasure
    assert win("222c 555c EEE 999c NN", tile="E", by="discard").limit_hand is None
    claimed = win("222c 555c EEE NN", (meld("kong", "9999c", claimed=True),), tile="E")
    assert claimed.limit_hand is None


def test_r17_4_three_great_scholars_needs_no_chow_and_little_four_winds_is_no_limit() -> None:
    assert win("RRR GGG PPP 222c 55b", tile="5b", by="discard").limit_hand == "Big Three Dragons"
    assert win("RRR GGG PPP 234c 55b", tile="5b", by="discard").limit_hand is None
    assert win("EEE SSS NN 222c", (meld("pung", "WWW"),), tile="N", by="discard").limit_hand is None


def test_r17_4_the_tile_limit_hands_are_the_books_too() -> None:
    plum = win("234b 555c 55d 777d", (meld("kong", "WWWW", concealed=True),), tile="5d", by="loose")
    assert plum.limit_hand == "Gathering the Plum Blossom from the Roof" and plum.value == 1000


def _loser(concealed: str, melds: tuple[object, ...] = (), rules: object = BMJA) -> Score:
    return score_loser(counts_of(parse_tiles(concealed)), melds, (), Tile.SOUTH, Tile.EAST, rules)  # type: ignore[arg-type]


def test_r17_5_a_loser_one_tile_short_of_a_limit_hand_earns_a_share_of_the_limit() -> None:
    gates = _loser("111345678999c 5c")  # the 2 of characters makes Gates of Heaven
    assert (gates.limit_hand, gates.value) == ("Calling for Gates of Heaven", 400)
    assert gates.arithmetic == "Calling for Gates of Heaven: limit (400 of 1000) 400"
    scholars = _loser("RRR GGG PP 222c 55b")
    assert (scholars.limit_hand, scholars.value) == ("Calling for Big Three Dragons", 400)
    knitting = _loser("223577b 2235779c")  # the 9 of bamboo makes Knitting: a fifth of the limit
    assert (knitting.limit_hand, knitting.value) == ("Calling for Knitting", 200)
    assert _loser("111345678999c 5c", rules=CLASSICAL).limit_hand is None
    # a hand whose own value is higher keeps it
    big = _loser("RRR GGG PP SS", (meld("kong", "EEEE", concealed=True),))  # calling for All Honours too
    assert big.limit_hand is None and big.value == (32 + 8 + 8 + 2 + 2) * 8


def test_r17_5_calling_for_purity_is_three_doubles() -> None:
    score = _loser("444b 666b 88b 99b", (meld("pung", "222b"),))
    assert ("R17.5", "calling for Purity", 3) in lines(score)
    assert (score.points, score.doubles, score.value) == (10, 3, 80)
    assert _loser("444b 666b 88b 99c", (meld("pung", "222b"),)).doubles == 0


def test_r17_2_r17_4_the_waits_shown_are_the_tiles_that_win_by_the_book() -> None:
    two_chows = counts_of(parse_tiles("23b 456c 222d 999d 55b"))
    held = list(two_chows)
    assert [t.code for t in completing_tiles(two_chows, (), held, CLASSICAL)] == ["1b", "4b"]
    assert completing_tiles(two_chows, (), held, BMJA) == []
    knitting = counts_of(parse_tiles("2235779b 223577c"))
    assert [t.code for t in completing_tiles(knitting, (), list(knitting), BMJA)] == ["9c"]
