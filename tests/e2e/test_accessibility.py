"""An accessibility check with axe-core (the npm package, injected into each page by the test; no
network): the lobby, a table in play, a game's review and a hand's replay have no serious or critical
violations, and every tile on them is named for a screen reader.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browserkit import LiveServer
from historykit import build_club
from pagekit import create_table, fill_with_bots_and_start
from playwright.sync_api import Page, expect

pytestmark = pytest.mark.e2e

AXE = Path(__file__).parent / "node_modules" / "axe-core" / "axe.min.js"
SERIOUS = """async () => {
  const found = await axe.run(document, { resultTypes: ["violations"] });
  return found.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => ({ rule: v.id, help: v.help, where: v.nodes.slice(0, 4).map((n) => n.target.join(" ")) }));
}"""
UNNAMED_TILES = """() => [...document.querySelectorAll("[data-tile]")]
  .filter((t) => !(t.getAttribute("aria-label") || "").trim()).length"""


@pytest.fixture(scope="module")
def club(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[LiveServer, dict[str, str]]]:
    if not AXE.exists():
        if os.environ.get("CI"):
            pytest.fail(f"{AXE} is missing: `make test` installs it with npm")
        pytest.skip("the accessibility check needs axe-core: `npm ci --prefix tests/e2e` (make test does it)")
    url = f"sqlite+aiosqlite:///{tmp_path_factory.mktemp('a11y') / 'club.db'}"
    ids = build_club(url)
    with LiveServer(db=url) as server:
        yield server, ids


def violations(page: Page) -> list[dict[str, Any]]:
    page.add_script_tag(path=str(AXE))
    found: list[dict[str, Any]] = page.evaluate(SERIOUS)
    assert page.evaluate(UNNAMED_TILES) == 0, "a tile without a text alternative"
    return found


def test_lobby_table_review_and_replay_have_no_serious_violations(club: Any, new_page: Any) -> None:
    live, ids = club
    found: dict[str, list[dict[str, Any]]] = {}
    for width, height in ((1366, 768), (360, 740)):
        page = new_page(width, height, bypass_csp=True)  # axe is injected as a script of the test's own
        page.goto(live.url + "/")
        found[f"lobby {width}"] = violations(page)
        create_table(page, live.url, "Ann")
        found[f"waiting room {width}"] = violations(page)
        fill_with_bots_and_start(page)
        expect(page.locator("#hand .tile").first).to_be_visible()
        found[f"table {width}"] = violations(page)
        page.goto(f"{live.url}/games/{ids['done']}")
        expect(page.locator("#hand-rows tr").first).to_be_visible()
        found[f"game review {width}"] = violations(page)
        page.goto(f"{live.url}/games/{ids['done']}/hands/1")
        expect(page.locator("#stage [data-tile]").first).to_be_visible()
        found[f"replay {width}"] = violations(page)
    problems = {where: v for where, v in found.items() if v}
    assert not problems, problems


def test_the_club_pages_have_no_serious_violations(club: Any, new_page: Any, tmp_path: Path) -> None:
    from server.club.club import ClubConfig

    with LiveServer(f"sqlite+aiosqlite:///{tmp_path / 'members.db'}", ClubConfig("a11y")) as members:
        link = members.wait(members.app.state.club.first_admin_link())
        found: dict[str, list[dict[str, Any]]] = {}
        page = new_page(360, 740, bypass_csp=True)
        page.goto(members.url + "/")
        found["login"] = violations(page)
        page.goto(members.url + str(link))
        found["welcome"] = violations(page)
        page.fill("input[name=name]", "Ann")
        page.fill("input[name=password]", "correct horse battery")
        page.click("form.club-form button[type=submit]")
        page.wait_for_url("**/")
        for path in ("/admin", "/account"):
            page.goto(members.url + path)
            expect(page.locator("h1")).to_be_visible()
            found[path] = violations(page)
        problems = {where: v for where, v in found.items() if v}
        assert not problems, problems
