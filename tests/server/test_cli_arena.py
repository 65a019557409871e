"""``sparrow arena``: bots against bots in duplicate, from the command line."""

from __future__ import annotations

import json

import pytest

from server.cli import main


def _arena(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, object]:
    assert main(["arena", *args, "--json"]) == 0
    out: dict[str, object] = json.loads(capsys.readouterr().out)
    return out


def _figures(report: dict[str, object]) -> list[dict[str, object]]:
    bots = report["bots"]
    assert isinstance(bots, list)
    return [{k: v for k, v in b.items() if k != "ms_per_move"} for b in bots]


def test_json_report_has_one_entry_per_bot_and_rounds_up_to_whole_walls(capsys: pytest.CaptureFixture[str]) -> None:
    report = _arena(capsys, "--bots", "normal,random,normal,random", "--hands", "6", "--seed", "7", "--jobs", "1")
    assert set(report) == {"hands", "duplicate", "seed", "bots", "hands_per_second"}
    assert report["hands"] == 8 and report["duplicate"] is True and report["seed"] == "7"
    bots = report["bots"]
    assert isinstance(bots, list) and [b["bot"] for b in bots] == ["normal", "random"]
    for b in bots:
        assert set(b) == {
            "bot",
            "mean_score",
            "ci95",
            "win_rate",
            "deal_in_rate",
            "self_draw_rate",
            "mean_win_value",
            "ms_per_move",
        }
        lo, hi = b["ci95"]
        assert lo <= b["mean_score"] <= hi
        assert b["ms_per_move"] >= 0
    assert bots[0]["mean_score"] == -bots[1]["mean_score"]  # two bots, zero-sum settlement (R11)
    for b in bots:
        assert (b["mean_win_value"] is None) is (b["win_rate"] == 0)
    assert isinstance(report["hands_per_second"], float) and report["hands_per_second"] > 0


def test_the_same_seed_gives_the_same_figures_with_one_or_two_processes(capsys: pytest.CaptureFixture[str]) -> None:
    args = ("--bots", "normal,greedy,greedy,normal", "--hands", "24", "--seed", "jobs")
    one = _arena(capsys, *args, "--jobs", "1")
    two = _arena(capsys, *args, "--jobs", "2")
    assert _figures(one) == _figures(two)
    other = _arena(capsys, "--bots", "normal,greedy,greedy,normal", "--hands", "24", "--seed", "other", "--jobs", "2")
    assert _figures(other) != _figures(one)


def test_text_report_says_the_hands_were_played_in_duplicate(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["arena", "--bots", "greedy,normal,greedy,normal", "--hands", "3", "--jobs", "1"]) == 0
    out = capsys.readouterr().out
    assert "duplicate" in out and "luck of the deal cancels out" in out
    assert "3 rounded up to a multiple of 4" in out
    for label in ("win %", "win value", "deal-in %", "self-draw %", "95% CI", "ms/move", "hands/s"):
        assert label in out
    assert out.count("greedy") >= 2 and "normal" in out


@pytest.mark.parametrize(
    ("bots", "message"),
    [
        ("normal,greedy,normal", "exactly four bots, one per seat; got 3"),
        ("normal,greedy,normal,greedy,random", "exactly four bots, one per seat; got 5"),
        ("normal,greedy,normal,wizard", "no bot called 'wizard'; the bots are"),
    ],
)
def test_arena_refuses_bad_bots(capsys: pytest.CaptureFixture[str], bots: str, message: str) -> None:
    with pytest.raises(SystemExit) as info:
        main(["arena", "--bots", bots, "--hands", "4"])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert "--bots" in err and message in err
