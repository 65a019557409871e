"""Refused actions: every refusal names its reason (``game.errors.Reason``), says why, and changes nothing.

Illegal actions (well formed, not allowed now) raise :class:`IllegalActionError`; malformed input
raises :class:`InvalidActionError`. Either way the game's digest and version are unchanged (R6.4:
"an illegal claim is refused with a reason and costs nothing").
"""

from __future__ import annotations

import pytest
from gamekit import stacked_game

from game import Game, GamePhase, IllegalActionError, InvalidActionError, Reason, RulesError, view

# Inert hands: singletons three ranks apart, so they never claim (see test_scenarios.py).
INERT_A = "147b 147c 147d ESWN"
INERT_B = "258b 258c 258d RGPE"
INERT_C = "369b 369c 369d SWNR"
INERT_D = "147b 258c 369d GPES"


def refused(game: Game, seat: object, action: object, error: type[RulesError] = IllegalActionError) -> RulesError:
    """Apply an action that must be refused with ``error``; check that the game did not change."""
    before, version, to_act = game.digest(), game.version, game.to_act()
    with pytest.raises(RulesError) as info:
        game.apply(seat, action)  # type: ignore[arg-type]  # deliberately ill-typed input
    assert type(info.value) is error, info.value
    assert game.digest() == before and game.version == version and game.to_act() == to_act
    return info.value


def quiet_start() -> Game:
    """Seat 0 (dealer) to discard; nobody can claim anything."""
    return stacked_game([INERT_A, INERT_B, INERT_C, INERT_D], "5b")


def contest() -> Game:
    """The dealer has discarded 5d: seat 1 may chow (6d 7d), seat 2 may pung; seat 3 holds one 5d."""
    game = stacked_game([INERT_A, "67d 258b 258c RGPNS", "55d 369b 369c RGPW N", "147b 258c 5d 9d GPESW"], "5d")
    game.apply(0, "discard 5d")
    assert sorted(game.to_act()) == [1, 2]
    return game


# ------------------------------------------------------------------- illegal actions
def test_discard_rejected_when_not_your_turn() -> None:
    """Wrong seat: seat 1 discards during the dealer's turn."""
    game = quiet_start()
    err = refused(game, 1, "discard 2b")
    assert err.reason is Reason.NOT_YOUR_TURN and err.code == "action/not_your_turn"
    assert "seat 0's turn" in str(err) and "discard" in str(err)


def test_self_drawn_win_rejected_when_not_your_turn() -> None:
    """Wrong seat: a win declared out of turn (no claim window open)."""
    err = refused(quiet_start(), 2, "win")
    assert err.reason is Reason.NOT_YOUR_TURN


def test_discard_rejected_when_tile_not_held() -> None:
    """Tile not held: the dealer discards a 9c it does not have."""
    game = quiet_start()
    err = refused(game, 0, {"type": "discard", "tile": "9c"})
    assert err.reason is Reason.TILE_NOT_HELD
    assert "does not hold 9c" in str(err)
    assert f"version {game.version}" in str(err)  # the message gives the version it was refused at


def test_concealed_kong_rejected_when_tile_not_held_or_short() -> None:
    """R5.2b: a concealed kong of a tile not held, or of a tile held once, is refused."""
    game = quiet_start()
    assert refused(game, 0, "kong 9c").reason is Reason.TILE_NOT_HELD
    err = refused(game, 0, "kong E")
    assert err.reason is Reason.KONG_NEEDS_THREE and "four E" in str(err)


def test_self_drawn_win_rejected_when_hand_is_not_complete() -> None:
    """R5.2a: declaring a win with an incomplete hand is refused."""
    err = refused(quiet_start(), 0, "win")
    assert err.reason is Reason.NOT_A_WIN and "not a winning hand" in str(err)


def test_chow_rejected_for_a_seat_that_is_not_next() -> None:
    """R6.1: only the seat after the discarder may chow; seat 2 and seat 3 may not."""
    game = contest()
    err = refused(game, 2, "chow 4d 6d")
    assert err.reason is Reason.CHOW_NOT_NEXT
    assert "only seat 1" in str(err) and "R6.1" in str(err)
    assert refused(game, 3, "chow 6d 7d").reason is Reason.CHOW_NOT_NEXT


def test_chow_rejected_without_the_tiles() -> None:
    """R6.1: the next seat cannot chow with tiles it does not hold."""
    err = refused(contest(), 1, "chow 3d 4d")
    assert err.reason is Reason.TILE_NOT_HELD and "does not hold 3d" in str(err)


def test_pung_rejected_with_one_tile() -> None:
    """R6.1: a pung needs two of the tile in hand; seat 3 holds one 5d (and no pair is ever claimed)."""
    game = contest()
    err = refused(game, 3, "pung")
    assert err.reason is Reason.PUNG_NEEDS_TWO
    assert "needs two 5d" in str(err) and "holds 1" in str(err)
    assert refused(game, 1, "pung").reason is Reason.PUNG_NEEDS_TWO


def test_kong_rejected_on_a_discard_without_three() -> None:
    """R6.1: a kong on a discard needs three of the tile concealed; seat 2 holds two."""
    err = refused(contest(), 2, "kong")
    assert err.reason is Reason.KONG_NEEDS_THREE and "holds 2" in str(err)


def test_claim_rejected_on_ones_own_discard() -> None:
    """R6.1: only other players may claim a discard."""
    err = refused(contest(), 0, "pass")
    assert err.reason is Reason.NOT_OFFERED and "own tile" in str(err)


def test_discard_rejected_while_a_claim_window_is_open() -> None:
    """R6.3: while a window is open nobody discards; claim or pass."""
    err = refused(contest(), 1, "discard 6d")
    assert err.reason is Reason.NOT_YOUR_TURN and "claim window" in str(err)


def test_kong_rejected_from_an_exposed_pung_and_a_discard() -> None:
    """R6.1: seat 1 holds an exposed pung of 5d; seat 3 discards the fourth 5d (the dealer could chow it)."""
    game = stacked_game(["147b 147c 46d ESWNP", "55d 258b 258c 8d RGEW", INERT_C, INERT_D], "5d 2c 5d")
    game.apply(0, "discard 5d")
    game.apply(1, "pung")
    game.apply(1, "discard W")
    game.apply(2, "discard 2c")
    game.apply(3, "discard 5d")
    assert game.to_act() == [0]  # a window is open: the dealer may chow
    err = refused(game, 1, "kong")
    assert err.reason is Reason.KONG_FROM_EXPOSED_PUNG
    assert "exposed pung" in str(err) and "R6.1" in str(err)
    assert refused(game, 1, {"type": "kong", "tile": "5d"}).reason is Reason.KONG_FROM_EXPOSED_PUNG


def test_claims_rejected_after_the_window_closed() -> None:
    """R6.4: once seat 2's pung is acted on, the window is closed: a late chow, pung, kong or pass is refused."""
    game = contest()
    game.apply(1, "chow 6d 7d")
    game.apply(2, "pung")
    assert game.to_act() == [2]  # the pung was acted on; seat 1's chow was not
    for seat, action in [(1, "chow 6d 7d"), (1, "pass"), (3, "pung"), (3, "kong")]:
        err = refused(game, seat, action)
        assert err.reason is Reason.WINDOW_CLOSED, (seat, action)
        assert "no claim window is open" in str(err)
    # the claimant itself may not take its claim back: it must discard (R6.1)
    assert refused(game, 2, "pass").reason is Reason.MUST_DISCARD


def test_actions_rejected_after_the_deal_is_over() -> None:
    """A claim after the deal has ended is refused as out of its window; only ``ready`` is accepted."""
    game = stacked_game([INERT_A, "123b 456b 789b 123c 5c", INERT_C, INERT_D], "5c")
    game.apply(0, "discard 5c")
    game.apply(1, "win")
    assert game.phase is GamePhase.BETWEEN
    err = refused(game, 2, "pass")
    assert err.reason is Reason.WINDOW_CLOSED and "ready" in str(err)
    game.apply(2, "ready")
    assert refused(game, 2, "ready").reason is Reason.ALREADY_READY


def test_ready_rejected_during_a_deal() -> None:
    """``ready`` is only for between deals."""
    assert refused(quiet_start(), 0, "ready").reason is Reason.NOT_ALLOWED


def test_refusal_leaves_the_seat_free_to_act() -> None:
    """After a refusal the same seat can still make a legal move, and the result is as if nothing was tried."""
    game = contest()
    twin = contest()
    refused(game, 2, "kong")
    refused(game, 3, "pung")
    for g in (game, twin):
        g.apply(2, "pung")
    assert game.digest() == twin.digest()
    assert view(game, 2) == view(twin, 2)


# ------------------------------------------------------------------- malformed input
@pytest.mark.parametrize(
    ("action", "reason", "says"),
    [
        ({"type": "fly"}, Reason.UNKNOWN_TYPE, "unknown action type 'fly'"),
        ("fly 5b", Reason.UNKNOWN_TYPE, "unknown action type 'fly'"),
        ({"type": "discard", "tile": "0b"}, Reason.BAD_TILE, "'0b'"),
        ({"type": "discard", "tile": "10b"}, Reason.BAD_TILE, "'10b'"),
        ("discard Z", Reason.BAD_TILE, "'Z'"),
        ({"type": "discard", "tile": 5}, Reason.BAD_TILE, "not 5"),
        ({"type": "chow", "tiles": ["4b", "xx"]}, Reason.BAD_TILE, "'xx'"),
        (42, Reason.MALFORMED, "not 42"),
        (None, Reason.MALFORMED, "not None"),
        (["discard", "5b"], Reason.MALFORMED, "['discard', '5b']"),
        ("", Reason.MALFORMED, "empty"),
        ({"type": "discard"}, Reason.MALFORMED, "names its tile"),
        ({"type": "discard", "tile": "5b", "extra": 1}, Reason.MALFORMED, "'extra'"),
        ({"type": "chow", "tiles": ["4b"]}, Reason.MALFORMED, "two tiles"),
    ],
)
def test_malformed_action_is_invalid_and_changes_nothing(action: object, reason: Reason, says: str) -> None:
    """Unknown types, bad tile codes and non-objects are refused as malformed, naming what is wrong."""
    err = refused(quiet_start(), 0, action, InvalidActionError)
    assert err.reason is reason
    assert says in str(err)


@pytest.mark.parametrize("seat", [4, -1, True, "0", 1.5, None])
def test_bad_seat_is_invalid_and_changes_nothing(seat: object) -> None:
    """A seat other than 0–3 is refused before the action is even read."""
    err = refused(quiet_start(), seat, "discard 5b", InvalidActionError)
    assert err.reason is Reason.BAD_SEAT
    assert repr(seat) in str(err) and "0, 1, 2 or 3" in str(err)


def test_invalid_and_illegal_are_distinct_errors() -> None:
    """Both are ``RulesError`` (a ``ValueError``), but neither is the other."""
    assert issubclass(InvalidActionError, RulesError) and issubclass(IllegalActionError, RulesError)
    assert issubclass(RulesError, ValueError)
    assert not issubclass(InvalidActionError, IllegalActionError)
    assert not issubclass(IllegalActionError, InvalidActionError)
