// A game's page (/games/{id}): the standings, a chart of every seat's score after each hand, one row
// per hand (prevailing wind, dealer, winner, how, value, payments, a link to its replay), and the
// ruleset with its differences from classical. Filled from GET /api/games/{id}.

import { LINE_STYLES, drawAndFollow, lineChart, styleSample } from "./chart.js";
import {
  STATUS_TEXT,
  el,
  fill,
  getJson,
  howWon,
  link,
  optionValue,
  plural,
  seatNames,
  setStatus,
  signed,
  when,
} from "./history.js";
import { WIND_HAN, WIND_NAMES } from "./tiles.js";

const root = document.getElementById("game");
const HAND_URL = root.dataset.handUrl;
const PLAYER_URL = root.dataset.playerUrl;
const status = document.getElementById("game-status");

function handUrl(n) {
  return fill(HAND_URL, "HAND_NO", n);
}

function nameNode(game, names, s) {
  const info = game.players[s] || {};
  if (info.name && !info.bot) return link(fill(PLAYER_URL, "PLAYER_NAME", names[s]), names[s]);
  return el("span", null, info.bot ? `${names[s]} (bot)` : names[s]);
}

function renderMeta(game) {
  const parts = [when(game.created), STATUS_TEXT[game.status] || game.status, `${game.ruleset.name} rules`];
  parts.push(plural(game.hands, "hand") + (game.status === "playing" ? " so far" : ""));
  if (game.finished) parts.push(`ended ${when(game.finished)}`);
  document.getElementById("game-meta").textContent = parts.filter(Boolean).join(" · ");
}

function renderStandings(game, names) {
  const final = game.series.map((line) => line[line.length - 1]);
  const start = game.series[0][0];
  const order = [0, 1, 2, 3].sort((a, b) => final[b] - final[a] || a - b);
  const list = document.getElementById("standings");
  list.replaceChildren();
  for (const s of order) {
    const li = el("li");
    li.dataset.seat = String(s);
    li.append(styleSample(LINE_STYLES[s]), nameNode(game, names, s));
    li.append(el("span", "num score", String(final[s])), el("span", "num muted", `(${signed(final[s] - start)})`));
    list.append(li);
  }
}

function renderChart(game, names) {
  const box = document.getElementById("chart-box");
  const labels = game.series[0].map((_, i) => (i === 0 ? "start" : String(i)));
  const lines = game.series.map((values, s) => ({ name: names[s], values, style: LINE_STYLES[s] }));
  const title = `Scores after each of the ${plural(game.hand_rows.length, "hand")}: ${names
    .map((n, s) => `${n} ${game.series[s][game.series[s].length - 1]} (${LINE_STYLES[s].name})`)
    .join(", ")}`;
  drawAndFollow(box, () =>
    lineChart(box, {
      lines,
      xLabels: labels,
      title,
      baseline: game.series[0][0],
      point: (s, i) => `${names[s]}: ${game.series[s][i]} ${i === 0 ? "at the start" : `after hand ${i}`}`,
    }),
  );
}

function cell(row, label, content, cls) {
  const td = el("td", cls);
  td.dataset.label = label;
  if (content instanceof Node) td.append(content);
  else td.textContent = content;
  row.append(td);
  return td;
}

function renderHands(game, names) {
  const body = document.getElementById("hand-rows");
  body.replaceChildren();
  document.getElementById("no-hands").hidden = game.hand_rows.length > 0;
  for (const hand of game.hand_rows) {
    const n = hand.number;
    const tr = el("tr");
    tr.dataset.hand = String(n);
    if (hand.winner === null) tr.classList.add("washout");
    const th = el("th", "num", String(n));
    th.scope = "row";
    th.dataset.label = "Hand";
    tr.append(th);
    const wind = el("span");
    const han = el("span", "han", WIND_HAN[hand.round_wind]);
    han.setAttribute("aria-hidden", "true");
    wind.append(han, ` ${WIND_NAMES[hand.round_wind]}`);
    cell(tr, "Wind", wind, "wind-cell");
    cell(tr, "Dealer", names[hand.dealer]);
    cell(tr, "Winner", hand.winner === null ? "—" : names[hand.winner], hand.winner === null ? "muted" : "winner");
    const how = el("span", null, hand.winner === null ? "wash-out" : howWon(hand.win_by, hand.discarder, names));
    if (hand.stand_ins && hand.stand_ins.length) {
      // A bot played for someone who was away: the hand counts, and says so.
      const who = hand.stand_ins.map((s) => names[s]).join(", ");
      how.append(el("small", "stand-in", ` · a bot stood in for ${who}`));
    }
    cell(tr, "How", how);
    cell(tr, "Value", hand.value === null ? "—" : String(hand.value), "num value");
    const pays = el("ul", "pay-list");
    for (const p of hand.payments) {
      const li = el("li");
      li.append(el("span", "who", `${names[p.from]} → ${names[p.to]}`), " ", el("span", "num", String(p.amount)));
      li.title = p.text;
      pays.append(li);
    }
    cell(tr, "Payments", hand.payments.length ? pays : "none", "pay-cell");
    const replay = link(handUrl(n), "Replay");
    replay.classList.add("button", "replay-link");
    replay.setAttribute("aria-label", `Replay hand ${n}`);
    cell(tr, "", replay, "replay-cell");
    body.append(tr);
  }
  if (game.status === "playing") {
    const current = game.hand_rows.length + 1;
    const a = document.getElementById("current-hand-link");
    a.href = handUrl(current);
    a.textContent = `Watch hand ${current}, in progress (public view)`;
    document.getElementById("current-hand").hidden = false;
  }
}

function renderRules(game) {
  const rules = game.ruleset;
  const diffs = rules.differences;
  const line = document.getElementById("ruleset-line");
  line.replaceChildren(el("strong", null, rules.name), ` rules, version ${rules.version}. `);
  line.append(diffs.length ? `${plural(diffs.length, "option")} set differently from classical:` : "Played exactly by the classical rules.");
  const table = document.getElementById("differences");
  const body = table.querySelector("tbody");
  body.replaceChildren();
  for (const d of diffs) {
    const tr = el("tr");
    const th = el("th", "option", d.option.replaceAll("_", " "));
    th.scope = "row";
    tr.append(th, el("td", null, optionValue(d.classical)), el("td", "here", optionValue(d.here)));
    body.append(tr);
  }
  table.hidden = diffs.length === 0;
}

async function show() {
  let game;
  try {
    game = await getJson(root.dataset.api);
  } catch (err) {
    setStatus(status, err.message, true);
    return;
  }
  setStatus(status, "");
  const names = seatNames(game.players);
  document.getElementById("game-name").textContent = game.name;
  renderMeta(game);
  renderStandings(game, names);
  renderChart(game, names);
  renderHands(game, names);
  renderRules(game);
}

show();
