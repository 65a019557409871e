// A player's page: what to work on (issues 35 and 41). Their figures beside the strong bot over their
// recent finished games, pooled (agreement, deal-ins per 100 discards, missed wins) and game by game,
// from GET /api/reviews/players/{name} (the server reviews each game once and keeps the answer).

import { LINE_STYLES, drawAndFollow, lineChart } from "./chart.js";
import { el, fill, getJson, link, plural, setStatus, when } from "./history.js";

const page = document.getElementById("player");
const root = document.getElementById("player-review");
const status = document.getElementById("player-review-status");
const figures = document.getElementById("player-figures");
const table = document.getElementById("player-review-table");
const rows = table.querySelector("tbody");
const figure = document.getElementById("player-review-chart");
const box = document.getElementById("player-review-box");

function percent(share) {
  return `${Math.round(100 * share)} %`;
}

async function load() {
  let answer;
  try {
    answer = await getJson(fill(root.dataset.figuresApi, "PLAYER_NAME", page.dataset.name));
  } catch (err) {
    setStatus(status, err.message, true);
    return;
  }
  if (!answer.games.length) {
    setStatus(status, "No finished game to review yet.");
    return;
  }
  setStatus(status, "");
  renderFigures(answer);
  const games = [...answer.games].reverse(); // oldest first, as time runs
  for (const game of games) addRow(game);
  draw(games.filter((g) => g.agreement !== null));
}

function renderFigures(answer) {
  const games = plural(answer.game_count, "finished game");
  const items = [
    [
      "Did what the strong bot would do",
      answer.agreement === null ? "—" : percent(answer.agreement),
      answer.decision_count ? `at ${answer.agreed} of ${plural(answer.decision_count, "decision")}, over ${games}` : `no decision of their own in ${games}`,
    ],
    [
      "Discards another player won on",
      answer.deal_ins_per_100 === null ? "—" : `${answer.deal_ins_per_100} in 100`,
      `${plural(answer.deal_ins, "time")} in ${plural(answer.discards, "discard")}`,
    ],
    [
      "Wins let pass",
      `${answer.missed_wins}`,
      answer.missed_wins_per_game === null ? games : `${answer.missed_wins_per_game} a game, over ${games}`,
    ],
  ];
  figures.replaceChildren();
  for (const [term, value, note] of items) {
    const item = el("div", "stat");
    item.dataset.stat = term;
    const dd = el("dd", null, value);
    dd.append(el("span", "stat-note", note));
    item.append(el("dt", null, term), dd);
    figures.append(item);
  }
  figures.hidden = false;
}

function addRow(game) {
  table.hidden = false;
  const tr = el("tr");
  const cell = el("td");
  cell.append(link(fill(page.dataset.gameUrl, "GAME_ID", game.id), when(game.created) || game.id));
  const share = game.agreement === null ? "—" : percent(game.agreement);
  tr.append(
    cell,
    el("td", "num", String(game.decision_count)),
    el("td", "num", share),
    el("td", "num", String(game.deal_ins)),
    el("td", "num", String(game.missed_wins)),
  );
  rows.append(tr);
}

function draw(points) {
  if (points.length < 2) return; // one game is a row, not a line
  figure.hidden = false;
  const name = page.dataset.name;
  drawAndFollow(box, () =>
    lineChart(box, {
      lines: [{ name, values: points.map((p) => Math.round(100 * p.agreement)), style: LINE_STYLES[0] }],
      xLabels: points.map((p) => when(p.created)),
      title: `${name}'s agreement with the strong bot over ${plural(points.length, "game")}, in %`,
      point: (_, i) => `${when(points[i].created)}: ${percent(points[i].agreement)} of ${plural(points[i].decision_count, "decision")}`,
    }),
  );
}

load();
