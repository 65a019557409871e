"""Rule-book scenarios (R2–R7) played on stacked walls: what a player would notice at the table.

Every scenario lays out the exact tiles it needs with :func:`conftest.stacked_wall` (seat 0 deals
unless said otherwise). Seats not involved hold "inert" hands: 13 singletons spaced three ranks
apart in each suit, so they can never chow, pung, kong or win, and a seat that discards the tile
it has just drawn keeps its hand unchanged. Each helper that moves play on asserts that no
unexpected claim window opens, so a mis-stacked wall fails loudly instead of testing the wrong thing.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pytest
from gamekit import stacked_game, stacked_wall

from game import Event, Game, GamePhase, IllegalActionError, Reason, Rules, Wall, view

# --------------------------------------------------------------------------- hands
# Inert hands: no pairs, and within a suit the ranks are three apart (1-4-7, 2-5-8, 3-6-9).
INERT_A = "147b 147c 147d ESWN"
INERT_B = "258b 258c 258d RGPE"
INERT_C = "369b 369c 369d SWNR"
INERT_D = "147b 258c 369d GPES"

#: Four sets and a lone 5c: waits on 5c only, to complete the pair (R6.1 "including for the pair").
WAITS_5C = "123b 456b 789b 123c 5c"

#: Seat 1 wins on the dealer's first discard (5c, the dealer's 14th tile): the deal passes (R2.3).
NEXT_SEAT_WINS = ([INERT_A, WAITS_5C, INERT_C, INERT_D], "5c", "")
#: The dealer is dealt a complete hand (its 14th tile is 5c) and wins at once: it keeps the deal.
DEALER_WINS = ([WAITS_5C, INERT_B, INERT_C, INERT_D], "5c", "")


# ------------------------------------------------------------------------- helpers
def offered(game: Game, seat: int) -> list[str]:
    """The seat's legal actions as text (``"discard 5b"``, ``"chow 4b 6b"``, ``"pass"`` …)."""
    return [str(a) for a in game.legal_actions(seat)]


def of_type(events: Sequence[Event], kind: str) -> list[Event]:
    """The events of one type, in order."""
    return [e for e in events if e["type"] == kind]


def kinds(events: Sequence[Event]) -> list[object]:
    """The types of the events, in order."""
    return [e["type"] for e in events]


def drawn(game: Game, seat: int) -> str:
    """The tile ``seat`` has just drawn, as its own view shows it."""
    turn = view(game, seat)["turn"]
    assert isinstance(turn, dict) and turn["seat"] == seat, turn
    tile = turn["drawn"]
    assert isinstance(tile, str)
    return tile


def discard(game: Game, seat: int, tile: str, *, window: bool = False) -> list[Event]:
    """``seat`` discards ``tile``; asserts whether a claim window opens."""
    events = game.apply(seat, {"type": "discard", "tile": tile})
    assert bool(of_type(events, "window")) is window, events
    return events


def discard_drawn(game: Game, *, window: bool = False) -> list[Event]:
    """The seat to move discards the tile it has just drawn (its hand stays as it was)."""
    [seat] = game.to_act()
    return discard(game, seat, drawn(game, seat), window=window)


def everyone_ready(game: Game) -> list[Event]:
    """All four seats send ``ready`` after a deal; returns the events (the next deal's opening)."""
    assert game.phase is GamePhase.BETWEEN
    events: list[Event] = []
    for seat in range(4):
        events += game.apply(seat, {"type": "ready"})
    return events


def winds(game: Game) -> list[object]:
    """Seat winds as a player sees them (R2.5)."""
    seats = view(game, 0)["seats"]
    assert isinstance(seats, list)
    return [s["wind"] for s in seats]


def result(game: Game) -> dict[str, object]:
    """The deal's result as a spectator sees it."""
    res = view(game, None)["result"]
    assert isinstance(res, dict)
    return res


def seat_view(game: Game, seat: int, of: int | None = None) -> dict[str, object]:
    """What ``seat`` sees of seat ``of`` (default: itself)."""
    seats = view(game, seat)["seats"]
    assert isinstance(seats, list)
    item = seats[seat if of is None else of]
    assert isinstance(item, dict)
    return item


def bonus_of(game: Game, seat: int) -> list[object]:
    """The bonus tiles ``seat`` has laid out, as every seat sees them (R12.1)."""
    bonus = seat_view(game, (seat + 1) % 4, seat)["bonus"]
    assert isinstance(bonus, list)
    return bonus


def wall_counts(game: Game) -> tuple[int, int]:
    """(live, dead) wall counts as a player sees them (R12.1)."""
    wall = view(game, 0)["wall"]
    assert isinstance(wall, dict)
    return int(wall["live"]), int(wall["dead"])


Layout = tuple[list[str], str, str]  # hands from the dealer in turn order, draws, loose tiles


def series(layouts: Callable[[int], Layout], rules: Rules | None = None) -> Game:
    """A game whose deal ``n`` is stacked from ``layouts(n)``."""
    rules = rules or Rules()

    def walls(n: int) -> Wall:
        hands, draws, loose = layouts(n)
        return stacked_wall(hands, draws, loose, rules=rules)

    return Game(rules, seed="scenarios", walls=walls)


def play_stacked_deal(game: Game) -> list[Event]:
    """Play one deal laid out as NEXT_SEAT_WINS or DEALER_WINS to its end; returns the final events."""
    dealer = game.dealer
    if "win" in offered(game, dealer):
        return game.apply(dealer, "win")
    events = discard(game, dealer, "5c", window=True)
    assert offered(game, (dealer + 1) % 4) == ["win", "pass"]
    return events + game.apply((dealer + 1) % 4, "win")


# ======================================================================= R2 the game
def test_r2_3_dealer_keeps_the_deal_after_winning() -> None:
    """R2.3: the dealer keeps the deal on a win (an extra hand); seat winds stay put (R2.5)."""
    game = series(lambda n: DEALER_WINS)
    assert offered(game, 0)[0] == "win"
    events = game.apply(0, "win")
    assert result(game)["winner"] == 0
    assert not of_type(events, "deal_passes")
    opening = everyone_ready(game)
    assert of_type(opening, "deal_start") == [{"type": "deal_start", "deal": 1, "dealer": 0, "round_wind": "E"}]
    assert view(game, 2)["dealer"] == 0
    assert winds(game) == ["E", "S", "W", "N"]
    assert game.to_act() == [0]


def test_r2_3_deal_passes_when_a_non_dealer_wins_and_r2_5_winds_move() -> None:
    """R2.3: a non-dealer's win passes the deal to the next seat; R2.5: the seat winds move with it."""
    game = series(lambda n: NEXT_SEAT_WINS)
    assert winds(game) == ["E", "S", "W", "N"]
    events = play_stacked_deal(game)
    assert result(game)["winner"] == 1
    assert of_type(events, "deal_passes") == [{"type": "deal_passes", "dealer": 1}]
    everyone_ready(game)
    assert view(game, 0)["dealer"] == 1
    assert winds(game) == ["N", "E", "S", "W"]
    assert game.to_act() == [1]  # the new East moves first
    play_stacked_deal(game)
    everyone_ready(game)
    assert winds(game) == ["W", "N", "E", "S"]
    assert game.to_act() == [2]


def _wash_out_by_exhaustion(game: Game) -> list[Event]:
    """Every seat discards what it draws until the live wall runs dry (inert hands never claim)."""
    events: list[Event] = []
    while game.phase is GamePhase.DEAL:
        events = discard_drawn(game)
    return events


@pytest.mark.parametrize(
    ("rules", "next_dealer"),
    [(Rules(), 0), (Rules(dealer_keeps_on_washout=False), 1)],
    ids=["default-keeps", "option-passes"],
)
def test_r2_3_wash_out_keeps_the_deal_unless_the_option_is_off(rules: Rules, next_dealer: int) -> None:
    """R2.3: on a wash-out the dealer keeps the deal by default; with ``dealer_keeps_on_washout`` off it passes."""
    game = stacked_game([INERT_A, INERT_B, INERT_C, INERT_D], "5b", rules=rules)
    events = _wash_out_by_exhaustion(game)
    assert result(game)["termination"] == "wash_out"
    assert bool(of_type(events, "deal_passes")) is (next_dealer != 0)
    everyone_ready(game)
    assert view(game, 0)["dealer"] == next_dealer
    assert winds(game)[next_dealer] == "E"


def test_r2_4_east_only_game_ends_after_the_deal_passes_four_times() -> None:
    """R2.4 with ``game_length="east"``: the game is over once the deal has passed on from the fourth dealer."""
    game = series(lambda n: NEXT_SEAT_WINS, Rules(game_length="east"))
    for dealer in range(3):
        assert view(game, 0)["dealer"] == dealer
        events = play_stacked_deal(game)
        assert not of_type(events, "round_end") and game.outcome is None
        everyone_ready(game)
    assert view(game, 0)["dealer"] == 3
    events = play_stacked_deal(game)
    assert kinds(events)[-3:] == ["deal_passes", "round_end", "game_end"]
    assert of_type(events, "round_end") == [{"type": "round_end", "round_wind": "E"}]
    assert game.phase is GamePhase.OVER
    assert game.outcome is not None and game.outcome.deals == 4
    assert all(game.legal_actions(s) == [] for s in range(4)) and game.to_act() == []
    with pytest.raises(IllegalActionError) as info:
        game.apply(0, "ready")
    assert info.value.reason is Reason.GAME_OVER


def test_r2_4_extra_hands_do_not_end_the_round() -> None:
    """R2.4: extra hands are unlimited: a dealer's win does not count towards the round's four passes."""
    keeps = {0, 2}  # deals won by their dealer
    game = series(lambda n: DEALER_WINS if n in keeps else NEXT_SEAT_WINS, Rules(game_length="east"))
    dealers = []
    while game.phase is not GamePhase.OVER:
        dealers.append(game.dealer)
        play_stacked_deal(game)
        if game.phase is GamePhase.BETWEEN:
            everyone_ready(game)
    assert dealers == [0, 0, 1, 1, 2, 3]
    assert game.outcome is not None and game.outcome.deals == 6


def test_r2_4_prevailing_wind_advances_each_round_and_the_full_game_ends_after_north() -> None:
    """R2.4: a round ends when the deal passes on from its fourth dealer; the prevailing wind advances
    East → South → West → North; the full game ends after the North round (R2.2).
    """
    game = series(lambda n: NEXT_SEAT_WINS)
    seen: list[tuple[object, object]] = []
    round_ends: list[object] = []
    while True:
        v = view(game, 0)
        seen.append((v["round_wind"], v["dealer"]))
        events = play_stacked_deal(game)
        round_ends += [e["round_wind"] for e in of_type(events, "round_end")]
        if game.phase is GamePhase.OVER:
            break
        everyone_ready(game)
    assert seen == [(w, d) for w in "ESWN" for d in range(4)]
    assert round_ends == ["E", "S", "W", "N"]
    assert kinds(events)[-1] == "game_end"
    assert game.outcome is not None and game.outcome.deals == 16


# ====================================================================== R3 the wall
@pytest.mark.parametrize(("rules", "dead"), [(Rules(), 14), (Rules(dead_wall=16), 16)], ids=["14", "16"])
def test_r3_2_dead_wall_holds_14_or_16_tiles(rules: Rules, dead: int) -> None:
    """R3.2: the dead wall holds 14 tiles, or 16 with ``dead_wall=16``; the rest is live (R4.1: 53 dealt)."""
    game = stacked_game([INERT_A, INERT_B, INERT_C, INERT_D], "5b", rules=rules)
    assert wall_counts(game) == (144 - dead - 53, dead)


@pytest.mark.parametrize("rules", [Rules(), Rules(dead_wall=16)], ids=["14", "16"])
def test_r3_2_loose_tiles_come_from_the_dead_wall(rules: Rules) -> None:
    """R3.2: a kong's replacement is the next dead-wall tile; the live wall is untouched."""
    game = stacked_game(
        ["EEE 147b 147c 147d S", "258b 258c 258d RGPN", INERT_C, "147b 258c 369d GPSW"], "E", "9d", rules
    )
    live, dead = wall_counts(game)
    events = game.apply(0, "kong E")
    assert of_type(events, "draw") == [{"type": "draw", "seat": 0, "tile": "9d", "source": "loose"}]
    assert wall_counts(game) == (live, dead - 1)


# Each seat is dealt three kongs' worth and a bonus tile: 4 replacements while dealing, then
# 3 + 3 + 3 + 1 kongs empty the 14-tile dead wall.
KONG_HANDS = ["EEEE SSSS WWWW 1f", "NNNN RRRR GGGG 2f", "PPPP 1111b 9999b 3f", "1111c 9999c 1111d 4f"]
KONG_LOOSE = "2b 3c 4d 5b  6c 7d 8b  7c 8d 9d  6d 7b 8c  6d"


def _drain_dead_wall(draws: str) -> Game:
    game = stacked_game(KONG_HANDS, draws, loose=KONG_LOOSE)
    assert wall_counts(game)[1] == 10  # four bonus tiles replaced while dealing (R4.2)
    for seat, kongs, throw in [(0, "E S W", "2b"), (1, "N R G", "3c"), (2, "P 1b 9b", "7b")]:
        for tile in kongs.split():
            events = game.apply(seat, f"kong {tile}")
            assert kinds(events) == ["kong", "draw", "turn"] and events[1]["source"] == "loose"
        discard(game, seat, throw)
    game.apply(3, "kong 1c")
    assert wall_counts(game)[1] == 0
    return game


def test_r3_2_and_r5_2_no_kong_while_the_dead_wall_is_empty() -> None:
    """R5.2: with the dead wall empty, no kong is offered (seat 3 still holds four 9c and four 1d)."""
    game = _drain_dead_wall("5c 6b 2d 5d 1s")
    assert seat_view(game, 3)["concealed"] == "5b 9999c 111156d"
    assert not [a for a in offered(game, 3) if a.startswith("kong")]
    with pytest.raises(IllegalActionError) as info:
        game.apply(3, "kong 9c")
    assert info.value.reason is Reason.DEAD_WALL_EMPTY


def test_r3_2_wash_out_when_a_replacement_is_needed_and_the_dead_wall_is_empty() -> None:
    """R3.2: seat 0 draws a bonus tile from the live wall with the dead wall empty: the deal is a wash-out."""
    game = _drain_dead_wall("5c 6b 2d 5d 1s")
    events = discard(game, 3, "6d")
    assert kinds(events)[:3] == ["discard", "draw", "bonus"]
    assert events[1] == {"type": "draw", "seat": 0, "tile": "1s", "source": "wall"}
    end = of_type(events, "deal_end")
    assert len(end) == 1 and end[0]["termination"] == "wash_out" and end[0]["winner"] is None
    assert "dead wall" in str(end[0]["reason"])
    assert game.phase is GamePhase.BETWEEN


def test_r3_2_wash_out_when_the_last_loose_tile_is_a_bonus_tile() -> None:
    """R3.2: seat 3's kong takes the last dead-wall tile, a season, whose own replacement cannot be had."""
    game = stacked_game(KONG_HANDS, "5c 6b 2d 5d", loose=KONG_LOOSE.rsplit(" ", 1)[0] + " 1s")
    for seat, kongs, throw in [(0, "E S W", "2b"), (1, "N R G", "3c"), (2, "P 1b 9b", "7b")]:
        for tile in kongs.split():
            game.apply(seat, f"kong {tile}")
        discard(game, seat, throw)
    events = game.apply(3, "kong 1c")
    assert kinds(events) == ["kong", "draw", "bonus", "deal_end"]
    assert events[1] == {"type": "draw", "seat": 3, "tile": "1s", "source": "loose"}
    assert result(game)["termination"] == "wash_out" and result(game)["winner"] is None


def test_r3_3_wash_out_when_the_live_wall_is_empty_and_the_next_player_would_draw() -> None:
    """R3.3: everyone discards what they draw, nobody claims: the player who draws the last live
    tile still takes a turn; when the next player would draw, the deal is a wash-out.
    """
    game = stacked_game([INERT_A, INERT_B, INERT_C, INERT_D], "5b")
    while wall_counts(game)[0] != 0:
        discard_drawn(game)
    # The last live tile (the 77th draw) went to seat 1, who may still act.
    assert game.phase is GamePhase.DEAL and game.to_act() == [1] and view(game, 1)["result"] is None
    events = discard_drawn(game)
    assert kinds(events) == ["discard", "deal_end"]
    assert result(game)["termination"] == "wash_out" and "live wall" in str(result(game)["reason"])


# ======================================================================== R4 the deal
def test_r4_2_dealt_bonus_tiles_are_replaced_dealer_first_repeating_for_a_bonus_loose_tile() -> None:
    """R4.2: bonus tiles in the dealt hands are laid out at once, East first then in turn order, each
    replaced by a loose tile, again when the loose tile is itself a bonus tile.
    """
    game = stacked_game(
        ["147b 147c 147d ES 1f 2f", "258b 258c 258d RGP 1s", INERT_C, "147b 258c 369d GPE 2s"],
        "5b",
        loose="3f 6b 6c 6d 9c",
    )
    opening = game.opening_events
    bonus = [(e["seat"], e["tile"]) for e in of_type(opening, "bonus")]
    assert [s for s, _ in bonus] == [0, 0, 0, 1, 3]
    assert sorted(str(t) for s, t in bonus if s == 0) == ["1f", "2f", "3f"]  # 3f came as a loose tile
    loose = [(e["seat"], e["tile"]) for e in of_type(opening, "draw")]
    assert [t for _, t in loose] == ["3f", "6b", "6c", "6d", "9c"]  # the dead wall, in order
    assert [s for s, _ in loose] == [0, 0, 0, 1, 3]
    for i, e in enumerate(opening):  # every bonus tile is followed by its replacement
        if e["type"] == "bonus":
            assert opening[i + 1]["type"] == "draw" and opening[i + 1]["seat"] == e["seat"]
    assert opening[-1] == {"type": "turn", "seat": 0}
    assert [sorted(str(t) for t in bonus_of(game, s)) for s in range(4)] == [
        ["1f", "2f", "3f"],
        ["1s"],
        [],
        ["2s"],
    ]
    assert [seat_view(game, s)["tiles"] for s in range(4)] == [14, 13, 13, 13]
    assert seat_view(game, 0)["concealed"] == "14567b 1467c 147d E S"
    assert wall_counts(game) == (77, 9)


def test_r4_2_bonus_replacement_starts_with_east_when_another_seat_deals() -> None:
    """R4.2: when seat 1 deals, bonus tiles are replaced for seat 1 (East) first, then 2, 3 and 0."""
    bonus_deal = (
        ["258b 258c 258d RGP 1f", INERT_C, "147b 258c 369d GPE 3f", "147b 147c 147d ESW 2f"],
        "5b",
        "9b 9c 9d",
    )
    game = series(lambda n: NEXT_SEAT_WINS if n == 0 else bonus_deal)
    play_stacked_deal(game)
    opening = everyone_ready(game)
    assert view(game, 0)["dealer"] == 1
    assert [(e["seat"], e["tile"]) for e in of_type(opening, "bonus")] == [(1, "1f"), (3, "3f"), (0, "2f")]
    assert [e["seat"] for e in of_type(opening, "draw")] == [1, 3, 0]


def test_r4_3_bonus_tile_drawn_in_play_is_laid_out_and_replaced_before_the_player_acts() -> None:
    """R4.3: seat 1 draws a flower: it is laid face up and replaced from the dead wall (again for a
    season that comes as the loose tile) before seat 1 may act.
    """
    game = stacked_game([INERT_A, INERT_B, INERT_C, INERT_D], "5b 1f", loose="2s 9d")
    events = discard(game, 0, "5b")
    assert events[1:] == [
        {"type": "draw", "seat": 1, "tile": "1f", "source": "wall"},
        {"type": "bonus", "seat": 1, "tile": "1f"},
        {"type": "draw", "seat": 1, "tile": "2s", "source": "loose"},
        {"type": "bonus", "seat": 1, "tile": "2s"},
        {"type": "draw", "seat": 1, "tile": "9d", "source": "loose"},
        {"type": "turn", "seat": 1},
    ]
    assert drawn(game, 1) == "9d"
    assert "discard 9d" in offered(game, 1)
    assert seat_view(game, 2, 1)["bonus"] == ["1f", "2s"]  # every seat sees the bonus tiles (R12.1)
    assert seat_view(game, 1)["tiles"] == 14
    assert wall_counts(game) == (76, 12)


# ========================================================================= R5 a turn
def test_r5_2a_self_drawn_win() -> None:
    """R5.2a: seat 1 draws the tile that completes its hand and declares a self-drawn win."""
    game = stacked_game([INERT_A, WAITS_5C, INERT_C, INERT_D], "9d 5c")
    discard(game, 0, "9d")
    assert drawn(game, 1) == "5c"
    assert offered(game, 1)[0] == "win" and "discard 5c" in offered(game, 1)
    events = game.apply(1, "win")
    [end] = of_type(events, "deal_end")
    assert (end["termination"], end["winner"], end["tile"], end["win_by"]) == ("self_drawn", 1, "5c", "wall")
    assert game.phase is GamePhase.BETWEEN


def test_r5_2b_concealed_kong_draws_a_loose_tile_and_acts_again() -> None:
    """R5.2b: the dealer shows four East winds, draws a loose tile and acts again (here: wins on it).
    The kong is shown to every seat but stays concealed for scoring (R12.2).
    """
    game = stacked_game(["EEE 123b 456b 789b 5c", "258b 258c 258d RGPN", INERT_C, "147b 258c 369d GPSW"], "E", "5c")
    assert "kong E" in offered(game, 0) and "win" not in offered(game, 0)
    events = game.apply(0, "kong E")
    assert events == [
        {"type": "kong", "seat": 0, "tile": "E", "kind": "concealed"},
        {"type": "draw", "seat": 0, "tile": "5c", "source": "loose"},
        {"type": "turn", "seat": 0},
    ]
    assert game.to_act() == [0] and drawn(game, 0) == "5c"
    assert seat_view(game, 2, 0)["melds"] == [{"kind": "kong", "tiles": "EEEE", "exposed": False}]
    assert seat_view(game, 0)["tiles"] == 11
    assert wall_counts(game) == (77, 13)
    assert offered(game, 0)[0] == "win"
    game.apply(0, "win")
    assert (result(game)["termination"], result(game)["win_by"]) == ("self_drawn", "loose")


# Seat 1 can pung the dealer's 5d; the other hands never claim.
PUNG_5D = [INERT_A, "55d 258b 258c 8d RGPW", INERT_C, INERT_D]


def _seat1_pungs_5d(draws: str, loose: str = "") -> Game:
    game = stacked_game(PUNG_5D, "5d " + draws, loose)
    discard(game, 0, "5d", window=True)
    assert offered(game, 1) == ["pung", "pass"] and game.to_act() == [1]
    game.apply(1, "pung")
    discard(game, 1, "W")
    return game


def test_r5_2c_added_kong_with_the_tile_just_drawn() -> None:
    """R5.2c: seat 1 holds an exposed pung of 5d and draws the fourth 5d: it may add it, making an
    exposed kong, then draws a loose tile and acts again.
    """
    game = _seat1_pungs_5d("2c 9c 4d 5d", loose="1c")
    for _ in range(3):
        discard_drawn(game)
    assert drawn(game, 1) == "5d"
    assert "kong 5d" in offered(game, 1)
    events = game.apply(1, "kong 5d")
    assert kinds(events) == ["add_kong", "kong", "draw", "turn"]
    assert events[1] == {"type": "kong", "seat": 1, "tile": "5d", "kind": "added"}
    assert events[2] == {"type": "draw", "seat": 1, "tile": "1c", "source": "loose"}
    assert game.to_act() == [1]
    melds = seat_view(game, 3, 1)["melds"]
    assert isinstance(melds, list) and len(melds) == 1
    kong = melds[0]
    assert kong["kind"] == "kong" and kong["tiles"] == "5555d" and kong["exposed"] and kong["added"]


def test_r5_2c_added_kong_with_a_loose_tile_replacing_a_bonus() -> None:
    """R5.2c: the tile just drawn may be a loose tile: a flower's replacement 5d joins the pung of 5d."""
    game = _seat1_pungs_5d("2c 9c 4d 1f", loose="5d 1c")
    for _ in range(3):
        discard_drawn(game)
    assert drawn(game, 1) == "5d" and seat_view(game, 1)["bonus"] == ["1f"]
    assert "kong 5d" in offered(game, 1)
    events = game.apply(1, "kong 5d")
    assert events[-2:] == [{"type": "draw", "seat": 1, "tile": "1c", "source": "loose"}, {"type": "turn", "seat": 1}]


def test_r5_2c_no_added_kong_with_a_tile_held_from_earlier() -> None:
    """R5.2c: only the tile just drawn may be added: seat 1 keeps the fourth 5d for a turn, and may not add it later."""
    game = _seat1_pungs_5d("2c 9c 4d 5d 3c 6c 7b 3d")
    for _ in range(3):
        discard_drawn(game)
    assert "kong 5d" in offered(game, 1)
    discard(game, 1, "R")  # keeps the 5d
    for _ in range(3):
        discard_drawn(game)
    assert drawn(game, 1) == "3d"
    assert not [a for a in offered(game, 1) if a.startswith("kong")]
    with pytest.raises(IllegalActionError) as info:
        game.apply(1, "kong 5d")
    assert info.value.reason is Reason.NOT_JUST_DRAWN


def test_r5_2d_discard_and_the_next_seat_draws() -> None:
    """R5.2d: the dealer discards face up; nobody can claim it, so seat 1 draws from the live wall."""
    game = stacked_game([INERT_A, INERT_B, INERT_C, INERT_D], "5b 9d")
    events = discard(game, 0, "5b")
    assert events == [
        {"type": "discard", "seat": 0, "tile": "5b"},
        {"type": "draw", "seat": 1, "tile": "9d", "source": "wall"},
        {"type": "turn", "seat": 1},
    ]
    assert view(game, 3)["discards"] == [{"seat": 0, "tile": "5b"}]
    assert seat_view(game, 0)["tiles"] == 13
    assert game.to_act() == [1] and offered(game, 0) == []


# ==================================================================== R6.1 the claims
def test_r6_1_win_on_a_discard_for_the_pair() -> None:
    """R6.1: a discard may be claimed to win, including when it completes the pair."""
    game = stacked_game(*NEXT_SEAT_WINS)
    discard(game, 0, "5c", window=True)
    assert offered(game, 1) == ["win", "pass"]
    events = game.apply(1, "win")
    [end] = of_type(events, "deal_end")
    assert (end["termination"], end["winner"], end["tile"], end["discarder"]) == ("discard", 1, "5c", 0)
    assert view(game, 0)["discards"] == [{"seat": 0, "tile": "5c", "claimed_by": 1}]


# Seat 2 holds three Red dragons and four Green dragons; the dealer discards the fourth Red.
DRAGONS = [INERT_A, "258b 258c 258d ESWN", "RRR GGGG 369b 369c", "147b 258c 369d PESW"]


def test_r6_1_kong_on_a_discard_then_loose_tile_and_a_full_turn() -> None:
    """R6.1: a kong on a discard is exposed, a loose tile drawn, then a full turn: here another
    (concealed) kong. Seat 1, between discarder and claimant, is skipped (R6.2).
    """
    game = stacked_game(DRAGONS, "R", loose="9d 9c")
    discard(game, 0, "R", window=True)
    assert offered(game, 2) == ["kong", "pung", "pass"] and game.to_act() == [2]
    events = game.apply(2, "kong")
    assert kinds(events) == ["answer", "window_closed", "claim", "draw", "turn"]
    assert events[3] == {"type": "draw", "seat": 2, "tile": "9d", "source": "loose"}
    assert game.to_act() == [2]
    melds = seat_view(game, 1, 2)["melds"]
    assert melds == [{"kind": "kong", "tiles": "RRRR", "exposed": True, "claimed": "R", "from": 0}]
    assert "kong G" in offered(game, 2) and "discard 9d" in offered(game, 2)
    events = game.apply(2, "kong G")
    assert events[1] == {"type": "draw", "seat": 2, "tile": "9c", "source": "loose"}


def test_r6_1_pung_then_discard_only() -> None:
    """R6.1: after a pung the claimant must discard: no draw, no kong (though it holds four Greens), no win."""
    game = stacked_game(DRAGONS, "R")
    discard(game, 0, "R", window=True)
    events = game.apply(2, "pung")
    assert kinds(events) == ["answer", "window_closed", "claim", "turn"]  # no draw
    assert game.to_act() == [2]
    actions = offered(game, 2)
    assert actions and all(a.startswith("discard ") for a in actions)
    assert "discard G" in actions
    with pytest.raises(IllegalActionError) as info:
        game.apply(2, "kong G")
    assert info.value.reason is Reason.MUST_DISCARD
    discard(game, 2, "G")
    assert game.to_act() == [3]


# Seat 1 holds 3b 4b 6b 7b: three different chows on a 5b. Seat 2 holds 4b 6b but is not next.
CHOWS = [INERT_A, "3467b 147c 147d ESW", "46b 369c 369d SWNRP", INERT_D]


def test_r6_1_chow_by_the_next_seat_only_with_every_choice_listed() -> None:
    """R6.1: only the next seat may chow, and each distinct chow it could make is offered."""
    game = stacked_game(CHOWS, "5b")
    discard(game, 0, "5b", window=True)
    assert offered(game, 1) == ["chow 3b 4b", "chow 4b 6b", "chow 6b 7b", "pass"]
    assert offered(game, 2) == [] and game.to_act() == [1]
    events = game.apply(1, {"type": "chow", "tiles": ["6b", "4b"]})
    [claim] = of_type(events, "claim")
    assert claim == {
        "type": "claim",
        "seat": 1,
        "action": {"type": "chow", "tiles": ["4b", "6b"]},
        "tile": "5b",
        "from": 0,
    }
    assert seat_view(game, 0, 1)["melds"] == [
        {"kind": "chow", "tiles": "456b", "exposed": True, "claimed": "5b", "from": 0}
    ]
    assert all(a.startswith("discard ") for a in offered(game, 1))  # then discard only
    discard(game, 1, "E")
    assert game.to_act() == [2]


def test_r6_1_no_claim_for_a_pair_except_to_win() -> None:
    """R6.1: seat 1 holds one Red and may not claim the Red to make a pair; seat 2, whose hand the
    Red completes (as the pair), may claim it, but only to win.
    """
    game = stacked_game(["147b 147c 147d ESWN", "258b 258c 258d RGPE", "123b 456b 789b 123c R", INERT_D], "R")
    discard(game, 0, "R", window=True)
    assert offered(game, 1) == []
    assert offered(game, 2) == ["win", "pass"]
    assert game.to_act() == [2]
    with pytest.raises(IllegalActionError) as info:
        game.apply(1, "pung")
    assert info.value.reason is Reason.PUNG_NEEDS_TWO


# Seat 1 pungs the dealer's 5d; later seat 3 discards the fourth 5d, which the dealer could chow.
EXPOSED_PUNG = ["147b 147c 46d ESWNP", "55d 258b 258c 8d RGEW", INERT_C, "147b 258c 369d GPES"]


def test_r6_1_no_kong_from_an_exposed_pung_and_a_discard() -> None:
    """R6.1: a kong may not be made from an exposed pung and a discard: seat 1 is not offered the fourth 5d."""
    game = stacked_game(EXPOSED_PUNG, "5d 2c 5d")
    discard(game, 0, "5d", window=True)
    game.apply(1, "pung")
    discard(game, 1, "W")
    discard_drawn(game)  # seat 2
    assert drawn(game, 3) == "5d"
    discard(game, 3, "5d", window=True)
    assert offered(game, 0) == ["chow 4d 6d", "pass"]
    assert offered(game, 1) == [] and game.to_act() == [0]
    game.apply(0, "pass")
    assert game.to_act() == [0] and seat_view(game, 0)["tiles"] == 14  # the dealer drew: seat 1 took nothing


# ============================================================== R6.2–R6.4 claim windows
def _contest(seat2: str = "55d 369b 369c RGPW N", draws: str = "5d") -> Game:
    """The dealer discards 5d: seat 1 may chow (6d 7d), seat 2 may pung (or kong with three 5d),
    seat 3 may win (4d 6d closed wait).
    """
    hands = [INERT_A, "67d 258b 258c RGPNS", seat2, "123b 456b 789b 46d EE"]
    game = stacked_game(hands, draws)
    discard(game, 0, draws.split()[0], window=True)
    return game


def test_r6_2_win_beats_pung_and_chow() -> None:
    """R6.2: win > pung > chow, whatever order the claims arrive in."""
    game = _contest()
    assert offered(game, 1) == ["chow 6d 7d", "pass"]
    assert offered(game, 2) == ["pung", "pass"]
    assert offered(game, 3) == ["win", "pass"]
    game.apply(1, "chow 6d 7d")
    game.apply(2, "pung")
    events = game.apply(3, "win")
    assert not of_type(events, "claim")
    assert (result(game)["winner"], result(game)["termination"]) == (3, "discard")


def test_r6_2_pung_beats_chow_once_the_win_is_passed() -> None:
    """R6.2: pung > chow: with the possible win passed, seat 2's pung is acted on, not seat 1's chow."""
    game = _contest()
    game.apply(1, "chow 6d 7d")
    game.apply(2, "pung")
    events = game.apply(3, "pass")
    [claim] = of_type(events, "claim")
    assert (claim["seat"], claim["action"]) == (2, {"type": "pung"})
    assert game.to_act() == [2] and seat_view(game, 1)["melds"] == []
    assert view(game, 0)["discards"] == [{"seat": 0, "tile": "5d", "claimed_by": 2}]


def test_r6_2_kong_beats_chow() -> None:
    """R6.2: kong > chow: seat 2 holds three 5d and claims the kong; seat 1's earlier chow is not acted on."""
    game = _contest(seat2="555d 369b 369c RGPW")
    assert offered(game, 2) == ["kong", "pung", "pass"]
    game.apply(1, "chow 6d 7d")
    game.apply(3, "pass")
    events = game.apply(2, "kong")
    [claim] = of_type(events, "claim")
    assert (claim["seat"], claim["action"]) == (2, {"type": "kong"})
    assert of_type(events, "draw")[0]["source"] == "loose"
    assert game.to_act() == [2] and seat_view(game, 1)["melds"] == []


def test_r6_2_pung_skips_the_seats_in_between_and_play_continues_from_the_claimant() -> None:
    """R6.2: seat 3 pungs the dealer's East: seats 1 and 2 lose their turns; after seat 3's discard, seat 0 draws."""
    game = stacked_game([INERT_A, "67d 258b 258c RGPNS", "55d 369b 369c RGPW N", "123b 456b 789b 46d EE"], "9c 3c")
    discard(game, 0, "E", window=True)
    assert offered(game, 3) == ["pung", "pass"] and game.to_act() == [3]
    events = game.apply(3, "pung")
    assert of_type(events, "turn") == [{"type": "turn", "seat": 3}]
    events = discard(game, 3, "1b")
    assert events[1] == {"type": "draw", "seat": 0, "tile": "3c", "source": "wall"}
    assert game.to_act() == [0]


# Seats 1 and 3 both wait on 5c.
TWO_WINNERS = [INERT_A, WAITS_5C, INERT_C, "123d 456d 789d 46c EE"]


def test_r6_2_two_win_claims_the_nearest_seat_to_the_discarder_wins() -> None:
    """R6.2: seats 1 and 3 both claim the dealer's 5c: seat 1, next after the dealer, wins; the
    window waits for seat 1 even though seat 3 answered first (R6.3).
    """
    game = stacked_game(TWO_WINNERS, "5c")
    discard(game, 0, "5c", window=True)
    assert sorted(game.to_act()) == [1, 3]
    events = game.apply(3, "win")
    assert kinds(events) == ["answer"] and game.to_act() == [1]
    game.apply(1, "win")
    assert (result(game)["winner"], result(game)["discarder"]) == (1, 0)


def test_r6_2_two_win_claims_nearest_seat_counts_round_the_table() -> None:
    """R6.2: seat 2 discards 5c; seats 3 and 1 can both win: seat 3 is nearer (3, then 0, then 1)."""
    game = stacked_game(TWO_WINNERS, "N 2d 5c")
    discard(game, 0, "N")
    discard_drawn(game)  # seat 1 throws its 2d
    discard(game, 2, "5c", window=True)
    assert sorted(game.to_act()) == [1, 3]
    game.apply(1, "win")
    assert game.to_act() == [3]
    game.apply(3, "win")
    assert (result(game)["winner"], result(game)["discarder"]) == (3, 2)


def test_r6_3_window_resolves_as_soon_as_the_nearest_win_is_claimed() -> None:
    """R6.3: once seat 1 (nearest) claims the win, nothing can outrank it: the deal ends without seat 3's answer."""
    game = stacked_game(TWO_WINNERS, "5c")
    discard(game, 0, "5c", window=True)
    game.apply(1, "win")
    assert result(game)["winner"] == 1


def test_r6_3_a_chow_waits_until_every_higher_claim_has_passed() -> None:
    """R6.3: seat 1's chow is not acted on while seat 2 (pung) or seat 3 (win) might still claim;
    seat 1's answer is secret from the others meanwhile (R12.2).
    """
    game = _contest()
    events = game.apply(1, "chow 6d 7d")
    assert kinds(events) == ["answer"]
    assert sorted(game.to_act()) == [2, 3] and seat_view(game, 1)["melds"] == []
    assert view(game, 1)["turn"] == {
        "phase": "claim",
        "tile": "5d",
        "from": 0,
        "answer": {"type": "chow", "tiles": ["6d", "7d"]},
    }
    assert view(game, 2)["turn"] == {"phase": "claim", "tile": "5d", "from": 0}
    assert kinds(game.apply(2, "pass")) == ["answer"]
    assert game.to_act() == [3]
    events = game.apply(3, "pass")
    [claim] = of_type(events, "claim")
    assert (claim["seat"], claim["action"]) == (1, {"type": "chow", "tiles": ["6d", "7d"]})
    assert game.to_act() == [1]


def test_r6_3_a_pung_is_acted_on_without_waiting_for_a_lower_chow() -> None:
    """R6.3: with the win passed, seat 2's pung cannot be outranked by seat 1's chow: it resolves at once."""
    game = _contest()
    game.apply(3, "pass")
    events = game.apply(2, "pung")
    assert of_type(events, "claim")[0]["seat"] == 2
    assert game.to_act() == [2] and offered(game, 1) == []


def test_r6_4_a_claim_can_be_changed_until_it_is_acted_on() -> None:
    """R6.4: seat 1 claims a chow, then changes its mind and passes; seat 2 changes its pung to a pass:
    when seat 3 passes too, nobody takes the 5d and seat 1 draws from the wall.
    """
    game = _contest(draws="5d 8b")
    game.apply(1, "chow 6d 7d")
    game.apply(2, "pung")
    game.apply(1, "pass")
    game.apply(2, "pass")
    events = game.apply(3, "pass")
    assert not of_type(events, "claim")
    assert of_type(events, "draw") == [{"type": "draw", "seat": 1, "tile": "8b", "source": "wall"}]
    assert all(seat_view(game, s)["melds"] == [] for s in range(4))


def test_r6_4_a_pass_can_be_changed_to_a_claim() -> None:
    """R6.4: seat 1 passes, then claims the chow before the window resolves: the chow is acted on."""
    game = _contest()
    game.apply(1, "pass")
    game.apply(1, "chow 6d 7d")
    game.apply(2, "pass")
    events = game.apply(3, "pass")
    assert of_type(events, "claim")[0]["seat"] == 1


def test_r6_4_an_illegal_claim_is_refused_with_a_reason_and_changes_nothing() -> None:
    """R6.4: seat 2's false win claim is refused with a reason; its earlier pung still stands and wins the tile."""
    game = _contest()
    game.apply(2, "pung")
    before = game.digest()
    with pytest.raises(IllegalActionError, match="does not complete") as info:
        game.apply(2, "win")
    assert info.value.reason is Reason.NOT_A_WIN
    assert game.digest() == before
    assert view(game, 2)["turn"] == {"phase": "claim", "tile": "5d", "from": 0, "answer": {"type": "pung"}}
    events = game.apply(3, "pass")
    assert of_type(events, "claim")[0]["seat"] == 2


# ============================================================== R6.5 robbing the kong
# Seat 1 pungs the dealer's 5d; seat 3 later becomes ready on 5d (4d 6d); seat 1 draws the 4th 5d.
ROB = [INERT_A, "55d 258b 258c 8d RGPW", INERT_C, "123b 456b 789b 4d EE N"]
ROB_DRAWS = "5d 2c 6d 9c 5d"


def _seat1_adds_a_kong_of_5d() -> tuple[Game, list[Event]]:
    game = stacked_game(ROB, ROB_DRAWS, loose="1c")
    discard(game, 0, "5d", window=True)
    game.apply(1, "pung")
    discard(game, 1, "W")
    discard_drawn(game)  # seat 2: 2c
    discard(game, 3, "N")  # seat 3 drew 6d and is ready on 5d
    discard_drawn(game)  # seat 0: 9c
    assert drawn(game, 1) == "5d"
    return game, game.apply(1, "kong 5d")


def test_r6_5_robbing_an_added_kong() -> None:
    """R6.5: seat 3, waiting on 5d, robs seat 1's added kong: a win counted as a discard by seat 1;
    the kong never stands.
    """
    game, events = _seat1_adds_a_kong_of_5d()
    assert kinds(events) == ["add_kong", "window"]
    assert game.to_act() == [3] and offered(game, 3) == ["win", "pass"]
    game.apply(3, "win")
    res = result(game)
    assert (res["termination"], res["winner"], res["tile"], res["discarder"]) == ("robbed_kong", 3, "5d", 1)
    assert seat_view(game, 0, 1)["melds"] == [
        {"kind": "pung", "tiles": "555d", "exposed": True, "claimed": "5d", "from": 0}
    ]


def test_r6_5_added_kong_stands_when_nobody_robs_it() -> None:
    """R6.5: if the possible robber passes, the kong stands and seat 1 draws its loose tile."""
    game, _ = _seat1_adds_a_kong_of_5d()
    events = game.apply(3, "pass")
    assert kinds(events) == ["answer", "window_closed", "kong", "draw", "turn"]
    assert events[3] == {"type": "draw", "seat": 1, "tile": "1c", "source": "loose"}
    assert game.to_act() == [1]


def test_r6_5_two_robbers_the_nearest_to_the_kong_wins() -> None:
    """R6.5 with R6.2: seats 2 and 3 both wait on 5d when seat 1 adds its kong; seat 2, nearer to seat 1,
    wins although seat 3 claimed first.
    """
    hands = [INERT_A, "55d 258b 258c 8d RGPW", "123c 456c 789c 46d SS", "123b 456b 789b 4d EE N"]
    game = stacked_game(hands, ROB_DRAWS)
    discard(game, 0, "5d", window=True)
    assert offered(game, 2) == ["win", "pass"]
    game.apply(2, "pass")  # seat 2 passes up this win; its next draw lifts the restriction (R6.7)
    game.apply(1, "pung")
    discard(game, 1, "W")
    discard_drawn(game)  # seat 2: 2c
    discard(game, 3, "N")  # seat 3 drew 6d and is ready on 5d
    discard_drawn(game)  # seat 0: 9c
    events = game.apply(1, "kong 5d")
    assert kinds(events) == ["add_kong", "window"] and sorted(game.to_act()) == [2, 3]
    assert kinds(game.apply(3, "win")) == ["answer"]
    game.apply(2, "win")
    assert (result(game)["termination"], result(game)["winner"], result(game)["discarder"]) == ("robbed_kong", 2, 1)


def test_r6_5_a_concealed_kong_cannot_be_robbed() -> None:
    """R6.5: seat 2 waits on 9c with Thirteen Orphans; the dealer's concealed kong of 9c opens no window."""
    game = stacked_game(["999c 258b 258d 36c 4d 7b", INERT_B, "19b 1c 19d ESWNRGPP", "369b 36c 369d SWNGR"], "9c", "5b")
    events = game.apply(0, "kong 9c")
    assert kinds(events) == ["kong", "draw", "turn"]
    assert game.to_act() == [0] and offered(game, 2) == []


# ============================================================== R6.6 wash-out: no winner
def test_r6_6_wash_out_has_no_winner_and_nobody_pays() -> None:
    """R6.6: an exhausted wall ends the deal with no winner; every score is unchanged (R11.4)."""
    game = stacked_game([INERT_A, INERT_B, INERT_C, INERT_D], "5b")
    events = _wash_out_by_exhaustion(game)
    [end] = of_type(events, "deal_end")
    assert end["termination"] == "wash_out" and end["winner"] is None and end["tile"] is None
    assert [seat_view(game, 0, s)["score"] for s in range(4)] == [2000] * 4


# ============================================================== R6.7 sacred discard
# Seat 1 throws 5c, then pungs Red and throws White: ready on 5c / 8c, but 5c is its own discard.
SACRED = ["147b 147c 147d ESWN", "123b 456b 67c 99d RR P", "258b 258d 1c 9c EGWNS", "67c 369b 369d SWNRG"]
SACRED_DRAWS = "5d 5c R 5c 8c"


def _sacred_setup(rules: Rules | None = None) -> Game:
    game = stacked_game(SACRED, SACRED_DRAWS, rules=rules)
    discard(game, 0, "5d")
    assert drawn(game, 1) == "5c"
    discard(game, 1, "5c")
    discard(game, 2, "R", window=True)  # seat 2 drew the Red
    game.apply(1, "pung")
    discard(game, 1, "P")
    assert drawn(game, 2) == "5c"
    return game


def test_r6_7_no_win_on_a_tile_discarded_since_ones_last_draw() -> None:
    """R6.7: seat 1 (ready on 5c/8c) discarded a 5c and has not drawn since: it may not win on seat 2's 5c,
    yet may win on 8c.
    """
    game = _sacred_setup()
    discard(game, 2, "5c", window=True)  # only seat 3 may claim (chow 6c 7c)
    assert offered(game, 1) == [] and game.to_act() == [3]
    with pytest.raises(IllegalActionError, match="sacred") as info:
        game.apply(1, "win")
    assert info.value.reason is Reason.SACRED_DISCARD
    game.apply(3, "pass")
    assert drawn(game, 3) == "8c"
    discard(game, 3, "8c", window=True)
    assert offered(game, 1) == ["win", "pass"]
    game.apply(1, "win")
    assert (result(game)["winner"], result(game)["tile"]) == (1, "8c")


def test_r6_7_option_off_allows_the_win_on_ones_own_discarded_tile() -> None:
    """R6.7 with ``sacred_discard`` off: the same 5c is offered to seat 1 as a win."""
    game = _sacred_setup(Rules(sacred_discard=False))
    discard(game, 2, "5c", window=True)
    assert offered(game, 1) == ["win", "pass"]
    game.apply(1, "win")
    assert (result(game)["winner"], result(game)["tile"]) == (1, "5c")


# Seat 1 is ready on 5c / 8c from the deal and holds three Greens.
MISSED = ["147b 4c 79c 147d ESWN", "123b 456b 67c 99d GGG", "258b 258d 1c EWNSRP", "369b 369d 2c SWNRPE"]


def _seat1_passes_up_a_win(draws: str, rules: Rules | None = None) -> Game:
    game = stacked_game(MISSED, "5d 9b 5c " + draws, rules=rules)
    discard(game, 0, "5d")
    discard_drawn(game)  # seat 1 throws 9b, still ready
    discard(game, 2, "5c", window=True)
    assert offered(game, 1) == ["win", "pass"] and game.to_act() == [1]
    game.apply(1, "pass")
    return game


def test_r6_7_after_passing_up_a_win_no_win_on_a_discard_until_the_next_draw() -> None:
    """R6.7: seat 1 passed up a win on 5c: it may not win on seat 3's 8c; after its next live-wall
    draw it may win on seat 2's 8c.
    """
    game = _seat1_passes_up_a_win("8c 2d 3d 8c")
    assert drawn(game, 3) == "8c"
    discard(game, 3, "8c", window=True)  # only the dealer may claim (chow 7c 9c)
    assert offered(game, 1) == [] and game.to_act() == [0]
    with pytest.raises(IllegalActionError) as info:
        game.apply(1, "win")
    assert info.value.reason is Reason.SACRED_DISCARD
    game.apply(0, "pass")
    discard_drawn(game)  # seat 0: 2d
    discard_drawn(game)  # seat 1 draws from the live wall (3d) and throws it
    discard(game, 2, "8c", window=True)
    assert offered(game, 1) == ["win", "pass"]
    game.apply(1, "win")
    assert (result(game)["winner"], result(game)["discarder"]) == (1, 2)


def test_r6_7_option_off_allows_the_win_after_passing_one_up() -> None:
    """R6.7 with ``sacred_discard`` off: passing up a win does not bar the next one."""
    game = _seat1_passes_up_a_win("8c", Rules(sacred_discard=False))
    discard(game, 3, "8c", window=True)
    assert offered(game, 1) == ["win", "pass"]


def test_r6_7_a_loose_tile_does_not_lift_the_restriction() -> None:
    """R6.7: only a live-wall draw lifts it: after passing up a win, seat 1 kongs a Green and draws a
    loose tile; seat 2's 8c is then still no win for seat 1.
    """
    game = stacked_game(MISSED, "5d 9b 5c G 8c", loose="2d")
    discard(game, 0, "5d")
    discard_drawn(game)
    discard(game, 2, "5c", window=True)
    game.apply(1, "pass")
    discard(game, 3, "G", window=True)
    game.apply(1, "kong")
    assert drawn(game, 1) == "2d"
    discard(game, 1, "2d")  # ready on 5c / 8c again
    assert drawn(game, 2) == "8c"
    events = discard(game, 2, "8c")  # no window: seat 1 is not offered the win
    assert of_type(events, "draw")[0]["seat"] == 3


def test_r6_7_self_drawn_wins_are_never_restricted() -> None:
    """R6.7: right after passing up a win, seat 1 kongs a discarded Green and wins on the loose tile."""
    game = stacked_game(MISSED, "5d 9b 5c G", loose="8c")
    discard(game, 0, "5d")
    discard_drawn(game)
    discard(game, 2, "5c", window=True)
    game.apply(1, "pass")
    discard(game, 3, "G", window=True)
    assert offered(game, 1) == ["kong", "pung", "pass"]
    game.apply(1, "kong")
    assert drawn(game, 1) == "8c" and offered(game, 1)[0] == "win"
    game.apply(1, "win")
    assert (result(game)["termination"], result(game)["win_by"]) == ("self_drawn", "loose")


# The dealer discards 5d: seat 1 may pung it, seat 3 (ready on 2d/5d) may win but passes. Seat 0
# then pungs seat 2's 9c, so seat 3 never draws before seat 1 adds the fourth 5d to its pung.
ROB_AFTER_PASS = ["99c 147b 147d ESWNP", "55d 258b 258c 8d RGPW", INERT_C, "123b 456b 789b 34d EE"]


@pytest.mark.parametrize("sacred", [True, False], ids=["sacred-on", "sacred-off"])
def test_r6_7_no_robbing_a_kong_after_passing_up_a_win(sacred: bool) -> None:
    """R6.7 (robbed kong tiles too): seat 3 passed up a win on 5d and has not drawn since, so it may not
    rob seat 1's added kong of 5d and the kong stands; with ``sacred_discard`` off it may rob it (R6.5).
    """
    game = stacked_game(ROB_AFTER_PASS, "5d 9c 5d", loose="1c", rules=Rules(sacred_discard=sacred))
    discard(game, 0, "5d", window=True)
    assert offered(game, 3) == ["win", "pass"] and offered(game, 1) == ["pung", "pass"]
    game.apply(3, "pass")
    game.apply(1, "pung")
    discard(game, 1, "W")
    discard(game, 2, "9c", window=True)  # seat 2 drew the 9c
    game.apply(0, "pung")
    discard(game, 0, "P")
    assert drawn(game, 1) == "5d"
    events = game.apply(1, "kong 5d")
    if sacred:
        assert kinds(events) == ["add_kong", "kong", "draw", "turn"]
        assert offered(game, 3) == [] and game.to_act() == [1]
    else:
        assert kinds(events) == ["add_kong", "window"] and offered(game, 3) == ["win", "pass"]
        game.apply(3, "win")
        assert (result(game)["termination"], result(game)["winner"]) == ("robbed_kong", 3)


# ============================================================== R7.2 Thirteen Orphans
ORPHANS = ["258b 258c 258d 36b 4c 7d", "19b 19c 19d ESWNRGG", INERT_C, INERT_A]


def test_r7_2_thirteen_orphans_wins_on_a_discard() -> None:
    """R7.2: Thirteen Orphans is a win without four sets and a pair, also on a discard."""
    game = stacked_game(ORPHANS, "P")
    discard(game, 0, "P", window=True)
    assert offered(game, 1) == ["win", "pass"]
    game.apply(1, "win")
    res = result(game)
    assert (res["termination"], res["winner"], res["tile"]) == ("discard", 1, "P")


def test_r7_2_thirteen_orphans_self_drawn() -> None:
    """R7.2: Thirteen Orphans is offered as a self-drawn win."""
    game = stacked_game(ORPHANS, "5c P")
    discard(game, 0, "5c")
    assert drawn(game, 1) == "P" and offered(game, 1)[0] == "win"
    game.apply(1, "win")
    assert (result(game)["termination"], result(game)["winner"]) == ("self_drawn", 1)
