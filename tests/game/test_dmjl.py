"""The `dmjl` ruleset (R16): each of the book's differences from classical, on hands of our own."""

from __future__ import annotations

import pytest
from gamekit import stacked_wall

from game import Game, GamePhase
from game.hand import counts_of
from game.melds import Meld, MeldKind
from game.notation import parse_tiles
from game.rulesets import RULESETS, ruleset
from game.scoring import Score, ScoringError, WinningHand, score_loser, score_win
from game.tiles import Tile

DMJL = ruleset("dmjl").rules
CLASSICAL = RULESETS["classical"]


def meld(kind: str, tiles: str, *, concealed: bool = False, claimed: bool = False, added: bool = False) -> Meld:
    parsed = tuple(parse_tiles(tiles))
    return Meld(MeldKind(kind), parsed, concealed=concealed, claimed=parsed[0] if claimed else None, added=added)


def win(
    concealed: str,
    melds: tuple[Meld, ...] = (),
    *,
    tile: str,
    by: str = "wall",
    seat: str = "S",
    wind: str = "E",
    bonus: str = "",
    rules: object = DMJL,
    **facts: object,
) -> Score:
    hand = WinningHand(
        concealed=tuple(counts_of(parse_tiles(concealed))),
        melds=melds,
        bonus=tuple(parse_tiles(bonus)),
        winning_tile=Tile.parse(tile),
        win_by=by,
        seat_wind=Tile.parse(seat),
        round_wind=Tile.parse(wind),
        **facts,  # type: ignore[arg-type]
    )
    return score_win(hand, rules)  # type: ignore[arg-type]


def lose(concealed: str, melds: tuple[Meld, ...] = (), *, seat: str = "S", wind: str = "E", bonus: str = "") -> Score:
    return score_loser(
        counts_of(parse_tiles(concealed)), melds, parse_tiles(bonus), Tile.parse(seat), Tile.parse(wind), DMJL
    )


def lines(score: Score) -> set[tuple[str, str, int]]:
    return {(i.rule, i.text, i.limit or i.doubles or i.points) for i in score.items}


def test_ruleset_differs_from_classical_only_in_the_options_r16_names() -> None:
    assert ruleset("classical").version == "5e91c349f39a6125"
    assert DMJL.dead_wall == 16 and DMJL.pao is False and DMJL.limit == 500
    assert ruleset("dmjl").version != ruleset("classical").version


# ------------------------------------------------------------------- R16.1 the pair's last tile
def test_r16_1_completing_a_pair_of_simples_earns_2_and_of_majors_4() -> None:
    simples = win("234b 567c 888d 345d 66c", tile="6c")  # the 6c was the only tile: +2 and +2
    assert ("R16.1", "winning tile completes the pair of simples", 2) in lines(simples)
    assert ("R8.5", "only-tile wait", 2) in lines(simples)
    assert simples.points == 20 + 4 + 2 + 2 + 2  # concealed 8d pung, wall, only tile, pair
    majors = win("234b 567c 888d 345d NN", tile="N")
    assert ("R16.1", "winning tile completes the pair of terminals or honours", 4) in lines(majors)
    # classical has no such points
    assert not any(i.rule == "R16.1" for i in win("234b 567c 888d 345d NN", tile="N", rules=CLASSICAL).items)


def test_r16_1_a_tile_that_completes_a_set_earns_nothing_for_the_pair() -> None:
    score = win("234b 567c 888d 345d 66c", tile="8d")
    assert not any(i.rule == "R16.1" for i in score.items)


# ------------------------------------------------------------- R16.2 the winner's extra doubles
def test_r16_2_zero_point_hand_is_one_double_bonus_tiles_aside() -> None:
    score = win(
        "456b 55c",
        (meld("chow", "123c"), meld("chow", "789d"), meld("chow", "345b")),
        tile="4b",
        by="discard",
        bonus="1f",
    )
    assert ("R16.2", "no points from sets and pair", 1) in lines(score)
    assert score.points == 20 + 4 and score.doubles == 1  # the flower's 4 points do not spoil it


def test_r16_2_only_terminals_and_honours_is_one_double() -> None:
    score = win("111b 999c WW", (meld("pung", "999d"), meld("pung", "NNN")), tile="1b", by="discard", seat="N")
    assert ("R16.2", "only terminals and honours", 1) in lines(score)
    assert score.limit_hand is None
    assert "only terminals and honours" not in {
        i.text
        for i in win(
            "111b 999c WW",
            (meld("pung", "999d"), meld("pung", "NNN")),
            tile="1b",
            by="discard",
            seat="N",
            rules=CLASSICAL,
        ).items
    }


# ------------------------------------------------------------- R16.3 loose tile, robbing a kong
def test_r16_3_a_win_on_a_loose_tile_is_a_double_and_keeps_its_points() -> None:
    score = win("234b 678c 33d 567d", (meld("kong", "5555b"),), tile="3d", by="loose")
    assert ("R16.3", "won on a loose tile", 1) in lines(score)
    assert ("R8.5", "out on a loose tile", 2) in lines(score)


def test_r16_3_robbing_a_kong_is_a_double_not_two_points() -> None:
    score = win("234b 678c 33d 567d 789b", tile="7b", by="robbed_kong")
    assert ("R16.3", "robbing the kong", 1) in lines(score)
    assert not any(i.text == "robbing the kong" and i.points for i in score.items)
    classical = win("234b 678c 33d 567d 789b", tile="7b", by="robbed_kong", rules=CLASSICAL)
    assert ("R8.5", "robbing the kong", 2) in lines(classical)


# --------------------------------------------------------------- R16.4 doubles on every hand
def test_r16_4_own_flower_and_own_season_together_are_one_double_neither_alone() -> None:
    both = win("234b 678c 33d 567d 789b", tile="7b", seat="W", bonus="3f 3s")
    assert ("R16.4", "own flower and own season", 1) in lines(both)
    assert both.doubles == 3  # and the concealed self-drawn hand, and no points from sets and pair
    alone = win("234b 678c 33d 567d 789b", tile="7b", seat="W", bonus="3f 1s")
    assert alone.doubles == 2  # the own flower alone doubles nothing
    assert lose("", seat="W", bonus="3f 3s").doubles == 1  # a loser's too
    assert lose("", seat="W", bonus="3f").doubles == 0


def test_r16_4_three_concealed_pungs_double_a_winner_and_a_loser() -> None:
    winner = win("222c 777b WWW 99d", (meld("chow", "456d"),), tile="9d", by="discard")
    assert ("R16.4", "three concealed pungs", 1) in lines(winner)
    # a pung the winning discard completes is exposed: two left concealed
    exposed = win("222c 777b WWW 456d 99d", tile="W", by="discard")
    assert not any(i.text == "three concealed pungs" for i in exposed.items)
    loser = lose("222c 777b WWW 5d")
    assert ("R16.4", "three concealed pungs", 1) in lines(loser)


def test_r16_4_dragon_and_wind_patterns_score_on_losing_hands() -> None:
    little = lose("RRR GG 4c", (meld("pung", "PPP"),))
    assert ("R16.4", "little three dragons", 1) in lines(little)
    big = lose("RRR GGG 4c", (meld("pung", "PPP"),))
    assert ("R16.4", "big three dragons", 2) in lines(big)
    joys = lose("EEE SSS WW 4c", (meld("pung", "NNN"),))
    assert ("R16.4", "little four joys", 1) in lines(joys)
    four = lose("EEE SSS WWW 4c", (meld("pung", "NNN"),))
    assert ("R16.4", "big four joys", 2) in lines(four)


def test_r16_4_little_four_winds_is_a_double_not_a_limit_hand() -> None:
    hand = ("EEE WWW NN 234c", (meld("pung", "SSS"),))
    score = win(*hand, tile="N", by="discard", seat="E")
    assert score.limit_hand is None and ("R16.4", "little four joys", 1) in lines(score)
    assert win(*hand, tile="N", by="discard", seat="E", rules=CLASSICAL).limit_hand == "Little Four Winds"


def test_r16_4_little_three_dragons_is_counted_once_for_a_winner() -> None:
    score = win("RRR PPP GG 234c 678b", tile="G", by="discard")
    assert [i.text for i in score.items].count("little three dragons") == 1


# -------------------------------------------------------------------------- R16.5 limit hands
def test_r16_5_squirming_snake_pungs_of_1_and_9_a_pair_of_2_5_or_8() -> None:
    for pair in ("22", "55", "88"):
        ranks = {"22": "111 22 345 678 999", "55": "111 234 55 678 999", "88": "111 234 567 88 999"}[pair]
        score = win(ranks.replace(" ", "") + "b", tile="3b" if pair != "22" else "4b", by="discard")
        assert score.limit_hand == "Squirming Snake", pair
    # with the pungs of 1 and 9 exposed too
    exposed = win("234d 678d 55d", (meld("pung", "111d"), meld("pung", "999d")), tile="5d", by="discard")
    assert exposed.limit_hand == "Squirming Snake"
    # a pair of 4s is not the snake
    assert win("111234 44 567 999c".replace(" ", ""), tile="1c", by="discard").limit_hand is None


def test_r16_5_squirming_snake_may_hold_a_kong_as_the_book_says() -> None:
    score = win("234c 567c 88c 999c", (meld("kong", "1111c", concealed=True),), tile="8c", by="discard")
    assert score.limit_hand == "Squirming Snake"


def test_r16_5_concealed_true_color_game_is_self_drawn_and_concealed() -> None:
    score = win("123d 345d 666d 789d 99d", tile="9d")
    assert score.limit_hand == "Concealed True Color Game"
    assert win("123d 345d 666d 789d 99d", tile="9d", by="discard").limit_hand is None
    # a claimed kong keeps it concealed (R16.6); an exposed pung does not
    claimed = win("123d 345d 789d 99d", (meld("kong", "6666d", claimed=True),), tile="9d", by="loose")
    assert claimed.limit_hand == "Concealed True Color Game"
    pung = win("123d 345d 789d 99d", (meld("pung", "666d"),), tile="9d")
    assert pung.limit_hand is None


def test_r16_5_the_tile_limit_hands() -> None:
    plum = win("234b 678c 55d 567d", (meld("kong", "WWWW", concealed=True),), tile="5d", by="loose")
    assert plum.limit_hand == "Gathering the Plum Blossom from the Roof"
    moon = win("234b 678c 11d 567d 789b", tile="1d", last_tile=True)
    assert moon.limit_hand == "Plucking the Moon from the Bottom of the Sea"
    assert win("234b 678c 11d 567d 789b", tile="1d").limit_hand is None  # not the last tile
    pole = win("234b 678c 11d 567d 789b", tile="2b", by="robbed_kong")
    assert pole.limit_hand == "Scratching a Carrying Pole"
    assert win("234b 678c 11d 567d 789b", tile="2b", by="discard").limit_hand is None


def test_r16_5_hidden_treasure_is_self_drawn_and_counts_a_claimed_kong_as_concealed() -> None:
    hand = ("SSS 444b 66c 777d", (meld("kong", "2222c", claimed=True),))
    assert win(*hand, tile="S").limit_hand == "Hidden Treasure"
    assert win(*hand, tile="6c", by="discard").limit_hand is None  # classical would give the limit here
    classical_discard = ("SSS 444b 66c 777d", (meld("kong", "2222c", concealed=True),))
    assert win(*classical_discard, tile="6c", by="discard", rules=CLASSICAL).limit_hand == "Four Concealed Pungs"
    added = ("SSS 444b 66c 777d", (meld("kong", "2222c", claimed=True, added=True),))
    assert win(*added, tile="S").limit_hand is None  # an added kong was an exposed pung


def test_r16_5_the_dealers_ninth_win_in_a_row() -> None:
    hand = "234b 678c 11d 567d 789b"
    assert win(hand, tile="7b", dealer=True, seat="E", dealer_streak=8).limit_hand == "East's Ninth Win in a Row"
    assert win(hand, tile="7b", dealer=True, seat="E", dealer_streak=7).limit_hand is None


def test_r16_8_the_ninth_win_in_a_row_is_a_limit_and_passes_the_deal() -> None:
    # every deal the dealer discards 9d, the others each discard the honour they drew, and the
    # dealer draws the 5c that completes the hand
    hands = ["123b 456b 789b 123c 5c", "258b 369c 147d SWNR", "369b 147c 258d EGPR", "147b 258c 369d SWNG"]
    game = Game(DMJL, seed="nine", walls=lambda n: stacked_wall(hands, draws="9d P R G 5c", rules=DMJL))
    names = []
    for deal in range(10):
        assert game.dealer_streak() == deal % 9
        dealer = game.dealer
        game.apply(dealer, "discard 9d")
        for step, tile in enumerate("PRG", 1):
            game.apply((dealer + step) % 4, f"discard {tile}")
        game.apply(dealer, "win")
        assert game.reckoning is not None and game.results[-1].winner == dealer
        names.append(game.reckoning.scores[dealer].limit_hand)  # type: ignore[union-attr]
        assert game.phase is GamePhase.BETWEEN
        for seat in range(4):
            game.apply(seat, "ready")
        assert game.dealer == (0 if deal < 8 else 1)
    assert names[:8] == [None] * 8 and names[9] is None
    assert names[8] == "East's Ninth Win in a Row"
    assert game.dealer_streak() == 1  # the new dealer won the tenth deal


# ------------------------------------------------------------------------------ R16.7 losers
def test_r16_7_a_losers_every_pair_is_scored() -> None:
    score = lose("RR GG EE SS 4c", seat="S")
    assert score.points == 2 + 2 + 2 + 2  # two dragon pairs, prevailing wind, own wind
    classical = score_loser(
        counts_of(parse_tiles("RR GG EE SS 4c")), (), (), Tile.parse("S"), Tile.parse("E"), CLASSICAL
    )
    assert classical.points == 2


def test_classical_scores_are_unchanged_by_the_new_options() -> None:
    hand = ("222c 777b WWW 99d", (meld("chow", "456d"),))
    assert win(*hand, tile="9d", by="discard", rules=CLASSICAL).doubles == 0
    assert win(*hand, tile="9d", by="discard").doubles == 1


def test_r16_8_original_call_is_a_double_and_the_dangerous_game_is_played() -> None:
    hand = ("234b 678c 11d 567d 789b",)
    called = win(*hand, tile="7b", original_call=True)
    assert ("R5.4", "Original Call", 1) in lines(called)
    assert DMJL.dangerous_game and RULESETS["bmja"].original_call and RULESETS["bmja"].dangerous_game
    with pytest.raises(ScoringError, match="no Original Call"):
        win(*hand, tile="7b", original_call=True, rules=CLASSICAL)
