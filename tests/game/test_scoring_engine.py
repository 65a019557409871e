"""Scoring wired into the engine: R15.1–R15.3 played out on stacked walls, and the hand-end event."""

from __future__ import annotations

from gamekit import stacked_game

from game import Event, Game, GamePhase, Rules, view

# Inert hands never pung, chow or win (no pairs; ranks three apart in each suit).
DEALER_INERT = "147b 147c 147d ESNG"
WEST_INERT = "369b 369c 369d SWNR"
NORTH_INERT = "147b 258c 369d GPEN"


def deal_end(events: list[Event]) -> Event:
    [end] = [e for e in events if e["type"] == "deal_end"]
    return end


def act(game: Game, seat: int, text: str) -> list[Event]:
    return game.apply(seat, text)


def items(end: Event, seat: int) -> list[tuple[str, str, int]]:
    scores = end["scores"]
    assert isinstance(scores, list)
    return [(i["rule"], i["text"], i.get("points", i.get("doubles", i.get("limit")))) for i in scores[seat]["items"]]


def winner_score(end: Event) -> dict[str, object]:
    scores = end["scores"]
    assert isinstance(scores, list) and isinstance(end["winner"], int)
    score = scores[end["winner"]]
    assert isinstance(score, dict)
    return score


def test_r15_1_self_drawn_concealed_west_pung_is_30_points() -> None:
    # South waits on W or 5d; the dealer throws a harmless 9b; South draws W.
    game = stacked_game([DEALER_INERT, "123b 456c 789d 55d WW", WEST_INERT, NORTH_INERT], draws="9b W")
    act(game, 0, "discard 9b")
    end = deal_end(act(game, 1, "win"))
    score = winner_score(end)
    assert score["points"] == 30  # 20 + 8 + 2
    assert ("R8.2", "concealed pung of West winds", 8) in items(end, 1)
    assert ("R8.5", "winning tile drawn from the live wall", 2) in items(end, 1)
    assert score["doubles"] == 1 and score["value"] == 60  # fully concealed, self-drawn (R9)
    assert end["changes"] == [-120, 240, -60, -60]
    assert game.scores == [1880, 2240, 1940, 1940]


def test_r15_1_same_pung_won_off_a_discard_is_24_points() -> None:
    # West (an inert hand) draws the fourth W and throws it: South's pung is completed by the discard.
    game = stacked_game([DEALER_INERT, "123b 456c 789d 55d WW", WEST_INERT, NORTH_INERT], draws="9b 1c W")
    act(game, 0, "discard 9b")
    act(game, 1, "discard 1c")
    act(game, 2, "discard W")
    end = deal_end(act(game, 1, "win"))
    score = winner_score(end)
    assert (score["points"], score["doubles"], score["value"]) == (24, 0, 24)  # 20 + 4
    assert ("R8.2", "exposed pung of West winds", 4) in items(end, 1)


def test_r15_2_half_flush_and_own_wind_pung_26_points_is_104() -> None:
    # South pungs the dealer's S, then wins on West's 9b: 20 + 4 (SSS exposed) + 2 (RR) = 26.
    south = "123b 456b 78b RR SS 1d"
    game = stacked_game(["147b 147c 147d EWNG", south, WEST_INERT, NORTH_INERT], draws="S 5c")
    act(game, 0, "discard S")
    act(game, 1, "pung")
    act(game, 1, "discard 1d")
    act(game, 2, "discard 9b")
    end = deal_end(act(game, 1, "win"))
    score = winner_score(end)
    assert (score["points"], score["doubles"], score["value"]) == (26, 2, 104)
    assert score["arithmetic"] == "26 points, doubled twice = 104"
    assert ("R9", "half flush", 1) in items(end, 1)
    assert ("R9", "pung of own wind (South wind)", 1) in items(end, 1)
    assert end["changes"] == [-208, 416, -104, -104]


def test_r15_2_full_flush_instead_is_416() -> None:
    # 20 + 4 (concealed 555b) + 2 (self-drawn) = 26; full flush 3 + concealed self-drawn 1 = 4 doubles.
    game = stacked_game([DEALER_INERT, "123b 555b 678b 23b 99b", WEST_INERT, NORTH_INERT], draws="9c 4b")
    act(game, 0, "discard 9c")
    end = deal_end(act(game, 1, "win"))
    score = winner_score(end)
    assert (score["points"], score["doubles"], score["value"]) == (26, 4, 416)
    assert ("R9", "full flush", 3) in items(end, 1)


def test_r15_2_one_more_double_reaches_the_limit() -> None:
    # The same hand won with the last tile of the live wall (R9): 26 × 2⁵ = 832 → limit 500.
    # Every seat throws what it draws and passes every claim until South draws the last tile.
    game = stacked_game(
        [DEALER_INERT, "123b 555b 678b 23b 99b", WEST_INERT, NORTH_INERT],
        draws="9c",
        tail="4b",
        filler_seed=3,
        rules=Rules(flowers=False),  # no bonus tiles drawn on the way: the points stay 26
    )
    act(game, 0, "discard 9c")
    while True:
        seat = game.to_act()[0]
        if game.deal.window is not None:
            act(game, seat, "pass")
            continue
        if seat == 1 and game.deal.wall.live_count == 0:
            break
        tile = view(game, seat)["turn"]["drawn"]
        act(game, seat, f"discard {tile}")
    end = deal_end(act(game, 1, "win"))
    assert end["last_tile"] is True
    score = winner_score(end)
    assert (score["points"], score["doubles"], score["value"]) == (26, 5, 500)
    assert score["arithmetic"] == "26 points, doubled 5 times = 832 → limit 500"


def _thirty_point_game(winner_hand_seat: int) -> tuple[Game, list[Event]]:
    """A 30-point, no-double hand (20 + 8 concealed 999c + 2 only-tile wait on N) won on a discard."""
    waiting = "999c 456b 789d 234d N"
    if winner_hand_seat == 1:
        game = stacked_game([DEALER_INERT.replace("N", "W"), waiting, WEST_INERT, NORTH_INERT], draws="9b 1c")
        act(game, 0, "discard 9b")
        act(game, 1, "discard 1c")
        return game, act(game, 2, "discard N")
    game = stacked_game([waiting, "258b 258c 258d RGPE", WEST_INERT, NORTH_INERT], draws="9b 5c")
    act(game, 0, "discard 9b")
    return game, act(game, 1, "discard 5c") + act(game, 2, "discard N")


def test_r15_3_thirty_points_won_by_south_pays_120() -> None:
    game, events = _thirty_point_game(1)
    end = deal_end(events + act(game, 1, "win"))
    assert (winner_score(end)["points"], winner_score(end)["value"]) == (30, 30)
    assert end["changes"] == [-60, 120, -30, -30]  # West 30, North 30, East 60 (R11.1)


def test_r15_3_thirty_points_won_by_east_pays_180() -> None:
    game, events = _thirty_point_game(0)
    end = deal_end(events + act(game, 0, "win"))
    assert (winner_score(end)["points"], winner_score(end)["value"]) == (30, 30)
    assert end["changes"] == [180, -60, -60, -60]
    assert game.scores == [2180, 1940, 1940, 1940]


def test_every_seat_sees_the_scores_and_payments_once_the_deal_is_over() -> None:
    game, events = _thirty_point_game(1)
    act(game, 1, "win")
    assert game.phase is GamePhase.BETWEEN
    for seat in (0, 1, 2, 3, None):
        result = view(game, seat)["result"]
        assert isinstance(result, dict)
        assert result["changes"] == [-60, 120, -30, -30]
        assert [s is not None for s in result["scores"]] == [True, True, True, True]
        assert result["payments"] and all(p["amount"] > 0 for p in result["payments"])
    assert [s["score"] for s in view(game, 2)["seats"]] == [1940, 2120, 1970, 1970]


def test_losers_settle_among_themselves_in_the_engine() -> None:
    # West holds a concealed pung of Red dragons: 8 points × 2 (dragon pung) = 16 against the others' 0.
    west = "369b 369c 36d SWRRR"
    game = stacked_game([DEALER_INERT.replace("N", "W"), "999c 456b 789d 234d N", west, NORTH_INERT], draws="9b 1c N")
    act(game, 0, "discard 9b")
    act(game, 1, "discard 1c")
    act(game, 2, "discard N")
    end = deal_end(act(game, 1, "win"))
    scores = end["scores"]
    assert scores[2]["value"] == 16 and scores[0]["value"] == 0 and scores[3]["value"] == 0
    # winner: East 60, West 30, North 30; then East pays West 2 × 16, North pays West 16
    assert end["changes"] == [-60 - 32, 120, -30 + 32 + 16, -30 - 16]
    game2 = stacked_game(
        [DEALER_INERT.replace("N", "W"), "999c 456b 789d 234d N", west, NORTH_INERT],
        draws="9b 1c N",
        rules=Rules(losers_settle=False),
    )
    act(game2, 0, "discard 9b")
    act(game2, 1, "discard 1c")
    act(game2, 2, "discard N")
    assert deal_end(act(game2, 1, "win"))["changes"] == [-60, 120, -30, -30]


def test_a_wash_out_pays_nothing() -> None:
    game = Game(Rules(), seed=1)
    while game.phase is GamePhase.DEAL:
        seat = game.to_act()[0]
        acts = game.legal_actions(seat)
        pick = next((a for a in acts if a.type.value == "pass"), None) or next(
            a for a in acts if a.type.value == "discard"
        )
        events = game.apply(seat, pick)
    end = deal_end(events)  # nobody ever declares a win, so the live wall runs out
    assert end["termination"] == "wash_out"
    assert end["changes"] == [0, 0, 0, 0] and end["payments"] == [] and end["scores"] == [None] * 4
    assert game.scores == [2000] * 4


def _big_three_dragons(rules: Rules) -> list[Event]:
    """South pungs R (from East), G and P (both from West), then wins on West's 5b: West is pao (R11.3)."""
    south = "RR GG PP 123b 45b 9c 1d"
    game = stacked_game(["147b 147c 147d ESNW", south, WEST_INERT, NORTH_INERT], draws="R G P 5b", rules=rules)
    act(game, 0, "discard R")
    act(game, 1, "pung")
    act(game, 1, "discard 9c")
    act(game, 2, "discard G")
    act(game, 1, "pung")
    act(game, 1, "discard 1d")
    act(game, 2, "discard P")
    act(game, 1, "pung")
    act(game, 1, "discard 1b")
    act(game, 2, "discard 5b")
    return act(game, 1, "win")


def test_r11_3_pao_the_discarder_of_the_third_dragon_pays_alone() -> None:
    end = deal_end(_big_three_dragons(Rules()))
    assert winner_score(end)["limit_hand"] == "Big Three Dragons"
    assert end["pao"] == 2
    assert end["changes"] == [0, 2000, -2000, 0]  # 1000 for East + 500 + 500, all from West


def test_r11_3_without_pao_everyone_pays() -> None:
    end = deal_end(_big_three_dragons(Rules(pao=False)))
    assert end["pao"] is None
    assert end["changes"] == [-1000, 2000, -500, -500]
