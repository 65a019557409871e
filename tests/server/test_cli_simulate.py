"""``sparrow simulate`` and ``sparrow play``: self-play from the command line."""

from __future__ import annotations

import json

import pytest

from server.cli import main


def _simulate(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, object]:
    assert main(["simulate", *args, "--json"]) == 0
    out: dict[str, object] = json.loads(capsys.readouterr().out)
    return out


def test_simulate_reports_every_deal_and_a_repeatable_digest(capsys: pytest.CaptureFixture[str]) -> None:
    first = _simulate(capsys, "--hands", "40", "--seed", "7")
    wins = first["wins"]
    assert isinstance(wins, dict)
    assert first["hands"] == 40
    assert sum(wins.values()) + first["wash_outs"] == 40
    assert first["hands_per_second"] > 0 and first["actions"] > 40
    again = _simulate(capsys, "--hands", "40", "--seed", "7")
    assert again["digest"] == first["digest"] and again["wins"] == first["wins"]
    other = _simulate(capsys, "--hands", "40", "--seed", "8")
    assert other["digest"] != first["digest"]


def test_policy_wins_far_more_often_than_random_play_would(capsys: pytest.CaptureFixture[str]) -> None:
    report = _simulate(capsys, "--hands", "60", "--seed", "1")
    wins = report["wins"]
    assert isinstance(wins, dict)
    # Random discards almost never complete a hand (about 1 deal in 10 in our property runs);
    # a policy that reduces shanten wins most deals.
    assert sum(wins.values()) >= 40


def test_simulate_text_report(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "--hands", "5", "--seed", "x"]) == 0
    out = capsys.readouterr().out
    for label in ("hands", "wins", "self-drawn", "on a discard", "robbing the kong", "wash-outs", "hands/s", "digest"):
        assert label in out


def test_simulate_refuses_a_bad_count(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["simulate", "--hands", "0"])
    assert info.value.code == 2
    assert "must be at least 1" in capsys.readouterr().err


def test_play_narrates_one_deal_face_up(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", "--seed", "3"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("deal 0: prevailing wind E, seat 0 deals")
    assert "discards" in out
    assert ("wins with" in out) or ("wash-out" in out)


def test_simulate_plays_by_the_ruleset_named(capsys: pytest.CaptureFixture[str]) -> None:
    classical = _simulate(capsys, "--hands", "4", "--seed", "3")
    dmjl = _simulate(capsys, "--hands", "4", "--seed", "3", "--ruleset", "dmjl")
    assert dmjl["hands"] == 4 and dmjl["digest"] != classical["digest"]  # a 16-tile dead wall (R16.8), …
    assert dmjl["digest"] == _simulate(capsys, "--hands", "4", "--seed", "3", "--ruleset", "dmjl")["digest"]
