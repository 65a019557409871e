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
    report = _arena(capsys, "--bots", "normal,random,normal,random", "--games", "5", "--seed", "7", "--jobs", "1")
    assert set(report) == {"games", "walls", "seatings", "duplicate", "seed", "bots", "games_per_second"}
    assert report["games"] == 6 and report["walls"] == 3  # two seatings a wall: 5 games round up to 3 walls
    assert report["seatings"] == [["normal", "random", "normal", "random"], ["random", "normal", "random", "normal"]]
    assert report["duplicate"] is True and report["seed"] == "7"
    bots = report["bots"]
    assert isinstance(bots, list) and [b["bot"] for b in bots] == ["normal", "random"]
    for b in bots:
        assert set(b) == {
            "bot",
            "seats",
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
        assert b["seats"] == 12  # two seats in each of the 6 games
    assert bots[0]["mean_score"] == -bots[1]["mean_score"]  # two bots, zero-sum settlement (R11)
    for b in bots:
        assert (b["mean_win_value"] is None) is (b["win_rate"] == 0)
    assert isinstance(report["games_per_second"], float) and report["games_per_second"] > 0


@pytest.mark.parametrize(
    ("bots", "seatings"),
    [("greedy,normal,greedy,normal", 2), ("greedy,normal,random,normal", 4), ("greedy,greedy,greedy,greedy", 1)],
)
def test_walls_are_played_once_by_each_distinct_seating(
    capsys: pytest.CaptureFixture[str], bots: str, seatings: int
) -> None:
    report = _arena(capsys, "--bots", bots, "--walls", "3", "--jobs", "1")
    assert report["walls"] == 3 and report["games"] == 3 * seatings
    placed = report["seatings"]
    assert isinstance(placed, list) and len(placed) == seatings and placed[0] == bots.split(",")
    assert len({tuple(names) for names in placed}) == seatings


def test_hands_still_plays_the_walls_it_named_and_says_it_is_deprecated(capsys: pytest.CaptureFixture[str]) -> None:
    """``--hands N`` played N / 4 walls in four rotations; it plays the same walls, each game once."""
    assert (
        main(
            ["arena", "--bots", "normal,greedy,normal,greedy", "--hands", "10", "--seed", "h", "--jobs", "1", "--json"]
        )
        == 0
    )
    printed = capsys.readouterr()
    assert "--hands is deprecated" in printed.err and "--walls 3 or --games 6" in printed.err
    old = json.loads(printed.out)
    assert old["walls"] == 3 and old["games"] == 6
    new = _arena(capsys, "--bots", "normal,greedy,normal,greedy", "--walls", "3", "--seed", "h", "--jobs", "1")
    assert _figures(old) == _figures(new)


def test_the_same_seed_gives_the_same_figures_with_one_or_two_processes(capsys: pytest.CaptureFixture[str]) -> None:
    args = ("--bots", "normal,greedy,greedy,normal", "--walls", "6", "--seed", "jobs")
    one = _arena(capsys, *args, "--jobs", "1")
    two = _arena(capsys, *args, "--jobs", "2")
    assert _figures(one) == _figures(two)
    other = _arena(capsys, "--bots", "normal,greedy,greedy,normal", "--walls", "6", "--seed", "other", "--jobs", "2")
    assert _figures(other) != _figures(one)


def test_text_report_says_the_games_were_played_in_duplicate(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["arena", "--bots", "greedy,normal,greedy,normal", "--games", "3", "--jobs", "1"]) == 0
    out = capsys.readouterr().out
    assert "duplicate" in out and "luck of the deal cancels out" in out
    assert (
        "seatings   2 distinct among the 4 rotations: greedy,normal,greedy,normal | normal,greedy,normal,greedy" in out
    )
    assert "games      4: 2 walls x 2 seatings; 3 rounded up to whole walls" in out
    assert "takes each\nwall as one sample" in out and "so 2 samples" in out
    for label in ("seats", "win %", "win value", "deal-in %", "self-draw %", "95% CI", "ms/move", "games/s"):
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
        main(["arena", "--bots", bots, "--walls", "1"])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert "--bots" in err and message in err


@pytest.mark.parametrize(
    ("size", "message"),
    [
        ((), "one of the arguments --walls --games --hands is required"),
        (("--walls", "2", "--games", "4"), "argument --games: not allowed with argument --walls"),
        (("--walls", "0"), "argument --walls: must be at least 1, not 0"),
    ],
)
def test_arena_needs_one_size(capsys: pytest.CaptureFixture[str], size: tuple[str, ...], message: str) -> None:
    with pytest.raises(SystemExit) as info:
        main(["arena", "--bots", "normal,greedy,normal,greedy", *size])
    assert info.value.code == 2
    assert message in capsys.readouterr().err
