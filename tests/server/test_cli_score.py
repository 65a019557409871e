"""``sparrow score`` / ``sparrow settle``: readable output and clear refusals of bad documents."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from server.cli import main

HAND = {
    "concealed": "123b 456c 789d 55d WWW",
    "melds": [],
    "bonus": "",
    "winning_tile": "W",
    "win_by": "wall",
    "seat_wind": "S",
    "round_wind": "E",
    "dealer": False,
}


def _run(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, command: str, doc: object, *flags: str
) -> tuple[int, str, str]:
    path = tmp_path / "doc.json"
    path.write_text(json.dumps(doc) if not isinstance(doc, str) else doc, encoding="utf-8")
    status = main([command, str(path), *flags])
    out = capsys.readouterr()
    return status, out.out, out.err


def test_score_prints_a_readable_table(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    status, out, _ = _run(capsys, tmp_path, "score", HAND)
    assert status == 0
    assert "concealed pung of West winds" in out and "R8.2" in out
    assert "value: 30 points, doubled once = 60" in out


def test_score_reads_standard_input(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(json.dumps(HAND)))
    assert main(["score", "-", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["value"] == 60


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"concealed": "123b 456c 789d 55d WW 9c"}, "not a winning hand"),
        ({"winning_tile": "E"}, "winning tile E must be among the concealed tiles"),
        ({"win_by": "magic"}, "win_by must be"),
        ({"ruleset": "riichi"}, "unknown ruleset 'riichi'"),
        ({"overrides": {"limit": 750}}, "option 'limit' takes one of 500, 1000, 2000"),
        ({"melds": [{"kind": "pung", "tiles": "RRG", "exposed": True}]}, "is not a pung"),
        ({"melds": [{"kind": "chow", "tiles": "123b", "exposed": False}]}, "only a kong can be declared concealed"),
        ({"concealed": "123b 456c 789d 55d WWW 5x"}, "bad character 'x'"),
        ({"concealed": "1111b 456c 789d 55d W", "melds": [{"kind": "pung", "tiles": "111b"}]}, "holds 7 of 1b"),
        ({"seat_wind": "SS"}, "seat_wind must be one tile"),
    ],
)
def test_score_refuses_a_bad_hand_saying_why(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, change: dict[str, object], message: str
) -> None:
    status, out, err = _run(capsys, tmp_path, "score", {**HAND, **change}, "--json")
    assert status == 2 and out == ""
    assert message in err


CHOWS = {**HAND, "concealed": "123b 456c 789d 234c 55d", "winning_tile": "5d"}
TWO_KONGS = {
    **HAND,
    "concealed": "123b 456c 55d",
    "melds": [{"kind": "kong", "tiles": "9999c", "exposed": False}, {"kind": "kong", "tiles": "RRRR"}],
    "winning_tile": "5d",
}


@pytest.mark.parametrize(
    ("doc", "message"),
    [
        # R10.5: Twofold Fortune needs two kongs in a row; four chows and a pair declare none.
        ({**CHOWS, "win_by": "loose", "loose_kongs": 2}, "loose_kongs is 2 but the hand declares 0 kongs"),
        ({**TWO_KONGS, "win_by": "loose", "loose_kongs": 3}, "loose_kongs is 3 but the hand declares 2 kongs"),
        ({**TWO_KONGS, "win_by": "wall", "loose_kongs": 2}, "win_by must be loose"),
        ({**CHOWS, "win_by": "loose", "loose_kongs": -1}, "cannot be -1"),
        # R3.2, R4.3: a loose tile replaces a kong or a bonus tile, nothing else.
        ({**CHOWS, "win_by": "loose"}, "needs a kong or a bonus tile"),
        # R6.5: only an added kong is robbed, so its other three tiles lie in the robbed pung.
        ({**HAND, "win_by": "robbed_kong"}, "robbing a kong of W"),
        ({**CHOWS, "win_by": "robbed_kong"}, "cannot hold 1 more"),
        ({**CHOWS, "concealed": "123b 456c 789d 555d 22c", "win_by": "robbed_kong"}, "cannot hold 2 more"),
        # R10.1, R10.2: a first-turn win comes before any claim or kong.
        ({**TWO_KONGS, "first_turn": True, "seat_wind": "E", "dealer": True}, "declares no sets"),
        ({**CHOWS, "winning_tile": "2c", "win_by": "robbed_kong", "first_turn": True}, "none can be robbed"),
        # R9, R6.8: the last tile is drawn from the live wall, or is the last discard.
        ({**TWO_KONGS, "win_by": "loose", "last_tile": True}, "never a loose win"),
        ({**CHOWS, "winning_tile": "2c", "win_by": "robbed_kong", "last_tile": True}, "never a robbed_kong win"),
    ],
)
def test_score_refuses_a_win_no_deal_can_produce(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, doc: dict[str, object], message: str
) -> None:
    status, out, err = _run(capsys, tmp_path, "score", doc, "--json")
    assert status == 2 and out == ""
    assert message in err


def test_score_accepts_the_loose_and_robbed_wins_a_deal_can_produce(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    twofold = _run(capsys, tmp_path, "score", {**TWO_KONGS, "win_by": "loose", "loose_kongs": 2}, "--json")
    assert twofold[0] == 0 and json.loads(twofold[1])["limit_hand"] == "Twofold Fortune"
    one_kong = _run(capsys, tmp_path, "score", {**TWO_KONGS, "win_by": "loose", "loose_kongs": 1}, "--json")
    assert one_kong[0] == 0 and json.loads(one_kong[1])["limit_hand"] is None
    after_a_flower = _run(capsys, tmp_path, "score", {**CHOWS, "win_by": "loose", "bonus": "2f"}, "--json")
    assert after_a_flower[0] == 0
    assert {"rule": "R8.5", "text": "out on a loose tile", "points": 2} in json.loads(after_a_flower[1])["items"]
    robbed = _run(capsys, tmp_path, "score", {**CHOWS, "winning_tile": "2c", "win_by": "robbed_kong"}, "--json")
    assert robbed[0] == 0
    assert {"rule": "R8.5", "text": "robbing the kong", "points": 2} in json.loads(robbed[1])["items"]


def test_score_refuses_what_is_not_json(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    status, _, err = _run(capsys, tmp_path, "score", "{not json", "--json")
    assert status == 2 and "is not JSON" in err
    assert main(["score", str(tmp_path / "missing.json")]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_settle_prints_payments(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    doc = {"winner": 0, "dealer": 0, "discarder": None, "values": [30, 0, 0, 0], "overrides": {"losers_settle": False}}
    status, out, _ = _run(capsys, tmp_path, "settle", doc)
    assert status == 0
    assert "seat 1 pays seat 0    60" in out and "seat 0: +180" in out


@pytest.mark.parametrize(
    ("doc", "message"),
    [
        ({"winner": 1, "dealer": 0, "values": [0, 30, 0]}, "four whole numbers"),
        ({"winner": 1, "dealer": 0, "discarder": 1, "values": [0, 30, 0, 0]}, "cannot be the discarder"),
        ({"winner": 5, "dealer": 0, "values": [0, 30, 0, 0]}, "seats are 0–3"),
        ({"winner": 1, "dealer": None, "values": [0, 30, 0, 0]}, "dealer must be a seat"),
        ({"winner": "1", "dealer": 0, "values": [0, 30, 0, 0]}, "winner must be a seat"),
    ],
)
def test_settle_refuses_bad_documents(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, doc: dict[str, object], message: str
) -> None:
    status, _, err = _run(capsys, tmp_path, "settle", doc, "--json")
    assert status == 2 and message in err


def test_score_with_ruleset_dmjl_scores_the_books_items(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    # R16.1, R16.3, R16.5, R16.6: a claimed kong, then the 5 of dots as the loose tile
    doc = {
        "concealed": "234b 678c 55d 567d",
        "melds": [{"kind": "kong", "tiles": "WWWW", "claimed": True}],
        "winning_tile": "5d",
        "win_by": "loose",
        "seat_wind": "S",
        "round_wind": "E",
    }
    status, out, _ = _run(capsys, tmp_path, "score", doc, "--ruleset", "dmjl", "--json")
    assert status == 0
    score = json.loads(out)
    assert score["limit_hand"] == "Gathering the Plum Blossom from the Roof"
    assert {"rule": "R16.3", "text": "won on a loose tile", "doubles": 1} in score["items"]
    assert {"rule": "R9", "text": "fully concealed hand, self-drawn", "doubles": 1} in score["items"]
    status, out, _ = _run(capsys, tmp_path, "score", doc, "--json")  # classical: no limit, not concealed
    assert status == 0 and json.loads(out)["limit_hand"] is None
    status, _, err = _run(capsys, tmp_path, "score", {**doc, "ruleset": "classical"}, "--ruleset", "dmjl")
    assert status == 2 and "is not --ruleset 'dmjl'" in err
    bad = {**doc, "melds": [{"kind": "pung", "tiles": "WWW", "claimed": True}]}
    status, _, err = _run(capsys, tmp_path, "score", bad, "--ruleset", "dmjl")
    assert status == 2 and "only an exposed kong is claimed" in err


def test_score_counts_original_call_where_the_ruleset_has_it(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    doc = {**HAND, "original_call": True, "overrides": {"original_call": True}}
    status, out, _ = _run(capsys, tmp_path, "score", doc, "--json")
    assert status == 0
    score = json.loads(out)
    assert {"rule": "R5.4", "text": "Original Call", "doubles": 1} in score["items"]
    assert score["value"] == 120  # 30 points, the call and the concealed self-drawn hand: 2 doubles


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"original_call": True}, "this ruleset has no Original Call"),
        (
            {
                "original_call": True,
                "overrides": {"original_call": True},
                "concealed": "55d WWW",
                "melds": [
                    {"kind": "chow", "tiles": "123b"},
                    {"kind": "pung", "tiles": "444c"},
                    {"kind": "chow", "tiles": "789d"},
                ],
            },
            "at most one declared set was claimed before it, not 3",
        ),
    ],
)
def test_score_refuses_an_original_call_no_deal_can_produce(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, change: dict[str, object], message: str
) -> None:
    status, out, err = _run(capsys, tmp_path, "score", {**HAND, **change}, "--json")
    assert status == 2 and out == "" and message in err


def test_settle_the_dangerous_discarder_pays_for_all(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    doc = {
        "winner": 0,
        "dealer": 0,
        "discarder": 1,
        "dangerous": 1,
        "values": [30, 0, 0, 0],
        "overrides": {"dangerous_game": True, "losers_settle": False},
    }
    status, out, _ = _run(capsys, tmp_path, "settle", doc, "--json")
    assert status == 0
    result = json.loads(out)
    assert result["changes"] == [180, -180, 0, 0]  # a dealer's win: 2 + 2 + 2 times 30, from seat 1 alone (R11.6)
    assert [p["rule"] for p in result["payments"]] == ["R11.6"]
    status, _, err = _run(capsys, tmp_path, "settle", {**doc, "overrides": {}}, "--json")
    assert status == 2 and "needs the option dangerous_game" in err


@pytest.mark.parametrize(
    ("change", "message"),
    [
        # a loser keeps 13 tiles (R4.1), a kong counting as three
        ({"concealed": "1234567b 123c 55d WW"}, "at most 13 tiles, a kong counting as three (R4.1), not 14"),
        ({"concealed": "123b 4567b 11d WW", "melds": [{"kind": "kong", "tiles": "EEEE"}]}, "not 14"),
        ({"concealed": "RRR E", "melds": [{"kind": "pung", "tiles": "RRR"}]}, "holds 6 of R; there are only four"),
    ],
)
def test_score_refuses_a_losers_hand_no_deal_can_produce(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, change: dict[str, object], message: str
) -> None:
    doc = {"loser": True, "seat_wind": "S", "round_wind": "E", "melds": [], **change}
    status, out, err = _run(capsys, tmp_path, "score", doc, "--json", "--ruleset", "dmjl")
    assert status == 2 and out == ""
    assert message in err


def test_score_takes_a_losers_thirteen_tiles_with_a_kong(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    kong = [{"kind": "kong", "tiles": "EEEE"}]
    doc = {"loser": True, "seat_wind": "S", "round_wind": "E", "concealed": "123b 4567b 11d W", "melds": kong}
    status, out, _ = _run(capsys, tmp_path, "score", doc, "--json")
    assert status == 0 and json.loads(out)["points"] == 16  # exposed kong of East (R8.2)


@pytest.mark.parametrize(
    ("command", "doc", "message"),
    [
        ("score", {**HAND, "orginal_call": True}, "unknown field 'orginal_call' — did you mean 'original_call'?"),
        ("score", {**HAND, "colour": "red"}, "unknown field 'colour'; the fields are concealed, melds"),
        (
            "score",
            {**HAND, "concealed": "456c 789d 55d WWW", "melds": [{"kind": "chow", "tiles": "123b", "exposd": True}]},
            "melds[0]: unknown field 'exposd' — did you mean 'exposed'?",
        ),
        ("score", {**HAND, "overrides": {"limt": 1000}}, "unknown option 'limt' — did you mean 'limit'?"),
        (
            "score",
            {"loser": True, "concealed": "123b 456c 789d 55d", "winning_tile": "5d", "seat_wind": "S"},
            "field 'winning_tile' describes a win; a loser's hand (R11.2) has none",
        ),
        ("score", {**HAND, "loser": "yes"}, "field 'loser' must be bool"),
        (
            "settle",
            {"winner": 1, "dealer": 0, "discarer": 2, "values": [0, 30, 0, 0]},
            "unknown field 'discarer' — did you mean 'discarder'?",
        ),
    ],
)
def test_a_document_with_an_unknown_field_is_refused_naming_the_near_miss(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, command: str, doc: dict[str, object], message: str
) -> None:
    status, out, err = _run(capsys, tmp_path, command, doc, "--json")
    assert status == 2 and out == "", f"{command} took {doc}: {out}"
    assert message in err


EAST_HAND = {**HAND, "seat_wind": "E", "dealer": True}
BMJA_SNAKE = {
    **HAND,
    "ruleset": "bmja",
    "concealed": "11 89d ESWN",
    "melds": [{"kind": "chow", "tiles": "234d"}, {"kind": "chow", "tiles": "567d"}],
    "winning_tile": "N",
}


@pytest.mark.parametrize(
    ("doc", "rule", "message"),
    [
        # a chow is three in a row in one suit: 8b 9b 1c are consecutive codes, not a run
        (
            {**HAND, "concealed": "123b 456c 55d WWW", "melds": [{"kind": "chow", "tiles": "8b9b1c"}]},
            "R7.1",
            "'8b9b1c' is not a chow",
        ),
        ({**HAND, "dealer": True, "first_turn": True}, "R2.1", "a dealer's seat_wind is E, not S"),
        ({**HAND, "seat_wind": "E"}, "R2.1", "seat_wind E is the dealer's"),
        ({**HAND, "first_turn": True, "last_tile": True}, "R6.8", "first_turn and last_tile exclude each other"),
        ({**EAST_HAND, "first_turn": True, "win_by": "discard"}, "R10.1", "before any discard"),
        (
            {**HAND, "first_turn": True, "original_call": True, "overrides": {"original_call": True}},
            "R5.4",
            "first_turn and original_call exclude each other",
        ),
        ({**HAND, "seat_wind": "R"}, "R2.5", "seat_wind must be a wind"),
        ({**HAND, "round_wind": "S", "overrides": {"game_length": "east"}}, "R2.2", "has no S round"),
        ({**HAND, "bonus": "1f 1f"}, "R1.1", "no bonus tile twice"),
        ({**HAND, "bonus": "5b"}, "R4.2", "not 5b"),
        ({**HAND, "bonus": "1f", "winning_tile": "1f"}, "R4.3", "is a bonus tile"),
        ({**HAND, "concealed": "123b 456c 789d 55d WW 1f"}, "R4.2", "1f is a bonus tile"),
        (
            {**HAND, "concealed": "123b 456c 55d WWW", "melds": [{"kind": "pung", "tiles": "1f1f1f"}]},
            "R4.2",
            "never part of a set",
        ),
        ({**HAND, "win_by": "discard", "loose_kongs": 1}, "R10.5", "win_by must be loose"),
        (
            {**HAND, "concealed": "1111b 456c 789d 55d W", "melds": [{"kind": "pung", "tiles": "111b"}]},
            "R1.1",
            "7 of 1b",
        ),
        # R17.2: no second chow is offered to a player who has declared one, so no snake shows two
        (BMJA_SNAKE, "R17.2", "cannot show 2"),
        (
            {**BMJA_SNAKE, "loser": True, "concealed": "11 89d ESW", "winning_tile": None, "win_by": None},
            "R17.2",
            "cannot show 2",
        ),
    ],
)
def test_score_refuses_an_impossible_hand_naming_the_rule(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, doc: dict[str, object], rule: str, message: str
) -> None:
    doc = {k: v for k, v in doc.items() if v is not None}
    status, out, err = _run(capsys, tmp_path, "score", doc, "--json")
    assert status == 2 and out == "", f"scored {doc}: {out}"
    assert rule in err and message in err, err


def test_score_takes_the_dealer_from_the_seat_wind(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    bare = {k: v for k, v in HAND.items() if k != "dealer"}
    heavenly = _run(capsys, tmp_path, "score", {**bare, "seat_wind": "E", "first_turn": True}, "--json")
    assert heavenly[0] == 0 and json.loads(heavenly[1])["limit_hand"] == "Heavenly Hand"  # R10.1
    earthly = _run(capsys, tmp_path, "score", {**bare, "first_turn": True, "win_by": "discard"}, "--json")
    assert earthly[0] == 0 and json.loads(earthly[1])["limit_hand"] == "Earthly Hand"  # R10.2
    # a non-dealer's first draw wins no limit hand in classical (R14's option makes it Earthly)
    drawn = _run(capsys, tmp_path, "score", {**bare, "first_turn": True}, "--json")
    assert drawn[0] == 0 and json.loads(drawn[1])["limit_hand"] is None


TRIPLE_KNITTING = {
    **HAND,
    "ruleset": "bmja",
    "concealed": "2b2c2d 4b4c4d 6b6c6d 8b8c",
    "melds": [{"kind": "knitted", "tiles": "7b7c7d"}],
    "winning_tile": "7d",
    "win_by": "discard",
}


def test_score_takes_the_knitted_set_the_winning_discard_exposed(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    status, out, _ = _run(capsys, tmp_path, "score", TRIPLE_KNITTING, "--json")
    assert status == 0
    exposed = json.loads(out)
    assert (exposed["limit_hand"], exposed["value"]) == ("Triple Knitting", 500)  # R17.4: half of bmja's 1,000
    concealed = {**TRIPLE_KNITTING, "concealed": "2b2c2d 4b4c4d 6b6c6d 7b7c7d 8b8c", "melds": []}
    assert json.loads(_run(capsys, tmp_path, "score", concealed, "--json")[1]) == exposed
    couple = {
        **TRIPLE_KNITTING,
        "concealed": "223577b 223577c",
        "melds": [{"kind": "knitted", "tiles": "9b9c"}],
        "winning_tile": "9c",
    }
    status, out, _ = _run(capsys, tmp_path, "score", couple, "--json")
    assert status == 0 and json.loads(out)["limit_hand"] == "Knitting"
    robbed = _run(capsys, tmp_path, "score", {**TRIPLE_KNITTING, "win_by": "robbed_kong"}, "--json")
    assert robbed[0] == 0 and json.loads(robbed[1])["limit_hand"] == "Triple Knitting"  # R6.5: as a discard


@pytest.mark.parametrize(
    ("change", "rule", "message"),
    [
        # Kajongg's TripleKnitting.5: a knitted triple shown before the win, and the couple the discard completed
        (
            {
                "concealed": "2b2c2d 6b6c6d 7b7c7d",
                "melds": [{"kind": "knitted", "tiles": "4b4c4d"}, {"kind": "knitted", "tiles": "8b8d"}],
                "winning_tile": "8d",
            },
            "R6.1",
            "and only one: not 2",
        ),
        ({"win_by": "wall"}, "R6.1", "win_by must be discard or robbed_kong, not 'wall'"),
        ({"concealed": "2b2c2d 4b4c4d 6b6c6d 7b7c", "winning_tile": "8c"}, "R6.1", "must hold the winning tile, 8c"),
        ({"ruleset": "classical"}, "R17.4", "belongs only to bmja's Knitting and Triple Knitting"),
        ({"melds": [{"kind": "knitted", "tiles": "7b7b7d"}]}, "R17.4", "'7b7b7d' is not a knitted set"),
        ({"melds": [{"kind": "knitted", "tiles": "7b8c9d"}]}, "R17.4", "is not a knitted set"),
        ({"melds": [{"kind": "knitted", "tiles": "7b7c7d", "exposed": False}]}, "R5.2", "never declared"),
        (
            {"loser": True, "winning_tile": None, "win_by": None, "concealed": "2b2c2d 4b4c4d 6b6c6d 8b"},
            "R6.1",
            "loser",
        ),
    ],
)
def test_score_refuses_a_knitted_set_no_deal_can_expose(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, change: dict[str, object], rule: str, message: str
) -> None:
    doc = {k: v for k, v in {**TRIPLE_KNITTING, **change}.items() if v is not None}
    status, out, err = _run(capsys, tmp_path, "score", doc, "--json")
    assert status == 2 and out == "", f"scored {doc}: {out}"
    assert rule in err and message in err, err
