// Shared by the history pages (games.js, game.js, replay.js, player.js): fetching the history API,
// building elements, and the words for how a hand ended. Names and table names come from other
// people: they are only ever set with textContent.

import { apiAnswer } from "./local.js";
import { el, signed } from "./render.js";
import { tileName } from "./tiles.js";

// el (an element with a class and a text, never parsed as HTML) and signed are render.js's, which
// the table draws with too.
export { el, signed };

/** A link with a text. */
export function link(href, text, cls) {
  const a = el("a", cls, text);
  a.href = href;
  return a;
}

/** The JSON answer of `url`; throws an Error with the API's own message when it refuses. */
export async function getJson(url) {
  let response;
  try {
    response = await fetch(url, { headers: { Accept: "application/json" } });
  } catch {
    throw new Error("The server did not answer: check your connection and reload the page.");
  }
  try {
    return await apiAnswer(response);
  } catch (error) {
    error.message = error.message.charAt(0).toUpperCase() + error.message.slice(1); // a sentence on the page
    throw error;
  }
}

/** A URL made from a template such as "/games/GAME_ID": the placeholder replaced, encoded. */
export function fill(template, placeholder, value) {
  return template.replace(placeholder, encodeURIComponent(String(value)));
}

export function plural(n, one, many = `${one}s`) {
  return `${n} ${n === 1 ? one : many}`;
}

/** "12 Mar 2026, 21:04" in the reader's own time zone; "" when unknown. */
export function when(iso) {
  if (!iso) return "";
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return "";
  return date.toLocaleString(undefined, {
    day: "numeric",
    month: "short",
    year: "numeric",
    hour: "2-digit",
    minute: "2-digit",
  });
}

/** A <time> element for an ISO date. */
export function timeElement(iso, text = when(iso)) {
  const node = el("time", null, text);
  if (iso) node.dateTime = iso;
  return node;
}

export const STATUS_TEXT = { over: "finished", playing: "playing", stopped: "stopped" };

/** Seat names from the API's players (a seat nobody took reads "Seat N"). */
export function seatNames(players) {
  return [0, 1, 2, 3].map((s) => (players && players[s] && players[s].name) || `Seat ${s + 1}`);
}

/** How a hand ended, in words: "self-drawn", "on Bot 2's discard", "a wash-out". */
export function howWon(winBy, discarder, names) {
  switch (winBy) {
    case "wall":
      return "self-drawn";
    case "loose":
      return "self-drawn, on a loose tile";
    case "discard":
      return `on ${names[discarder]}'s discard`;
    case "robbed_kong":
      return `robbing ${names[discarder]}'s kong`;
    default:
      return "a wash-out";
  }
}

/** The end of a hand in one sentence, from a `deal_end` result. */
export function resultSentence(result, names) {
  if (result.winner === null || result.winner === undefined) {
    return `A wash-out: nobody scores.${result.reason ? ` (${result.reason})` : ""}`;
  }
  const tile = result.tile ? ` with ${tileName(result.tile)}` : "";
  return `${names[result.winner]} wins ${howWon(result.win_by, result.discarder, names)}${tile}.`;
}

/** An option's value as a reader would write it. */
export function optionValue(value) {
  if (value === true) return "yes";
  if (value === false) return "no";
  if (value === null || value === undefined) return "none";
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}

/** Show `message` in a status line (role=status), or hide it. */
export function setStatus(node, message, isError = false) {
  node.textContent = message || "";
  node.hidden = !message;
  node.classList.toggle("error", isError);
}
