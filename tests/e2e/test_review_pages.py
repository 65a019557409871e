"""The review beside the strong bot (issues 35 and 41) in the browser: on a finished game's page, one
row per hand with the seat's agreement, a seat picker, and each hand's review on its replay page with
every decision as a player reads it: the hand as tile pictures with what was done and what strong
would do marked on the tiles, strong's candidates as a small table, the table at that moment on
demand, and words only (no tile notation), at 1366×768 and 360×740; a running game's review is refused
to a visitor who holds no seat at it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browserkit import LiveServer
from historykit import api, served_club
from pagekit import small_targets
from playwright.sync_api import Page, expect

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def club(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[LiveServer, dict[str, str]]]:
    """The live server on a database with a finished and a running game; their ids."""
    yield from served_club(tmp_path_factory)


# Tile notation as a reader would meet it: suit tiles ("7c", "33489c") and honours ("E", "RR").
NOTATION = re.compile(r"\b[1-9]+[bcd]\b|\b[ESWNRGP]+\b")
SUITS = {"b": "bamboo", "c": "characters", "d": "dots"}
HONOURS = {"E": "East wind", "S": "South wind", "W": "West wind", "N": "North wind"}
HONOURS |= {"R": "Red dragon", "G": "Green dragon", "P": "White dragon"}
TILE_NAME = re.compile(r"^(\d (bamboo|characters?|dots?)|(East|South|West|North) wind|(Red|Green|White) dragon)(, |$)")


def codes(text: str) -> list[str]:
    """The tiles of R0 notation, one code each: "33c E" → ["3c", "3c", "E"]."""
    out: list[str] = []
    for group in text.split():
        out += [d + group[-1] for d in group[:-1]] if group[-1] in SUITS else list(group)
    return out


def name(code: str) -> str:
    """A tile's name as the page gives it: "1 dot", "7 characters", "East wind"."""
    if code in HONOURS:
        return HONOURS[code]
    suit = SUITS[code[1]]
    return f"{code[0]} {suit[:-1] if code[0] == '1' else suit}"


def visible_text(page: Page) -> str:
    text: str = page.locator("#review").evaluate("(node) => node.innerText")
    return text


def assert_words_only(text: str) -> None:
    """No tile notation, no "(s)" plurals, no bot mode names, no bare danger figures."""
    assert NOTATION.findall(text) == [], NOTATION.findall(text)
    assert "(s)" not in text and "(flush)" not in text and "(discard)" not in text and "(fold)" not in text
    assert not re.search(r"danger \d", text), text


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
    # each figure labelled (on a phone each row is a card of labelled lines)
    expect(rows.first.locator("td[data-label='Decisions']")).to_have_text(str(summary["hands"][0]["decision_count"]))
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    page.locator("#review").screenshot(path=artifacts / f"review-game-{width}.png")

    assert_words_only(visible_text(page))

    hand = next(h for h in summary["hands"] if h["decision_count"] > h["agreed"])
    number = hand["hand"]  # from 1, as the page numbers hands
    answer = api(page, f"{live.url}/api/games/{game_id}/hands/{number}/review?seat=2")
    decisions = answer["decisions"]
    rows.nth(number - 1).get_by_role("link").click()
    page.wait_for_url(f"**/games/{game_id}/hands/{number}?review=2#review")
    items = page.locator(".review-decision")
    expect(items).to_have_count(len(decisions))
    expect(page.locator("#review-seat")).to_have_value("2")

    # every decision shows its hand as tile pictures named as the table names them, the drawn or
    # offered tile set apart
    for i, d in enumerate(decisions):
        hand_tiles = items.nth(i).locator(".review-row [role=img]")  # a folded decision's too
        expect(hand_tiles).to_have_count(len(codes(d["concealed"])) + bool(d["drawn"] or d["offered"]))
        labels = hand_tiles.evaluate_all("(tiles) => tiles.map((t) => t.getAttribute('aria-label'))")
        assert all(TILE_NAME.match(label) for label in labels), labels
        if d["drawn"] or d["offered"]:
            assert re.search(r", (just drawn|on offer)", labels[-1]), labels

    # a decision strong would have made otherwise, both discards: each marked on its own tile
    differs = [i for i, d in enumerate(decisions) if not d["agreed"]]
    discards = [i for i in differs if decisions[i]["done"]["type"] == decisions[i]["strong"]["type"] == "discard"]
    risky = [i for i in discards if any(o["danger_read"] > 0 for o in decisions[i]["options"])]
    first = (risky or discards or differs)[0]
    d = decisions[first]
    item = items.nth(first)
    expect(item).to_have_class("review-decision differs")
    expect(item.locator("details").first).to_have_attribute("open", "")
    if d["done"]["type"] == d["strong"]["type"] == "discard":
        done = item.get_by_role("img", name=re.compile(rf"^{name(d['done']['tile'])}(, just drawn)?, what was done$"))
        strong = item.get_by_role(
            "img", name=re.compile(rf"^{name(d['strong']['tile'])}(, just drawn)?, what strong would do$")
        )
        expect(done).to_have_count(1)
        expect(strong).to_have_count(1)
        expect(done).to_have_class(re.compile(r"\breview-did\b"))
        expect(strong).to_have_class(re.compile(r"\breview-strong\b"))
        assert done.evaluate("(t) => getComputedStyle(t).outlineStyle") == "solid"
        # a marker under each (the legend names them), so colour is not the only cue
        expect(done.locator("xpath=..").locator(".review-marker")).to_have_text("▲")
        expect(strong.locator("xpath=..").locator(".review-marker")).to_have_text("◆")
        expect(item.locator(".review-legend")).to_have_text("▲what was done◆what strong would do")
    # strong's candidates: one row each, how close in words, the danger as the answer's percentage
    options = item.locator(".review-options tbody tr")
    expect(options).to_have_count(len(d["options"]))
    for row, o in zip(options.all(), d["options"], strict=True):
        close = "ready" if o["shanten"] == 0 else f"{o['shanten']} tile{'s' if o['shanten'] > 1 else ''} from ready"
        expect(row.locator("td").nth(1)).to_have_text("complete" if o["shanten"] < 0 else close)
        if o["action"]["type"] == "discard":
            assert 0 < o["deal_in"] < 1
            share = 100 * o["deal_in"]
            expect(row.locator("td").nth(4)).to_have_text(f"{share:.1f} %" if share < 10 else f"{int(share + 0.5)} %")
    expect(item.locator(".review-options tbody tr.chosen")).to_have_count(1)

    # one expanded decision fits the screen, and nothing scrolls sideways
    item.scroll_into_view_if_needed()
    # the pictures leave out the replay's controls, which a phone keeps fixed over its screen's bottom
    page.evaluate("document.getElementById('player-bar').style.visibility = 'hidden'")
    item.screenshot(path=artifacts / f"review-decision-{width}.png")
    page.locator("#review").screenshot(path=artifacts / f"review-hand-{width}.png")
    page.evaluate("document.getElementById('player-bar').style.visibility = ''")
    # it fits what the screen shows above the replay's controls, which a phone keeps at its bottom
    bar = page.locator("#player-bar")
    fixed = bar.evaluate("(node) => getComputedStyle(node).position") == "fixed"
    room = height - (bar.evaluate("(node) => node.getBoundingClientRect().height") if fixed else 0)
    box = item.bounding_box()
    assert box is not None and box["height"] <= room, (box, room)
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    assert small_targets(page) == []

    # the table at that moment, inline: four seats, the reviewed seat's hand as the decision shows it
    item.get_by_role("button", name="See the table at this moment").click()
    table = item.get_by_role("group", name="The table at this moment")
    expect(table).to_be_visible()
    expect(table.locator(".seat")).to_have_count(4)
    own = table.locator(f'.seat[data-seat="{answer["seat"]}"] .concealed [data-tile]')
    expect(own).to_have_count(len(codes(d["concealed"])) + bool(d["drawn"]))
    held = sorted(own.evaluate_all("(tiles) => tiles.map((t) => t.dataset.tile)"))
    assert held == sorted(codes(d["concealed"]) + ([d["drawn"]] if d["drawn"] else []))
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    page.evaluate("document.getElementById('player-bar').style.visibility = 'hidden'")
    item.screenshot(path=artifacts / f"review-moment-{width}.png")
    page.evaluate("document.getElementById('player-bar').style.visibility = ''")

    # every decision, its reasons and the key open: still words only
    page.evaluate("document.querySelectorAll('#review details').forEach((d) => { d.open = true; })")
    expect(page.locator(".review-why .review-reasons").first).to_be_visible()
    text = visible_text(page)
    (artifacts / f"review-hand-{width}.txt").write_text(text)
    assert "Danger" in text and "from ready" in text
    assert_words_only(text)

    # and the replay itself steps on from that moment, as the seat saw it
    item.get_by_role("link", name="Step through the hand from here").click()
    page.wait_for_url(f"**/games/{game_id}/hands/{number}?seat=2&step={d['step']}&review=2")
    expect(page.locator("#step-count")).to_contain_text(f"Step {d['step']} of")
    expect(page.locator("#perspective")).to_have_value("2")

    # a hand with marks: each said in words
    marked = [h for h in summary["hands"] if any(h["marks"].values())][:1]
    assert marked, "this game has a marked hand to read"
    for other in marked:
        page.goto(f"{live.url}/games/{game_id}/hands/{other['hand']}?review=2")
        expect(page.locator(".review-decision")).to_have_count(other["decision_count"] + other["made_for"])
        texts = page.locator(".review-mark-text")
        expect(texts).to_have_count(sum(other["marks"].values()))
        page.evaluate("document.querySelectorAll('#review details').forEach((d) => { d.open = true; })")
        assert_words_only(visible_text(page))
        for said in texts.all_inner_texts():
            assert re.match(r"^(Deal-in|Win passed|Ready hand broken|Claim missed|Needless risk): [A-Z0-9]", said), said


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
    # the hand's review holds that decision, at that very step
    expect(page.locator(f'.review-decision[data-step="{first["step"]}"]')).to_have_count(1)
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
