"""``sparrow play --bots … --log FILE`` and ``sparrow review``: a logged game reviewed from the command line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from server.cli import main


def _play(tmp_path: Path, bots: str, deals: int, seed: str = "5") -> Path:
    path = tmp_path / "game.jsonl"
    assert main(["play", "--bots", bots, "--seed", seed, "--deals", str(deals), "--quiet", "--log", str(path)]) == 0
    return path


def test_a_played_log_is_reviewed_as_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The strong seat agrees with itself at every decision; the greedy seat does not; each hand of the
    log is a hand of the review."""
    path = _play(tmp_path, "strong,greedy,normal,strong", 2)
    capsys.readouterr()
    assert main(["review", str(path), "--seat", "0", "--json"]) == 0
    strong = json.loads(capsys.readouterr().out)
    assert strong["seat"] == 0 and strong["player"] == "strong"
    assert len(strong["hands"]) == 2 and all(h["finished"] for h in strong["hands"])
    assert strong["agreement"] == 1.0 and strong["decision_count"] > 10
    first = strong["hands"][0]["decisions"][0]
    assert first["strong"] == first["done"] and first["options"][0]["action"] == first["strong"]
    assert {"shanten", "improving", "unseen", "aims", "danger", "reason"} <= set(first["options"][0])
    assert main(["review", str(path), "--seat", "1", "--json"]) == 0
    greedy = json.loads(capsys.readouterr().out)
    assert greedy["agreement"] < 1.0 and greedy["player"] == "greedy"


def test_review_prints_each_hand_and_the_game_readably(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _play(tmp_path, "greedy,strong,strong,strong", 2, seed="11")
    capsys.readouterr()
    assert main(["review", str(path), "--seat", "0"]) == 0
    out = capsys.readouterr().out
    assert "seat 0 (greedy) beside the strong bot" in out
    assert "Hand 1:" in out and "Hand 2:" in out
    assert "Game: agreed with strong" in out
    assert "from ready" in out  # a disagreement explained with its candidates


def test_play_game_logs_a_whole_game(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "game.jsonl"
    assert main(["play", "--bots", "greedy,greedy,greedy,greedy", "--game", "--quiet", "--log", str(path)]) == 0
    last = json.loads(path.read_text().splitlines()[-1])
    assert last["type"] == "log_end" and last["over"] is True
    assert main(["review", str(path), "--json"]) == 0
    assert len(json.loads(capsys.readouterr().out)["hands"]) >= 16


def test_review_reads_a_stored_game_by_its_id(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _play(tmp_path, "normal,strong,normal,strong", 1)
    url = f"sqlite+aiosqlite:///{tmp_path / 'club.db'}"
    assert main(["import", str(path), "--db", url]) == 0
    game_id = capsys.readouterr().out.split(" as game ")[1].split(":")[0]
    assert main(["review", game_id, "--db", url, "--seat", "3", "--json"]) == 0
    stored = json.loads(capsys.readouterr().out)
    assert main(["review", str(path), "--seat", "3", "--json"]) == 0
    from_file = json.loads(capsys.readouterr().out)
    assert stored["game"] == game_id and stored["hands"] == from_file["hands"] and stored["agreement"] == 1.0


def test_review_refuses_what_it_cannot_read(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["review", str(tmp_path / "missing.jsonl")]) == 1
    assert "there is no file" in capsys.readouterr().err
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"type": "game", "format": "other"}\n')
    assert main(["review", str(bad)]) == 1
    assert "line 1" in capsys.readouterr().err
    url = f"sqlite+aiosqlite:///{tmp_path / 'club.db'}"
    assert main(["review", "NoSuchGame", "--db", url]) == 1
    assert "neither a log file nor a game" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["review", str(bad), "--seat", "4"])
    assert "a seat is 0, 1, 2 or 3" in capsys.readouterr().err


def test_play_refuses_unknown_bots_and_a_seed_a_log_cannot_hold(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit):
        main(["play", "--bots", "strong,strong,strong,nobody", "--log", str(tmp_path / "x.jsonl")])
    assert "no bot called 'nobody'" in capsys.readouterr().err
    assert main(["play", "--seed", "abc", "--log", str(tmp_path / "x.jsonl")]) == 2
    assert "whole number" in capsys.readouterr().err
    assert not (tmp_path / "x.jsonl").exists()
