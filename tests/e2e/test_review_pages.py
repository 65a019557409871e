"""The review beside the strong bot (issue 35) in the browser: on a finished game's page, one row per
hand with the seat's agreement, a seat picker, and each hand's review on its replay page with every
decision, strong's candidates and their reasons, at 1366×768 and 360×740; a running game's review is
refused to a visitor who holds no seat at it.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browserkit import LiveServer
from pagekit import small_targets
from playwright.sync_api import Page, expect
from test_history import build_club

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def club(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[LiveServer, dict[str, str]]]:
    """The live server on a database with a finished and a running game; their ids."""
    url = f"sqlite+aiosqlite:///{tmp_path_factory.mktemp('club') / 'club.db'}"
    ids = build_club(url)
    with LiveServer(db=url) as server:
        yield server, ids


def api(page: Page, url: str) -> Any:
    response = page.request.get(url)
    assert response.ok, f"{url}: {response.status}"
    return response.json()


@pytest.mark.parametrize("size", [(1366, 768), (360, 740)])
def test_a_finished_games_review_per_hand_then_one_hands_decisions(
    club: tuple[LiveServer, dict[str, str]], new_page: Any, artifacts: Path, size: tuple[int, int]
) -> None:
    live, ids = club
    game_id = ids["done"]
    width, height = size
    page = new_page(width, height)
    summary = api(page, f"{live.url}/api/games/{game_id}/review?seat=2")

    page.goto(f"{live.url}/games/{game_id}")
    figures = page.locator("#review-figures")
    # the first person's seat, Ann's: she never acted (her clock played for her), so none of it counts
    expect(figures).to_contain_text("No decision of its own.")
    expect(figures).to_contain_text("made for this seat (its clock ran out, or a bot stood in)")
    page.locator("#review-seat").select_option("2")
    expect(figures).to_contain_text(f"Agreed with strong at {summary['agreed']} of {summary['decision_count']}")
    rows = page.locator(".review-hands tbody tr")
    expect(rows).to_have_count(len(summary["hands"]))
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    page.locator("#review").screenshot(path=artifacts / f"review-game-{width}.png")

    hand = next(h for h in summary["hands"] if h["decision_count"] > h["agreed"])
    number = hand["hand"]  # from 1, as the page numbers hands
    decisions = api(page, f"{live.url}/api/games/{game_id}/hands/{number}/review?seat=2")["decisions"]
    rows.nth(number - 1).get_by_role("link").click()
    page.wait_for_url(f"**/games/{game_id}/hands/{number}?review=2#review")
    items = page.locator(".review-decision")
    expect(items).to_have_count(len(decisions))
    expect(page.locator("#review-seat")).to_have_value("2")
    first = next(i for i, d in enumerate(decisions) if not d["agreed"])
    item = items.nth(first)
    expect(item).to_have_class("review-decision differs")
    expect(item.locator("details")).to_have_attribute("open", "")
    options = item.locator(".review-options li")
    expect(options).to_have_count(len(decisions[first]["options"]))
    expect(options.first).to_contain_text(decisions[first]["options"][0]["reason"])
    expect(item.locator(".review-options li.chosen")).to_have_count(1)
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    assert small_targets(page) == []
    page.locator("#review").screenshot(path=artifacts / f"review-hand-{width}.png")

    # a decision's link shows the table at that moment, as that seat saw it
    item.locator("a.review-moment").click()
    page.wait_for_url(f"**/games/{game_id}/hands/{number}?seat=2&step={decisions[first]['step']}&review=2")
    expect(page.locator("#step-count")).to_contain_text(f"Step {decisions[first]['step']} of")
    expect(page.locator("#perspective")).to_have_value("2")


def test_a_players_page_shows_their_agreement_with_strong_game_by_game(
    club: tuple[LiveServer, dict[str, str]], new_page: Any
) -> None:
    live, ids = club
    page = new_page(360, 740)
    record = api(page, f"{live.url}/api/players/Ann")
    (game,) = [g for g in record["recent"] if g["status"] != "playing"]
    assert game["id"] == ids["done"]
    review = api(page, f"{live.url}/api/games/{ids['done']}/review?seat={game['seat']}")
    page.goto(f"{live.url}/players/Ann")
    rows = page.locator("#player-review-table tbody tr")
    expect(rows).to_have_count(1)
    share = "—" if review["agreement"] is None else f"{int(100 * review['agreement'] + 0.5)} %"
    expect(rows.first.locator("td").nth(1)).to_have_text(str(review["decision_count"]))
    expect(rows.first.locator("td").nth(2)).to_have_text(share)
    expect(page.locator("#player-review-status")).to_be_hidden()
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    assert small_targets(page) == []


def test_a_games_key_moments_come_first_and_each_opens_its_hands_review(
    club: tuple[LiveServer, dict[str, str]], new_page: Any
) -> None:
    live, ids = club
    game_id = ids["done"]
    page = new_page(360, 740)
    summary = api(page, f"{live.url}/api/games/{game_id}/review?seat=2")
    moments = summary["key_moments"]
    assert moments, "a bot that is not strong makes some costly decisions"
    page.goto(f"{live.url}/games/{game_id}?review=2")
    items = page.locator("#key-moments .key-moment")
    expect(items).to_have_count(len(moments))
    # the key moments come before the review's hands
    assert page.evaluate(
        "document.getElementById('key-moments').compareDocumentPosition(document.getElementById('review'))"
        " & Node.DOCUMENT_POSITION_FOLLOWING"
    )
    first = moments[0]
    expect(items.first).to_contain_text(f"Hand {first['hand']}, step {first['step']}: about {first['cost']:g} points")
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    assert small_targets(page) == []
    items.first.locator("a.key-moment-link").click()
    page.wait_for_url(f"**/games/{game_id}/hands/{first['hand']}?review=2#review")
    expect(page.locator("#review-seat")).to_have_value("2")
    # the hand's review holds that decision: its link shows the table at that very step
    moment = page.locator(f'.review-decision a.review-moment[href$="?seat=2&step={first["step"]}&review=2"]')
    expect(moment).to_have_count(1)
    # the seat picker chooses whose key moments show: Ann's clock played for her, so none are hers
    page.goto(f"{live.url}/games/{game_id}")
    expect(page.locator("#key-moments")).to_contain_text("No decision of this seat's own to weigh.")
    page.locator("#review-seat").select_option("2")
    expect(items).to_have_count(len(moments))


def test_a_players_page_shows_what_to_work_on_over_their_recent_games(
    club: tuple[LiveServer, dict[str, str]], new_page: Any
) -> None:
    live, ids = club
    page = new_page(1366, 768)
    figures = api(page, f"{live.url}/api/reviews/players/Ann")
    review = api(page, f"{live.url}/api/games/{ids['done']}/review?seat={figures['games'][0]['seat']}")
    assert [g["id"] for g in figures["games"]] == [ids["done"]]
    assert figures["deal_ins"] == review["deal_ins"] and figures["discards"] == review["discards"] > 0
    page.goto(f"{live.url}/players/Ann")
    shown = page.locator("#player-figures")
    expect(shown.locator('[data-stat="Did what the strong bot would do"] dd')).to_contain_text("—")
    per_100 = "—" if figures["deal_ins_per_100"] is None else f"{figures['deal_ins_per_100']:g} in 100"
    expect(shown.locator('[data-stat="Discards another player won on"] dd')).to_contain_text(per_100)
    expect(shown.locator('[data-stat="Discards another player won on"] dd')).to_contain_text(
        f"in {review['discards']} discards"
    )
    expect(shown.locator('[data-stat="Wins let pass"] dd')).to_contain_text(str(review["missed_wins"]))
    expect(page.locator("#player-review-table tbody tr")).to_have_count(1)


def test_a_running_games_review_is_refused_to_a_visitor_without_a_seat(
    club: tuple[LiveServer, dict[str, str]], new_page: Any
) -> None:
    live, ids = club
    page = new_page(1366, 768)
    page.goto(f"{live.url}/games/{ids['running']}")
    expect(page.locator("#review-status")).to_contain_text("only its players may review it")
    expect(page.locator(".review-decision")).to_have_count(0)
    expect(page.locator(".review-hands")).to_have_count(0)
