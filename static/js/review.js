// The review (issue 35): one seat's play beside the strong bot. On a game's page, the seat's figures
// per hand with a link to each hand's review; on a hand's replay, the seat's decisions there, each with
// what strong would have done, its candidates and their reasons, and the marks. Filled from
// GET /api/games/{id}/review or /api/games/{id}/hands/{n}/review. While a game is played, only a
// player may ask, for their own seat (this browser's seat token for the table proves it).

import { el, fill, link, plural, setStatus } from "./history.js";
import { apiAnswer, loadSeat } from "./local.js";

const root = document.getElementById("review");
const API = root.dataset.api;
const HAND = root.dataset.hand ? Number(root.dataset.hand) : null;
const RUNNING = root.dataset.running === "true";
const seatSelect = document.getElementById("review-seat");
const status = document.getElementById("review-status");
const figures = document.getElementById("review-figures");
const body = document.getElementById("review-body");
const mine = loadSeat(root.dataset.game);

const MARKS = {
  deal_in: "deal-in",
  win_passed: "win passed",
  ready_broken: "ready hand broken",
  claim_missed: "claim missed",
  danger: "needless danger",
};

const params = new URLSearchParams(window.location.search);
let seat = parseSeat(params.get("review") ?? params.get("seat"));
let loading = 0;

function parseSeat(text) {
  return text !== null && /^[0-3]$/.test(text) ? Number(text) : null;
}

async function load() {
  const ticket = ++loading;
  setStatus(status, "Loading the review…");
  const headers = { Accept: "application/json" };
  if (mine) headers["X-Seat-Token"] = mine.token;
  const url = seat === null || RUNNING ? API : `${API}?seat=${seat}`;
  let data;
  try {
    data = await apiAnswer(await fetch(url, { headers }));
  } catch (err) {
    if (ticket !== loading) return;
    body.replaceChildren();
    figures.hidden = true;
    const message = err.message || "the review could not be loaded";
    setStatus(status, message.charAt(0).toUpperCase() + message.slice(1), true);
    return;
  }
  if (ticket !== loading) return;
  seat = data.seat;
  fillSeats(data);
  setStatus(status, "");
  figures.hidden = false;
  figures.textContent = summary(data);
  if (HAND === null) renderHands(data);
  else renderDecisions(data);
}

function fillSeats(data) {
  seatSelect.replaceChildren();
  for (let s = 0; s < 4; s++) {
    if (RUNNING && s !== data.seat) continue;
    const name = data.names[s] || `Seat ${s + 1}`;
    seatSelect.append(new Option(`${name}${data.bots[s] ? " (bot)" : ""}`, String(s)));
  }
  seatSelect.value = String(data.seat);
  seatSelect.disabled = RUNNING;
}

seatSelect.addEventListener("change", () => {
  seat = Number(seatSelect.value);
  const query = new URLSearchParams(window.location.search);
  query.set("review", String(seat));
  window.history.replaceState(null, "", `?${query.toString()}${window.location.hash}`);
  load();
});

const MADE_BY = { timer: "its clock ran out", "stand-in": "a bot stood in" };

function summary(data) {
  const made = data.made_for ? ` ${plural(data.made_for, "decision")} made for this seat (its clock ran out, or a bot stood in) are shown but not counted.` : "";
  if (!data.decision_count) return (data.made_for ? "No decision of its own." : "No decision to review yet.") + made;
  const share = Math.round(100 * data.agreement);
  const parts = [
    `Agreed with strong at ${data.agreed} of ${plural(data.decision_count, "decision")} (${share} %)`,
    plural(data.deal_ins, "deal-in"),
    plural(data.missed_wins, "missed win"),
  ];
  return parts.join(" · ") + (made ? `.${made}` : "");
}

function markText(counts) {
  return Object.entries(counts)
    .filter(([, n]) => n > 0)
    .map(([kind, n]) => `${MARKS[kind] || kind} ×${n}`)
    .join(", ");
}

function renderHands(data) {
  if (!data.hands.length) {
    body.replaceChildren(el("p", "muted", RUNNING ? "No hand of yours has finished yet." : "No hand was played."));
    return;
  }
  const table = el("table", "hands-table review-hands");
  const head = el("tr");
  for (const [text, cls] of [["Hand"], ["Decisions", "num"], ["Agreed", "num"], ["Deal-ins", "num"], ["Missed wins", "num"], ["Marks"], [""]]) {
    const th = el("th", cls, text);
    th.scope = "col";
    head.append(th);
  }
  table.append(el("thead"));
  table.tHead.append(head);
  const rows = el("tbody");
  for (const hand of data.hands) {
    const tr = el("tr");
    const share = hand.agreement === null ? "—" : `${hand.agreed} (${Math.round(100 * hand.agreement)} %)`;
    tr.append(
      el("td", null, String(hand.hand)),
      el("td", "num", String(hand.decision_count)),
      el("td", "num", share),
      el("td", "num", String(hand.deal_ins)),
      el("td", "num", String(hand.missed_wins)),
      el("td", "review-mark-list", markText(hand.marks) || "—"),
    );
    const cell = el("td");
    const href = `${fill(root.dataset.handUrl, "HAND_NO", hand.hand)}?review=${data.seat}#review`;
    cell.append(link(href, `Review hand ${hand.hand}`));
    tr.append(cell);
    rows.append(tr);
  }
  table.append(rows);
  const scroll = el("div", "table-scroll");
  scroll.append(table);
  body.replaceChildren(scroll);
}

function say(action, offered) {
  switch (action.type) {
    case "discard":
      return `discard ${action.tile}`;
    case "chow":
      return `chow ${[...action.tiles, offered].sort(byTile).join(" ")}`;
    case "pung":
      return `pung ${offered}`;
    case "kong":
      return `kong ${action.tile || offered}`;
    case "original_call":
      return `discard ${action.tile}, calling`;
    default:
      return action.type;
  }
}

const ORDER = "bcd";
function byTile(a, b) {
  const key = (t) => (/^[1-9][bcd]$/.test(t) ? ORDER.indexOf(t[1]) * 9 + Number(t[0]) : 100 + "ESWNRGP".indexOf(t));
  return key(a) - key(b);
}

function same(a, b) {
  return JSON.stringify(a) === JSON.stringify(b);
}

function renderDecisions(data) {
  if (!data.decisions.length) {
    body.replaceChildren(el("p", "muted", "This seat had no choice to make in this hand."));
    return;
  }
  const list = el("ol", "review-list");
  for (const d of data.decisions) {
    const item = el("li", d.agreed ? "review-decision agreed" : "review-decision differs");
    const details = el("details");
    details.open = !d.agreed || d.marks.length > 0;
    const line = el("summary");
    const hand = `${d.concealed}${d.drawn ? ` + ${d.drawn}` : ""}${d.offered ? ` · offered ${d.offered}` : ""}`;
    const by = d.made_by ? ` (${MADE_BY[d.made_by] || d.made_by})` : "";
    line.append(el("span", "review-hand", hand), el("span", "review-did", `did: ${say(d.done, d.offered)}${by}`));
    line.append(el("span", "review-strong", d.agreed ? "strong agrees" : `strong: ${say(d.strong, d.offered)}`));
    for (const mark of d.marks) line.append(el("span", "review-mark", MARKS[mark.kind] || mark.kind));
    details.append(line);
    for (const mark of d.marks) details.append(el("p", "review-mark-text", `${MARKS[mark.kind] || mark.kind}: ${mark.text}`));
    if (!RUNNING) {
      // a finished game's replay has one step per action: this one shows the table as the seat saw it then
      const query = new URLSearchParams({ seat: String(data.seat), step: String(d.step), review: String(data.seat) });
      details.append(link(`?${query.toString()}`, "See the table at this moment", "review-moment"));
    }
    const options = el("ol", "review-options");
    d.options.forEach((o, i) => {
      const li = el("li", same(o.action, d.done) ? "chosen" : null);
      li.append(el("strong", null, say(o.action, d.offered)));
      if (same(o.action, d.done)) li.append(el("span", "review-tag", " (done)"));
      li.append(el("span", null, ` — ${o.reason}`));
      if (i === 0) li.classList.add("best");
      options.append(li);
    });
    details.append(options);
    if (d.option_count > d.options.length) {
      details.append(el("p", "muted", `${d.option_count - d.options.length} more candidates weighed, each worse.`));
    }
    item.append(details);
    list.append(item);
  }
  body.replaceChildren(list);
}

load();
