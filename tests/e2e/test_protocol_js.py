"""static/js/protocol.js in the browser: its `patch` rebuilds exactly what the server's `diff` describes,
a seq gap asks for a resync and waits for the snapshot, a dropped socket reconnects by itself (at once
after a 1012), and a socket told to `reconnect` is replaced by another before it is let go.
"""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
from browserkit import TIMEOUT_MS, LiveServer
from pagekit import create_table, fill_with_bots_and_start
from playwright.sync_api import expect

from game import Game, Rules, apply, view
from game.policy import choose
from server.statediff import diff
from server.tables.connection import encode

pytestmark = pytest.mark.e2e

PATCH_ALL = """async (steps) => {
  const { patch } = await import("/static/js/protocol.js");
  return JSON.stringify(JSON.parse(steps).map(([before, ops]) => patch(before, ops)));
}"""  # JSON text both ways: much quicker than Playwright's serialisation of ~800 documents

GAP = """async () => {
  const { TableSocket } = await import("/static/js/protocol.js");
  const sent = [], seen = [];
  const socket = new TableSocket({ path: "/ws", table: "t", token: null, onState: (s) => seen.push(s.n) });
  socket.send = (tag) => { sent.push(tag); return true; };
  const frame = (t, d) => socket.receive(JSON.stringify({ t, d }));
  frame("snapshot", { seq: 1, now: Date.now(), state: { n: 1 } });
  frame("diff", { seq: 2, ops: { n: [2] } });
  frame("diff", { seq: 4, ops: { n: [4] } });  // 3 went missing
  frame("diff", { seq: 5, ops: { n: [5] } });  // ignored: a snapshot is on its way
  frame("snapshot", { seq: 6, now: Date.now(), state: { n: 6 } });
  frame("diff", { seq: 7, ops: { n: [7] } });
  return { sent, seen };
}"""

ACKS = """async () => {
  const { TableSocket } = await import("/static/js/protocol.js");
  const answers = [];
  const socket = new TableSocket({ path: "/ws", table: "t", token: null, onState: () => {},
    onAnswer: (frame, asked) => answers.push([frame.t, frame.d.id, asked && asked.tag]) });
  socket.send = () => true;
  const frame = (t, d) => socket.receive(JSON.stringify({ t, d }));
  frame("snapshot", { seq: 1, now: Date.now(), state: { clock: { window: 1 } } });
  const first = socket.act({ type: "pass" });
  frame("diff", { seq: 2, ops: { n: [2] }, ack: first });
  const second = socket.act({ type: "pass" });
  frame("diff", { seq: 9, ops: { n: [9] }, ack: second });  // a gap: dropped, but the ack counts
  return { answers, first, second, pending: socket.pending.size };
}"""

SILENT = """async (answered) => {
  const { TableSocket } = await import("/static/js/protocol.js");
  const statuses = [], closes = [];
  const socket = new TableSocket({ path: "/ws", table: "t", token: null, onState: () => {},
    onStatus: (s) => statuses.push(s), answerWithinMs: 300 });
  const ws = { readyState: WebSocket.OPEN, send: () => {}, close: (code) => closes.push(code) };
  socket.ws = ws;
  socket.connect = () => statuses.push("reconnect");  // (what retry() calls once its backoff is over)
  socket.receive(JSON.stringify({ t: "snapshot", d: { seq: 1, now: Date.now(), state: { clock: { window: 1 } } } }));
  socket.ping();
  const id = socket.act({ type: "pass" });
  if (answered) {  // a server that answers
    socket.receive(JSON.stringify({ t: "pong", d: { now: Date.now() } }));
    socket.receive(JSON.stringify({ t: "ack", d: { id } }));
  }
  await new Promise((done) => setTimeout(done, 1500));
  const got = { statuses: [...statuses], closes: [...closes], replaced: socket.ws !== ws };
  socket.stop();
  return got;
}"""


MOVE = """async () => {
  const { TableSocket } = await import("/static/js/protocol.js");
  class Fake {  // a socket whose far end the test plays
    constructor(url) {
      Object.assign(this, { url, readyState: 1, sent: [], on: {}, closedWith: null });
      made.push(this);
    }
    addEventListener(kind, f) { (this.on[kind] ||= []).push(f); }
    send(text) { this.sent.push(JSON.parse(text)); }
    close(code) { this.closedWith = code; }
    emit(kind, event) { for (const f of this.on[kind] || []) f(event); }
    frame(t, d) { this.emit("message", { data: JSON.stringify({ t, d }) }); }
  }
  Fake.OPEN = 1;
  const made = [], answers = [], statuses = [];
  const real = window.WebSocket;
  window.WebSocket = Fake;
  try {
    const socket = new TableSocket({ path: "/ws", table: "t", token: "k", onState: () => {},
      onStatus: (s) => statuses.push(s), onAnswer: (frame) => answers.push([frame.t, frame.d.id]) });
    socket.connect();
    const first = made[0];
    first.emit("open");
    first.frame("snapshot", { seq: 7, now: Date.now(), state: { n: 1, clock: { window: 3 } } });
    const early = socket.act({ type: "pass" });  // on its way when the server says to move
    first.frame("reconnect", {});
    const second = made[1];
    second.emit("open");
    const hello = second.sent[0];
    second.frame("snapshot", { seq: 1, now: Date.now(), state: { n: 2, clock: { window: 3 } } });
    const late = socket.act({ type: "pass" });  // sent on the new socket
    const firstOpenMeanwhile = first.closedWith === null;
    first.frame("diff", { seq: 8, ops: { n: [9] }, ack: early });  // the old socket answers what it was sent
    second.frame("ack", { id: late });
    return { hello, firstOpenMeanwhile, firstClosed: first.closedWith, sentOnFirst: first.sent.map((f) => f.id),
      sentOnSecond: second.sent.map((f) => f.t), answers, early, late, state: socket.state.n, statuses,
      pending: socket.pending.size, sockets: made.length };
  } finally {
    window.WebSocket = real;
  }
}"""

RESTART = """async () => {
  const { TableSocket } = await import("/static/js/protocol.js");
  const waits = [];
  const socket = new TableSocket({ path: "/ws", table: "t", token: null, onState: () => {},
    onStatus: (s, detail) => { if (s === "waiting") waits.push(detail); } });
  for (const code of [1012, 1001]) {
    const ws = { close: () => {} };
    socket.ws = ws;
    socket.attempt = 0;
    socket.closed(ws, { code, reason: "" });
    clearTimeout(socket.retryTimer);
  }
  return waits;
}"""


def diffs_of_a_game(seed: int, actions: int = 160) -> list[tuple[Any, Any, Any]]:
    """(before, diff, after) for every viewer's view (seats 0–3 and a spectator) that changed, through
    the first ``actions`` actions of a self-played game: past the end of its first deal.
    """
    game = Game(Rules(), seed)
    viewers = [0, 1, 2, 3, None]
    last = {v: view(game, v) for v in viewers}
    steps = []
    for _ in range(actions):
        waiting = game.to_act()  # seats still to answer (a seat that answered a claim may still change it)
        if not waiting:
            break
        seat = waiting[0]
        apply(game, seat, choose(game, seat).to_json())
        for v in viewers:
            now = view(game, v)
            change = diff(last[v], now)
            if change is not None:
                steps.append((last[v], change, now))
            last[v] = now
    return steps


def test_patch_rebuilds_what_the_server_diffs(live: LiveServer, new_page: Any) -> None:
    page = new_page()
    page.goto(live.url + "/")
    steps = diffs_of_a_game(3)
    assert len(steps) > 300
    assert any(before["deal"] != after["deal"] for before, _, after in steps), "the game never reached its second deal"
    patched = json.loads(page.evaluate(PATCH_ALL, json.dumps([[before, change] for before, change, _ in steps])))
    assert patched == [after for _, _, after in steps]


def test_a_seq_gap_asks_for_a_resync_and_waits_for_the_snapshot(live: LiveServer, new_page: Any) -> None:
    page = new_page()
    page.goto(live.url + "/")
    assert page.evaluate(GAP) == {"sent": ["resync"], "seen": [1, 2, 6, 7]}


def test_an_ack_riding_in_a_diff_answers_the_intent_even_when_the_diff_is_dropped(
    live: LiveServer, new_page: Any
) -> None:
    page = new_page()
    page.goto(live.url + "/")
    got = page.evaluate(ACKS)
    assert got["answers"] == [["ack", got["first"], "act"], ["ack", got["second"], "act"]]
    assert got["pending"] == 0


def test_a_dropped_socket_reconnects_and_keeps_the_seat(live: LiveServer, new_page: Any) -> None:
    page = new_page()
    table_id = create_table(page, live.url, "Ann", bot_delay=0.05)
    fill_with_bots_and_start(page)
    expect(page.locator("#conn")).to_have_text("Connected")
    hand = page.locator("#hand [data-tile]")
    expect(hand).to_have_count(14)

    def drop() -> None:
        for conn in live.lobby.get(table_id).connections:
            conn.close(1013, "too slow: reconnect to get a snapshot")

    live.call(drop)
    expect(page.locator("#conn")).to_contain_text("Reconnecting")
    expect(page.locator("#conn")).to_have_text("Connected")
    expect(hand).to_have_count(14)
    assert live.call(lambda: len(live.lobby.get(table_id).connections)) == 1


@pytest.mark.parametrize("answered", [True, False], ids=["answering", "silent"])
def test_a_server_that_stops_answering_is_left_and_the_socket_opened_again(
    live: LiveServer, new_page: Any, answered: bool
) -> None:
    page = new_page()
    page.goto(live.url + "/")
    got = page.evaluate(SILENT, answered)
    if answered:
        assert got == {"statuses": ["open"], "closes": [], "replaced": False}
    else:  # no pong and no answer to the intent in time: dropped (4000), and opened again after a backoff
        assert got["statuses"] == ["open", "waiting", "reconnect"] and got["closes"] == [4000], got


def test_a_socket_told_to_reconnect_is_replaced_before_it_is_let_go(live: LiveServer, new_page: Any) -> None:
    page = new_page()
    page.goto(live.url + "/")
    got = page.evaluate(MOVE)
    assert got["hello"] == {"t": "hello", "d": {"table": "t", "token": "k"}}
    assert got["firstOpenMeanwhile"] and got["firstClosed"] == 1000  # once it had answered the intent sent on it
    assert got["sentOnFirst"] == [None, got["early"]] and got["sentOnSecond"] == ["hello", "act"]
    assert got["answers"] == [["ack", got["early"]], ["ack", got["late"]]] and got["pending"] == 0
    assert got["state"] == 2 and got["sockets"] == 2
    assert "waiting" not in got["statuses"]  # never shown as reconnecting


def test_after_a_1012_the_page_tries_again_at_once(live: LiveServer, new_page: Any) -> None:
    page = new_page()
    page.goto(live.url + "/")
    restart, other = page.evaluate(RESTART)
    assert restart <= 250 and other >= 375  # (the usual backoff's first wait: 500 ms ± 25%)


def test_a_page_told_to_reconnect_moves_its_socket_and_never_shows_reconnecting(
    live: LiveServer, new_page: Any
) -> None:
    page = new_page()
    table_id = create_table(page, live.url, "Ann", bot_delay=0.05)
    fill_with_bots_and_start(page)
    expect(page.locator("#conn")).to_have_text("Connected")
    before = live.call(lambda: list(live.lobby.get(table_id).connections))
    assert len(before) == 1
    page.evaluate(
        "() => { window.statuses = []; new MutationObserver(() => window.statuses.push("
        "document.querySelector('#conn').textContent)).observe(document.querySelector('#conn'), "
        "{ childList: true, characterData: true, subtree: true }); }"
    )

    live.call(lambda: before[0].send(encode("reconnect", {})))

    def moved() -> bool:
        now = live.lobby.get(table_id).connections
        return len(now) == 1 and before[0] not in now and before[0].closed

    deadline = time.monotonic() + TIMEOUT_MS / 1000
    while not live.call(moved):
        assert time.monotonic() < deadline, "the page did not move its socket"
        time.sleep(0.05)  # (the server's loop runs in another thread: nothing here to await)
    assert before[0].close_code == 1001  # closed by the page (the server's side says "going away")
    expect(page.locator("#conn")).to_have_text("Connected")
    assert not [s for s in page.evaluate("() => window.statuses") if "Reconnecting" in s]
    expect(page.locator("#hand [data-tile]")).to_have_count(14)
