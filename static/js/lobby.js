// The lobby page: your name (remembered), the public tables with their free seats (a page at a time), and the form
// that creates a table. Every name comes from other people: it is only ever set as text.

import { loadName, loadSeat, postJson, saveName, saveSeat } from "./local.js";

const root = document.getElementById("lobby");
const API = root.dataset.api; // /api/tables
const TABLE_URL = root.dataset.tableUrl; // /t/TABLE_ID
const nameInput = document.getElementById("player-name");
const errorBox = document.getElementById("lobby-error");
const list = document.getElementById("table-list");
const empty = document.getElementById("no-tables");
const form = document.getElementById("create-form");
const more = document.getElementById("more-tables");
const REFRESH_MS = 4000;

function tableUrl(id) {
  return TABLE_URL.replace("TABLE_ID", encodeURIComponent(id));
}

function showError(message) {
  errorBox.textContent = message;
  errorBox.hidden = !message;
}

function playerName() {
  const name = nameInput.value.trim();
  if (!name) {
    showError("Choose a name first: the other players will see it.");
    nameInput.focus();
    return null;
  }
  saveName(name);
  return name;
}

function el(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined) node.textContent = text;
  return node;
}

function renderTables(tables) {
  list.replaceChildren();
  empty.hidden = tables.length > 0;
  for (const table of tables) {
    const seated = table.seats.filter((s) => s !== null);
    const free = 4 - seated.length;
    const item = el("li", "table-item");
    item.dataset.table = table.id;
    const head = el("div", "table-item-head");
    head.append(el("strong", "table-item-name", table.name));
    const status = table.status === "waiting" ? `${free} free seat${free === 1 ? "" : "s"}` : table.status;
    head.append(el("span", `badge badge-${table.status}`, status));
    item.append(head);
    const people = el("p", "table-item-seats muted");
    people.textContent = seated.map((s) => (s.bot ? `${s.name} (${s.level ? `${s.level} bot` : "bot"})` : s.name)).join(", ") || "nobody yet";
    item.append(people);
    const meta = el("p", "table-item-meta muted");
    const turn = table.timers.turn === null ? "relaxed" : `${table.timers.turn}s turns`;
    meta.textContent = `${table.ruleset.name} · ${turn}`;
    item.append(meta);
    const actions = el("div", "table-item-actions");
    const mine = loadSeat(table.id);
    if (mine) {
      const back = el("a", "button primary", "Back to your seat");
      back.href = tableUrl(table.id);
      actions.append(back);
    } else if (table.status === "waiting" && free > 0) {
      const join = el("button", "primary", "Take a seat");
      join.type = "button";
      join.addEventListener("click", () => joinTable(table.id));
      actions.append(join);
    }
    // Adjourned tables are listed to the members seated at them (and admins): opening one plays on.
    const watch = el("a", "button", table.status === "adjourned" ? "Open" : "Watch");
    watch.href = tableUrl(table.id);
    actions.append(watch);
    item.append(actions);
    list.append(item);
  }
}

let pages = 1; // the list comes a page at a time (newest first); "More tables" shows one more

async function refresh() {
  try {
    const tables = [];
    let next = null;
    for (let page = 0; page < pages; page++) {
      const url = next === null ? API : `${API}?before=${encodeURIComponent(next)}`;
      const response = await fetch(url, { headers: { Accept: "application/json" } });
      if (!response.ok) throw new Error(String(response.status));
      const data = await response.json();
      tables.push(...data.tables);
      next = data.next;
      if (next === null) break;
    }
    renderTables(tables);
    more.hidden = next === null;
  } catch {
    /* keep the last list; the next refresh will try again */
  }
}

async function joinTable(id) {
  const name = playerName();
  if (!name) return;
  try {
    const answer = await postJson(`${API}/${encodeURIComponent(id)}/join`, { name });
    saveSeat(id, answer);
    window.location.assign(tableUrl(id));
  } catch (err) {
    showError(err.message);
    refresh();
  }
}

function number(value, fallback) {
  const n = Number(value);
  return value === "" || Number.isNaN(n) ? fallback : n;
}

async function createTable(event) {
  event.preventDefault();
  showError("");
  const name = playerName();
  if (!name) return;
  const f = new FormData(form);
  const overrides = {
    flowers: f.get("flowers") === "on",
    game_length: f.get("game_length"),
    limit: number(f.get("limit"), 500),
    seat_draw: f.get("seat_draw") === "on", // R2.6
    claim_pause: f.get("claim_pause") === "on", // R6.9
  };
  const timers = {
    turn: f.get("relaxed") === "on" ? null : number(f.get("turn"), 30),
    claim: number(f.get("claim"), 6),
    bot_delay: number(f.get("bot_delay"), 0.8),
  };
  const body = {
    name: String(f.get("name") || "").trim() || "Mahjong table",
    player: name,
    ruleset: f.get("ruleset"),
    overrides,
    timers,
    public: f.get("public") === "on",
    hints: f.get("hints") === "on",
  };
  const button = form.querySelector("button[type=submit]");
  button.disabled = true;
  try {
    const answer = await postJson(API, body);
    saveSeat(answer.table, answer);
    window.location.assign(tableUrl(answer.table));
  } catch (err) {
    showError(err.message);
    button.disabled = false;
  }
}

if (!nameInput.readOnly) nameInput.value = loadName(); // a member's name is their account's
nameInput.addEventListener("change", () => saveName(nameInput.value.trim()));
form.addEventListener("submit", createTable);
more.addEventListener("click", () => {
  pages += 1;
  refresh();
});
refresh();
setInterval(() => {
  if (!document.hidden) refresh();
}, REFRESH_MS);
