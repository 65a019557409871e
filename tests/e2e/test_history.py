"""The history pages (issue 7) in the browser, on a database holding a finished East round and a game
still running (built by real tables on a fake clock, as the history API's tests build theirs):
a finished game's page, its chart and hands; a hand replayed to its end with the keyboard, ending
on the score explained and the payments, exactly as the API gives them; a running game's replay,
which shows no concealed tile whatever perspective is asked for; and names with markup, shown as text.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browserkit import LiveServer
from historykit import CLUB, IMG, SVG, api, served_club
from pagekit import in_view_and_uncovered, scrolls_sideways, small_targets
from playwright.sync_api import Page, expect

pytestmark = pytest.mark.e2e

DOCS_SCREENSHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"


@pytest.fixture(scope="module")
def club(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[LiveServer, dict[str, str]]]:
    """The live server on a database with a finished and a running game; their ids."""
    yield from served_club(tmp_path_factory)


PUBLIC_TILES = ".discards [data-tile], .meld [data-tile], .bonus-row [data-tile], .offer [data-tile]"
# Every step of the replay, from the first, as the page shows it, moving on with → (one keydown on
# the document, as a key press gives; the page draws each step before the handler returns).
EVERY_STEP = f"""(total) => {{
  const steps = [];
  for (let i = 1; i <= total; i++) {{
    steps.push({{
      step: document.getElementById("step-count").textContent,
      ended: !document.getElementById("result").hidden,
      hidden: document.querySelectorAll("#stage [data-tile]:not({PUBLIC_TILES})").length,
      backs: document.querySelectorAll("#board .concealed .tile.back").length,
      counts: document.querySelectorAll("#board .concealed .count").length,
    }});
    document.dispatchEvent(new KeyboardEvent("keydown", {{ key: "ArrowRight", bubbles: true }}));
  }}
  return steps;
}}"""


def step_through_public(page: Page, number: int, total: int) -> bool:
    """Step from the first to the last step with →, checking at each that the page shows no tile but
    the public ones: discards, claimed or declared sets, bonus tiles and the tile on offer; every hand
    is tile backs and a count, with no drawn tile and no waits. True if the hand ended (face up).
    """
    for i, shown in enumerate(page.evaluate(EVERY_STEP, total), start=1):
        assert shown["step"] == f"Step {i} of {total}:"
        if shown["ended"]:  # a hand that is over is face up for everyone (R12.3)
            assert i == total
            return True
        assert shown["hidden"] == 0, f"hand {number}, step {i}: {shown['hidden']} tiles no spectator may see"
        assert shown["backs"] > 0 and shown["counts"] == 4
    return False


def test_a_finished_games_page_and_a_hand_stepped_to_its_score_with_the_keyboard(
    club: tuple[LiveServer, dict[str, str]], new_page: Any, artifacts: Path
) -> None:
    live, ids = club
    page = new_page(1280, 900)
    game_id = ids["done"]
    detail = api(page, f"{live.url}/api/games/{game_id}")
    names = [p["name"] for p in detail["players"]]

    # the lobby links to the games, and the games list to the game
    page.goto(live.url + "/")
    page.get_by_role("link", name="Game history").click()
    page.wait_for_url("**/games")
    page.locator(f".game-item[data-game='{game_id}'] .game-link").click()
    page.wait_for_url(f"**/games/{game_id}")

    # one row per hand: winner, value and payments as the API has them; a line per seat in the chart
    expect(page.locator("#game-name")).to_have_text(CLUB)
    rows = page.locator("#hand-rows tr")
    expect(rows).to_have_count(len(detail["hand_rows"]))
    for row, hand in zip(rows.all(), detail["hand_rows"], strict=True):
        winner = "—" if hand["winner"] is None else names[hand["winner"]]
        expect(row.locator("td").nth(2)).to_have_text(winner)
        expect(row.locator("td.value")).to_have_text("—" if hand["value"] is None else str(hand["value"]))
        expect(row.locator(".pay-list li")).to_have_count(len(hand["payments"]))
    chart = page.locator("#chart-box svg")
    expect(chart.locator("polyline")).to_have_count(4)
    for s, line in enumerate(chart.locator("polyline").all()):
        assert len(str(line.get_attribute("points")).split()) == len(detail["series"][s])
    assert sorted(chart.locator("text.end-label").all_text_contents()) == sorted(names)
    finals = [line[-1] for line in detail["series"]]
    expect(page.locator("#standings li .score").first).to_have_text(str(max(finals)))
    expect(page.locator("#differences tbody")).to_contain_text("game length")
    expect(page.locator("#log-link")).to_have_attribute("href", f"/games/{game_id}/log.json")
    page.screenshot(path=artifacts / "history-game-desktop.png", full_page=True)
    page.set_viewport_size({"width": 360, "height": 780})
    expect(chart.locator("polyline")).to_have_count(4)
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    page.screenshot(path=artifacts / "history-game-360.png", full_page=True)
    page.set_viewport_size({"width": 1280, "height": 900})

    # the first hand somebody won (hand 1 with this seed), from its row's link
    hand = next(h for h in detail["hand_rows"] if h["winner"] is not None)
    number = hand["number"]  # from 1, as the page numbers hands
    steps = api(page, f"{live.url}/api/games/{game_id}/hands/{number}")["steps"]
    page.locator(f"#hand-rows tr[data-hand='{number}'] a.replay-link").click()
    page.wait_for_url(f"**/games/{game_id}/hands/{number}")
    count = page.locator("#step-count")
    expect(count).to_have_text(f"Step 1 of {len(steps)}:")
    expect(page.locator("#board .seat .concealed [data-tile]").first).to_be_visible()  # face up
    shot = None
    for i, step in enumerate(steps[1:], start=2):
        page.keyboard.press("ArrowRight")
        expect(count).to_have_text(f"Step {i} of {len(steps)}:")
        analysis = step.get("analysis")
        if analysis and analysis["shanten"] >= 0:
            expect(page.locator("#analysis")).to_contain_text(f"shanten {analysis['shanten']}")
            waits = analysis.get("waits") or []
            expect(page.locator("#analysis [data-tile]")).to_have_count(len(waits))
            if waits and shot is None:
                shot = i
                page.screenshot(path=artifacts / "history-replay-desktop.png", full_page=True)
    expect(page.locator("#next")).to_be_disabled()

    # the end: the winner's score line by line, then every payment, as the API gives them
    result = steps[-1]["view"]["result"]
    panel = page.locator("#result")
    expect(panel).to_be_visible()
    expect(panel.locator("h2")).to_have_text(f"Hand {number}: {names[result['winner']]} wins")
    score = result["scores"][result["winner"]]
    items = panel.locator(".reveal.winner .score-items tbody tr")
    expect(items).to_have_count(len(score["items"]))
    for row, item in zip(items.all(), score["items"], strict=True):
        expect(row.locator(".rule")).to_have_text(item["rule"])
        expect(row.locator(".text")).to_have_text(item["text"])
    expect(panel.locator(".reveal.winner tfoot .arith")).to_contain_text(score["arithmetic"])
    expect(panel.locator(".reveal.winner tfoot .total")).to_have_text(str(score["value"]))
    payments = panel.locator(".payments tbody tr")
    expect(payments).to_have_count(len(result["payments"]))
    for row, payment in zip(payments.all(), result["payments"], strict=True):
        expect(row.locator(".who")).to_have_text(f"{names[payment['from']]} → {names[payment['to']]}")
        expect(row.locator(".num")).to_have_text(str(payment["amount"]))
        expect(row.locator(".text")).to_have_text(payment["text"])
    expect(panel.locator(".changes li")).to_have_count(4)
    page.screenshot(path=artifacts / "history-replay-end-desktop.png", full_page=True)
    page.set_viewport_size({"width": 360, "height": 780})
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    page.screenshot(path=artifacts / "history-replay-end-360.png", full_page=True)
    page.set_viewport_size({"width": 1280, "height": 900})

    # Home goes back to the deal; one seat's view shows only that seat's hand while the hand runs
    page.keyboard.press("Home")
    expect(count).to_have_text(f"Step 1 of {len(steps)}:")
    page.select_option("#perspective", "2")
    expect(page.locator("#board .seat[data-seat='2'] .concealed [data-tile]").first).to_be_visible()
    for other in (0, 1, 3):
        expect(page.locator(f"#board .seat[data-seat='{other}'] .concealed [data-tile]")).to_have_count(0)
    page.locator("#next").focus()
    page.keyboard.press("End")
    expect(count).to_have_text(f"Step {len(steps)} of {len(steps)}:")
    expect(page).to_have_url(re.compile(rf"/hands/{number}\?seat=2&step={len(steps)}$"))  # a link to this moment


def test_a_hand_plays_itself_and_its_controls_stay_on_a_phones_screen(
    club: tuple[LiveServer, dict[str, str]], new_page: Any, artifacts: Path
) -> None:
    live, ids = club
    page = new_page(360, 740)
    page.goto(f"{live.url}/games/{ids['done']}/hands/1")
    count, play = page.locator("#step-count"), page.locator("#play")
    expect(count).to_contain_text("Step 1 of ")
    total = int(str(count.text_content()).split(" of ")[1].rstrip(":"))
    controls = ["#prev", "#play", "#next", "#speed", "#slider"]

    page.select_option("#speed", label="4×")
    play.click()
    expect(play).to_have_attribute("aria-pressed", "true")
    expect(play).to_have_text(re.compile("Pause"))
    page.wait_for_function(  # it moves on by itself (on a loaded machine it may pass a step unseen)
        "() => +(document.querySelector('#step-count').textContent.match(/Step (\\d+)/) || [0, 0])[1] >= 3"
    )
    for y in ("document.body.scrollHeight", "0"):  # the board scrolls under the controls, which stay
        page.evaluate(f"window.scrollTo(0, {y})")
        for control in controls:
            assert in_view_and_uncovered(page, control), f"{control} is off screen or covered (scrolled to {y})"
    play.click()
    expect(play).to_have_attribute("aria-pressed", "false")
    stopped = count.text_content()
    page.wait_for_timeout(800)  # three steps' time at 4×
    assert count.text_content() == stopped, "Pause stops it"

    page.select_option("#speed", label="½×")  # a step every 2 s: none in the next second
    page.keyboard.press("p")
    expect(play).to_have_attribute("aria-pressed", "true")
    started = count.text_content()
    page.wait_for_timeout(1000)
    assert count.text_content() == started
    page.keyboard.press("p")
    expect(play).to_have_attribute("aria-pressed", "false")

    page.keyboard.press("End")  # three steps before the end, it plays to the score and stops there
    for _ in range(3):
        page.keyboard.press("ArrowLeft")
    expect(count).to_have_text(f"Step {total - 3} of {total}:")
    page.select_option("#speed", label="4×")
    play.click()
    expect(count).to_have_text(f"Step {total} of {total}:")
    expect(page.locator("#result")).to_be_visible()
    expect(play).to_have_attribute("aria-pressed", "false")
    page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
    for control in controls:
        assert in_view_and_uncovered(page, control), f"{control} is off screen or covered at the score"
    assert not scrolls_sideways(page)
    assert small_targets(page) == []
    page.screenshot(path=artifacts / "replay-360.png")
    play.click()  # played to its end: Play starts it again from the first step
    expect(count).to_have_text(re.compile(rf"Step [1-9] of {total}:"))


# How much of the board a phone shows above the player's bar (fixed at the screen's foot), and of how
# much room there is above that bar.
BOARD_SEEN = """() => {
  const board = document.getElementById("board").getBoundingClientRect();
  const foot = document.getElementById("player-bar").getBoundingClientRect().top;
  return { seen: Math.min(board.bottom, foot) - Math.max(board.top, 0), room: foot };
}"""


def test_on_a_phone_the_board_is_in_view_while_the_hand_plays(
    club: tuple[LiveServer, dict[str, str]], new_page: Any
) -> None:
    live, ids = club
    page = new_page(360, 740)
    page.goto(f"{live.url}/games/{ids['done']}/hands/1")
    count, play = page.locator("#step-count"), page.locator("#play")
    expect(count).to_contain_text("Step 1 of ")
    play.click()
    expect(play).to_have_attribute("aria-pressed", "true")
    page.wait_for_function(
        "() => +(document.querySelector('#step-count').textContent.match(/Step (\\d+)/) || [0, 0])[1] >= 3"
    )
    found = page.evaluate(BOARD_SEEN)
    assert found["seen"] >= 0.6 * found["room"], f"{found['seen']:.0f} px of the board in view of {found['room']:.0f}"
    play.click()
    expect(play).to_have_attribute("aria-pressed", "false")


def test_the_history_pages_and_the_leaderboard_have_no_target_under_24_px(
    club: tuple[LiveServer, dict[str, str]], new_page: Any
) -> None:
    live, ids = club
    for width, height in ((360, 740), (1280, 900)):
        page = new_page(width, height)
        page.goto(live.url + "/")
        page.get_by_role("link", name="Leaderboard").click()  # the lobby's header links it
        page.wait_for_url("**/leaderboard")
        expect(page.locator("table.leaderboard tbody tr").first).to_be_visible()
        pages = ["/leaderboard", "/games", f"/games/{ids['done']}", f"/games/{ids['done']}/hands/1"]
        for path in pages:
            page.goto(live.url + path)
            expect(page.locator("main a").first).to_be_visible()
            page.wait_for_load_state("networkidle")  # the lists and the replay are drawn from the API
            assert small_targets(page) == [], f"{path} at {width} px"
            assert not scrolls_sideways(page), f"{path} at {width} px"


def test_a_running_games_replay_reveals_no_concealed_tile_from_any_perspective(
    club: tuple[LiveServer, dict[str, str]], new_page: Any, artifacts: Path
) -> None:
    live, ids = club
    page = new_page(1280, 900)
    game_id = ids["running"]
    detail = api(page, f"{live.url}/api/games/{game_id}")
    assert detail["status"] == "playing" and detail["hand_rows"], "the running game should have a finished hand"
    current = len(detail["hand_rows"]) + 1

    page.goto(f"{live.url}/games/{game_id}")
    expect(page.locator("#current-hand-link")).to_have_attribute("href", f"/games/{game_id}/hands/{current}")
    for number in (1, current):
        for seat in ("", "0", "1", "2", "3"):
            page.goto(f"{live.url}/games/{game_id}/hands/{number}" + (f"?seat={seat}" if seat else ""))
            expect(page.locator("#running-note")).to_be_visible()
            expect(page.locator("#perspective")).to_be_disabled()
            count = page.locator("#step-count")
            expect(count).to_contain_text("Step 1 of ")
            total = int(str(count.text_content()).split(" of ")[1].rstrip(":"))
            assert step_through_public(page, number, total) == (number < current)
            if number == current and seat == "0":
                page.screenshot(path=artifacts / "history-running-desktop.png", full_page=True)


def test_markup_in_table_and_player_names_is_text_on_the_history_pages(
    club: tuple[LiveServer, dict[str, str]], new_page: Any
) -> None:
    live, ids = club
    page = new_page(1280, 900, bypass_csp=True)  # were any name parsed as HTML, its script would run
    page.goto(f"{live.url}/games")
    item = page.locator(f".game-item[data-game='{ids['running']}']")
    expect(item.locator(".game-link")).to_have_text(IMG)
    expect(item.locator(".game-seats a").first).to_have_text(SVG)
    item.locator(".game-seats a").first.click()
    expect(page.locator("#player-name")).to_have_text(SVG)
    expect(page.locator("#stats .stat").first).to_contain_text("Games")
    page.locator("#recent a").first.click()
    expect(page.locator("#game-name")).to_have_text(IMG)
    expect(page.locator("#hand-rows tr").first.locator("td").nth(1)).to_have_text(SVG)  # the first dealer
    assert IMG in page.title()

    page.goto(f"{live.url}/games?player={SVG}")
    expect(page.locator(".game-item")).to_have_count(1)
    expect(page.locator("#filter-player")).to_have_value(SVG)
    missing = page.goto(f"{live.url}/games/{IMG}")
    assert missing is not None and missing.status == 404
    expect(page.locator("h1")).to_have_text("No such game")
