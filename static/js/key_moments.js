// A game's key moments (issue 41): the reviewed seat's costliest decisions against the strong bot, shown
// first on the game's page, each linking to its hand's review and to the table at that moment. Filled
// from the review summary (GET /api/games/{id}/review, its `key_moments`), for the seat the review panel
// shows; `renderKeyMoments` draws a summary's moments into any container.

import { el, fill, link, setStatus } from "./history.js";
import { apiAnswer, loadSeat } from "./local.js";

const MARKS = {
  deal_in: "another player won on it",
  win_passed: "a win was passed",
  ready_broken: "a ready hand was broken",
  claim_missed: "a claim that made the hand ready was missed",
  danger: "a needlessly dangerous tile",
};

function say(action, offered) {
  switch (action.type) {
    case "discard":
      return `discard ${action.tile}`;
    case "chow":
      return `chow ${[...action.tiles, offered].sort(byTile).join(" ")}`;
    case "pung":
      return `pung ${offered}`;
    case "kong":
      return `kong ${action.tile || offered}`;
    case "original_call":
      return `discard ${action.tile}, calling`;
    case "win":
      return "declare the win";
    default:
      return action.type;
  }
}

function byTile(a, b) {
  const key = (t) => (/^[1-9][bcd]$/.test(t) ? "bcd".indexOf(t[1]) * 9 + Number(t[0]) : 100 + "ESWNRGP".indexOf(t));
  return key(a) - key(b);
}

/** The link to hand `hand`'s review of `seat` (as the review's table of hands links it). */
export function handReviewUrl(handUrl, hand, seat) {
  return `${fill(handUrl, "HAND_NO", hand)}?review=${seat}#review`;
}

/** Draw `summary.key_moments` into `container` (replacing what it held) and return the list drawn, or
 * the note that there is none. `handUrl` holds HAND_NO where a hand's number goes. */
export function renderKeyMoments(summary, container, handUrl) {
  const moments = summary.key_moments || [];
  const name = summary.names?.[summary.seat] || `Seat ${summary.seat + 1}`;
  if (!moments.length) {
    const none = el("p", "muted", summary.decision_count ? `${name} lost nothing against the strong bot's choices in this game.` : "No decision of this seat's own to weigh.");
    container.replaceChildren(none);
    return none;
  }
  const list = el("ol", "key-moments-list");
  for (const m of moments) {
    const item = el("li", "key-moment");
    item.dataset.hand = String(m.hand);
    item.dataset.step = String(m.step);
    const head = el("p", "key-moment-head");
    head.append(link(handReviewUrl(handUrl, m.hand, summary.seat), `Hand ${m.hand}, step ${m.step}`, "key-moment-link"));
    head.append(`: about ${m.cost} ${m.cost === 1 ? "point" : "points"} lost`);
    const what = el("p", null, `${name} chose to ${say(m.done, m.offered)}; the strong bot would ${say(m.strong, m.offered)}.`);
    item.append(head, what);
    const marks = m.marks.map((k) => MARKS[k] || k);
    if (marks.length) item.append(el("p", "muted", `Also: ${marks.join("; ")}.`));
    const query = new URLSearchParams({ seat: String(summary.seat), step: String(m.step), review: String(summary.seat) });
    item.append(link(`${fill(handUrl, "HAND_NO", m.hand)}?${query.toString()}`, "See the table at this moment", "review-moment"));
    list.append(item);
  }
  container.replaceChildren(list);
  return list;
}

function start(root) {
  const body = document.getElementById("key-moments-body");
  const status = document.getElementById("key-moments-status");
  const running = root.dataset.running === "true";
  const mine = loadSeat(root.dataset.game);
  const params = new URLSearchParams(window.location.search);
  const text = params.get("review") ?? params.get("seat");
  let seat = text !== null && /^[0-3]$/.test(text) ? Number(text) : null;
  let loading = 0;

  async function load() {
    const ticket = ++loading;
    setStatus(status, "Finding the costliest decisions…");
    const headers = { Accept: "application/json" };
    if (mine) headers["X-Seat-Token"] = mine.token;
    const url = seat === null || running ? root.dataset.api : `${root.dataset.api}?seat=${seat}`;
    let summary;
    try {
      summary = await apiAnswer(await fetch(url, { headers }));
    } catch (err) {
      if (ticket !== loading) return;
      body.replaceChildren();
      const message = err.message || "the review could not be loaded";
      setStatus(status, message.charAt(0).toUpperCase() + message.slice(1), true);
      return;
    }
    if (ticket !== loading) return;
    setStatus(status, "");
    renderKeyMoments(summary, body, root.dataset.handUrl);
  }

  // the review panel's seat picker chooses whose play both show
  document.getElementById("review-seat")?.addEventListener("change", (event) => {
    seat = Number(event.target.value);
    load();
  });
  load();
}

const root = document.getElementById("key-moments");
if (root) start(root);
