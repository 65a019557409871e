// A player's page (/players/{name}): games, hands won (self-drawn or on a discard), times dealt in,
// average and biggest winning hand, and the running total over their finished games as a line.
// Filled from GET /api/players/{name}.

import { LINE_STYLES, drawAndFollow, lineChart } from "./chart.js";
import { STATUS_TEXT, el, fill, getJson, link, plural, setStatus, signed, timeElement, when } from "./history.js";

const root = document.getElementById("player");
const NAME = root.dataset.name;
const GAME_URL = root.dataset.gameUrl;
const status = document.getElementById("player-status");

function percent(part, whole) {
  return whole ? ` (${Math.round((100 * part) / whole)} %)` : "";
}

function renderStats(record) {
  const stats = document.getElementById("stats");
  stats.replaceChildren();
  const rows = [
    ["Games", `${record.games}`, `${record.finished} finished`],
    ["Hands played", `${record.hands}`],
    ["Hands won", `${record.won}${percent(record.won, record.hands)}`],
    ["Self-drawn", `${record.self_drawn}`, "won from the wall"],
    ["On a discard", `${record.on_discard}`, "won on another's discard or robbing a kong"],
    ["Dealt in", `${record.dealt_in}${percent(record.dealt_in, record.hands)}`, "discarded the winning tile"],
    ["Average winning hand", record.average_win === null ? "—" : `${record.average_win}`, "points"],
    ["Biggest winning hand", record.biggest_win === null ? "—" : `${record.biggest_win}`, "points"],
    ["Net score", signed(record.total), "over the finished games"],
  ];
  for (const [term, value, note] of rows) {
    const item = el("div", "stat");
    item.dataset.stat = term;
    const dd = el("dd", null, value);
    if (note) dd.append(el("span", "stat-note", note));
    item.append(el("dt", null, term), dd);
    stats.append(item);
  }
}

function renderTrend(record) {
  const box = document.getElementById("chart-box");
  const games = record.over_time;
  if (!games.length) {
    box.replaceChildren(el("p", "muted", "No finished game yet."));
    return;
  }
  const totals = [0];
  for (const g of games) totals.push(totals[totals.length - 1] + g.net);
  const dates = ["", ...games.map((g) => new Date(g.date).toLocaleDateString(undefined, { day: "numeric", month: "short" }))];
  const caption = document.getElementById("trend-caption");
  caption.textContent = `The running total of what ${NAME} won or lost, over ${plural(games.length, "finished game")}: ${signed(totals[totals.length - 1])} in all.`;
  drawAndFollow(box, () =>
    lineChart(box, {
      lines: [{ name: NAME, values: totals, style: LINE_STYLES[0] }],
      xLabels: dates,
      title: `${NAME}'s running total over ${plural(games.length, "finished game")}, now ${signed(totals[totals.length - 1])}`,
      baseline: 0,
      point: (_, i) =>
        i === 0 ? "before the first game: 0" : `${when(games[i - 1].date)}: ${signed(games[i - 1].net)}, total ${signed(totals[i])}`,
    }),
  );
}

function renderRecent(record) {
  const list = document.getElementById("recent");
  list.replaceChildren();
  for (const game of record.recent) {
    const li = el("li");
    const a = link(fill(GAME_URL, "GAME_ID", game.id), "");
    a.append(timeElement(game.created, `Game of ${when(game.created)}`));
    li.append(a, " ", el("span", `badge badge-${game.status}`, STATUS_TEXT[game.status] || game.status));
    list.append(li);
  }
  if (!record.recent.length) list.append(el("li", "muted", "None yet."));
}

async function show() {
  let record;
  try {
    record = await getJson(fill(root.dataset.api, "PLAYER_NAME", NAME));
  } catch (err) {
    setStatus(status, err.message, true);
    return;
  }
  setStatus(status, "");
  renderStats(record);
  renderTrend(record);
  renderRecent(record);
}

show();
