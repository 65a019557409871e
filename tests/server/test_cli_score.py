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
