"""A self-check of the association rulesets (R16, R17): whole hands of our own, of the kind Kajongg's
suite scores, each with the points, doubles and limit hand worked out by hand for `dmjl` and for
`bmja` (None: not a winning hand under that book)."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from game.hand import counts_of
from game.melds import Meld, MeldKind
from game.notation import parse_tiles
from game.rulesets import ruleset
from game.scoring import ScoringError, WinningHand, score_loser, score_win
from game.tiles import Tile

Expected = tuple[int, int, str | None] | str | None  # (points, doubles, limit hand) | limit hand | no win


@dataclass(frozen=True)
class Sample:
    what: str
    concealed: str
    melds: tuple[tuple[str, str, bool], ...]  # (kind, tiles, exposed)
    tile: str
    by: str
    seat: str
    wind: str
    bonus: str
    dmjl: Expected
    bmja: Expected


SAMPLES = [
    Sample("chows only, own flower and season", "678c 33d", (("chow", "123b", True), ("chow", "456c", True),
           ("chow", "789d", True)), "6c", "discard", "S", "E", "2f 2s", (28, 2, None), None),
    Sample("little three dragons, the pair last", "RRR GG 234b 999c", (("pung", "PPP", True),), "G", "discard",
           "S", "E", "", (48, 3, None), (42, 2, None)),
    Sample("four concealed pungs of one suit and a wind, drawn", "222c 555c 777c EEE 99c", (), "7c", "wall", "S",
           "E", "", "Hidden Treasure", "Buried Treasure"),
    Sample("the same, the pair on a discard", "222c 555c 777c EEE 99c", (), "9c", "discard", "S", "E", "",
           (44, 4, None), "Buried Treasure"),
    Sample("snake, concealed", "111d 22d 345d 678d 999d", (), "3d", "wall", "S", "E", "", "Squirming Snake",
           "Gates of Heaven"),
    Sample("snake, pungs exposed", "22b 345b 678b", (("pung", "111b", True), ("pung", "999b", True)), "2b",
           "discard", "S", "E", "", "Squirming Snake", None),
    Sample("terminals and honours", "111b 999c NN", (("pung", "999d", True), ("pung", "SSS", True)), "N",
           "discard", "S", "E", "", (50, 3, None), (44, 3, None)),
    Sample("out on a loose tile", "234b 666c 88d 555d", (("kong", "WWWW", False),), "8d", "loose", "S", "E", "",
           (66, 3, None), (62, 1, None)),
    Sample("robbing a kong", "123c 444b 777b 999d 55d", (), "3c", "robbed_kong", "W", "S", "", (38, 2, None),
           (36, 1, None)),
    Sample("knitting", "2235779b 2235779c", (), "9c", "discard", "S", "E", "", None, "Knitting"),
    Sample("one suit, no chows, on a discard", "222b 444b 666b 888b 99b", (), "9b", "discard", "S", "E", "",
           (40, 5, None), "Buried Treasure"),
    Sample("three wind pungs and a wind pair", "EEE WWW NN 234c", (("pung", "SSS", True),), "N", "discard", "E",
           "E", "", (46, 4, None), (40, 2, None)),
]  # fmt: skip


def _score(sample: Sample, name: str) -> Expected:
    melds = tuple(Meld(MeldKind(k), tuple(parse_tiles(t)), concealed=not exposed) for k, t, exposed in sample.melds)
    hand = WinningHand(
        concealed=tuple(counts_of(parse_tiles(sample.concealed))),
        melds=melds,
        bonus=tuple(parse_tiles(sample.bonus)),
        winning_tile=Tile.parse(sample.tile),
        win_by=sample.by,
        seat_wind=Tile.parse(sample.seat),
        round_wind=Tile.parse(sample.wind),
    )
    try:
        score = score_win(hand, ruleset(name).rules)
    except ScoringError:
        return None
    if score.limit_hand is not None:
        return score.limit_hand
    return score.points, score.doubles, None


@pytest.mark.parametrize("sample", SAMPLES, ids=[s.what for s in SAMPLES])
@pytest.mark.parametrize("name", ["dmjl", "bmja"])
def test_sample_hand_scores_as_worked_out(sample: Sample, name: str) -> None:
    assert _score(sample, name) == getattr(sample, name)


def test_a_losers_hand_under_both_books() -> None:
    # R16.4, R16.7, R17.1: three honour pungs, two pairs, own flower and season and another flower
    concealed = counts_of(parse_tiles("RRR EEE 44c 77b 9d"))
    melds = (Meld(MeldKind.PUNG, tuple(parse_tiles("GGG"))),)
    bonus = parse_tiles("1f 1s 2f")
    dmjl = score_loser(concealed, melds, bonus, Tile.EAST, Tile.EAST, ruleset("dmjl").rules)
    bmja = score_loser(concealed, melds, bonus, Tile.EAST, Tile.EAST, ruleset("bmja").rules)
    assert (dmjl.points, dmjl.doubles, dmjl.value) == (32, 5, 500)
    assert (bmja.points, bmja.doubles, bmja.value) == (32, 6, 1000)
