// The review (issue 35): one seat's play beside the strong bot. On a game's page, the seat's figures
// per hand with a link to each hand's review; on a hand's replay, the seat's decisions there: the hand
// as tile pictures with what was done and what strong would do marked on the tiles, the marks in
// words, strong's candidates as a small table (how close to ready, the tiles that help, the expected
// points, the danger), their reasons behind a disclosure, and the table at that moment on demand.
// Every text is words: tiles by their names (never their notation), seats by their players' names.
// Filled from
// GET /api/games/{id}/review or /api/games/{id}/hands/{n}/review. While a game is played, only a
// player may ask, for their own seat (this browser's seat token for the table proves it).

import { el, fill, getJson, link, plural, setStatus } from "./history.js";
import { apiAnswer, loadSeat } from "./local.js";
import { backsRow, badge, meldElement, seatPanel } from "./render.js";
import { WIND_NAMES, parseTiles, sortTiles, tileElement, tileName } from "./tiles.js";

const root = document.getElementById("review");
const API = root.dataset.api;
const HAND = root.dataset.hand ? Number(root.dataset.hand) : null;
const RUNNING = root.dataset.running === "true";
const seatSelect = document.getElementById("review-seat");
const status = document.getElementById("review-status");
const figures = document.getElementById("review-figures");
const body = document.getElementById("review-body");
const mine = loadSeat(root.dataset.game);

// Each mark's name, one and many.
const MARKS = {
  deal_in: ["deal-in", "deal-ins"],
  win_passed: ["win passed", "wins passed"],
  ready_broken: ["ready hand broken", "ready hands broken"],
  claim_missed: ["claim missed", "claims missed"],
  danger: ["needless risk", "needless risks"],
};
const markName = (kind) => (MARKS[kind] || [kind])[0];

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
    .map(([kind, n]) => plural(n, ...(MARKS[kind] || [kind, kind])))
    .join(", ");
}

/** A table with a header row of ``columns`` ([text, class] each, for columns of figures "num"). */
function tableWithHead(cls, columns) {
  const table = el("table", cls);
  const head = el("tr");
  for (const [text, colClass] of columns) {
    const th = el("th", colClass || null, text);
    th.scope = "col";
    head.append(th);
  }
  table.append(el("thead"));
  table.tHead.append(head);
  return table;
}

function renderHands(data) {
  if (!data.hands.length) {
    body.replaceChildren(el("p", "muted", RUNNING ? "No hand of yours has finished yet." : "No hand was played."));
    return;
  }
  const table = tableWithHead("hands-table review-hands", [
    ["Hand"], ["Decisions", "num"], ["Agreed", "num"], ["Deal-ins", "num"], ["Missed wins", "num"], ["Marks"], [""],
  ]);
  const rows = el("tbody");
  for (const hand of data.hands) {
    const tr = el("tr");
    const share = hand.agreement === null ? "none" : `${hand.agreed} (${Math.round(100 * hand.agreement)} %)`;
    // each cell labelled, for a phone's card of labelled lines (history.css)
    const cells = [
      ["Hand", null, String(hand.hand)],
      ["Decisions", "num", String(hand.decision_count)],
      ["Agreed", "num", share],
      ["Deal-ins", "num", String(hand.deal_ins)],
      ["Missed wins", "num", String(hand.missed_wins)],
      ["Marks", "review-mark-list", markText(hand.marks) || "none"],
    ];
    for (const [label, cls, text] of cells) {
      const td = el("td", cls, text);
      td.dataset.label = label;
      tr.append(td);
    }
    const cell = el("td", "replay-cell");
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

// ------------------------------------------------------------------ words
const HONOUR_WORDS = { E: "East wind", S: "South wind", W: "West wind", N: "North wind", R: "Red dragon", G: "Green dragon", P: "White dragon" };

/** The bot's own sentences for a person: seats by name, tiles by name ("7c" → "7 characters"). */
function words(text, names) {
  return String(text ?? "")
    .replace(/\bseat ([0-3])\b/g, (_, s) => names[Number(s)])
    .replace(/\b([1-9]+)([bcd])\b/g, (_, ranks, suit) => [...ranks].map((r) => tileName(r + suit)).join(", "))
    .replace(/\b([ESWNRGP])\b/g, (_, h) => HONOUR_WORDS[h]);
}

/** `text` with its rule numbers ("R11.3") as links into the rule book, appended to `node`. */
function withRules(node, text) {
  let at = 0;
  for (const match of text.matchAll(/R\d+(?:\.\d+)?/g)) {
    node.append(text.slice(at, match.index));
    const a = link(`/rules#${match[0]}`, match[0]);
    a.title = "This rule in the rule book";
    node.append(a);
    at = match.index + match[0].length;
  }
  node.append(text.slice(at));
  return node;
}

function steps(shanten) {
  if (shanten < 0) return "complete";
  if (shanten === 0) return "ready";
  return `${plural(shanten, "tile")} from ready`;
}

/** A share as a percentage: one decimal under 10 % ("0.2 %", "7.3 %"), else whole ("12 %"). */
function percent(share) {
  const p = 100 * share;
  return p < 10 ? `${p.toFixed(1)} %` : `${Math.round(p)} %`;
}

/** An action in words, as the seat would say it: "discard 7 dots", "pung of East wind", "pass". */
function say(action, d) {
  const offered = d.offered;
  switch (action.type) {
    case "discard":
      return `discard ${tileName(action.tile)}`;
    case "original_call":
      return `discard ${tileName(action.tile)}, calling`;
    case "chow":
      return `chow ${sortTiles([...action.tiles, offered]).map(tileName).join(", ")}`;
    case "pung":
      return `pung of ${tileName(offered)}`;
    case "kong":
      return `kong of ${tileName(action.tile || offered)}`;
    case "win":
      return "declare the win";
    case "pass":
      return "pass";
    default:
      return action.type.replace(/_/g, " ");
  }
}

/** What the seat did, in the past tense. */
function did(action, d) {
  const text = say(action, d);
  switch (action.type) {
    case "discard":
    case "original_call":
      return text.replace(/^discard/, "discarded");
    case "chow":
    case "pung":
      return `claimed a ${text}`;
    case "kong":
      return `${d.offered ? "claimed" : "declared"} a ${text}`;
    case "win":
      return "declared the win";
    case "pass":
      return "passed";
    default:
      return text;
  }
}

const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
const throws = (action) => action.type === "discard" || action.type === "original_call";

// ------------------------------------------------------------------ the hand
/** The hand's tiles an action uses: the tile thrown, the tiles a claim melds with (by code, from the hand). */
function used(action, d) {
  switch (action.type) {
    case "discard":
    case "original_call":
      return [action.tile];
    case "chow":
      return [...action.tiles];
    case "pung":
      return [d.offered, d.offered];
    case "kong":
      return d.offered ? [d.offered, d.offered, d.offered] : [action.tile];
    default:
      return [];
  }
}

/**
 * The seat's hand as pictures: its concealed tiles, the tile drawn or offered set apart, its sets; the
 * tiles the seat used marked "did", those strong would use marked "strong".
 */
function handFigure(d, names) {
  const figure = el("div", "review-hand");
  const row = el("div", "review-tiles");
  const concealed = parseTiles(d.concealed);
  const apart = d.drawn || d.offered;
  const slots = [...concealed.map((code) => ({ code, who: new Set() })), ...(apart ? [{ code: apart, who: new Set(), apart: true }] : [])];
  const place = (action, who) => {
    const codes = used(action, d);
    for (const code of codes) {
      // the tile drawn is thrown from its own place when it is the one thrown
      const slot =
        (throws(action) && apart && code === apart && slots.find((s) => s.apart && !s.who.has(who))) ||
        slots.find((s) => !s.apart && s.code === code && !s.who.has(who));
      if (slot) slot.who.add(who);
    }
    // a claim or a win takes the tile on offer (or the win, the tile drawn)
    if (apart && (["chow", "pung", "win"].includes(action.type) || (action.type === "kong" && d.offered))) {
      slots.find((s) => s.apart).who.add(who);
    }
  };
  place(d.done, "did");
  place(d.strong, "strong");
  const tiles = el("span", "tiles review-row");
  tiles.setAttribute("role", "group");
  tiles.setAttribute("aria-label", "The hand");
  for (const slot of slots) {
    const role = slot.apart ? (d.drawn ? "just drawn" : "on offer") : "";
    const tags = [...slot.who];
    const label = [tileName(slot.code), role, tags.includes("did") ? "what was done" : "", tags.includes("strong") ? "what strong would do" : ""]
      .filter(Boolean)
      .join(", ");
    const classes = tags.map((t) => `review-${t}`).join(" ");
    const tile = tileElement(slot.code, { label, classes });
    if (!slot.apart && !tags.length) {
      tiles.append(tile);
      continue;
    }
    const pick = el("span", `review-pick${slot.apart ? " review-apart" : ""}`);
    pick.append(tile);
    // a marker under the tile (the legend says which is which), and the tile apart named
    const marker = el("span", "review-marker");
    for (const t of tags) marker.append(el("span", `review-marker-${t}`, MARKER[t]));
    marker.setAttribute("aria-hidden", "true");
    pick.append(marker);
    if (slot.apart) {
      const caption = el("span", "review-pick-tag", d.drawn ? "drawn" : "offered");
      caption.setAttribute("aria-hidden", "true");
      pick.append(caption);
    }
    tiles.append(pick);
  }
  row.append(tiles);
  for (const meld of d.melds || []) row.append(meldElement(meld, names));
  figure.append(row);
  return figure;
}

const MARKER = { did: "▲", strong: "◆" };

function legend(d) {
  const list = el("p", "review-legend");
  const item = (cls, text) => {
    const swatch = el("span", `review-swatch ${cls}`);
    swatch.setAttribute("aria-hidden", "true");
    const span = el("span", "review-legend-item");
    const marker = el("span", "review-marker");
    for (const c of cls.split(" ")) marker.append(el("span", `review-marker-${c.replace("review-", "")}`, MARKER[c.replace("review-", "")]));
    marker.setAttribute("aria-hidden", "true");
    span.append(swatch, marker, text);
    return span;
  };
  const marked = used(d.done, d).length || d.done.type === "win";
  const strongMarked = used(d.strong, d).length || d.strong.type === "win";
  const together = same(d.done, d.strong);
  if (marked && !together) list.append(item("review-did", "what was done"));
  if (strongMarked && !together) list.append(item("review-strong", "what strong would do"));
  if (together && marked) list.append(item("review-did review-strong", "what was done, as strong would do"));
  return list.childNodes.length ? list : null;
}

// ------------------------------------------------------------------ marks
function markWords(mark, d, data) {
  const names = data.names;
  const thrown = d.done.tile ? tileName(d.done.tile) : "tile";
  switch (mark.kind) {
    case "deal_in": {
      const winner = data.result && data.result.winner !== null && data.result.winner !== undefined ? names[data.result.winner] : "Another player";
      return `${winner} won on this ${thrown}.`;
    }
    case "win_passed": {
      const tile = d.offered || d.drawn;
      return `A win${tile ? ` on ${tileName(tile)}` : ""} was on offer and was not declared.`;
    }
    case "ready_broken":
      return `The hand was ready before drawing ${tileName(d.drawn)}; throwing ${thrown} left it not ready.`;
    case "claim_missed":
      return mark.instead ? `To ${say(mark.instead, d)} would have made the hand ready.` : "A claim would have made the hand ready.";
    case "danger": {
      const mine = d.options.find((o) => same(o.action, d.done));
      const safer = mark.instead && d.options.find((o) => same(o.action, mark.instead));
      if (mine && safer) {
        return `${thrown} had a ${percent(mine.deal_in)} chance of dealing in; ${tileName(safer.action.tile)} kept the hand about as good at ${percent(safer.deal_in)}.`;
      }
      return "A far safer discard kept the hand about as good.";
    }
    default:
      return words(mark.text, names);
  }
}

// ------------------------------------------------------------------ candidates
function playCell(o, d) {
  const td = el("td", "review-play");
  const codes =
    o.action.type === "discard" || o.action.type === "original_call"
      ? [o.action.tile]
      : o.action.type === "chow"
        ? sortTiles([...o.action.tiles, d.offered])
        : o.action.type === "pung"
          ? [d.offered, d.offered, d.offered]
          : o.action.type === "kong"
            ? Array(4).fill(o.action.tile || d.offered)
            : [];
  const verb = { discard: "", original_call: "calling", chow: "chow", pung: "pung", kong: "kong", pass: "pass", win: "win" }[o.action.type];
  if (verb) td.append(el("span", "review-verb", verb));
  if (codes.length) {
    const row = el("span", "tiles mini");
    row.setAttribute("role", "group");
    row.setAttribute("aria-label", say(o.action, d));
    for (const code of o.action.type === "discard" ? codes : codes.slice(0, o.action.type === "kong" ? 1 : 3)) row.append(tileElement(code));
    td.append(row);
  }
  if (o.then) {
    td.append(el("span", "review-verb", "then"));
    const then = tileElement(o.then, { label: `then discard ${tileName(o.then)}`, classes: "mini" });
    td.append(then);
  }
  const tags = el("span", "review-tags");
  if (same(o.action, d.done)) tags.append(badge("did", "review-tag-did"));
  if (same(o.action, d.strong)) tags.append(badge("strong", "review-tag-strong"));
  if (tags.childNodes.length) td.append(tags);
  return td;
}

const BAR_FULL = 0.2; // a danger bar is full at 20 %: few discards are more dangerous, and most are under 2 %

function dangerCell(o) {
  const td = el("td", "num review-danger");
  if (!throws(o.action) && !o.then) {
    td.append(el("span", "muted", "no discard"));
    return td;
  }
  const share = o.deal_in ?? 0;
  td.append(el("span", null, percent(share)));
  const bar = el("span", "review-bar");
  bar.setAttribute("aria-hidden", "true");
  const fill = el("span");
  fill.style.width = `${Math.min(100, Math.round((100 * share) / BAR_FULL))}%`;
  bar.append(fill);
  td.append(bar);
  return td;
}

function optionsTable(d) {
  const table = tableWithHead("review-options", [
    ["Play"], ["How close"], ["Tiles that help", "num"], ["Points", "num"], ["Danger", "num"],
  ]);
  table.prepend(el("caption", null, "Strong's candidates, best first"));
  const rows = el("tbody");
  d.options.forEach((o, i) => {
    const tr = el("tr", [same(o.action, d.done) ? "chosen" : "", i === 0 ? "best" : ""].filter(Boolean).join(" ") || null);
    tr.append(playCell(o, d), el("td", "review-close", steps(o.shanten)), el("td", "num", String(o.unseen)), el("td", "num", String(Math.round(o.aims))), dangerCell(o));
    rows.append(tr);
  });
  table.append(rows);
  const more = d.option_count - d.options.length;
  if (more > 0) {
    const foot = el("tfoot");
    const tr = el("tr");
    const td = el("td", "muted", `${plural(more, "more candidate")} weighed, each worse.`);
    td.colSpan = 5;
    tr.append(td);
    foot.append(tr);
    table.append(foot);
  }
  // On a narrow screen the table may scroll sideways: the keyboard reaches it too.
  const wrap = el("div", "review-options-wrap");
  wrap.tabIndex = 0;
  wrap.setAttribute("role", "region");
  wrap.setAttribute("aria-label", "strong's candidates");
  wrap.append(table);
  return wrap;
}

/** Each candidate's reasons, in words, behind a disclosure. */
function reasons(d, data) {
  const names = data.names;
  const details = el("details", "review-why");
  details.append(el("summary", null, "Why: each candidate's reasons"));
  const list = el("ol", "review-reasons");
  for (const o of d.options) {
    const li = el("li");
    li.append(el("strong", null, `${say(o.action, d)}${o.then ? `, then discard ${tileName(o.then)}` : ""}`.replace(/^./, (c) => c.toUpperCase())));
    const lines = el("ul");
    const close = el("li", null, `Leaves the hand ${steps(o.shanten)}.`);
    lines.append(close);
    if (o.improving.length) {
      const help = el("li", "review-help");
      help.append(o.shanten === 0 ? "Wins on: " : "Improved by: ");
      for (const { tile, unseen } of o.improving) {
        const one = el("span", "review-help-tile");
        one.append(tileElement(tile, { label: `${tileName(tile)}, ${unseen} unseen`, classes: "mini" }), el("span", "review-count", String(unseen)));
        one.lastChild.setAttribute("aria-hidden", "true");
        help.append(one);
      }
      help.append(el("span", "muted", ` (${plural(o.improving.length, "kind")}, ${o.unseen} unseen in all; the number under each tile says how many of it)`));
      lines.append(help);
    }
    const aims = `Aims for about ${plural(Math.round(o.aims), "point")}${o.aims_for.length ? `: ${o.aims_for.map((t) => words(t, names)).join("; ")}` : ""}.`;
    lines.append(withRules(el("li"), aims));
    if (throws(o.action) || o.then) {
      lines.append(el("li", null, `Chance of dealing in: ${percent(o.deal_in)}.`));
      if (!o.danger.length) lines.append(el("li", null, "No opponent looks ready."));
      const total = o.danger.reduce((sum, t) => sum + t.chance, 0);
      for (const t of o.danger) {
        const text = t.chance > 0 ? `${names[t.seat]}: ${Math.round((100 * t.chance) / total)} % of the danger. ` : `Safe against ${names[t.seat]}. `;
        lines.append(withRules(el("li"), text + t.reasons.map((r) => words(r, names)).join("; ") + "."));
      }
    }
    if (o.note) lines.append(withRules(el("li", "muted"), `Set aside: ${words(o.note, names)}.`));
    li.append(lines);
    list.append(li);
  }
  details.append(list);
  return details;
}

// ------------------------------------------------------------------ the table at that moment
const REPLAY = document.getElementById("replay");
const replays = new Map(); // the hand's steps, per seat view: fetched once, when first asked for

async function replaySteps(seatView) {
  const key = RUNNING ? "public" : String(seatView);
  if (!replays.has(key)) {
    const url = RUNNING ? REPLAY.dataset.api : `${REPLAY.dataset.api}?seat=${seatView}`;
    replays.set(
      key,
      getJson(url).catch((err) => {
        replays.delete(key);
        throw err;
      }),
    );
  }
  return (await replays.get(key)).steps;
}

function board(step, viewer, names) {
  const view = step.view;
  const turn = view.turn;
  const box = el("div", "board replay-board review-board");
  box.setAttribute("role", "group");
  box.setAttribute("aria-label", "The table at this moment");
  for (let s = 0; s < 4; s++) {
    const info = view.seats[s];
    const toPlay = turn && turn.phase === "turn" && turn.seat === s;
    const badges = [];
    if (view.dealer === s) badges.push(badge("dealer", "dealer"));
    if (viewer === s) badges.push(badge("reviewed", "you"));
    if (toPlay) badges.push(badge("to play", "turn"));
    const concealed = el("div", "concealed");
    if (info.concealed === undefined) {
      concealed.setAttribute("aria-label", `${info.tiles} concealed tiles, face down`);
      concealed.append(backsRow(info.tiles), el("span", "count", `${plural(info.tiles, "tile")} face down`));
    } else {
      const codes = sortTiles(parseTiles(info.concealed));
      const drawn = toPlay && turn.drawn ? turn.drawn : null;
      if (drawn && codes.includes(drawn)) codes.splice(codes.lastIndexOf(drawn), 1);
      concealed.setAttribute("aria-label", `${names[s]}'s hand`);
      const row = el("span", "tiles small");
      for (const code of codes) row.append(tileElement(code));
      concealed.append(row);
      if (drawn) {
        const apart = el("span", "tiles small drawn-slot");
        apart.append(tileElement(drawn, { label: `${tileName(drawn)}, just drawn`, classes: "drawn" }));
        concealed.append(apart);
      }
    }
    const panel = seatPanel(view, s, names, { active: toPlay, badges, concealed, latest: view.discards.length - 1 });
    // a wind by its name here, not its letter
    for (const letter of panel.querySelectorAll(".wind-letter")) letter.textContent = WIND_NAMES[info.wind];
    box.append(panel);
  }
  return box;
}

function momentControl(d, data, index) {
  const wrap = el("div", "review-moment");
  const button = el("button", "ghost review-moment-button", "See the table at this moment");
  button.type = "button";
  const panel = el("div", "review-moment-panel");
  panel.id = `review-moment-${index}`;
  panel.hidden = true;
  button.setAttribute("aria-expanded", "false");
  button.setAttribute("aria-controls", panel.id);
  button.addEventListener("click", async () => {
    const open = panel.hidden;
    panel.hidden = !open;
    button.setAttribute("aria-expanded", String(open));
    button.textContent = open ? "Hide the table" : "See the table at this moment";
    if (!open || panel.childNodes.length) return;
    const note = el("p", "status", "Loading the table…");
    note.setAttribute("role", "status");
    panel.append(note);
    try {
      const list = await replaySteps(data.seat);
      const step = list[Math.min(list.length - 1, d.step - 1)];
      panel.replaceChildren(board(step, RUNNING ? null : data.seat, data.names));
      if (!RUNNING) {
        const query = new URLSearchParams({ seat: String(data.seat), step: String(d.step), review: String(data.seat) });
        panel.append(link(`?${query.toString()}`, "Step through the hand from here", "review-step-link"));
      }
    } catch (err) {
      panel.replaceChildren(el("p", "status error", err.message || "The table could not be loaded."));
    }
  });
  wrap.append(button, panel);
  return wrap;
}

// ------------------------------------------------------------------ decisions
function renderDecisions(data) {
  if (!data.decisions.length) {
    body.replaceChildren(el("p", "muted", "This seat had no choice to make in this hand."));
    return;
  }
  const who = data.names[data.seat] || `Seat ${data.seat + 1}`;
  const list = el("ol", "review-list");
  data.decisions.forEach((d, index) => {
    const item = el("li", d.agreed ? "review-decision agreed" : "review-decision differs");
    item.dataset.step = String(d.step);
    const details = el("details");
    details.open = !d.agreed || d.marks.length > 0;
    const line = el("summary");
    const by = d.made_by ? ` (${MADE_BY[d.made_by] || d.made_by})` : "";
    line.append(el("span", "review-step", `Step ${d.step}`), el("span", "review-did", `${who} ${did(d.done, d)}${by}`));
    line.append(el("span", "review-strong", d.agreed ? "strong agrees" : `strong: ${say(d.strong, d)}`));
    for (const mark of d.marks) line.append(el("span", "review-mark", markName(mark.kind)));
    details.append(line);
    details.append(handFigure(d, data.names));
    const key = legend(d);
    if (key) details.append(key);
    for (const mark of d.marks) {
      const p = el("p", "review-mark-text");
      p.append(el("strong", null, `${markName(mark.kind).replace(/^./, (c) => c.toUpperCase())}: `), markWords(mark, d, data));
      details.append(p);
    }
    if (d.options.length) details.append(optionsTable(d), reasons(d, data));
    if (REPLAY) details.append(momentControl(d, data, index));
    item.append(details);
    list.append(item);
  });
  body.replaceChildren(list);
}

load();
