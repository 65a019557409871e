"""The rule book is in the repository (docs/rules.md) and served at /rules with an anchor for every
rule; every rule number cited anywhere, and every rule a score line names, has its anchor."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from livekit import LiveServer

from game.game import Game, GamePhase
from game.policy import choose
from game.rules import Rules
from server.rulebook import rule_book

ROOT = Path(__file__).resolve().parents[2]
CITED = re.compile(r"\bR(\d{1,2})(\.\d+)?[a-d]?\b")
PLACES = ["game", "server", "static/js", "templates", "docs", "README.md", "tests"]


def _cited() -> dict[str, str]:
    """Every rule number cited in the code, pages and docs, with one file that cites it."""
    found: dict[str, str] = {}
    for place in PLACES:
        path = ROOT / place
        files = [path] if path.is_file() else [p for p in path.rglob("*") if p.suffix in (".py", ".js", ".html", ".md")]
        for file in files:
            for major, minor in CITED.findall(file.read_text(encoding="utf-8")):
                found.setdefault(f"R{major}{minor}", str(file.relative_to(ROOT)))
    return found


def test_every_cited_rule_has_an_anchor_in_the_book() -> None:
    cited = _cited()
    assert {"R0", "R6.2", "R6.9", "R8.5", "R12.2", "R15.4"} <= set(cited)  # the scan finds them
    missing = {number: where for number, where in cited.items() if number not in rule_book().anchors}
    assert not missing, f"cited but not in docs/rules.md: {missing}"


def test_every_rule_a_score_line_names_is_in_the_book() -> None:
    rules_named: set[str] = set()
    for seed in range(12):
        game = Game(Rules(game_length="east"), seed)
        while game.phase is not GamePhase.OVER:
            seat = game.to_act()[0]
            for event in game.apply(seat, choose(game, seat)):
                if event["type"] != "deal_end":
                    continue
                for score in event.get("scores") or []:
                    for item in (score or {}).get("items", []):
                        rules_named.update(m.group(0) for m in re.finditer(r"R\d+(\.\d+)?", item["rule"]))
                for payment in event.get("payments") or []:
                    rules_named.update(m.group(0) for m in re.finditer(r"R\d+(\.\d+)?", payment["rule"]))
    assert len(rules_named) > 5
    assert rules_named <= rule_book().anchors, rules_named - rule_book().anchors


@pytest.mark.asyncio
async def test_the_rules_page_is_served_and_linked_from_every_page(live: LiveServer) -> None:
    page = await live.http.get("/rules")
    assert page.status_code == 200 and "text/html" in page.headers["content-type"]
    for anchor in ("R0", "R6.9", "R8.2", "R15.4"):
        assert f'id="{anchor}"' in page.text
    assert "<table>" in page.text and "93,600" in page.text
    # The pages' CSP (style-src 'self') blocks inline styles: a right-aligned column is a class.
    assert "style=" not in page.text and 'class="align-right"' in page.text
    lobby = await live.http.get("/")
    assert 'href="/rules"' in lobby.text
    assert (await live.http.get("/RULES.md")).status_code == 404  # the book is a page, not a file
