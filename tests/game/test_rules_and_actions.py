"""House-rule options (R13) and the action values that cross the API."""

from __future__ import annotations

import json

import pytest

from game import Action, ActionType, InvalidActionError, OptionError, Reason, Rules, Tile, Wall


def test_classical_defaults_match_r13() -> None:
    r = Rules()
    assert (r.flowers, r.game_length, r.dealer_keeps_on_washout, r.starting_score, r.dead_wall) == (
        True,
        "full",
        True,
        2000,
        14,
    )
    assert (r.sacred_discard, r.round_points, r.win_points, r.double_wind_pair, r.limit) == (True, False, 20, 4, 500)
    assert (r.bouquet_doubles, r.concealed_doubles, r.earthly_half_limit, r.auto_limit) == (1, 1, False, False)
    assert (r.losers_settle, r.pao) == (True, True)


def test_overrides_are_checked() -> None:
    assert Rules().with_overrides({"dead_wall": 16}).dead_wall == 16
    with pytest.raises(OptionError, match="unknown option 'dead_walls'"):
        Rules().with_overrides({"dead_walls": 16})
    with pytest.raises(OptionError, match="takes one of 14, 16"):
        Rules().with_overrides({"dead_wall": 15})
    with pytest.raises(OptionError, match="true or false"):
        Rules(flowers="yes")  # type: ignore[arg-type]
    assert Rules.from_json(Rules(limit=1000).to_json()) == Rules(limit=1000)


def test_seeded_wall_splits_live_and_dead() -> None:
    assert Wall.shuffled("a", Rules(dead_wall=16)).dead_count == 16
    assert Wall.shuffled("a", Rules(flowers=False)).live_count == 136 - 14
    one, two = Wall.shuffled("same", Rules()), Wall.shuffled("same", Rules())
    assert one.remaining() == two.remaining()
    assert one.remaining() != Wall.shuffled("other", Rules()).remaining()


@pytest.mark.parametrize(
    "text",
    ["discard 5b", "win", "pass", "pung", "kong", "kong W", "chow 4b 6b", "ready"],
)
def test_actions_read_back_from_text_and_json(text: str) -> None:
    action = Action.parse(text)
    assert str(action) == text
    assert Action.from_json(json.loads(json.dumps(action.to_json()))) == action
    assert eval(repr(action)) == action


def test_chow_tiles_are_order_free() -> None:
    assert Action.parse("chow 6b 4b") == Action(ActionType.CHOW, tiles=(Tile.B4, Tile.B6))


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        ("discard", Reason.MALFORMED),
        ({"type": "steal"}, Reason.UNKNOWN_TYPE),
        ({"type": "discard"}, Reason.MALFORMED),
        ({"type": "discard", "tile": "0b"}, Reason.BAD_TILE),
        ({"type": "discard", "tile": 5}, Reason.BAD_TILE),
        ({"type": "chow", "tiles": ["4b"]}, Reason.MALFORMED),
        ({"type": "pass", "tile": "5b"}, Reason.MALFORMED),
        ({"type": "pass", "extra": 1}, Reason.MALFORMED),
        ([1, 2], Reason.MALFORMED),
    ],
)
def test_malformed_actions_are_refused_with_a_reason(data: object, reason: Reason) -> None:
    with pytest.raises(InvalidActionError) as info:
        Action.from_json(data)
    assert info.value.reason is reason and info.value.code.startswith("action/")
