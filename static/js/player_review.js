// A player's page: their agreement with the strong bot over their recent finished games (issue 35),
// from each game's review (GET /api/games/{id}/review?seat=N, kept by the server once computed),
// asked for one game at a time, oldest first.

import { LINE_STYLES, drawAndFollow, lineChart } from "./chart.js";
import { el, fill, getJson, link, plural, setStatus, when } from "./history.js";

const GAMES = 10; // the most recent finished games reviewed

const page = document.getElementById("player");
const root = document.getElementById("player-review");
const status = document.getElementById("player-review-status");
const table = document.getElementById("player-review-table");
const rows = table.querySelector("tbody");
const figure = document.getElementById("player-review-chart");
const box = document.getElementById("player-review-box");

async function load() {
  let record;
  try {
    record = await getJson(fill(page.dataset.api, "PLAYER_NAME", page.dataset.name));
  } catch (err) {
    setStatus(status, err.message, true);
    return;
  }
  const games = record.recent.filter((g) => g.status !== "playing").slice(0, GAMES).reverse();
  if (!games.length) {
    setStatus(status, "No finished game to review yet.");
    return;
  }
  const done = [];
  for (const [i, game] of games.entries()) {
    setStatus(status, `Reviewing their recent games… ${i + 1} of ${games.length}`);
    try {
      const review = await getJson(`${fill(root.dataset.reviewApi, "GAME_ID", game.id)}?seat=${game.seat}`);
      done.push({ game, review });
      addRow(game, review);
    } catch (err) {
      setStatus(status, err.message, true);
      return;
    }
  }
  setStatus(status, "");
  draw(done.filter((d) => d.review.agreement !== null));
}

function addRow(game, review) {
  table.hidden = false;
  const tr = el("tr");
  const cell = el("td");
  cell.append(link(fill(page.dataset.gameUrl, "GAME_ID", game.id), when(game.created) || game.id));
  const share = review.agreement === null ? "—" : `${Math.round(100 * review.agreement)} %`;
  tr.append(
    cell,
    el("td", "num", String(review.decision_count)),
    el("td", "num", share),
    el("td", "num", String(review.deal_ins)),
    el("td", "num", String(review.missed_wins)),
  );
  rows.append(tr);
}

function draw(points) {
  if (points.length < 2) return; // one game is a row, not a line
  figure.hidden = false;
  const name = page.dataset.name;
  drawAndFollow(box, () =>
    lineChart(box, {
      lines: [{ name, values: points.map((p) => Math.round(100 * p.review.agreement)), style: LINE_STYLES[0] }],
      xLabels: points.map((p) => when(p.game.created)),
      title: `${name}'s agreement with the strong bot over ${plural(points.length, "game")}, in %`,
      point: (_, i) => `${when(points[i].game.created)}: ${Math.round(100 * points[i].review.agreement)} % of ${plural(points[i].review.decision_count, "decision")}`,
    }),
  );
}

load();
