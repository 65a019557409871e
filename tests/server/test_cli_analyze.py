"""``sparrow analyze``: waits/shanten of hands and the one-suit census, as a user runs them."""

from __future__ import annotations

import io
import json

import pytest

from game.suit_census import census, hands_count
from server.cli import main

R15_4 = {"0": 53530, "1": 14067, "2": 14493, "3": 6739, "4": 2948, "5": 1335, "6": 392, "7": 79, "8": 16, "9": 1}


def _json_lines(text: str) -> list[dict[str, object]]:
    return [json.loads(line) for line in text.splitlines()]


def test_suit_census_json_reproduces_r15_4(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["analyze", "suit", "--tiles", "13", "--json"]) == 0
    out = capsys.readouterr().out
    assert json.loads(out) == {"tiles": 13, "hands": 93600, "by_waits": R15_4}
    assert len(out.strip().splitlines()) == 1


def test_suit_census_table_is_readable(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["analyze", "suit", "--tiles", "13"]) == 0
    out = capsys.readouterr().out
    assert "93,600" in out and "53,530" in out and "14,067" in out


def test_suit_census_of_complete_sizes(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["analyze", "suit", "--tiles", "2", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"tiles": 2, "hands": 45, "complete": 9}


@pytest.mark.parametrize("tiles", range(18))
def test_suit_census_answers_every_size_from_zero_to_seventeen(tiles: int, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["analyze", "suit", "--tiles", str(tiles), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result == census(tiles) and result["hands"] == hands_count(tiles)
    counted = sum(result["by_waits"].values()) if tiles % 3 == 1 else result["complete"]
    assert 0 < counted <= result["hands"]


def test_suit_census_tables_for_sixteen_tile_variants(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["analyze", "suit", "--tiles", "16"]) == 0
    out = capsys.readouterr().out
    assert f"One-suit hands of 16 tiles: {hands_count(16):,}" in out and "ranks that complete it" in out
    assert main(["analyze", "suit", "--tiles", "17"]) == 0
    assert "sets + one pair" in capsys.readouterr().out
    assert main(["analyze", "suit", "--tiles", "0"]) == 0
    assert "One-suit hands of 0 tiles: 1" in capsys.readouterr().out


@pytest.mark.parametrize("tiles", ["-1", "18", "x"])
def test_suit_census_refuses_sizes_outside_zero_to_seventeen(tiles: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["analyze", "suit", "--tiles", tiles])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert "--tiles" in err and ("0 to 17" in err or "whole number" in err)


def test_waits_json_of_nine_gates(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["analyze", "waits", "1112345678999d", "--json"]) == 0
    assert _json_lines(capsys.readouterr().out) == [
        {"hand": "1112345678999d", "shanten": 0, "waits": [f"{r}d" for r in range(1, 10)]}
    ]


def test_waits_readable_lines_one_per_hand(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["analyze", "waits", "19b 19c 19d ESWNRGP", "1111b 234c 567c 888d", "234b 55d WWW"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 3
    assert lines[0].startswith("19b 19c 19d ESWNRGP:") and "waits on 13" in lines[0] and "1b 9b" in lines[0]
    assert "shanten 1" in lines[1] and "no waits" in lines[1]
    assert "complete" in lines[2]


def test_waits_of_fourteen_tiles_say_whether_complete(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["analyze", "waits", "--json", "123b 456b 789b 123c 44c", "123b 456b 789b 123c 45c"]) == 0
    assert _json_lines(capsys.readouterr().out) == [
        {"hand": "123b 456b 789b 123c 44c", "shanten": -1, "waits": [], "complete": True},
        {"hand": "123b 456b 789b 123c 45c", "shanten": 0, "waits": [], "complete": False},
    ]


def test_waits_reads_stdin_skipping_blank_lines(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("1112345678999b\n\n   19b 19c 19d ESWNRGG  \n"))
    assert main(["analyze", "waits", "-", "--json"]) == 0
    assert _json_lines(capsys.readouterr().out) == [
        {"hand": "1112345678999b", "shanten": 0, "waits": [f"{r}b" for r in range(1, 10)]},
        {"hand": "19b 19c 19d ESWNRGG", "shanten": 0, "waits": ["P"]},
    ]


def test_bad_hand_in_stdin_is_reported_and_the_rest_analysed(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("12x\n1b\n"))
    assert main(["analyze", "waits", "-", "--json"]) == 2
    captured = capsys.readouterr()
    assert _json_lines(captured.out) == [
        {"hand": "12x", "error": "bad character 'x' at position 3 in '12x'"},
        {"hand": "1b", "shanten": 0, "waits": ["1b"]},
    ]
    assert "bad character 'x' at position 3" in captured.err


@pytest.mark.parametrize(
    ("hand", "message"),
    [
        ("12x", "bad character 'x'"),
        ("123b 1f 55d", "bonus tile 1f"),
        ("11111b", "5 copies of 1b"),
        ("123b 456b 789b 123c", "12 tiles"),
        ("123b 456b 789b 123c 456c", "15 tiles"),
    ],
)
def test_bad_hand_is_refused_with_a_reason(hand: str, message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["analyze", "waits", hand, "1b"]) == 2
    captured = capsys.readouterr()
    assert message in captured.err
    assert captured.out.splitlines() == ["1b: ready (shanten 0), waits on 1: 1b"]
