// The games list (/games): every stored game, newest first, a page at a time, optionally only the
// games a player sat in (?player=NAME&page=N). Filled from GET /api/games.

import { STATUS_TEXT, el, fill, getJson, link, plural, seatNames, setStatus, timeElement } from "./history.js";

const root = document.getElementById("games");
const API = root.dataset.api;
const PAGE_URL = root.dataset.pageUrl;
const GAME_URL = root.dataset.gameUrl;
const PLAYER_URL = root.dataset.playerUrl;
const SIZE = Number(root.dataset.pageSize) || 20;
const list = document.getElementById("game-list");
const status = document.getElementById("games-status");
const pager = document.getElementById("pager");

const params = new URLSearchParams(window.location.search);
const player = (params.get("player") || "").trim();
const page = Math.max(1, Number.parseInt(params.get("page") || "1", 10) || 1);

function pageUrl(n) {
  const query = new URLSearchParams();
  if (player) query.set("player", player);
  if (n > 1) query.set("page", String(n));
  const text = query.toString();
  return text ? `${PAGE_URL}?${text}` : PAGE_URL;
}

function gameItem(game) {
  const names = seatNames(game.players);
  const item = el("li", "game-item");
  item.dataset.game = game.id;
  const head = el("div", "game-item-head");
  head.append(link(fill(GAME_URL, "GAME_ID", game.id), game.name, "game-link"));
  head.append(el("span", `badge badge-${game.status}`, STATUS_TEXT[game.status] || game.status));
  item.append(head);

  const meta = el("p", "game-meta muted");
  const hands = plural(game.hands, "hand");
  meta.append(timeElement(game.created), ` · ${game.ruleset} · ${hands}${game.status === "playing" ? " so far" : ""}`);
  item.append(meta);

  const scores = game.scores || game.players.map((p) => (p && p.score !== undefined ? p.score : null));
  const known = scores.filter((s) => s !== null && s !== undefined);
  const top = known.length ? Math.max(...known) : null;
  const seats = el("ol", "game-seats");
  seats.setAttribute("aria-label", game.status === "over" ? "Final scores" : "Scores so far");
  names.forEach((name, s) => {
    const info = game.players[s] || {};
    const li = el("li");
    if (info.name && !info.bot) li.append(link(fill(PLAYER_URL, "PLAYER_NAME", name), name, "who"));
    else li.append(el("span", "who", info.bot ? `${name} (bot)` : name));
    const score = scores[s];
    li.append(el("span", "num", score === null || score === undefined ? "—" : String(score)));
    if (game.status === "over" && score === top) {
      li.classList.add("top");
      li.append(el("span", "badge top-badge", "top"));
    }
    seats.append(li);
  });
  item.append(seats);
  return item;
}

async function show() {
  const query = new URLSearchParams({ limit: String(SIZE), offset: String((page - 1) * SIZE) });
  if (player) query.set("player", player);
  let data;
  try {
    data = await getJson(`${API}?${query}`);
  } catch (err) {
    setStatus(status, err.message, true);
    return;
  }
  list.replaceChildren(...data.games.map(gameItem));
  const first = (page - 1) * SIZE + 1;
  const last = first + data.games.length - 1;
  const whose = player ? ` with ${player}` : "";
  if (data.total === 0) setStatus(status, player ? `No games with ${player} yet.` : "No games have been played here yet.");
  else if (!data.games.length) setStatus(status, `There are only ${plural(data.total, "game")}${whose}.`);
  else setStatus(status, `Games ${first}–${last} of ${data.total}${whose}, newest first.`);

  const newer = document.getElementById("newer");
  const older = document.getElementById("older");
  newer.hidden = page <= 1;
  newer.href = pageUrl(page - 1);
  older.hidden = last >= data.total || !data.games.length;
  older.href = pageUrl(page + 1);
  document.getElementById("page-info").textContent = `Page ${page} of ${Math.max(1, Math.ceil(data.total / SIZE))}`;
  pager.hidden = data.total <= SIZE && page === 1;
}

show();
