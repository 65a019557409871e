// A hand's replay (/games/{id}/hands/{n}): every step of the hand, one action at a time, with Prev and
// Next, Play (a step every 2, 1, ½ or ¼ s, as the speed says), a slider, and the keys ← → Home End P. A finished game can be watched face up or as one seat
// saw it (?seat=0–3); a running game only as a spectator sees it, which the server alone decides: the
// page draws exactly the views GET /api/games/{id}/hands/{n} gives it, and a hidden hand stays tile
// backs. At each step, the acting seat's shanten and waits; at the end, the score explained line by
// line and the payments.

import { getJson, plural, resultSentence, setStatus } from "./history.js";
import { backsRow, badge, el, payments, revealList, seatPanel } from "./render.js";
import { WIND_HAN, WIND_NAMES, parseTiles, sortTiles, tileElement, tileName, tileRow } from "./tiles.js";

const $ = (id) => document.getElementById(id);
const root = $("replay");
const API = root.dataset.api;
const NUMBER = Number(root.dataset.number);
const RUNNING = root.dataset.running === "true";

const ui = {
  status: $("replay-status"),
  stage: $("stage"),
  perspective: $("perspective"),
  first: $("first"),
  prev: $("prev"),
  next: $("next"),
  last: $("last"),
  slider: $("slider"),
  play: $("play"),
  speed: $("speed"),
  stepLine: document.querySelector(".step-line"),
  count: $("step-count"),
  text: $("step-text"),
  analysis: $("analysis"),
  tableLine: $("table-line"),
  board: $("board"),
  result: $("result"),
  keys: $("replay-keys"),
  keysButton: $("keys-button"),
};

const params = new URLSearchParams(window.location.search);
let seat = RUNNING ? null : parseSeat(params.get("seat")); // whose view; null: face up (or public)
let steps = [];
let names = ["Seat 1", "Seat 2", "Seat 3", "Seat 4"];
let index = 0;
let loading = 0;

function parseSeat(text) {
  return text !== null && /^[0-3]$/.test(text) ? Number(text) : null;
}

// ------------------------------------------------------------- loading
async function load(wanted) {
  const ticket = ++loading;
  setStatus(ui.status, "Loading the hand…");
  let data;
  try {
    data = await getJson(seat === null ? API : `${API}?seat=${seat}`);
  } catch (err) {
    if (ticket === loading) setStatus(ui.status, err.message, true);
    return;
  }
  if (ticket !== loading) return; // another perspective was chosen meanwhile
  pause();
  steps = data.steps;
  names = data.names.map((n, s) => n || `Seat ${s + 1}`);
  fillPerspectives(data);
  ui.slider.max = String(steps.length - 1);
  setStatus(ui.status, "");
  ui.stage.hidden = false;
  go(wanted === "end" ? steps.length - 1 : wanted);
}

function fillPerspectives(data) {
  const select = ui.perspective;
  if (select.options.length) {
    for (let s = 0; s < 4; s++) {
      const option = select.querySelector(`option[value="${s}"]`);
      if (option) option.textContent = `As ${names[s]} saw it`;
    }
    return;
  }
  if (data.running) {
    select.append(new Option("What every player could see (the game is still on)", ""));
    return;
  }
  select.append(new Option("Everyone's hand, face up", ""));
  for (let s = 0; s < 4; s++) select.append(new Option(`As ${names[s]} saw it`, String(s)));
  select.value = seat === null ? "" : String(seat);
}

ui.perspective.addEventListener("change", () => {
  const value = ui.perspective.value;
  seat = value === "" ? null : Number(value);
  remember();
  load(index);
});

// The address keeps the view and the step, so a link shows the very moment. Written at most a few
// times a second: browsers limit how often a page may rewrite it (Safari throws past 100 in 30 s).
let rememberTimer = null;
function remember() {
  clearTimeout(rememberTimer);
  rememberTimer = setTimeout(writeAddress, 400);
}

function writeAddress() {
  const query = new URLSearchParams();
  if (seat !== null) query.set("seat", String(seat));
  if (index > 0) query.set("step", String(index + 1));
  const text = query.toString();
  window.history.replaceState(null, "", text ? `?${text}` : window.location.pathname);
}

// ------------------------------------------------------------- moving
function go(target) {
  if (!steps.length) return;
  index = Math.max(0, Math.min(steps.length - 1, Number.isFinite(target) ? target : 0));
  render();
  remember();
}

/** A move of the reader's own stops the playing. */
function goByHand(target) {
  pause();
  go(target);
}

ui.first.addEventListener("click", () => goByHand(0));
ui.prev.addEventListener("click", () => goByHand(index - 1));
ui.next.addEventListener("click", () => goByHand(index + 1));
ui.last.addEventListener("click", () => goByHand(steps.length - 1));
ui.slider.addEventListener("input", () => goByHand(Number(ui.slider.value)));

// ------------------------------------------------------------- playing
let playTimer = null;

function playing() {
  return playTimer !== null;
}

function showPlaying() {
  const on = playing();
  ui.play.textContent = on ? "❚❚ Pause" : "▶ Play";
  ui.play.setAttribute("aria-pressed", on ? "true" : "false");
  // While it plays, the step's words are not read out at every step (a screen reader could not keep up).
  ui.stepLine.setAttribute("aria-live", on ? "off" : "polite");
}

function tick() {
  if (index >= steps.length - 1) {
    pause();
    return;
  }
  go(index + 1);
  if (index >= steps.length - 1) pause(); // the hand's end: the score stays on screen
}

function play() {
  if (!steps.length) return;
  if (index >= steps.length - 1) go(0); // played to its end: Play starts it again
  clearInterval(playTimer);
  playTimer = setInterval(tick, Number(ui.speed.value) || 1000);
  showPlaying();
  boardInView();
}

/** On a phone the board lies under the controls: playing brings it (from the line above it, what is
 * on offer) up to the top of the screen, unless most of it is in view already. The buttons stay at
 * the screen's foot. */
function boardInView() {
  const box = ui.board.getBoundingClientRect();
  const bar = ui.play.closest(".stepper");
  const foot = bar && getComputedStyle(bar).position === "fixed" ? bar.getBoundingClientRect().top : window.innerHeight;
  const seen = Math.min(box.bottom, foot) - Math.max(box.top, 0);
  if (seen >= 0.6 * Math.min(box.height, foot)) return;
  const top = Math.min(box.top, ui.tableLine.getBoundingClientRect().top);
  window.scrollBy({ top: top - 4, behavior: "instant" });
}

function pause() {
  clearInterval(playTimer);
  playTimer = null;
  showPlaying();
}

ui.play.addEventListener("click", () => (playing() ? pause() : play()));
ui.speed.addEventListener("change", () => {
  if (playing()) play(); // at the new speed from now on
});
ui.keysButton.addEventListener("click", () => ui.keys.showModal());

document.addEventListener("keydown", (event) => {
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  const target = event.target;
  // the slider moves itself with the arrows and Home/End; a list or a dialog keeps its own keys
  if (target.closest && target.closest("input, select, textarea, dialog")) return;
  switch (event.key) {
    case "ArrowRight":
      goByHand(index + 1);
      break;
    case "ArrowLeft":
      goByHand(index - 1);
      break;
    case "Home":
      goByHand(0);
      break;
    case "End":
      goByHand(steps.length - 1);
      break;
    case "p":
    case "P":
      if (playing()) pause();
      else play();
      break;
    case "?":
      ui.keys.showModal();
      break;
    default:
      return;
  }
  event.preventDefault();
});

// ------------------------------------------------------------ the words
function meldWords(meld) {
  const codes = parseTiles(meld.tiles);
  if (meld.kind === "chow") return `a chow of ${codes.map(tileName).join(", ")}`;
  const kind = meld.kind === "kong" && !meld.exposed ? "a concealed kong" : `a ${meld.kind}`;
  return `${kind} of ${tileName(codes[0])}`;
}

/** What changed between two views besides the action itself: new or grown sets, bonus tiles shown. */
function consequences(before, after, skipSeat) {
  const out = [];
  for (let s = 0; s < 4; s++) {
    const was = before.seats[s];
    const now = after.seats[s];
    if (s !== skipSeat) {
      now.melds.forEach((meld, k) => {
        const old = was.melds[k];
        if (!old) {
          const from = meld.from !== undefined ? ` with ${names[meld.from]}'s ${tileName(meld.claimed)}` : "";
          out.push(`${names[s]} makes ${meldWords(meld)}${from}.`);
        } else if (old.kind !== meld.kind) out.push(`${names[s]} turns a pung into ${meldWords(meld)}.`);
      });
    }
    const shown = now.bonus.slice(was.bonus.length);
    if (shown.length) {
      out.push(`${names[s]} shows ${shown.map(tileName).join(" and ")} and draws a replacement.`);
    }
  }
  return out;
}

function describe(i) {
  const step = steps[i];
  const view = step.view;
  if (step.actor === null && i > 0) {
    // A running game does not say who passed a claim window (R12.2): only that it closed unclaimed.
    const more = consequences(steps[i - 1].view, view, null);
    if (view.result) more.push(resultSentence(view.result, names));
    return ["Nobody claims the discard.", ...more].join(" ");
  }
  if (step.actor === null) {
    const bonus = view.seats.filter((s) => s.bonus.length).map((s) => `${names[s.seat]} ${s.bonus.map(tileName).join(", ")}`);
    const dealt = `The tiles are dealt; ${names[view.dealer]} is East, deals, and plays first.`;
    return bonus.length ? `${dealt} Bonus tiles shown at once: ${bonus.join("; ")}.` : dealt;
  }
  const before = steps[i - 1].view;
  const who = names[step.actor];
  const action = step.action || {};
  const mine = view.seats[step.actor].melds;
  const had = before.seats[step.actor].melds;
  const grew = mine.length > had.length ? mine[mine.length - 1] : null;
  const upgraded = grew ? null : mine.find((m, k) => had[k] && had[k].kind !== m.kind);
  const made = grew || upgraded;
  let words;
  switch (action.type) {
    case "discard":
      words = `${who} discards ${tileName(action.tile)}.`;
      break;
    case "original_call":
      words = `${who} discards ${tileName(action.tile)}, declaring Original Call (R5.4).`;
      break;
    case "pass":
      words = `${who} passes.`;
      break;
    case "chow":
    case "pung":
    case "kong":
      if (upgraded) words = `${who} adds ${tileName(parseTiles(upgraded.tiles)[0])} to a pung: ${meldWords(upgraded)}.`;
      else if (grew && grew.from !== undefined) {
        words = `${who} claims ${names[grew.from]}'s ${tileName(grew.claimed)}: ${meldWords(grew)}.`;
      } else if (grew) words = `${who} declares ${meldWords(grew)}.`;
      else words = `${who} calls ${action.type}; the others may still answer.`;
      break;
    case "win":
      words = view.result ? `${who} declares Mah-Jong!` : `${who} calls Mah-Jong; the others may still answer.`;
      break;
    default:
      words = `${who}: ${action.type}.`;
  }
  const more = consequences(before, view, made ? step.actor : null);
  if (view.result) more.push(resultSentence(view.result, names));
  return [words, ...more].join(" ");
}

function analysisNode(step) {
  const box = ui.analysis;
  box.replaceChildren();
  const a = step.analysis;
  if (!a) {
    if (RUNNING) box.append(el("span", "muted", "Shanten and waits stay hidden while the game is on."));
    else if (step.actor !== null && seat !== null && step.actor !== seat && !step.view.result) {
      box.append(el("span", "muted", `This view shows only ${names[seat]}'s own shanten and waits.`));
    }
    box.hidden = !box.childNodes.length;
    return;
  }
  box.hidden = false;
  let words;
  if (a.shanten < 0) words = "a complete hand";
  else if (a.shanten === 0) words = "ready: one tile from Mah-Jong (shanten 0)";
  else words = `${plural(a.shanten, "tile")} from ready (shanten ${a.shanten})`;
  box.append(el("strong", null, `${names[a.seat]}: `), words);
  if (a.waits && a.waits.length) {
    box.append(", waiting on ");
    const row = tileRow(a.waits, { classes: "mini waits", label: `waits: ${a.waits.map(tileName).join(", ")}` });
    box.append(row);
  }
}

// ------------------------------------------------------------ drawing
function render() {
  const step = steps[index];
  const view = step.view;
  const last = steps.length - 1;
  ui.slider.value = String(index);
  const text = describe(index);
  ui.slider.setAttribute("aria-valuetext", `Step ${index + 1} of ${steps.length}: ${text}`);
  ui.first.disabled = ui.prev.disabled = index === 0;
  ui.next.disabled = ui.last.disabled = index === last;
  ui.count.textContent = `Step ${index + 1} of ${steps.length}:`;
  ui.text.textContent = text;
  analysisNode(step);
  renderTableLine(view);
  ui.board.replaceChildren(...[0, 1, 2, 3].map((s) => replaySeat(step, s)));
  renderResult(view);
}

function renderTableLine(view) {
  const line = ui.tableLine;
  line.replaceChildren();
  const han = el("span", "round-wind", WIND_HAN[view.round_wind]);
  han.setAttribute("aria-hidden", "true");
  const parts = [`${WIND_NAMES[view.round_wind]} round, hand ${NUMBER}`, `wall ${view.wall.live}`, `dead wall ${view.wall.dead}`];
  line.append(han, parts.join(" · "));
  const turn = view.turn;
  if (turn && (turn.phase === "claim" || turn.phase === "rob")) {
    const offer = el("span", "offer");
    const what = turn.phase === "rob" ? "adds to a pung; it may be robbed:" : "discarded; it may be claimed:";
    offer.append(` · ${names[turn.from]} ${what} `, tileElement(turn.tile, { classes: "mini" }));
    line.append(offer);
  }
}

function replaySeat(step, s) {
  const view = step.view;
  const info = view.seats[s];
  const turn = view.turn;
  const acted = step.actor === s;
  const toPlay = turn && turn.phase === "turn" && turn.seat === s;
  const badges = [];
  if (view.dealer === s) badges.push(badge("dealer", "dealer"));
  if (seat === s) badges.push(badge("this view", "you"));
  if (acted) badges.push(badge("▶ acted", "turn"));
  else if (toPlay) badges.push(badge("to play"));
  if (view.result && view.result.winner === s) badges.push(badge("wins", "turn"));

  const concealed = el("div", "concealed");
  if (info.concealed === undefined) {
    concealed.setAttribute("aria-label", `${info.tiles} concealed tiles, face down`);
    concealed.append(backsRow(info.tiles), el("span", "count", plural(info.tiles, "tile") + " face down"));
  } else {
    const codes = sortTiles(parseTiles(info.concealed));
    const drawn = toPlay && turn.drawn ? turn.drawn : null;
    if (drawn && codes.includes(drawn)) codes.splice(codes.lastIndexOf(drawn), 1);
    concealed.setAttribute("aria-label", `${names[s]}'s hand`);
    concealed.append(tileRow(codes, { classes: "small" }));
    if (drawn) {
      const apart = el("span", "tiles small drawn-slot");
      apart.append(tileElement(drawn, { label: `${tileName(drawn)}, just drawn`, classes: "drawn" }));
      concealed.append(apart);
    }
  }
  const latest = view.result ? -1 : view.discards.length - 1; // the hand over, no discard is the latest
  return seatPanel(view, s, names, { active: acted, badges, concealed, latest, words: meldWords });
}

// ------------------------------------------------------- the end of the hand
function renderResult(view) {
  const result = view.result;
  ui.result.hidden = !result;
  ui.result.replaceChildren();
  if (!result) return;
  const title = el("h2", null, result.winner === null ? `Hand ${NUMBER}: a wash-out` : `Hand ${NUMBER}: ${names[result.winner]} wins`);
  title.id = "result-title";
  ui.result.append(title, el("p", "summary", resultSentence(result, names)));
  ui.result.append(revealList(view, result, names, meldWords), payments(view, result, names));
}

// ------------------------------------------------------------------ start
const wantedStep = params.get("step");
load(wantedStep === "end" ? "end" : Math.max(0, (Number.parseInt(wantedStep || "1", 10) || 1) - 1));
