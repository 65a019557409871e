// What this browser remembers (localStorage): the player's name, each table's seat token (so a
// reload takes the seat back), and the auto-pass choice. Storage may be unavailable (private
// modes); then nothing is remembered and nothing breaks. And the APIs' answers, read as JSON.

const NAME = "sparrow.name";
const SEAT = "sparrow.seat.";
const AUTOPASS = "sparrow.autopass";
const TILES = "sparrow.tiles";
const MUTED = "sparrow.muted";
const TAP_TWICE = "sparrow.taptwice";

function get(key) {
  try {
    return window.localStorage.getItem(key);
  } catch {
    return null;
  }
}

function set(key, value) {
  try {
    if (value === null) window.localStorage.removeItem(key);
    else window.localStorage.setItem(key, value);
  } catch {
    /* not remembered */
  }
}

export function loadName() {
  return get(NAME) || "";
}

export function saveName(name) {
  set(NAME, name);
}

/** {token, seat, owner} for this table, or null. */
export function loadSeat(tableId) {
  const raw = get(SEAT + tableId);
  if (!raw) return null;
  try {
    const seat = JSON.parse(raw);
    return typeof seat.token === "string" ? seat : null;
  } catch {
    return null;
  }
}

export function saveSeat(tableId, answer) {
  set(SEAT + tableId, JSON.stringify({ token: answer.token, seat: answer.seat, owner: !!answer.owner }));
}

export function forgetSeat(tableId) {
  set(SEAT + tableId, null);
}

/** "pictures" (the default) or "simple" (text tiles). */
export function loadTileStyle() {
  return get(TILES) === "simple" ? "simple" : "pictures";
}

export function saveTileStyle(style) {
  set(TILES, style === "simple" ? "simple" : "pictures");
}

export function loadMuted() {
  return get(MUTED) === "1";
}

export function saveMuted(on) {
  set(MUTED, on ? "1" : "0");
}

/** Whether a first tap on a tile only lifts it (a second discards it): on by default on touch screens. */
export function loadTapTwice() {
  const saved = get(TAP_TWICE);
  if (saved !== null) return saved === "1";
  return window.matchMedia("(pointer: coarse)").matches;
}

export function saveTapTwice(on) {
  set(TAP_TWICE, on ? "1" : "0");
}

export function loadAutopass() {
  return get(AUTOPASS) === "1";
}

export function saveAutopass(on) {
  set(AUTOPASS, on ? "1" : "0");
}

/** An API's JSON answer; when it refuses, throws an Error with its message and `reason` ("http" if it gave none). */
export async function apiAnswer(response) {
  let data = null;
  try {
    data = await response.json();
  } catch {
    /* not JSON: say what the status was */
  }
  if (!response.ok) {
    const message = data && data.error ? data.error.message : `the server answered ${response.status}`;
    const error = new Error(message);
    error.reason = data && data.error ? data.error.reason : "http";
    throw error;
  }
  return data;
}

/** POST a JSON body to the lobby API; resolves to the answer, or throws an Error with the server's message. */
export async function postJson(url, body) {
  const response = await fetch(url, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  return apiAnswer(response);
}
