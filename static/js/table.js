// The table page: the waiting room, the game, the end-of-hand and end-of-game panels, and the chat,
// all drawn from the state document the socket keeps (docs/protocol.md §2.3). The page never decides
// what is legal: it offers exactly the seat's `legal_actions` as buttons and keys. Everything another
// person wrote (names, chat) is set with textContent, never parsed as HTML.

import { alertControls, alertFor, announce, clearAlert, setBaseTitle } from "./alerts.js";
import { TableSocket } from "./protocol.js";
import { WIND_HAN, WIND_NAMES, parseTiles, setTileStyle, sortTiles, tileElement, tileKey, tileName, tileRow } from "./tiles.js";
import { backsRow, badge, discardList, el, payments, revealed, seatPanel, signed } from "./render.js";
import {
  forgetSeat,
  loadAutopass,
  loadName,
  loadSeat,
  loadTapTwice,
  loadTileStyle,
  postJson,
  saveAutopass,
  saveName,
  saveSeat,
  saveTapTwice,
} from "./local.js";

const $ = (id) => document.getElementById(id);
const root = $("table");
const TABLE = root.dataset.tableId;
const API = root.dataset.api; // /api/tables/{id}

const ui = {
  conn: $("conn"),
  info: $("table-info"),
  name: $("table-name"),
  notice: $("notice"),
  waiting: $("waiting"),
  seatList: $("seat-list"),
  invite: $("invite-link"),
  copy: $("copy-invite"),
  joinForm: $("join-form"),
  joinName: $("join-name"),
  ownerTools: $("owner-tools"),
  addBots: $("add-bots"),
  botLevel: $("bot-level"),
  start: $("start"),
  leave: $("leave"),
  waitingNote: $("waiting-note"),
  board: $("board"),
  opponents: $("opponents"),
  me: $("me"),
  countdown: $("countdown"),
  controls: $("controls"),
  prompt: $("prompt"),
  actions: $("actions"),
  hand: $("hand"),
  autopass: $("autopass"),
  seatOptions: [document.getElementById("tap-twice").closest("label"), document.getElementById("autopass").closest("label")],
  settings: $("settings"),
  chat: $("chat"),
  chatToggle: $("chat-toggle"),
  chatUnread: $("chat-unread"),
  sortHand: $("sort-hand"),
  hint: $("hint"),
  result: $("result"),
  chatLog: $("chat-log"),
  chatForm: $("chat-form"),
  chatInput: $("chat-input"),
  help: $("help"),
  helpButton: $("help-button"),
};

const POSITIONS = ["me", "right", "across", "left"]; // by distance in turn order from the viewer
const KEYS = { win: "W", kong: "K", pung: "P", chow: "C", pass: "X", ready: "R" };

let seat = loadSeat(TABLE); // {token, seat, owner} from this browser, or null: watching
let state = null;
let clockOffset = 0; // server clock − local clock, ms
let busy = false; // an intent is on its way: don't send another for the same decision
let choosing = null; // "kong" | "chow": waiting for a digit to pick one of several
let autopass = loadAutopass();
let autoPassed = null; // the window we auto-passed
let resultKey = null; // which end-of-hand panel is showing
let chatKey = "";
let noticeTimer = null;
let lastTurnKey = null;
let handOrder = null; // your own order of your hand's tiles, or null: sorted
let handDeal = null;
let tapTwice = loadTapTwice();
let lifted = null; // the tile a first tap lifted: "window:code:slot"
let lastClaimKey = null;

// ------------------------------------------------------------------ helpers
function kbd(key) {
  return el("kbd", null, key);
}

function showNotice(message, ms = 6000) {
  ui.notice.textContent = message;
  ui.notice.hidden = false;
  clearTimeout(noticeTimer);
  noticeTimer = setTimeout(() => {
    ui.notice.hidden = true;
  }, ms);
}

function seatName(s) {
  if (!state || s === null || s === undefined) return "";
  const info = state.table.seats[s];
  return info ? info.name : `Seat ${s + 1}`;
}

/** Every seat's name; a free seat reads "Seat N". */
function seatNames() {
  return state.table.seats.map((s, i) => (s ? s.name : `Seat ${i + 1}`));
}

function mySeat() {
  return state ? state.seat : null;
}

/** Your answer to the open claim window: the engine's, or the one the server holds until the fair
 * pause ends (R6.9), so that nobody's answer closes the window early. */
function myAnswer() {
  const turn = state && state.game ? state.game.turn : null;
  return (turn && turn.answer) || (state && state.answer) || null;
}

function legal() {
  return state && state.game ? state.game.legal_actions : [];
}

function legalOf(type) {
  return legal().filter((a) => a.type === type);
}

function positionOf(s) {
  const base = mySeat() ?? 0;
  return POSITIONS[(s - base + 4) % 4];
}

// -------------------------------------------------------------- the socket
const socket = new TableSocket({
  path: root.dataset.ws,
  table: TABLE,
  token: seat ? seat.token : null,
  onState(next) {
    state = next;
    // A logged-in member's seat is theirs on every device: the server knows them by their login.
    if (!seat && next.seat !== null && next.seat !== undefined) {
      seat = { token: null, seat: next.seat };
      if (ui.conn.dataset.state === "open") showStatus("open");
    }
    busy = false;
    render();
  },
  onStatus: showStatus,
  onClockOffset(offset) {
    clockOffset = offset;
  },
  onAnswer(frame, asked) {
    if (frame.t === "refused") {
      busy = false;
      if (asked && asked.tag === "chat") ui.chatInput.value = ui.chatInput.value || asked.text;
      const message = refusalText(frame.d, asked);
      if (message) showNotice(message);
      render();
    }
  },
  onTimedOut(action) {
    showNotice(`Time ran out: ${timedOutText(action)}`, 8000);
  },
  onRefusedHello(refusal) {
    if (refusal.reason === "auth/bad_token") {
      forgetSeat(TABLE);
      seat = null;
      showNotice("Your seat at this table is no longer yours; you are watching.");
      socket.reconnectAs(null);
    } else if (refusal.reason === "table/moving") {
      showNotice("The table is moving to another server process: reconnecting…", 5000); // the socket closes with 1012
    } else {
      showNotice(refusal.message, 600000);
    }
  },
});

/** What to tell a player whose intent was refused: a late answer to a claim that has closed is
 * "too late", and a late pass is no news at all (the window it passed on is gone either way). */
function refusalText(refusal, asked) {
  const action = asked && asked.action;
  if (refusal.reason === "window/stale") {
    if (!action || action.type === "pass") return "";
    if (action.type === "discard" || action.type === "ready") return "Too late: that moment had already passed.";
    return "Too late: that claim had already closed.";
  }
  return peopleText(refusal.reason, refusal.message);
}

/** A server's refusal in words for people: never an internal id, seat index or status number. */
const REFUSALS = {
  "action/not_offered": "That answer is no longer open to you.",
  "action/already_ready": "You are already ready for the next hand.",
  "seat/taken": "That seat has just been taken.",
  "seat/empty": "That seat is already free.",
  "table/not_found": "This table no longer exists.",
  http: "The server could not answer just now: try again.",
};

function peopleText(reason, message) {
  if (REFUSALS[reason]) return REFUSALS[reason];
  if (/\d/.test(message || "")) return "That did not work: try again in a moment.";
  const text = String(message || "That did not work.");
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** An API call's refusal (an Error from postJson) in words for people. */
function errorText(err) {
  return peopleText(err.reason, err.message);
}

function showStatus(kind, detail) {
  const texts = {
    connecting: "Connecting…",
    open: seat ? "Connected" : "Connected · watching",
    waiting: `Reconnecting in ${Math.max(1, Math.round((detail || 0) / 1000))} s…`,
    closed: detail ? `Disconnected: ${detail}` : "Disconnected",
  };
  ui.conn.dataset.state = kind;
  ui.conn.textContent = texts[kind] || kind;
}

function act(action) {
  if (busy || mySeat() === null) return;
  const id = socket.act(action);
  if (id === null) {
    showNotice("Not connected: reconnecting…");
    return;
  }
  busy = true;
  choosing = null;
  for (const button of document.querySelectorAll("#actions button, #hand button, #result button.ready")) {
    button.disabled = true;
  }
}

// --------------------------------------------------------------- rendering
/** The same seats play again at a new table: a seated person goes there, with their seat token
 * (the new table knows it) or their login. */
function followRematch(table) {
  if (!table.rematch || !seat || followRematch.done) return;
  followRematch.done = true;
  if (seat.token) saveSeat(table.rematch, { token: seat.token, seat: mySeat(), owner: table.owner === mySeat() }); // seats may have been drawn (R2.6)
  window.location.assign(window.location.pathname.replace(TABLE, encodeURIComponent(table.rematch)));
}

async function playAgain(button) {
  button.disabled = true;
  try {
    await postJson(`${API}/rematch`, { token: seat ? seat.token : null });
  } catch (err) {
    button.disabled = false;
    showNotice(errorText(err));
  }
}

// Calls and wins are announced over the caller's side: found by comparing each seat's sets (and the
// hand's result) with what the previous state showed.
const CALLS = { pung: "Pung!", chow: "Chow!", kong: "Kong!" };
let seen = null; // {deal, melds: [count per seat], result}

function announceCalls(game) {
  const counts = game.seats.map((v) => v.melds.length);
  const resultKey = game.result ? `${game.deal}:${game.result.winner}` : null;
  if (seen && seen.deal === game.deal) {
    counts.forEach((n, s) => {
      if (n > seen.melds[s]) {
        const meld = game.seats[s].melds[n - 1];
        placeBubble(announce(callLayer(), positionOf(s), CALLS[meld.kind] || "!", "call"), s);
      }
    });
    const result = game.result;
    if (resultKey && resultKey !== seen.result && result.winner !== null) {
      const self = result.termination === "self_drawn";
      const text = self ? "Mah-Jong! Self-drawn" : `Mah-Jong! On ${seatName(result.discarder)}'s tile`;
      placeBubble(announce(callLayer(), positionOf(result.winner), text, self ? "win self-drawn" : "win"), result.winner);
    }
  }
  seen = { deal: game.deal, melds: counts, result: resultKey };
}

/** A call's bubble sits in front of the caller, over that seat's place in the pond: never over the
 * set just claimed, your hand or your buttons; it takes no clicks. */
function placeBubble(bubble, s) {
  const zone = ui.board.querySelector(`.pond-zone[data-seat="${s}"]`) || ui.board.querySelector(`.seat[data-seat="${s}"]`);
  if (!zone) return;
  const box = zone.getBoundingClientRect();
  const board = ui.board.getBoundingClientRect();
  bubble.style.left = `${box.left - board.left + box.width / 2}px`;
  bubble.style.top = `${box.top - board.top + box.height / 2}px`;
  bubble.style.maxWidth = `${Math.max(box.width, 80)}px`;
}

function callLayer() {
  let layer = document.getElementById("calls");
  if (!layer) {
    layer = el("div", "call-layer");
    layer.id = "calls";
    ui.board.append(layer);
  }
  return layer;
}

function render() {
  if (!state) return;
  const table = state.table;
  followRematch(table);
  ui.name.textContent = table.name;
  setBaseTitle(`${table.name} · Sparrow Mahjong`);
  const game = state.game;
  document.body.classList.toggle("playing", !!game);
  if (!game) {
    ui.waiting.hidden = false;
    ui.board.hidden = true;
    ui.result.hidden = true;
    renderWaiting();
  } else {
    ui.waiting.hidden = true;
    ui.board.hidden = false;
    renderInfo(game);
    renderBoard(game);
    renderResult(game);
    announceCalls(game); // over the board as it is now drawn
    autoPass(game);
  }
  renderChat();
  tick();
}

function renderInfo(game) {
  const parts = [];
  if (game.phase === "over") parts.push("Game over");
  else parts.push(`${WIND_NAMES[game.round_wind]} round`, `hand ${game.deal + 1}`);
  parts.push(`wall ${game.wall.live}`, `dead wall ${game.wall.dead}`);
  ui.info.replaceChildren();
  const wind = el("span", "round-wind", WIND_HAN[game.round_wind]);
  wind.setAttribute("aria-hidden", "true");
  ui.info.append(wind, document.createTextNode(parts.join(" · ")));
  if (mySeat() === null) ui.info.append(el("span", "badge", "watching"));
}

// ------------------------------------------------------------- waiting room
function renderWaiting() {
  const table = state.table;
  const me = mySeat();
  ui.seatList.replaceChildren();
  table.seats.forEach((s, i) => {
    const li = el("li", s ? "taken" : "free");
    li.append(el("span", "seat-no", `Seat ${i + 1}`));
    if (s) {
      li.append(el("span", "who", s.name));
      if (i === me) li.append(el("span", "badge you", "you"));
      if (i === table.owner) li.append(el("span", "badge", "owner"));
      if (s.bot) li.append(el("span", "badge", botLabel(s)));
      else if (!s.connected) li.append(el("span", "badge away", "away"));
      if (me !== null && me === table.owner && i !== me && table.status === "waiting") {
        // The owner may free a seat before the start: a bot's for a late friend, or a person's.
        const remove = el("button", "ghost remove-seat", "Remove");
        remove.type = "button";
        remove.setAttribute("aria-label", `Remove ${s.name} from seat ${i + 1}`);
        remove.addEventListener("click", () => removeSeat(i));
        li.append(remove);
      }
    } else {
      li.append(el("span", "who muted", "free"));
    }
    ui.seatList.append(li);
  });
  const free = table.seats.filter((s) => s === null).length;
  if (!ui.invite.value) ui.invite.value = window.location.origin + window.location.pathname;
  ui.joinForm.hidden = me !== null || free === 0 || table.status !== "waiting";
  if (!ui.joinName.value) ui.joinName.value = loadName();
  const owner = me !== null && me === table.owner;
  ui.ownerTools.hidden = !owner;
  ui.addBots.disabled = free === 0;
  ui.start.disabled = free > 0;
  ui.leave.hidden = me === null;
  if (owner) ui.waitingNote.textContent = free ? "Invite friends with the link, or fill the seats with bots." : "Everyone is here: start when you like.";
  else if (me !== null) ui.waitingNote.textContent = "The table's owner starts the game once four are seated.";
  else ui.waitingNote.textContent = free ? "Take a seat, or stay to watch." : "The table is full; you can watch.";
}

ui.copy.addEventListener("click", async () => {
  ui.invite.select();
  try {
    await navigator.clipboard.writeText(ui.invite.value);
    showNotice("Invite link copied.", 2500);
  } catch {
    showNotice("Select the link and copy it.", 2500);
  }
});

const guestButton = document.getElementById("guest-link"); // members, in a club that takes guests
const guestList = document.getElementById("guest-links");

async function showGuestLinks() {
  const answer = await fetch(`${API}/guest`).then((r) => (r.ok ? r.json() : { links: [] }));
  guestList.replaceChildren(
    ...answer.links.map((link, n) => {
      const item = el("li", "guest-link");
      const until = new Date(link.expires).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
      item.append(el("span", "muted", `Guest link ${n + 1}: ${link.used} of ${link.guests} seated, until ${until} `));
      const revoke = el("button", "ghost", "Revoke");
      revoke.type = "button";
      revoke.addEventListener("click", async () => {
        try {
          await postJson(guestButton.dataset.revoke.replace("LINK", String(link.id)), {});
          showNotice("Guest link revoked: it lets nobody in any more.", 4000);
          ui.invite.value = window.location.href.split("?")[0];
        } catch (err) {
          showNotice(errorText(err));
        }
        showGuestLinks();
      });
      item.append(revoke);
      return item;
    }),
  );
  guestList.hidden = answer.links.length === 0;
}

if (guestButton) {
  guestButton.addEventListener("click", async () => {
    try {
      const guests = Number(document.getElementById("guest-count").value);
      const answer = await postJson(`${API}/guest`, { guests });
      ui.invite.value = new URL(answer.link, window.location.href).href;
      ui.invite.select();
      const who = answer.guests === 1 ? "one guest" : `${answer.guests} guests`;
      showNotice(`Guest link made: it seats ${who} at this table, for a day.`, 4000);
    } catch (err) {
      showNotice(errorText(err));
    }
    showGuestLinks();
  });
  showGuestLinks();
}

ui.joinForm.addEventListener("submit", async (event) => {
  event.preventDefault();
  const name = ui.joinName.value.trim();
  if (!name) return;
  saveName(name);
  try {
    const answer = await postJson(`${API}/join`, { name });
    saveSeat(TABLE, answer);
    seat = loadSeat(TABLE) || { token: answer.token, seat: answer.seat };
    socket.reconnectAs(answer.token);
  } catch (err) {
    showNotice(errorText(err));
  }
});

async function ownerPost(what, extra = {}) {
  if (!seat) return;
  try {
    await postJson(`${API}/${what}`, { token: seat.token, ...extra });
  } catch (err) {
    showNotice(errorText(err));
  }
}

async function removeSeat(index) {
  if (!seat) return;
  try {
    await postJson(`${API}/remove`, { token: seat.token, seat: index });
  } catch (err) {
    showNotice(errorText(err));
  }
}

ui.addBots.addEventListener("click", () => ownerPost("bots", { level: ui.botLevel.value }));
ui.start.addEventListener("click", () => ownerPost("start"));
ui.leave.addEventListener("click", async () => {
  if (!seat) return;
  try {
    await postJson(`${API}/leave`, { token: seat.token });
  } catch (err) {
    showNotice(errorText(err));
    return;
  }
  forgetSeat(TABLE);
  seat = null;
  socket.reconnectAs(null);
});

// -------------------------------------------------------------------- board
function renderBoard(game) {
  const me = mySeat();
  const base = me ?? 0;
  ui.opponents.replaceChildren();
  for (let k = 1; k < 4; k++) ui.opponents.append(tableSeat(game, (base + k) % 4));
  ui.opponents.append(pond(game, base));
  ui.me.replaceWith(tableSeat(game, base, "me"));
  ui.me = $("me");
  renderControls(game);
  fitPrompt();
  fitBoard();
  checkCrowded(game);
}

/** Whose clock is running: the seat to play, or null in a claim window or between hands. */
function clockSeat(game) {
  const turn = game.turn;
  return turn && turn.phase === "turn" && state.clock.kind === "turn" ? turn.seat : null;
}

/** A small countdown for another seat's clock (yours is above your hand, and turns urgent). */
function seatCountdown(kind) {
  const count = el("div", "countdown small seat-clock");
  count.dataset.countdown = kind;
  count.append(el("div", "bar"), el("span", "secs"));
  count.firstChild.append(el("div", "fill"));
  return count;
}

/** The middle of the table: each seat's discards in front of it, in rows of six, around the round's
 * wind and the walls. */
function pond(game, base) {
  const names = seatNames();
  const outer = el("div", "pond");
  const box = el("div", "pond-grid");
  outer.append(box);
  const center = el("div", "pond-center");
  const wind = el("span", "round-wind", WIND_HAN[game.round_wind]);
  wind.title = `${WIND_NAMES[game.round_wind]} round`;
  const hand = game.phase === "over" ? "Game over" : `Hand ${game.deal + 1}`;
  center.append(wind, el("span", "deal", hand), el("span", "walls", `Wall ${game.wall.live}`));
  center.lastChild.title = `${game.wall.live} tiles left to draw, ${game.wall.dead} in the dead wall`;
  // a claim window that is not yours: its clock sits here (its place is kept, so nothing moves)
  const claimClock = seatCountdown("claim");
  if (!(game.turn && game.turn.phase !== "turn" && state.clock.kind === "claim" && !legal().length)) {
    claimClock.classList.add("idle");
    delete claimClock.dataset.countdown;
  }
  center.append(claimClock);
  box.append(center);
  for (let k = 0; k < 4; k++) {
    const s = (base + k) % 4;
    const zone = el("div", `pond-zone pos-${POSITIONS[k]}`);
    zone.dataset.seat = String(s);
    if (game.turn && game.turn.seat === s) zone.classList.add("active");
    zone.append(discardList(game.discards, s, names));
    box.append(zone);
  }
  if (crowdedDeal === game.deal) box.classList.add("crowded");
  return outer;
}

/** The pond's layouts (table.css): the width and height each takes, in discards. */
const POND_LAYOUTS = [
  { name: "", across: 12, down: 9 * 1.36 },
  { name: "wide", across: 16, down: 8 * 1.36 },
  { name: "very-wide", across: 25, down: 5 * 1.36 }, // and the half tile between the places, twice
];

/** Size your hand's tiles to its row, and the pond's discards to the pond: the layout that gives
 * the larger tiles. Only sizes are read and set, so nothing moves unless the screen's size does. */
function fitBoard() {
  const box = ui.board.querySelector(".hand-box");
  if (!box || ui.board.hidden) return;
  box.style.setProperty("--hand-w", `${box.clientWidth}px`);
  const pond = ui.board.querySelector(".pond");
  const grid = ui.board.querySelector(".pond-grid");
  if (!pond || !grid) return;
  const spare = 16; // the gaps between the seats' places, and a little air
  let best = POND_LAYOUTS[0];
  let unit = 0;
  for (const layout of POND_LAYOUTS) {
    const u = Math.min((pond.clientWidth - spare) / layout.across, (pond.clientHeight - spare) / layout.down);
    if (u > unit + 0.01) {
      unit = u;
      best = layout;
    }
  }
  for (const layout of POND_LAYOUTS) if (layout.name) grid.classList.toggle(layout.name, layout === best);
  grid.style.setProperty("--U", `${Math.max(8, Math.floor(unit * 10) / 10)}px`);
}
window.addEventListener("resize", () => {
  if (!state || !state.game) return;
  fitPrompt();
  fitBoard();
});

/** The prompt, your buttons and your clock on one line while they fit there; when they do not (a
 * claim offering several chows, a phone's narrow screen) the row stacks: the prompt and the clock
 * above, the buttons under them, wrapping as they must, so that nothing is cut off or pushed away. */
function fitPrompt() {
  const row = ui.prompt.parentElement;
  row.classList.remove("stacked");
  const over = (box) => box.scrollWidth > box.clientWidth + 1 || box.scrollHeight > box.clientHeight + 1;
  row.classList.toggle("stacked", over(ui.prompt) || over(ui.actions) || over(row));
}

/** A seat with more discards than its place in the pond holds makes the pond crowded (smaller
 * tiles) for the rest of the hand, so that every discard stays on the screen. */
let crowdedDeal = null;

function checkCrowded(game) {
  const grid = ui.board.querySelector(".pond-grid");
  if (!grid || grid.classList.contains("crowded")) return;
  for (const zone of grid.querySelectorAll(".pond-zone")) {
    const list = zone.querySelector(".discards");
    if (list && list.scrollHeight > zone.clientHeight + 1) {
      crowdedDeal = game.deal;
      grid.classList.add("crowded");
      return;
    }
  }
}

function tableSeat(game, s, id) {
  const view = game.seats[s];
  const info = state.table.seats[s] || {};
  const turn = game.turn;
  const active = turn && turn.phase === "turn" && turn.seat === s;
  const badges = [];
  if (s === mySeat()) badges.push(badge("you", "you"));
  if (game.dealer === s) badges.push(badge("dealer", "dealer"));
  if (info.bot) {
    const bot = badge("bot", "bot"); // its level is left out where room is short (a phone)
    if (info.level) bot.append(el("span", "level", ` · ${info.level}`));
    badges.push(bot);
  }
  else if (info.substitute) badges.push(badge("away · bot plays", "away"));
  else if (info.away) badges.push(badge("away", "away"));
  if (active) badges.push(badge("▶ to play", "turn"));
  // R5.4: an Original Call is public, and so is breaking it
  if (view.original_call === "declared") badges.push(badge("Original Call", "call"));
  else if (view.original_call === "broken") badges.push(badge("call broken", "call"));

  let concealed = null;
  if (s !== mySeat() || game.result) {
    const hidden = view.concealed === undefined;
    concealed = el("div", "concealed");
    concealed.setAttribute("aria-label", hidden ? `${view.tiles} concealed tiles` : "hand");
    if (hidden) concealed.append(backsRow(view.tiles), el("span", "count", `${view.tiles} tiles`));
    else if (s !== mySeat()) concealed.append(tileRow(parseTiles(view.concealed), { classes: "small" }));
    if (!concealed.childElementCount) concealed = null;
  }
  // every other seat keeps a place for its clock, so that the seat does not grow when it runs
  let clock = null;
  if (s !== mySeat()) {
    clock = seatCountdown("turn");
    if (clockSeat(game) !== s) {
      clock.classList.add("idle");
      delete clock.dataset.countdown;
    }
  }
  return seatPanel(game, s, seatNames(), {
    classes: `pos-${positionOf(s)}`,
    id,
    active,
    badges,
    concealed,
    discards: false,
    extra: clock,
  });
}

// ---------------------------------------------------------------- controls
function renderControls(game) {
  const me = mySeat();
  const turn = game.turn;
  const actions = legal();
  ui.prompt.replaceChildren();
  ui.actions.replaceChildren();
  const focusInHand = ui.hand.contains(document.activeElement);
  const focused = focusInHand ? [...ui.hand.querySelectorAll(".tile")].indexOf(document.activeElement) : -1;
  ui.hand.replaceChildren();
  ui.autopass.checked = autopass;
  ui.autopass.disabled = me === null;
  for (const option of ui.seatOptions) option.hidden = me === null; // a spectator has no claims to pass and no tiles to tap

  if (me === null) {
    ui.prompt.textContent = "You are watching: only what every player can see is shown.";
  }
  if (!turn) {
    renderHand(game, -1);
    return;
  }
  const mine = turn.phase === "turn" && turn.seat === me;
  if (turn.phase === "turn" && me !== null) {
    if (mine) {
      const more = el("span", "more", "choose a tile to discard");
      if (legalOf("win").length || legalOf("kong").length) more.append(" — or declare");
      ui.prompt.append(el("strong", null, "Your turn: "), more);
    } else {
      ui.prompt.textContent = `${seatName(turn.seat)} to play`;
    }
  } else if (turn.phase === "claim" || turn.phase === "rob") {
    const what = turn.phase === "rob" ? "adds to a pung, for a kong" : "discarded";
    const line = el("span", "claim-line");
    line.append(`${seatName(turn.from)} ${what} `, tileElement(turn.tile, { classes: "claim-tile" }));
    ui.prompt.append(line);
    if (me !== null && actions.length && !passOnly()) {
      // R6.9: with the fair pause everyone is asked; a seat that can only pass is not asked at all
      ui.prompt.append(el("span", "claim-ask", turn.phase === "rob" ? " — rob the kong?" : " — claim it?"));
    }
    if (myAnswer() && !passOnly()) ui.prompt.append(el("span", "answered", ` You chose ${describe(myAnswer())}; waiting for the others.`));
  }

  // the buttons, in the order of R6.2's priority
  addButtons("win", mine ? "Mah-Jong!" : "Win");
  addButtons("kong", "Kong");
  addButtons("pung", "Pung");
  addButtons("chow", "Chow");
  if (!passOnly()) addButtons("pass", "Pass"); // nothing to decide: no button either
  // R5.4: a first discard that leaves the hand ready may declare Original Call
  for (const action of legalOf("original_call")) {
    const button = actionButton("original-call", "Original Call", null, () => act(action));
    button.append(" ", tileElement(action.tile, { classes: "mini" })); // its name: "Original Call North wind"
    ui.actions.append(button);
  }
  const drawn = mine ? turn.drawn : undefined;
  if (drawn && actions.some((a) => a.type === "discard" && a.tile === drawn)) {
    const button = actionButton("discard-drawn", "Discard drawn", "D", () => act({ type: "discard", tile: drawn }));
    button.append(" ", tileElement(drawn, { classes: "mini" }));
    ui.actions.append(button);
  }
  if (choosing) {
    const n = legalOf(choosing).length;
    ui.actions.append(el("p", "choose-hint", `Press 1–${n} to choose the ${choosing}, Esc to cancel.`));
  }
  if (myAnswer()) {
    for (const button of ui.actions.querySelectorAll("button")) {
      const pressed = button.dataset.answer === JSON.stringify(myAnswer());
      button.setAttribute("aria-pressed", String(pressed));
    }
  }
  renderHand(game, focused);
  renderHint();
  const turnKey = `${game.deal}:${state.clock.window}`;
  if (mine && turnKey !== lastTurnKey) {
    const active = document.activeElement;
    if (!active || active === document.body || ui.board.contains(active)) focusHand("drawn");
  } else if (focusInHand) {
    focusHand(focused);
  }
  lastTurnKey = mine ? turnKey : null;
  // a claim for you to answer: bring its buttons into view and under the keyboard
  const asked = turn.phase !== "turn" && actions.length > 0 && !myAnswer() && !passOnly();
  const willPass = autopass && !legalOf("win").length;
  const claimKey = asked ? turnKey : null;
  if (claimKey && claimKey !== lastClaimKey && !willPass) {
    const active = document.activeElement;
    const first = ui.actions.querySelector("button");
    if (first && (!active || active === document.body || ui.board.contains(active))) first.focus();
  }
  lastClaimKey = claimKey;
  if (legalOf("win").length && !myAnswer()) alertFor(`win:${turnKey}`, "You can win!", { urgent: true });
  else if (mine) alertFor(`turn:${turnKey}`, "Your turn");
  else if (asked && !willPass) alertFor(`claim:${turnKey}`, "You can claim");
  else clearAlert();
}

/** A bot's badge: "bot · strong" (bots seated before levels existed say just "bot"). */
function botLabel(info) {
  return info.level ? `bot · ${info.level}` : "bot";
}

/** Whether the only answer this seat has is `pass` (a fair-pause window it cannot claim in, R6.9). */
function passOnly() {
  const actions = legal();
  return actions.length > 0 && actions.every((a) => a.type === "pass");
}

/** What the server did for a seat whose clock ran out: "7 bamboo discarded for you." */
function timedOutText(action) {
  if (action.type === "discard") return `${tileName(action.tile)} discarded for you.`;
  if (action.type === "pass") return "you passed.";
  if (action.type === "ready") return "you are ready for the next hand.";
  return `${describe(action)} for you.`;
}

function describe(action) {
  if (action.type === "chow") return `chow (${action.tiles.join(" ")})`;
  return action.type;
}

function actionButton(type, text, key, onClick) {
  const button = el("button", `action action-${type}`);
  button.type = "button";
  button.dataset.action = type;
  button.append(el("span", "label", text));
  if (key) button.append(" ", kbd(key));  // (spaces: the name read out is "Chow C1 …", not "ChowC1…")
  button.disabled = busy;
  button.addEventListener("click", onClick);
  return button;
}

/** One button per legal action of ``type``. A chow's or kong's button shows its tiles, and its name is
 *  what it shows: its word, its key hint where one is shown, and its tiles' names ("Chow C1 2 of bamboo
 *  3 of bamboo 4 of bamboo"), so that the name always holds the visible text. */
function addButtons(type, text) {
  const options = legalOf(type);
  options.forEach((action, i) => {
    const several = options.length > 1;
    const key = several ? `${KEYS[type]}${i + 1}` : KEYS[type];
    const button = actionButton(type, text, key, () => act(action));
    button.dataset.answer = JSON.stringify(action);
    if (type === "chow") {
      const turn = state.game.turn;
      const row = tileRow(sortTiles([...action.tiles, turn.tile]), { classes: "mini" });
      for (const tile of [...row.children].slice(1)) tile.before(" ");
      button.append(" ", row);
    } else if (type === "kong" && action.tile) {
      button.append(" ", tileElement(action.tile, { classes: "mini" }));
    }
    if (type === "win") button.classList.add("primary");
    if (choosing === type) button.classList.add("choosing");
    ui.actions.append(button);
  });
}

/**
 * Your hand in your order: sorted, unless you dragged tiles (or moved them with Alt+←/→) into an
 * order of your own, which is kept as tiles come and go (a new tile takes its sorted place);
 * *Sort* goes back to sorted.
 */
function arranged(codes) {
  if (!handOrder) return codes;
  const left = [...codes];
  const kept = [];
  for (const code of handOrder) {
    const at = left.indexOf(code);
    if (at >= 0) kept.push(...left.splice(at, 1));
  }
  for (const code of left) {
    const at = kept.findIndex((k) => tileKey(k) > tileKey(code));
    kept.splice(at < 0 ? kept.length : at, 0, code);
  }
  handOrder = kept;
  return kept;
}

function moveInHand(from, to) {
  const codes = [...ui.hand.querySelectorAll(".hand-tiles .tile")].map((t) => t.dataset.tile);
  if (from < 0 || from >= codes.length || to < 0 || to >= codes.length || from === to) return;
  const [code] = codes.splice(from, 1);
  codes.splice(to, 0, code);
  handOrder = codes;
  render();
}

/** The ready hint (if the table offers it): your waits, each with how many you have not seen. */
function renderHint() {
  const hint = state.hint || [];
  ui.hint.hidden = hint.length === 0;
  if (!hint.length) return;
  ui.hint.replaceChildren(el("strong", null, "Ready, waiting on: "));
  for (const { tile, unseen } of hint) {
    const item = el("span", "wait");
    item.append(tileElement(tile, { classes: "mini" }), el("span", "unseen", `${unseen} unseen`));
    ui.hint.append(item);
  }
}

function renderHand(game, focused) {
  const me = mySeat();
  if (me === null) return;
  const view = game.seats[me];
  let codes = sortTiles(parseTiles(view.concealed || ""));
  const turn = game.turn;
  const drawn = turn && turn.phase === "turn" && turn.seat === me ? turn.drawn : undefined;
  if (drawn && codes.includes(drawn)) codes.splice(codes.indexOf(drawn), 1);
  if (handDeal !== game.deal) {
    handDeal = game.deal; // a new hand starts sorted
    handOrder = null;
  }
  codes = arranged(codes);
  const discardable = new Set(legalOf("discard").map((a) => a.tile));
  const row = el("div", "tiles hand-tiles");
  const make = (code, extra) => {
    const can = discardable.has(code);
    const tile = tileElement(code, {
      tag: can ? "button" : "span",
      label: can ? `Discard ${tileName(code)}` : tileName(code),
      classes: extra,
    });
    if (can) {
      tile.type = "button";
      tile.tabIndex = -1;
      tile.disabled = busy;
      const key = `${state.clock.window}:${code}:${extra}`;
      if (lifted === key) tile.classList.add("lifted");
      tile.addEventListener("click", (event) => {
        // "Tap twice to discard": a first tap (not a key press, whose click has no detail) lifts it
        if (tapTwice && event.detail !== 0 && lifted !== key) {
          lifted = key;
          for (const other of ui.hand.querySelectorAll(".lifted")) other.classList.remove("lifted");
          tile.classList.add("lifted");
          tile.setAttribute("aria-pressed", "true");
          return;
        }
        lifted = null;
        act({ type: "discard", tile: code });
      });
    }
    return tile;
  };
  codes.forEach((code, i) => {
    const tile = make(code, "");
    tile.draggable = true; // drag a tile onto another to move it there
    tile.addEventListener("dragstart", (event) => {
      event.dataTransfer.setData("text/plain", String(i));
      event.dataTransfer.effectAllowed = "move";
    });
    tile.addEventListener("dragover", (event) => event.preventDefault());
    tile.addEventListener("drop", (event) => {
      event.preventDefault();
      moveInHand(Number(event.dataTransfer.getData("text/plain")), i);
    });
    row.append(tile);
  });
  ui.hand.append(row);
  ui.sortHand.hidden = !handOrder;
  if (drawn) {
    const apart = el("div", "tiles drawn-slot");
    apart.append(make(drawn, "drawn"));
    ui.hand.append(apart);
  }
  const buttons = ui.hand.querySelectorAll("button.tile");
  if (buttons.length) {
    const start = focused >= 0 && focused < buttons.length ? focused : buttons.length - 1;
    buttons[start].tabIndex = 0;
  }
  ui.hand.classList.toggle("can-discard", buttons.length > 0);
}

function focusHand(which) {
  const buttons = [...ui.hand.querySelectorAll("button.tile")];
  if (!buttons.length) return;
  let i = which === "drawn" ? buttons.findIndex((b) => b.classList.contains("drawn")) : which;
  if (i < 0 || i >= buttons.length) i = buttons.length - 1;
  for (const b of buttons) b.tabIndex = -1;
  buttons[i].tabIndex = 0;
  buttons[i].focus();
}

ui.sortHand.addEventListener("click", () => {
  handOrder = null;
  render();
});

ui.hand.addEventListener("keydown", (event) => {
  const buttons = [...ui.hand.querySelectorAll("button.tile")];
  const i = buttons.indexOf(document.activeElement);
  if (i < 0) return;
  if (event.altKey && (event.key === "ArrowLeft" || event.key === "ArrowRight")) {
    event.preventDefault(); // move the tile within your hand
    const tiles = [...ui.hand.querySelectorAll(".hand-tiles .tile")];
    const at = tiles.indexOf(document.activeElement);
    if (at < 0) return;
    const to = event.key === "ArrowLeft" ? at - 1 : at + 1;
    moveInHand(at, to);
    const moved = [...ui.hand.querySelectorAll(".hand-tiles .tile")][Math.max(0, Math.min(to, tiles.length - 1))];
    if (moved && moved.tagName === "BUTTON") {
      for (const b of ui.hand.querySelectorAll("button.tile")) b.tabIndex = -1;
      moved.tabIndex = 0;
      moved.focus();
    }
    return;
  }
  let next = null;
  if (event.key === "ArrowRight" || event.key === "ArrowDown") next = (i + 1) % buttons.length;
  else if (event.key === "ArrowLeft" || event.key === "ArrowUp") next = (i - 1 + buttons.length) % buttons.length;
  else if (event.key === "Home") next = 0;
  else if (event.key === "End") next = buttons.length - 1;
  if (next !== null) {
    event.preventDefault();
    focusHand(next);
  }
});

// ------------------------------------------------------- end of hand / game
function renderResult(game) {
  const result = game.result;
  if (!result) {
    ui.result.hidden = true;
    resultKey = null;
    return;
  }
  const key = `${game.deal}:${game.phase}`;
  const readyFocused = document.activeElement && document.activeElement.classList.contains("ready");
  const open = [...ui.result.querySelectorAll("details")].map((d) => d.open); // kept while it shows
  ui.result.hidden = false;
  ui.result.replaceChildren();
  const names = seatNames();
  // A sheet over the table: what happened, and its button, always on the screen; the details (every
  // hand laid open, who paid whom) fold out, and scroll inside the sheet if they must.
  const body = el("div", "sheet-body");

  const title = el("h2", null);
  title.id = "result-title";
  if (game.phase === "over") title.textContent = "Game over";
  else if (result.winner === null) title.textContent = `Hand ${game.deal + 1}: a wash-out`;
  else title.textContent = `Hand ${game.deal + 1}: ${names[result.winner]} wins`;
  body.append(title);
  let line = summary(result, names);
  if (game.phase === "over") {
    const who = result.winner === null ? "a wash-out" : `${names[result.winner]} won`;
    line = `The last hand, hand ${game.deal + 1}: ${who}. ${line}`;
  }
  body.append(el("p", "summary", line));

  if (game.phase === "over") body.append(standings(game, names));

  const order = [0, 1, 2, 3].filter((s) => s !== result.winner);
  const cards = (seats) => {
    const list = el("div", "reveal-list");
    for (const s of seats) list.append(revealed(game, s, result, names));
    return list;
  };
  const fold = (text, ...content) => {
    const details = el("details", "more");
    details.append(el("summary", null, text), ...content);
    return details;
  };
  const folds = [];
  if (result.winner !== null) {
    const winner = cards([result.winner]);
    if (game.phase === "over") folds.push(fold(`${names[result.winner]}'s winning hand`, winner));
    else body.append(winner);
  }
  const settlement = payments(game, result, names);
  const changes = settlement.querySelector(".changes");
  if (changes && game.phase !== "over") body.append(changes); // each seat's change at a glance
  folds.push(fold(result.winner === null ? "Every hand" : "The other hands", cards(order)));
  folds.push(fold("Payments", settlement));
  folds.forEach((details, i) => {
    details.open = !!open[i];
  });
  body.append(...folds);
  ui.result.append(body);

  const foot = el("div", "result-foot");
  const ready = legalOf("ready");
  if (ready.length) {
    const button = actionButton("ready", "Next hand", "R", () => act(ready[0]));
    button.classList.add("primary", "ready");
    foot.append(button);
  }
  if (game.phase !== "over") {
    const who = game.ready.map((s) => names[s]);
    foot.append(el("span", "muted", who.length ? `Ready: ${who.join(", ")}` : "Waiting for everyone to be ready"));
    const count = el("div", "countdown small");
    count.dataset.countdown = "ready";
    count.append(el("div", "bar"), el("span", "secs"));
    count.firstChild.append(el("div", "fill"));
    foot.append(count);
  } else {
    const table = state.table;
    if (table.rematch && mySeat() === null) {
      const watch = el("a", "button primary", "Watch their next game");
      watch.href = window.location.pathname.replace(TABLE, encodeURIComponent(table.rematch));
      foot.append(watch);
    } else if (mySeat() !== null && mySeat() === table.owner) {
      const again = el("button", "primary play-again", "Play again with the same seats");
      again.type = "button";
      again.addEventListener("click", () => playAgain(again));
      foot.append(again);
    }
    const back = el("a", "button", "Back to the lobby");
    back.href = document.querySelector("a.brand").getAttribute("href");
    foot.append(back);
  }
  ui.result.append(foot);

  if (key !== resultKey) {
    resultKey = key;
    for (const details of ui.result.querySelectorAll("details")) details.open = false; // a new result starts folded
    const button = ui.result.querySelector("button.ready");
    if (button) button.focus({ preventScroll: true });
    else ui.result.focus({ preventScroll: true });
  } else if (readyFocused) {
    const button = ui.result.querySelector("button.ready");
    if (button) button.focus({ preventScroll: true });
  }
}

function summary(result, names) {
  if (result.winner === null) return `The wall ran out; nobody scores.${result.reason ? ` (${result.reason})` : ""}`;
  const tile = result.tile ? ` with ${tileName(result.tile)}` : "";
  switch (result.termination) {
    case "self_drawn":
      return `Self-drawn${result.win_by === "loose" ? " on a loose tile" : ""}${tile}.`;
    case "robbed_kong":
      return `Robbing ${names[result.discarder]}'s kong${tile}.`;
    default:
      return `On ${names[result.discarder]}'s discard${tile}.`;
  }
}

function standings(game, names) {
  const wrap = el("section", "standings");
  wrap.append(el("h3", null, "Final standings"));
  const table = el("table", "standings-table");
  const ranked = game.seats.map((v, s) => ({ s, score: v.score })).sort((a, b) => b.score - a.score);
  const start = state.table.ruleset.options.starting_score;
  const head = el("thead");
  const hr = el("tr");
  for (const [text, cls] of [["", ""], ["Player", ""], ["Score", "num"], ["Won or lost", "num"]]) {
    const th = el("th", cls, text);
    th.scope = "col";
    hr.append(th);
  }
  head.append(hr);
  const body = el("tbody");
  ranked.forEach((r, i) => {
    const tr = el("tr");
    const change = typeof start === "number" ? signed(r.score - start) : "";
    const changeCell = el("td", `num change ${r.score > start ? "up" : r.score < start ? "down" : ""}`.trim(), change);
    tr.append(el("td", "rank", `${i + 1}.`), el("td", null, names[r.s]), el("td", "num", String(r.score)), changeCell);
    body.append(tr);
  });
  table.append(head, body);
  wrap.append(table);
  const review = el("p", "review");
  const link = el("a", null, "Review this game hand by hand");
  link.href = root.dataset.history;
  review.append(link);
  wrap.append(review);
  return wrap;
}

// ---------------------------------------------------------------- auto-pass
function autoPass(game) {
  if (!autopass || mySeat() === null || busy) return;
  const turn = game.turn;
  if (!turn || (turn.phase !== "claim" && turn.phase !== "rob") || myAnswer()) return;
  if (legalOf("win").length || !legalOf("pass").length) return; // never pass up a win for you
  const window = state.clock.window;
  if (autoPassed === window) return;
  autoPassed = window;
  act({ type: "pass" });
}


const tapBox = $("tap-twice");
tapBox.checked = tapTwice;
tapBox.addEventListener("change", () => {
  tapTwice = tapBox.checked;
  lifted = null;
  saveTapTwice(tapTwice);
  render();
});
alertControls($("alert-controls"));

const simpleTiles = $("simple-tiles");
simpleTiles.checked = loadTileStyle() === "simple";
simpleTiles.addEventListener("change", () => setTileStyle(simpleTiles.checked ? "simple" : "pictures"));

ui.autopass.addEventListener("change", () => {
  autopass = ui.autopass.checked;
  saveAutopass(autopass);
  if (state && state.game) autoPass(state.game);
});

// --------------------------------------------------------------- countdown
function tick() {
  const clock = state ? state.clock : null;
  const now = Date.now() + clockOffset;
  const show = !!(clock && clock.deadline && state.game);
  const kinds = { turn: state?.table.timers.turn, claim: state?.table.timers.claim, ready: state?.table.timers.ready };
  const total = show ? (kinds[clock.kind] || 1) * 1000 : 1;
  const left = show ? Math.max(0, clock.deadline - now) : 0;
  // Above your hand only while the decision is yours; another seat's clock sits with that seat. A
  // seat that can only pass in the fair pause (R6.9) has nothing to decide: no clock for it.
  const mine = show && clock.kind !== "ready" && legal().some((a) => a.type !== "ready") && !passOnly();
  ui.countdown.hidden = !mine;
  for (const box of [ui.countdown, ...document.querySelectorAll("[data-countdown]")]) {
    if (!show) continue;
    const fill = box.querySelector(".fill");
    fill.style.width = `${Math.min(100, (left / total) * 100)}%`;
    const secs = Math.ceil(left / 1000);
    box.querySelector(".secs").textContent = `${secs} s`;
    box.classList.toggle("urgent", secs <= 5 && (box === ui.countdown || box.dataset.countdown === "ready"));
  }
}
setInterval(tick, 250);

// --------------------------------------------------------------------- chat
// Beside the table on a wide screen; on a phone it opens over the table from the header's *Chat*,
// which counts the messages that came while it was closed.
let chatRead = 0; // how many of the chat's lines you have had in view

function chatShown() {
  return ui.chat.checkVisibility ? ui.chat.checkVisibility() : ui.chat.offsetParent !== null;
}

function countUnread() {
  const chat = (state && state.chat) || [];
  if (chatShown()) chatRead = chat.length;
  const unread = chat.slice(chatRead).filter((line) => line.seat === null || line.seat !== mySeat()).length;
  ui.chatUnread.hidden = unread === 0;
  ui.chatUnread.textContent = unread ? String(unread) : "";
  ui.chatToggle.setAttribute("aria-label", unread ? `Chat, ${unread} unread` : "Chat");
}

function openChat(open) {
  ui.chat.classList.toggle("open", open);
  ui.chatToggle.setAttribute("aria-expanded", String(open));
  if (open) ui.settings.open = false;
  countUnread();
}

ui.chatToggle.addEventListener("click", () => {
  const open = !ui.chat.classList.contains("open");
  openChat(open);
  if (open) ui.chatInput.focus({ preventScroll: true });
});
window.addEventListener("resize", countUnread);

function renderChat() {
  const chat = state.chat || [];
  const last = chat[chat.length - 1];
  const key = `${chat.length}:${last ? `${last.at}:${last.seat}:${last.text}` : ""}`;
  if (!chatKey && !chatRead) chatRead = chat.length; // what was said before you came is not news
  const spectator = mySeat() === null;
  ui.chatInput.disabled = spectator;
  ui.chatInput.placeholder = spectator ? "Only players can write here" : "Say something (T)";
  if (key === chatKey) return;
  chatKey = key;
  const log = ui.chatLog;
  const atBottom = log.scrollHeight - log.scrollTop - log.clientHeight < 40;
  log.replaceChildren();
  for (const line of chat) {
    const li = el("li");
    const time = new Date(line.at - clockOffset);
    const stamp = el("time", "muted", time.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" }));
    stamp.dateTime = time.toISOString();
    li.append(stamp, " ", el("strong", "who", line.name), " ", el("span", "text", line.text));
    log.append(li);
  }
  if (atBottom) log.scrollTop = log.scrollHeight;
  countUnread();
}

ui.chatForm.addEventListener("submit", (event) => {
  event.preventDefault();
  const text = ui.chatInput.value.trim();
  if (!text) return;
  if (socket.chat(text) === null) {
    showNotice("Not connected: reconnecting…");
    return;
  }
  ui.chatInput.value = "";
});

// ----------------------------------------------------------------- keyboard
function pick(type) {
  const options = legalOf(type);
  if (!options.length || busy) return;
  if (options.length === 1) act(options[0]);
  else {
    choosing = type;
    render();
    const first = ui.actions.querySelector(`button[data-action="${type}"]`);
    if (first) first.focus();
  }
}

document.addEventListener("keydown", (event) => {
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  const target = event.target;
  if (target.closest && target.closest("input, textarea, select, dialog")) return;
  const key = event.key;
  if (choosing && /^[1-9]$/.test(key)) {
    const option = legalOf(choosing)[+key - 1];
    if (option) {
      event.preventDefault();
      act(option);
    }
    return;
  }
  switch (key.toLowerCase()) {
    case "?":
      ui.help.showModal();
      break;
    case "escape":
      if (ui.settings.open) {
        ui.settings.open = false;
        ui.settings.querySelector("summary").focus();
        break;
      }
      if (!choosing) return;
      choosing = null;
      render();
      break;
    case "t":
      if (!chatShown()) openChat(true);
      ui.chatInput.focus({ preventScroll: true });
      break;
    case "h":
      focusHand(0);
      break;
    case "a":
      if (mySeat() === null) return;
      ui.autopass.checked = !ui.autopass.checked;
      ui.autopass.dispatchEvent(new Event("change"));
      showNotice(autopass ? "Auto-pass on: claims are passed for you, never a win." : "Auto-pass off.", 2500);
      break;
    case "w": {
      const win = legalOf("win");
      if (win.length) act(win[0]);
      break;
    }
    case "k":
      pick("kong");
      break;
    case "c":
      pick("chow");
      break;
    case "p":
      pick("pung");
      break;
    case "x":
      pick("pass");
      break;
    case "r":
      pick("ready");
      break;
    case "d": {
      const turn = state && state.game ? state.game.turn : null;
      const drawn = turn && turn.phase === "turn" && turn.seat === mySeat() ? turn.drawn : null;
      if (drawn && legal().some((a) => a.type === "discard" && a.tile === drawn)) act({ type: "discard", tile: drawn });
      break;
    }
    default:
      return;
  }
  event.preventDefault();
});

ui.helpButton.addEventListener("click", () => {
  ui.settings.open = false;
  ui.help.showModal();
});

// the settings menu closes when you tap or click elsewhere
document.addEventListener("click", (event) => {
  if (ui.settings.open && !ui.settings.contains(event.target)) ui.settings.open = false;
  if (ui.chat.classList.contains("open") && !ui.chat.contains(event.target) && !ui.chatToggle.contains(event.target)) {
    openChat(false);
  }
});
ui.settings.addEventListener("toggle", () => {
  if (ui.settings.open && ui.chat.classList.contains("open")) openChat(false);
});
ui.chatInput.addEventListener("keydown", (event) => {
  if (event.key === "Escape" && ui.chat.classList.contains("open")) {
    openChat(false);
    ui.chatToggle.focus();
  }
});

// --------------------------------------------------------------------- start
socket.connect();
