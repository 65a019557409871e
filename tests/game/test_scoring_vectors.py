"""Known-answer scoring and settlement vectors (R8–R11, R14, R15), run through the ``sparrow`` CLI.

The expected figures in ``tests/data/scoring_vectors.json`` and ``tests/data/settlement_vectors.json``
were worked out by hand from the rule book (docs/rules.md), not from the code; each vector's ``why``
shows the arithmetic and its ``rules`` name the rule-book sections it checks. A failing vector is named
in the test id.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from server.cli import main

DATA = Path(__file__).resolve().parent.parent / "data"
SCORING: list[dict[str, Any]] = json.loads((DATA / "scoring_vectors.json").read_text(encoding="utf-8"))
SETTLEMENT: list[dict[str, Any]] = json.loads((DATA / "settlement_vectors.json").read_text(encoding="utf-8"))


def _run(capsys: pytest.CaptureFixture[str], argv: list[str]) -> tuple[int, str, str]:
    """Run the CLI; an argparse-style ``SystemExit`` counts as its exit status."""
    try:
        status = main(argv)
    except SystemExit as exc:  # pragma: no cover - only on refusals
        code = exc.code
        status = code if isinstance(code, int) else (0 if code is None else 1)
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def _score(tmp_path: Path, capsys: pytest.CaptureFixture[str], hand: dict[str, Any]) -> tuple[int, str, str]:
    path = tmp_path / "hand.json"
    path.write_text(json.dumps(hand), encoding="utf-8")
    return _run(capsys, ["score", str(path), "--json"])


def test_vector_files_are_well_formed() -> None:
    names = [v["name"] for v in SCORING] + [v["name"] for v in SETTLEMENT]
    assert len(names) == len(set(names)), "vector names must be unique"
    winners = [v for v in SCORING if not v["hand"].get("loser")]
    losers = [v for v in SCORING if v["hand"].get("loser")]
    assert len(winners) >= 90 and len(losers) >= 10 and len(SETTLEMENT) >= 20
    for vector in SCORING + SETTLEMENT:
        assert vector["rules"] and vector["why"], vector["name"]
    for vector in SETTLEMENT:
        assert sum(vector["expect"]["changes"]) == 0, vector["name"]


@pytest.mark.parametrize("vector", SCORING, ids=[v["name"] for v in SCORING])
def test_scoring_vector(vector: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = _score(tmp_path, capsys, vector["hand"])
    why = f"{vector['name']} ({', '.join(vector['rules'])}): {vector['why']}"
    assert status == 0, f"exit status {status}, stderr {err!r}; {why}"
    result = json.loads(out)
    expect = vector["expect"]
    got = {key: result.get(key) for key in expect}
    assert got == expect, f"{why}\nfull output: {result}"
    assert result["value"] == expect["value"], why
    assert result["limit_hand"] == expect["limit_hand"], why
    for key in ("points", "doubles"):
        if key in expect:
            assert result[key] == expect[key], why


@pytest.mark.parametrize("vector", SETTLEMENT, ids=[v["name"] for v in SETTLEMENT])
def test_settlement_vector(vector: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "settle.json"
    path.write_text(json.dumps(vector["input"]), encoding="utf-8")
    status, out, err = _run(capsys, ["settle", str(path), "--json"])
    why = f"{vector['name']} ({', '.join(vector['rules'])}): {vector['why']}"
    assert status == 0, f"exit status {status}, stderr {err!r}; {why}"
    result = json.loads(out)
    assert result["changes"] == vector["expect"]["changes"], why
    assert sum(result["changes"]) == 0, why


NOT_A_WIN = {
    "concealed": "1234b 678c 345d 55d 9c N",  # 14 tiles, not four sets and a pair
    "melds": [],
    "bonus": "",
    "winning_tile": "9c",
    "win_by": "discard",
    "last_tile": False,
    "seat_wind": "S",
    "round_wind": "E",
    "dealer": False,
    "first_turn": False,
    "ruleset": "classical",
    "overrides": {},
}


def test_non_winning_hand_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = _score(tmp_path, capsys, NOT_A_WIN)
    assert status != 0
    assert err.strip(), "a refusal must say why on stderr"
    assert "win" in err.lower() or "R7" in err, f"the refusal should say the hand is not a win (R7): {err!r}"
    assert "value" not in out


@pytest.mark.parametrize(
    ("concealed", "bonus"),
    [
        ("234b 678c 345d 55d 56b", ""),  # 13 tiles
        ("2222b 234b 678c 345d 5d", ""),  # a fifth 2b
        ("234b 678c 345d 55d 567b", "1f 1f"),  # the same flower twice
    ],
    ids=["thirteen_tiles", "fifth_copy", "bonus_tile_twice"],
)
def test_impossible_hand_is_refused(
    concealed: str, bonus: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, err = _score(tmp_path, capsys, dict(NOT_A_WIN, concealed=concealed, bonus=bonus, winning_tile="5d"))
    assert status != 0 and err.strip() and "value" not in out


def test_bonus_tile_refused_when_flowers_are_off(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    hand = dict(
        NOT_A_WIN, concealed="234b 678c 345d 55d 567b", winning_tile="4b", bonus="1f", overrides={"flowers": False}
    )
    status, _out, err = _score(tmp_path, capsys, hand)
    assert status != 0
    assert err.strip(), "a refusal must say why on stderr (R1.3)"
